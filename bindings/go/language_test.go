package kuatia

import (
	"encoding/json"
	"errors"
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
