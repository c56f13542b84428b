package kuatia

// The adversarial table (tests/adversarial/*.json) replayed through the Go binding. Every vector goes to the
// function that reaches its core entry point (request: Validate, and up to 1 MiB also ComputeTotals and Issue;
// validate: Validate's report; xml: KudePDF; verify: Verify's report; sifen_response: SifenParseResponse; ruc:
// RUCCheck; cdc: CDCParse; p12: SignerFromP12) and must give the code (and path) the Rust replay asserts, within a
// time bound, without a crash. The C boundary's two rules apply first (tests/adversarial/README.md): an input
// longer than KUATIA_MAX_INPUT_LEN is TOO_LARGE, and bytes that are not UTF-8 given to a text argument are
// INVALID_UTF8 (a Go string holds any bytes, so they reach the library as they are). Go never passes NULL: nil
// is an empty input, checked below, as are values encoding/json cannot write. The peak RSS is bounded.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

const (
	advTimeBound = 10 * time.Second // generous: the slowest vector takes about 2 s under -race
	advSmall     = 1 << 20          // larger inputs (the 100 MB vectors) go through one function only
	advMaxInput  = 64 * 1024 * 1024 // KUATIA_MAX_INPUT_LEN (checked against the header below)
	advRSSBound  = 1536 * 1024      // KiB; peak RSS of the test process after the table (~450 MiB, ~850 under -race)
)

type advVector struct {
	Name     string `json:"name"`
	Target   string `json:"target"`
	Password string `json:"password"`
	Input    struct {
		Text   *string `json:"text"`
		Base64 *string `json:"base64"`
		Repeat *struct {
			Prefix string `json:"prefix"`
			Unit   string `json:"unit"`
			Count  int    `json:"count"`
			Suffix string `json:"suffix"`
		} `json:"repeat"`
	} `json:"input"`
	Expect struct {
		OK   bool    `json:"ok"`
		Code string  `json:"code"`
		Path *string `json:"path"`
	} `json:"expect"`
}

func advVectors(t *testing.T) []advVector {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "tests", "adversarial", "*.json"))
	if err != nil || len(files) < 4 {
		t.Fatalf("adversarial table missing: %v %v", files, err)
	}
	sort.Strings(files)
	var out []advVector
	seen := map[string]bool{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Vectors []advVector `json:"vectors"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, v := range doc.Vectors {
			if seen[v.Name] {
				t.Fatalf("duplicate vector %s", v.Name)
			}
			seen[v.Name] = true
			out = append(out, v)
		}
	}
	if len(out) < 100 {
		t.Fatalf("only %d vectors", len(out))
	}
	return out
}

func (v *advVector) bytes(t *testing.T) []byte {
	switch {
	case v.Input.Text != nil:
		return []byte(*v.Input.Text)
	case v.Input.Base64 != nil:
		b, err := base64.StdEncoding.DecodeString(*v.Input.Base64)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		return b
	case v.Input.Repeat != nil:
		r := v.Input.Repeat
		b := make([]byte, 0, len(r.Prefix)+len(r.Unit)*r.Count+len(r.Suffix))
		b = append(b, r.Prefix...)
		if strings.Contains(r.Unit, "{i}") { // numbered copies: "{i}" is the copy's index
			for i := 0; i < r.Count; i++ {
				b = append(b, strings.ReplaceAll(r.Unit, "{i}", strconv.Itoa(i))...)
			}
		} else {
			b = append(b, bytes.Repeat([]byte(r.Unit), r.Count)...)
		}
		return append(b, r.Suffix...)
	}
	t.Fatalf("%s: no input", v.Name)
	return nil
}

// advOutcome is what one call answered: accepted (nil) or the first finding and the status (-1 for a report).
type advOutcome struct {
	code, path, message string
	status              Status
}

func advFromErr(t *testing.T, err error) *advOutcome {
	t.Helper()
	if err == nil {
		return nil
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want *kuatia.Error, got %T %v", err, err)
	}
	return &advOutcome{e.Code, e.Path, e.Message, e.Status}
}

type advCall struct {
	fn   string
	call func() *advOutcome
}

func advCalls(t *testing.T, v *advVector, data []byte, signer *Signer) []advCall {
	small := len(data) <= advSmall
	var calls []advCall
	switch v.Target {
	case "request", "validate":
		calls = append(calls, advCall{"Validate", func() *advOutcome {
			r, err := Validate(data, &Options{Now: advNow(t)})
			if err != nil { // only the boundary (size, UTF-8) is an error; findings are the report
				return advFromErr(t, err)
			}
			if r.OK {
				return nil
			}
			f := r.Errors[0]
			return &advOutcome{f.Code, f.Path, f.Message, -1}
		}})
		if v.Target == "request" && small {
			calls = append(calls,
				advCall{"ComputeTotals", func() *advOutcome {
					_, err := ComputeTotals(data)
					return advFromErr(t, err)
				}},
				advCall{"Issue", func() *advOutcome {
					_, err := Issue(data, signer, 1, 123456789, &Options{Now: advNow(t)})
					return advFromErr(t, err)
				}})
		}
	case "xml":
		calls = append(calls, advCall{"KudePDF", func() *advOutcome {
			_, err := KudePDF(string(data), KudeA4, false)
			return advFromErr(t, err)
		}})
	case "verify":
		calls = append(calls, advCall{"Verify", func() *advOutcome {
			r, err := Verify(string(data), time.Time{})
			if err != nil {
				return advFromErr(t, err)
			}
			if r.Valid != (r.Error == nil) {
				t.Errorf("%s: valid %v with error %v", v.Name, r.Valid, r.Error)
			}
			if r.Valid {
				return nil
			}
			return &advOutcome{r.Error.Code, r.Error.Path, r.Error.Message, -1}
		}})
	case "sifen_response":
		calls = append(calls, advCall{"SifenParseResponse", func() *advOutcome {
			_, err := SifenParseResponse(data)
			return advFromErr(t, err)
		}})
	case "ruc":
		calls = append(calls, advCall{"RUCCheck", func() *advOutcome { return advFromErr(t, RUCCheck(string(data))) }})
	case "cdc":
		calls = append(calls, advCall{"CDCParse", func() *advOutcome {
			_, err := CDCParse(string(data))
			return advFromErr(t, err)
		}})
	case "p12":
		calls = append(calls, advCall{"SignerFromP12", func() *advOutcome {
			s, err := SignerFromP12(data, v.Password)
			if err == nil {
				s.Close()
			}
			return advFromErr(t, err)
		}})
	}
	return calls
}

func advNow(t *testing.T) time.Time {
	now, err := ParaguayTime("2025-03-10T10:11:00")
	if err != nil {
		t.Fatal(err)
	}
	return now
}

// advExpected is the table's expectation, unless a rule of the C boundary answers first.
func advExpected(v *advVector, data []byte) (ok bool, code string, path *string) {
	if len(data) > advMaxInput {
		return false, "TOO_LARGE", nil
	}
	if v.Target != "sifen_response" && v.Target != "p12" && !utf8.Valid(data) {
		return false, "INVALID_UTF8", nil
	}
	return v.Expect.OK, v.Expect.Code, v.Expect.Path
}

func TestAdversarialTable(t *testing.T) {
	header, err := os.ReadFile(filepath.Join(repoRoot, "include", "kuatia.h"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(header), "#define KUATIA_MAX_INPUT_LEN ((64 * 1024) * 1024)") {
		t.Fatal("KUATIA_MAX_INPUT_LEN changed: update advMaxInput")
	}
	signer, err := SandboxSigner()
	if err != nil {
		t.Fatal(err)
	}
	defer signer.Close()
	start := time.Now()
	calls := 0
	for _, v := range advVectors(t) {
		v := v
		data := v.bytes(t)
		wantOK, wantCode, wantPath := advExpected(&v, data)
		list := advCalls(t, &v, data, signer)
		if len(list) == 0 {
			t.Errorf("%s: no function for target %s", v.Name, v.Target)
		}
		for _, c := range list {
			calls++
			t0 := time.Now()
			got := c.call()
			if d := time.Since(t0); d > advTimeBound {
				t.Errorf("%s via %s: took %v", v.Name, c.fn, d)
			} else if d > time.Second {
				t.Logf("%s via %s: %v", v.Name, c.fn, d.Round(time.Millisecond))
			}
			switch {
			case wantOK && got != nil:
				t.Errorf("%s via %s: expected ok, got %s at %q", v.Name, c.fn, got.code, got.path)
			case wantOK:
			case got == nil:
				t.Errorf("%s via %s: accepted, expected %s", v.Name, c.fn, wantCode)
			default:
				if got.code != wantCode {
					t.Errorf("%s via %s: expected %s, got %s at %q: %s", v.Name, c.fn, wantCode, got.code, got.path,
						got.message)
				}
				if wantPath != nil && got.path != *wantPath {
					t.Errorf("%s via %s: expected path %s, got %q", v.Name, c.fn, *wantPath, got.path)
				}
				if len(got.message) > 4096 {
					t.Errorf("%s via %s: message of %d bytes", v.Name, c.fn, len(got.message))
				}
				if got.status >= 0 {
					want := StatusInvalidInput
					switch {
					case got.code == "TOO_LARGE":
						want = StatusTooLarge
					case got.code == "INVALID_UTF8":
						want = StatusInvalidUTF8
					case strings.HasPrefix(got.code, "P12_"):
						want = StatusSignError
					}
					if got.status != want {
						t.Errorf("%s via %s: status %s for %s", v.Name, c.fn, got.status, got.code)
					}
				}
			}
		}
		if len(data) > advSmall {
			// Return the 100 MB copies to the OS now, so the peak RSS measures the library, not GC pacing.
			data = nil
			debug.FreeOSMemory()
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil && ru.Maxrss > advRSSBound {
		t.Errorf("peak RSS %d MiB (bound %d MiB)", ru.Maxrss/1024, advRSSBound/1024)
	}
	t.Logf("%d calls in %v, peak RSS %d MiB", calls, time.Since(start).Round(time.Millisecond), ru.Maxrss/1024)
}

// Go has no NULL string: nil and "" are empty inputs (the binding gives them a valid pointer), rejected with the
// code of the table's `empty` vectors; a nil signer is ErrClosed before any call.
func TestAdversarialNilAndWrongTypes(t *testing.T) {
	now := &Options{Now: advNow(t)}
	if r, err := Validate(nil, now); err != nil || r.OK || r.Errors[0].Code != "MALFORMED_JSON" {
		t.Errorf("Validate(nil): %+v %v", r, err)
	}
	if _, err := ComputeTotals(nil); advFromErr(t, err) == nil || advFromErr(t, err).code != "MALFORMED_JSON" {
		t.Errorf("ComputeTotals(nil): %v", err)
	}
	if _, err := SifenParseResponse(nil); advFromErr(t, err) == nil ||
		advFromErr(t, err).code != "SIFEN_UNEXPECTED_RESPONSE" {
		t.Errorf("SifenParseResponse(nil): %v", err)
	}
	if _, err := SignerFromP12(nil, ""); advFromErr(t, err) == nil || advFromErr(t, err).code != "P12_INVALID" {
		t.Errorf("SignerFromP12(nil): %v", err)
	}
	if _, err := KudePDF("", KudeA4, false); advFromErr(t, err) == nil || advFromErr(t, err).code != "MALFORMED_XML" {
		t.Errorf("KudePDF(\"\"): %v", err)
	}
	if err := RUCCheck(""); advFromErr(t, err) == nil || advFromErr(t, err).code != "INVALID_RUC" {
		t.Errorf("RUCCheck(\"\"): %v", err)
	}
	if _, err := Issue(map[string]any{"tipo_documento": 1}, nil, 1, 1, now); !errors.Is(err, ErrClosed) {
		t.Errorf("Issue(nil signer): %v", err)
	}
	// Values encoding/json cannot write fail in the binding, before the library; wrong JSON types are findings.
	for _, bad := range []any{func() {}, make(chan int), map[string]any{"x": 1i}} {
		if _, err := Validate(bad, now); err == nil {
			t.Errorf("Validate(%T) accepted", bad)
		} else if e := (*Error)(nil); errors.As(err, &e) {
			t.Errorf("Validate(%T): %v is a library error", bad, err)
		}
	}
	for _, wrong := range []any{123, "[]", []int{1}, map[string]any{"tipo_documento": "1"}} {
		r, err := Validate(wrong, now)
		if err != nil || r.OK || r.Errors[0].Code != "VALIDATION_ERROR.INVALID_TYPE" {
			t.Errorf("Validate(%#v): %+v %v", wrong, r, err)
		}
	}
}
