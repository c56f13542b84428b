package kuatia

/*
#include <stdlib.h>
#include <kuatia.h>
*/
import "C"

import (
	"encoding/json"
	"sync/atomic"
	"unsafe"
)

// language is the tag messages are read in (SetLanguage); "es" until changed. Shared by every goroutine.
var language atomic.Value

// SetLanguage chooses the language of every message the package reads from now on, for every goroutine: "es"
// (Spanish of Paraguay, the default) or "en"; any tag the library parses ("es-PY", "en-US") is accepted, and an
// unknown one reads as Spanish. The language is passed to the library at each call (it keeps no state).
func SetLanguage(lang string) { language.Store(lang) }

// Language is the language chosen with SetLanguage ("es" by default).
func Language() string {
	if s, ok := language.Load().(string); ok {
		return s
	}
	return "es"
}

// cLang is lang (or, when empty, the package's language) as a C string the caller frees with C.free.
func cLang(lang string) *C.char {
	if lang == "" {
		lang = Language()
	}
	return C.CString(lang)
}

// Localize returns a report kuatia wrote (Validate's, Verify's, a list of findings; raw JSON or any value
// encoding/json can marshal) with every finding's message rendered again in lang ("": the package's language), for
// one reader's language.
func Localize(report any, lang string) (json.RawMessage, error) {
	b, err := jsonIn(report, "report")
	if err != nil {
		return nil, err
	}
	if b == nil {
		b = []byte{}
	}
	l := cLang(lang)
	defer C.free(unsafe.Pointer(l))
	var out C.kuatia_bytes
	var cerr *C.kuatia_error
	p, n := in(b)
	if err := errorOf(C.kuatia_findings_localize(p, n, l, &out, &cerr), cerr); err != nil {
		return nil, err
	}
	return json.RawMessage(take(&out)), nil
}

// Rule is one entry of the registry of rules: its stable id, the registry code its findings carry, and its parameters.
type Rule struct {
	Rule   string      `json:"rule"`
	Code   string      `json:"code"`
	Params []RuleParam `json:"params"`
}

// RuleParam is one parameter of a rule: its name and kind ("text", "int", "money", ...).
type RuleParam struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// Rules returns every rule a finding can name: the core's one registry (docs/errors.md), for an application that
// writes its own text from a finding's Rule and Params.
func Rules() ([]Rule, error) {
	var out C.kuatia_bytes
	var cerr *C.kuatia_error
	if err := errorOf(C.kuatia_rules(&out, &cerr), cerr); err != nil {
		return nil, err
	}
	var rules []Rule
	return rules, jsonOut(take(&out), &rules)
}
