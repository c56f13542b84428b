package kuatia

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

const (
	esCheckDigit = "El dígito verificador del RUC no corresponde: debería ser 1, no 2"
	enCheckDigit = "wrong RUC check digit: expected 1, got 2"
)

// badRUC is the error of RUCCheck("80069563-2"): its check digit is 1 (SIFEN.md §1).
func badRUC(t *testing.T) *Error {
	t.Helper()
	var e *Error
	if err := RUCCheck("80069563-2"); !errors.As(err, &e) {
		t.Fatalf("RUCCheck: %v", err)
	}
	return e
}

// TestLanguageOfMessages: Spanish by default, English after SetLanguage("en"); the rule id and its parameters either way.
func TestLanguageOfMessages(t *testing.T) {
	defer SetLanguage("es")
	if Language() != "es" {
		t.Fatalf("default language %q", Language())
	}
	e := badRUC(t)
	params := map[string]any{"expected": "1", "got": "2"}
	if e.Code != "INVALID_RUC" || e.Rule != "ruc.check_digit" || e.Message != esCheckDigit || !reflect.DeepEqual(e.Params, params) {
		t.Fatalf("es: %+v", e)
	}
	if f := e.Findings[0]; f.Rule != "ruc.check_digit" || f.Message != esCheckDigit || !reflect.DeepEqual(f.Params, params) {
		t.Fatalf("es finding: %+v", f)
	}
	SetLanguage("en")
	e = badRUC(t)
	if e.Rule != "ruc.check_digit" || e.Message != enCheckDigit || e.Findings[0].Message != enCheckDigit {
		t.Fatalf("en: %+v", e)
	}
}

// TestLocalizeAReport: a validation report in the chosen language, and Localize on a report.
func TestLocalizeAReport(t *testing.T) {
	defer SetLanguage("es")
	raw, err := os.ReadFile(filepath.Join(repoRoot, "tests", "fixtures", "cases", "fe_spec_example.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Request map[string]any `json:"request"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	c.Request["receptor"].(map[string]any)["ruc"] = "80069563-2"
	opt := &Options{Now: advNow(t)}
	find := func() Finding {
		r, err := Validate(c.Request, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range r.Errors {
			if f.Rule == "ruc.check_digit" {
				return f
			}
		}
		t.Fatalf("no ruc.check_digit finding in %+v", r.Errors)
		return Finding{}
	}
	if f := find(); f.Message != esCheckDigit || f.Path != "receptor.ruc" {
		t.Fatalf("es: %+v", f)
	}
	SetLanguage("en")
	if f := find(); f.Message != enCheckDigit {
		t.Fatalf("en: %+v", f)
	}
	report := `{"ok":false,"errors":[{"code":"INVALID_RUC","path":"ruc","message":"x","rule":"ruc.check_digit","params":{"expected":"1","got":"2"}}]}`
	out, err := Localize(report, "es-PY")
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(out, &back); err != nil || back.Errors[0].Message != esCheckDigit {
		t.Fatalf("Localize: %s (%v)", out, err)
	}
	var e *Error
	if _, err := Localize(`{"ok":`, "es"); !errors.As(err, &e) || e.Code != "MALFORMED_JSON" {
		t.Fatalf("Localize of bad JSON: %v", err)
	}
}

// TestRulesAreTheRegistry: Rules() holds every rule tests/fixtures/rules.json records.
func TestRulesAreTheRegistry(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot, "tests", "fixtures", "rules.json"))
	if err != nil {
		t.Fatal(err)
	}
	var recorded []Rule
	if err := json.Unmarshal(raw, &recorded); err != nil {
		t.Fatal(err)
	}
	got, err := Rules()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Rule{}
	for _, r := range got {
		byID[r.Rule] = r
	}
	for _, r := range recorded {
		if !reflect.DeepEqual(byID[r.Rule], r) {
			t.Fatalf("rule %s: %+v, recorded %+v", r.Rule, byID[r.Rule], r)
		}
	}
	if r := byID["ruc.check_digit"]; r.Code != "INVALID_RUC" || len(r.Params) != 2 || r.Params[0].Name != "expected" {
		t.Fatalf("ruc.check_digit: %+v", r)
	}
}

// TestTypedServiceCallsAskForTheChosenLanguage: a typed call sends Accept-Language in the chosen language unless the
// caller sends one; Handle sends what it is given (Spanish, the service's default, without the header).
func TestTypedServiceCallsAskForTheChosenLanguage(t *testing.T) {
	defer SetLanguage("es")
	svc, err := NewService(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	acct, err := svc.CreateAccount("Empresa de prueba")
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Authorization": {"Bearer " + acct.Key}, "X-Environment": {"sandbox"}}
	missing := func(h http.Header) *APIError {
		t.Helper()
		var e *APIError
		if err := svc.GetInvoice(h, "inv_0000000000000000", &map[string]any{}); !errors.As(err, &e) || e.Status != 404 {
			t.Fatalf("GetInvoice of a missing id: %v", err)
		}
		return e
	}
	if m := missing(h).Message; m != "No existe una factura con ese id" {
		t.Fatalf("es: %q", m)
	}
	SetLanguage("en")
	if m := missing(h).Message; m != "no invoice with that id" {
		t.Fatalf("en: %q", m)
	}
	es := h.Clone()
	es.Set("Accept-Language", "es-PY")
	if m := missing(es).Message; m != "No existe una factura con ese id" {
		t.Fatalf("the caller's header: %q", m)
	}
	if h.Get("Accept-Language") != "" {
		t.Fatal("the caller's header map was changed")
	}
	r, err := svc.Handle("GET", "/v1/facturas/inv_0000000000000000", h, nil)
	if err != nil || r.Header.Get("Content-Language") != "es-PY" {
		t.Fatalf("Handle: %v %v", err, r.Header)
	}
}
