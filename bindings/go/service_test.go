package kuatia

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// serviceNow is 2025-03-10 13:11:00 UTC = 10:11 in Asunción.
const serviceNow = 1741612260

// testClock is a settable clock for ServiceOptions.Now.
type testClock struct{ unix atomic.Int64 }

func (c *testClock) now() time.Time { return time.Unix(c.unix.Load(), 0) }

func newClock() *testClock {
	c := &testClock{}
	c.unix.Store(serviceNow)
	return c
}

func sandboxHeader(key string) http.Header {
	return http.Header{"Authorization": {"Bearer " + key}, "X-Environment": {"sandbox"}}
}

func factura(simulate string) []byte {
	v := map[string]any{
		"tipo_documento": 1,
		"receptor":       map[string]any{"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A."},
		"items": []map[string]any{{"descripcion": "Servicio de consultoría", "cantidad": 1,
			"precio_unitario": 1100000, "iva": 10}},
		"condicion_pago": 1,
	}
	if simulate != "" {
		v["_simulate"] = simulate
	}
	b, _ := json.Marshal(v)
	return b
}

type envelope struct {
	OK   bool           `json:"ok"`
	Data map[string]any `json:"data"`
	Meta map[string]any `json:"meta"`
	Err  struct {
		Code string `json:"code"`
	} `json:"error"`
}

func decode(t *testing.T, r *Response) envelope {
	t.Helper()
	var e envelope
	if err := r.JSON(&e); err != nil {
		t.Fatalf("body is not JSON: %v: %q", err, r.Body)
	}
	return e
}

func TestServiceSpecFlow(t *testing.T) {
	signer, err := SandboxSigner()
	if err != nil {
		t.Fatal(err)
	}
	defer signer.Close()
	clock := newClock()
	svc, err := NewService(&ServiceOptions{
		Config:        map[string]any{"base_url": "https://erp.example.test"},
		SandboxSigner: signer,
		Now:           clock.now,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	acct, err := svc.CreateAccount("Empresa de prueba")
	if err != nil {
		t.Fatal(err)
	}
	if len(acct.ID) < 6 || acct.ID[:5] != "acct_" || len(acct.Key) < 9 || acct.Key[:8] != "dk_test_" {
		t.Fatalf("account %+v", acct)
	}
	h := sandboxHeader(acct.Key)
	r, err := svc.Handle("POST", "/v1/facturas", h, factura("approved"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != 201 {
		t.Fatalf("POST: %d %s", r.Status, r.Body)
	}
	d := decode(t, r).Data
	id, cdc := d["id"].(string), d["cdc"].(string)
	if d["status"] != "approved" || d["numero"] != "001-001-0000001" || len(cdc) != 44 {
		t.Fatalf("created %v", d)
	}
	if d["kude_url"] != "https://erp.example.test/v1/facturas/"+id+"/kude" {
		t.Fatalf("kude_url %v", d["kude_url"])
	}
	// The CDC is valid for the library's own parser and carries the sandbox emitter.
	parsed, err := CDCParse(cdc)
	if err != nil || parsed.RUC != "44444401-7" {
		t.Fatalf("CDCParse: %+v %v", parsed, err)
	}

	clock.unix.Add(1)
	g, err := svc.Handle("GET", "/v1/facturas/"+id, h, nil)
	if err != nil || g.Status != 200 || decode(t, g).Data["cdc"] != cdc {
		t.Fatalf("GET: %v %+v", err, g)
	}
	k, err := svc.Handle("GET", "/v1/facturas/"+id+"/kude", h, nil)
	if err != nil || k.Status != 200 {
		t.Fatalf("KuDE: %v %+v", err, k)
	}
	if k.Header.Get("Content-Type") != "application/pdf" || !bytes.HasPrefix(k.Body, []byte("%PDF-")) ||
		!bytes.Contains(k.Body[len(k.Body)-64:], []byte("%%EOF")) {
		t.Fatalf("KuDE is not a PDF: %v, %d bytes", k.Header, len(k.Body))
	}
}

func TestServiceUnauthorized(t *testing.T) {
	svc, err := NewService(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	if _, err := svc.CreateAccount("A"); err != nil {
		t.Fatal(err)
	}
	r, err := svc.Handle("GET", "/v1/facturas", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != 401 || decode(t, r).Err.Code != "UNAUTHORIZED" || r.Header.Get("WWW-Authenticate") != "Bearer" {
		t.Fatalf("no key: %d %s %v", r.Status, r.Body, r.Header)
	}
	other, _ := NewService(nil)
	foreign, _ := other.CreateAccount("B")
	other.Close()
	r, err = svc.Handle("GET", "/v1/facturas", sandboxHeader(foreign.Key), nil)
	if err != nil || r.Status != 401 {
		t.Fatalf("a key of another service: %v %d", err, r.Status)
	}
}

func TestServiceSandboxClockAndWebhooks(t *testing.T) {
	clock := newClock()
	svc, err := NewService(&ServiceOptions{
		Config: `{"sandbox_send_after":10,"sandbox_answer_after":20}`,
		Now:    clock.now,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	acct, _ := svc.CreateAccount("A")
	h := sandboxHeader(acct.Key)
	w, err := svc.Handle("POST", "/v1/webhooks", h,
		[]byte(`{"url":"https://erp.example.test/h","events":["factura.approved"]}`))
	if err != nil || w.Status != 201 {
		t.Fatalf("webhook: %v %+v", err, w)
	}
	secret := decode(t, w).Data["secret"].(string)
	r, _ := svc.Handle("POST", "/v1/facturas", h, factura(""))
	id := decode(t, r).Data["id"].(string)
	status := func() any {
		g, err := svc.Handle("GET", "/v1/facturas/"+id, h, nil)
		if err != nil {
			t.Fatal(err)
		}
		return decode(t, g).Data["status"]
	}
	clock.unix.Store(serviceNow + 9)
	if s := status(); s != "pending" {
		t.Fatalf("at +9 s: %v", s)
	}
	clock.unix.Store(serviceNow + 20)
	if err := svc.Tick(); err != nil {
		t.Fatal(err)
	}
	if s := status(); s != "approved" {
		t.Fatalf("at +20 s: %v", s)
	}
	due, err := svc.DueDeliveries()
	if err != nil || len(due) != 1 {
		t.Fatalf("due: %v %+v", err, due)
	}
	d := due[0]
	sig := ""
	for _, kv := range d.Headers {
		if kv[0] == "Kuatia-Signature" {
			sig = kv[1]
		}
	}
	// Recomputed with Go's own HMAC: t=<timestamp>,v1=hex(HMAC-SHA256(secret, "t.body")).
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "%d.%s", serviceNow+20, d.Body)
	if want := fmt.Sprintf("t=%d,v1=%s", serviceNow+20, hex.EncodeToString(mac.Sum(nil))); sig != want {
		t.Fatalf("signature %q, want %q", sig, want)
	}
	again, err := svc.ReportDelivery(d.ID, false)
	if err != nil || again.Status != "pending" || again.NextAttemptAt != serviceNow+20+60 {
		t.Fatalf("after a failure: %v %+v", err, again)
	}
	done, err := svc.ReportDelivery(d.ID, true)
	if err != nil || done.Status != "delivered" {
		t.Fatalf("after success: %v %+v", err, done)
	}
	_, err = svc.ReportDelivery("dlv_nope", true)
	if e := asError(t, err); e.Code != "NOT_FOUND" || !errors.Is(err, StatusInvalidInput) {
		t.Fatalf("unknown delivery: %v", err)
	}
}

func TestServiceKeysErrorsAndClose(t *testing.T) {
	svc, err := NewService(nil)
	if err != nil {
		t.Fatal(err)
	}
	acct, _ := svc.CreateAccount("A")
	live, err := svc.CreateKey(acct.ID, true)
	if err != nil || len(live) < 9 || live[:8] != "dk_live_" {
		t.Fatalf("live key %q %v", live, err)
	}
	_, err = svc.CreateKey("acct_nobody", false)
	if e := asError(t, err); e.Code != "NOT_FOUND" || e.Path != "account_id" {
		t.Fatalf("unknown account: %v", err)
	}
	if _, err := NewService(&ServiceOptions{Config: `{"colour":"red"}`}); asError(t, err).Path != "config.colour" {
		t.Fatalf("bad config: %v", err)
	}
	svc.Close()
	svc.Close()
	if _, err := svc.CreateAccount("B"); !errors.Is(err, ErrServiceClosed) {
		t.Fatalf("closed service: %v", err)
	}
	closed, _ := SandboxSigner()
	closed.Close()
	s2, _ := NewService(&ServiceOptions{SandboxSigner: closed})
	defer s2.Close()
	if _, err := s2.Handle("GET", "/v1/health", nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("closed signer: %v", err)
	}
}

func TestServiceManyGoroutines(t *testing.T) {
	svc, err := NewService(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	acct, _ := svc.CreateAccount("A")
	h := sandboxHeader(acct.Key)
	var mu sync.Mutex
	var numbers []string
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 3; i++ {
				r, err := svc.Handle("POST", "/v1/facturas", h, factura("approved"))
				if err != nil || r.Status != 201 {
					t.Errorf("POST: %v %+v", err, r)
					return
				}
				var e envelope
				_ = r.JSON(&e)
				mu.Lock()
				numbers = append(numbers, e.Data["numero"].(string))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sort.Strings(numbers)
	for i, n := range numbers {
		if want := fmt.Sprintf("001-001-%07d", i+1); n != want {
			t.Fatalf("numbers %v", numbers)
		}
	}
	if len(numbers) != 12 {
		t.Fatalf("numbers %v", numbers)
	}
}

// liveService is a service whose account issues live invoices with the built-in sandbox profile (SIFEN's test
// environment), signed by the sandbox test certificate as the production one.
func liveService(t *testing.T, clock *testClock) (*Service, http.Header, func()) {
	t.Helper()
	signer, err := SandboxSigner()
	if err != nil {
		t.Fatal(err)
	}
	svc, err := NewService(&ServiceOptions{
		Config:           map[string]any{"sifen_retry": []int{1}},
		ProductionSigner: signer,
		Now:              clock.now,
	})
	if err != nil {
		t.Fatal(err)
	}
	acct, err := svc.CreateAccount("Emisor")
	if err != nil {
		t.Fatal(err)
	}
	live, err := svc.CreateKey(acct.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.SetProductionProfile(acct.ID, nil); err != nil {
		t.Fatal(err)
	}
	return svc, http.Header{"Authorization": {"Bearer " + live}}, func() { svc.Close(); signer.Close() }
}

func createLive(t *testing.T, svc *Service, h http.Header) (string, string) {
	t.Helper()
	r, err := svc.Handle("POST", "/v1/facturas", h, factura(""))
	if err != nil || r.Status != 201 {
		t.Fatalf("POST live: %v %+v", err, r)
	}
	d := decode(t, r).Data
	if d["status"] != "pending" {
		t.Fatalf("created %v", d)
	}
	return d["id"].(string), d["cdc"].(string)
}

func dueOne(t *testing.T, svc *Service) SifenJob {
	t.Helper()
	jobs, err := svc.DueSifen(10)
	if err != nil || len(jobs) != 1 {
		t.Fatalf("DueSifen: %v %+v", err, jobs)
	}
	return jobs[0]
}

func TestServiceSifenApprovalRoundTrip(t *testing.T) {
	clock := newClock()
	svc, h, done := liveService(t, clock)
	defer done()
	id, cdc := createLive(t, svc, h)
	job := dueOne(t, svc)
	if job.Service != "recibe" || job.URL != "https://sifen-test.set.gov.py/de/ws/sync/recibe.wsdl" ||
		len(job.Invoices) != 1 || job.Invoices[0] != id || !strings.Contains(job.Body, `<DE Id="`+cdc+`"`) {
		t.Fatalf("job %+v", job)
	}
	if again, err := svc.DueSifen(10); err != nil || len(again) != 0 {
		t.Fatalf("in flight: %v %+v", err, again)
	}
	const sampleCDC = "01444444017001001000000122025031011234567890"
	sample, err := os.ReadFile(filepath.Join(repoRoot, "core", "tests", "sifen_samples", "recibe_aprobado.xml"))
	if err != nil {
		t.Fatal(err)
	}
	answer := bytes.ReplaceAll(sample, []byte(sampleCDC), []byte(cdc))
	clock.unix.Add(1)
	progress, err := svc.ReportSifen(job, SifenAnswer(200, answer))
	if err != nil || len(progress) != 1 {
		t.Fatalf("ReportSifen: %v %+v", err, progress)
	}
	if p := progress[0]; p.InvoiceID != id || p.Status != "approved" || p.Transmission.Next != "idle" {
		t.Fatalf("progress %+v", p)
	}
	g, err := svc.Handle("GET", "/v1/facturas/"+id, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := decode(t, g).Data; d["status"] != "approved" || d["protocolo"] != "1234567890" {
		t.Fatalf("GET %v", d)
	}
}

func TestServiceSifenTimeoutThenQuery(t *testing.T) {
	clock := newClock()
	svc, h, done := liveService(t, clock)
	defer done()
	_, cdc := createLive(t, svc, h)
	progress, err := svc.ReportSifen(dueOne(t, svc), SifenTimeout())
	if err != nil || len(progress) != 1 {
		t.Fatalf("ReportSifen: %v %+v", err, progress)
	}
	tr := progress[0].Transmission
	if progress[0].Status != "pending" || tr.Next != "query" || tr.DueAt != serviceNow+1 || tr.Attempts != 1 {
		t.Fatalf("progress %+v", progress[0])
	}
	if jobs, _ := svc.DueSifen(10); len(jobs) != 0 {
		t.Fatalf("before the back-off: %+v", jobs)
	}
	clock.unix.Add(1)
	query := dueOne(t, svc)
	if query.Service != "consulta" || !strings.Contains(query.Body, cdc) {
		t.Fatalf("query %+v", query)
	}
	progress, err = svc.ReportSifen(query, SifenFailed("connection refused"))
	if err != nil || progress[0].Transmission.LastError != "transport: connection refused" ||
		progress[0].Transmission.Attempts != 2 {
		t.Fatalf("ReportSifen: %v %+v", err, progress)
	}
}

func TestServiceSifenErrors(t *testing.T) {
	svc, err := NewService(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	acct, _ := svc.CreateAccount("A")
	var kerr *Error
	if err := svc.SetProductionProfile("acct_nobody", nil); !errors.As(err, &kerr) || kerr.Code != "NOT_FOUND" {
		t.Fatalf("unknown account: %v", err)
	}
	err = svc.SetProductionProfile(acct.ID, map[string]any{"ruc": 1})
	if !errors.As(err, &kerr) || !errors.Is(err, StatusInvalidInput) || !strings.HasPrefix(kerr.Path, "profile") {
		t.Fatalf("bad profile: %v", err)
	}
	job := SifenJob{AccountID: acct.ID, Service: "recibe", URL: "https://x", ContentType: "application/xml",
		Body: "<x/>", DID: 1, Invoices: []string{"fact_nobody"}}
	if p, err := svc.ReportSifen(job, SifenTimeout()); err != nil || len(p) != 0 {
		t.Fatalf("unknown invoice: %v %+v", err, p)
	}
	if _, err := svc.ReportSifen(job, SifenOutcome{}); err == nil {
		t.Fatal("the zero SifenOutcome was accepted")
	}
	if _, err := svc.ReportSifen(job, SifenAnswer(70000, nil)); err == nil {
		t.Fatal("status 70000 was accepted")
	}
	if _, err := svc.ReportSifen(SifenJob{Service: "nope"}, SifenTimeout()); !errors.Is(err, StatusInvalidInput) {
		t.Fatalf("bad job: %v", err)
	}
	if _, err := svc.DueSifen(-1); err == nil {
		t.Fatal("negative limit accepted")
	}
}
