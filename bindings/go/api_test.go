package kuatia

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var certDir = filepath.Join(repoRoot, "tests", "fixtures", "certs")

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(certDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func asError(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want *kuatia.Error, got %T %v", err, err)
	}
	return e
}

func TestHeaderParity(t *testing.T) {
	header, err := os.ReadFile(filepath.Join(repoRoot, "include", "kuatia.h"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(header), `#define KUATIA_VERSION "`+Version()+`"`) {
		t.Fatalf("version %s is not the header's", Version())
	}
	found := 0
	for _, m := range regexp.MustCompile(`(?m)^\s+KUATIA_STATUS_(\w+) = (\d+),`).FindAllStringSubmatch(string(header), -1) {
		n, _ := strconv.Atoi(m[2])
		if Status(n).String() != m[1] {
			t.Errorf("status %d is %s in the header, %s here", n, m[1], Status(n))
		}
		found++
	}
	if found != len(statusNames) {
		t.Errorf("header has %d statuses, binding %d", found, len(statusNames))
	}
}

func TestRUC(t *testing.T) {
	if dv, err := RUCCheckDigit("80069563"); err != nil || dv != 1 { // SIFEN.md §1
		t.Fatalf("dv %d %v", dv, err)
	}
	if err := RUCCheck("80069563-1"); err != nil {
		t.Fatal(err)
	}
	e := asError(t, RUCCheck("80069563-2"))
	if e.Code != "INVALID_RUC" || e.Status != StatusInvalidInput {
		t.Fatalf("%+v", e)
	}
	// An empty string is an empty input, not a missing (NULL) argument.
	_, err := RUCCheckDigit("")
	if e := asError(t, err); e.Code != "INVALID_RUC" {
		t.Fatalf("%+v", e)
	}
}

func TestCDC(t *testing.T) {
	fields := CDCFields{TipoDocumento: 1, RUC: "44444401-7", Establecimiento: 1, Punto: 1, Numero: 1,
		TipoContribuyente: 2, Fecha: "2025-03-10", TipoEmision: 1, CodigoSeguridad: 123456789}
	cdc, err := CDCBuild(fields)
	if err != nil || cdc != "01444444017001001000000122025031011234567890" {
		t.Fatalf("%s %v", cdc, err)
	}
	parts, err := CDCParse(cdc)
	if err != nil || parts.CDCFields != fields || parts.DV != 0 || len(parts.Grouped) != 54 {
		t.Fatalf("%+v %v", parts, err)
	}
	_, err = CDCParse(cdc[:43] + "1")
	if e := asError(t, err); e.Code != "INVALID_CDC" {
		t.Fatal(e)
	}
	_, err = CDCBuild(`{"numero":"uno"}`)
	if e := asError(t, err); e.Status != StatusInvalidInput {
		t.Fatal(e)
	}
}

func TestQRManualExample(t *testing.T) {
	qr, err := QRBuild(map[string]any{
		"cdc": "01444444017001001001452822017012515873260988", "fecha_emision": "2017-01-25T09:35:17",
		"receptor": map[string]string{"ruc": "88899990"}, "total": "300000", "total_iva": "27272", "items": 2,
		"digest_value": "yzGYhUx1/XYYzksWB+fPR3Qc50c=", "csc_id": "0001", "csc": sandboxCSC, "ambiente": "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	// Independent check of cHashQR: SHA-256 of the parameters before it followed by the CSC (SIFEN.md §5).
	_, params, _ := strings.Cut(qr, "?")
	head, hash, ok := strings.Cut(params, "&cHashQR=")
	sum := sha256.Sum256([]byte(head + sandboxCSC))
	if !ok || hash != hex.EncodeToString(sum[:]) || hash != "97ddbb3c1e7d65af03a70ffe21f2b34846ab1c89e0566c35222086766b7374ed" {
		t.Fatalf("%s", qr)
	}
	parts, err := QRParse(qr, sandboxCSC)
	if err != nil || parts["hash_ok"] != true || parts["items"] != float64(2) {
		t.Fatalf("%v %v", parts, err)
	}
	if parts, _ := QRParse(qr, "EFGH0000000000000000000000000000"); parts["hash_ok"] != false {
		t.Fatal("a wrong CSC must not match")
	}
	if parts, _ := QRParse(qr, ""); parts["hash_ok"] != nil {
		t.Fatal("no CSC, no hash check")
	}
}

func TestInvalidUTF8(t *testing.T) {
	_, err := RUCCheckDigit("8006\xff9563")
	e := asError(t, err)
	if e.Status != StatusInvalidUTF8 || e.Code != "INVALID_UTF8" || e.Path != "body" || !errors.Is(err, StatusInvalidUTF8) {
		t.Fatalf("%+v", e)
	}
	_, err = Validate([]byte("{\"tipo_documento\":1,\"items\":[{\"descripcion\":\"\xc3\"}]}"), nil)
	if e := asError(t, err); e.Code != "INVALID_UTF8" || e.Path != "request_json" {
		t.Fatalf("%+v", e)
	}
}

func TestWrongTypes(t *testing.T) {
	spec := caseNamed(t, "fe_spec_example")
	now, _ := ParaguayTime(spec.Context.Now)
	opt := &Options{Now: now}
	// A Go value encoding/json cannot marshal is a plain error before any C call.
	if _, err := Validate(map[string]any{"x": make(chan int)}, opt); err == nil || errors.As(err, new(*Error)) {
		t.Fatalf("%v", err)
	}
	// Wrong JSON types inside a request: findings with the field's path.
	r, err := Validate(`{"tipo_documento":1,"items":"x"}`, opt)
	if err != nil || r.OK || len(r.Errors) == 0 {
		t.Fatalf("%+v %v", r, err)
	}
	_, err = ComputeTotals(`{"tipo_documento":1,"items":[{"cantidad":[1]}]}`)
	if e := asError(t, err); e.Status != StatusInvalidInput || !strings.HasPrefix(e.Findings[0].Path, "items[0]") {
		t.Fatalf("%+v", e)
	}
	_, err = ComputeTotals("{not json")
	if e := asError(t, err); e.Code != "MALFORMED_JSON" {
		t.Fatalf("%+v", e)
	}
	_, err = Validate(spec.Request, &Options{Profile: map[string]int{"nope": 1}, Now: now})
	if e := asError(t, err); !strings.HasPrefix(e.Path, "profile") {
		t.Fatalf("%+v", e)
	}
	if _, err := KudePDF("<x/>", KudeFormat(7), false); !errors.Is(err, StatusInvalidArgument) {
		t.Fatal(err)
	}
}

func TestBadP12NeverEchoesThePassword(t *testing.T) {
	const password = "s3cr3t-Pässwörd"
	p12 := mustRead(t, "sandbox.p12")
	for _, blob := range [][]byte{nil, []byte("not a pkcs12 file"), p12[:200]} {
		s, err := SignerFromP12(blob, password)
		e := asError(t, err)
		if s != nil || e.Code != "P12_INVALID" || !errors.Is(err, StatusSignError) {
			t.Fatalf("%+v", e)
		}
		if strings.Contains(err.Error()+e.Message+e.Path, password) {
			t.Fatal("password in the error")
		}
		for _, f := range e.Findings {
			if strings.Contains(f.Message, password) {
				t.Fatal("password in a finding")
			}
		}
	}
	_, err := SignerFromP12(p12, password)
	if e := asError(t, err); e.Code != "P12_WRONG_PASSWORD" || strings.Contains(err.Error(), password) {
		t.Fatalf("%+v", e)
	}
	_, err = SignerFromP12(mustRead(t, "rsa1024.p12"), "kuatia-test")
	if e := asError(t, err); !strings.HasPrefix(e.Code, "KEY_") {
		t.Fatalf("%+v", e)
	}
}

func TestSignersFromP12AndPEMSignLikeTheSandbox(t *testing.T) {
	spec := caseNamed(t, "fe_spec_example")
	now, _ := ParaguayTime(spec.Context.Now)
	a, err := SignerFromP12(mustRead(t, "sandbox.p12"), "kuatia-test")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := SignerFromPEM(mustRead(t, "sandbox.key.pem"), mustRead(t, "sandbox.cert.pem"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, s := range []*Signer{a, b} {
		doc, err := Issue(spec.Request, s, spec.Context.Numero, spec.Context.CodigoSeguridad, &Options{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		// RSA PKCS#1 v1.5 is deterministic: the same key gives the byte-identical document Rust recorded.
		if sum := sha256.Sum256([]byte(doc.XML)); hex.EncodeToString(sum[:]) != spec.Expected.XMLSHA256 {
			t.Fatal("signed XML differs from the recorded one")
		}
	}
}

func TestSignVerifyTamperAndKude(t *testing.T) {
	spec := caseNamed(t, "fe_spec_example")
	now, _ := ParaguayTime(spec.Context.Now)
	preview, err := PreviewXML(spec.Request, 1, 123456789, &Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	s, err := SandboxSigner()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	signed, err := s.Sign(preview, spec.Expected.CDC)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sign(preview, "no-such-id"); !errors.Is(err, StatusInvalidInput) {
		t.Fatal(err)
	}
	v, err := Verify(signed, time.Time{})
	if err != nil || !v.Valid || !v.DigestOK || !v.SignatureOK {
		t.Fatalf("%+v %v", v, err)
	}
	bad, err := Verify(strings.Replace(signed, "<dCodSeg>", "<dCodSeg>9", 1), now)
	if err != nil || bad.Valid || bad.DigestOK {
		t.Fatalf("tampered document verified: %+v %v", bad, err)
	}
	if _, err := KudePDF(preview, KudeA4, false); !errors.Is(err, StatusInvalidInput) {
		t.Fatalf("an unsigned preview has no QR: %v", err)
	}
	doc, err := Issue(spec.Request, s, 1, 123456789, &Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []KudeFormat{KudeA4, KudeTicket} {
		pdf, err := KudePDF(doc.XML, f, f == KudeTicket)
		if err != nil || len(pdf) < 1000 || string(pdf[:5]) != "%PDF-" {
			t.Fatalf("format %d: %d bytes, %v", f, len(pdf), err)
		}
	}
}

func TestSignerLifeCycle(t *testing.T) {
	spec := caseNamed(t, "fe_spec_example")
	s, err := SandboxSigner()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // idempotent
		t.Fatal(err)
	}
	if _, err := Issue(spec.Request, s, 1, 1, nil); !errors.Is(err, ErrClosed) {
		t.Fatal(err)
	}
	if _, err := Issue(spec.Request, nil, 1, 1, nil); !errors.Is(err, ErrClosed) {
		t.Fatal(err)
	}
	// Forgotten signers are freed by their finalizer.
	for i := 0; i < 20; i++ {
		if _, err := SandboxSigner(); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.GC()
}

func TestOneSignerManyGoroutines(t *testing.T) {
	spec := caseNamed(t, "fe_spec_example")
	now, _ := ParaguayTime(spec.Context.Now)
	s, err := SandboxSigner()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2; i++ {
				doc, err := Issue(spec.Request, s, 1, 123456789, &Options{Now: now})
				if err != nil {
					errs <- err
					return
				}
				if sum := sha256.Sum256([]byte(doc.XML)); hex.EncodeToString(sum[:]) != spec.Expected.XMLSHA256 {
					errs <- errors.New("different XML")
					return
				}
			}
		}()
	}
	wg.Wait()
	// Close after every call returned; a Close racing calls would wait for them (read/write lock).
	s.Close()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestRandomSecurityCodeAndClock(t *testing.T) {
	spec := caseNamed(t, "fe_spec_example")
	s, err := SandboxSigner()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	seen := map[string]bool{}
	for i := 0; i < 4; i++ {
		code, err := RandomSecurityCode()
		if err != nil {
			t.Fatal(err)
		}
		doc, err := Issue(spec.Request, s, 1, code, nil) // nil options: sandbox profile, the clock
		if err != nil {
			t.Fatal(err)
		}
		seen[doc.CDC] = true
	}
	if len(seen) < 2 {
		t.Fatal("random security codes gave one CDC")
	}
	// Paraguay is UTC-3: 13:11 UTC is the case's 10:11 local time.
	utc := time.Date(2025, 3, 10, 13, 11, 0, 0, time.UTC)
	doc, err := Issue(spec.Request, s, 1, 123456789, &Options{Now: utc})
	if err != nil || doc.CDC != spec.Expected.CDC || doc.FechaEmision != spec.Context.Now {
		t.Fatalf("%+v %v", doc, err)
	}
}
