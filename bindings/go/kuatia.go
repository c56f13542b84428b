// Package kuatia issues Paraguayan electronic invoices (SIFEN / e-Kuatia) from Go, over the C library libkuatia.
//
// The package is a thin cgo layer: every rule lives in the Rust core, this package converts types and errors.
// JSON inputs are any value encoding/json can marshal, or raw JSON as []byte, string or json.RawMessage.
// Failures are *Error values carrying the status, the stable code, the field path and every finding; there is no
// thread-local "last error", so calls are safe from any goroutine.
//
// The C library is found with pkg-config (`kuatia.pc`): install it with `bash scripts/install-c.sh --prefix DIR`
// and set PKG_CONFIG_PATH=DIR/lib/pkgconfig (docs/go.md); see link_shared.go and link_static.go.
package kuatia

/*
#include <stdlib.h>
#include <kuatia.h>
*/
import "C"

import (
	"encoding/json"
	"fmt"
	"unsafe"
)

// Status is the outcome of a C call (kuatia_status); the numbers are part of the ABI and never change.
type Status int

// The Status constants and their names are generated from include/kuatia.abi.json: abi_gen.go.

// String is the status name as in the header without its prefix ("INVALID_INPUT").
func (s Status) String() string {
	if n, ok := statusNames[s]; ok {
		return n
	}
	return fmt.Sprintf("STATUS_%d", int(s))
}

// Error makes a Status usable as an errors.Is target: errors.Is(err, kuatia.StatusSignError).
func (s Status) Error() string { return "kuatia: " + s.String() }

// Finding is one problem: a stable Code ("VALIDATION_ERROR.REQUIRED"), the JSON Path ("items[1].iva"), a Message
// in the chosen language (SetLanguage), the Rule that found it ("ruc.check_digit"; empty or "unclassified" while its
// text is still an English sentence) and the rule's Params.
type Finding struct {
	Code    string         `json:"code"`
	Path    string         `json:"path"`
	Message string         `json:"message"`
	Rule    string         `json:"rule,omitempty"`
	Params  map[string]any `json:"params,omitempty"`
}

// Error is a failed call: its Status, the first problem's Code, Message (in the chosen language), Path, Rule and
// Params, and every Finding.
type Error struct {
	Status   Status
	Code     string
	Message  string
	Path     string
	Rule     string
	Params   map[string]any
	Findings []Finding
}

// Error formats the first problem as "CODE at path: message".
func (e *Error) Error() string {
	if e.Path != "" {
		return fmt.Sprintf("kuatia: %s at %s: %s", e.Code, e.Path, e.Message)
	}
	return fmt.Sprintf("kuatia: %s: %s", e.Code, e.Message)
}

// Is reports whether target is this error's Status, so errors.Is(err, kuatia.StatusInvalidInput) works.
func (e *Error) Is(target error) bool {
	s, ok := target.(Status)
	return ok && s == e.Status
}

// Version is the version of the linked libkuatia ("0.1.0").
func Version() string { return C.GoString(C.kuatia_version()) }

// Code is one entry of the error-code registry.
type Code struct {
	Code        string `json:"code"`
	Description string `json:"description"`
}

// Codes returns every error code kuatia answers with: the core's one registry.
func Codes() ([]Code, error) {
	var out C.kuatia_bytes
	var cerr *C.kuatia_error
	if err := errorOf(C.kuatia_error_codes(&out, &cerr), cerr); err != nil {
		return nil, err
	}
	var codes []Code
	return codes, jsonOut(take(&out), &codes)
}

// errorOf turns a failed call's status and kuatia_error into an *Error and frees the C error; nil for OK.
func errorOf(status C.enum_kuatia_status, cerr *C.kuatia_error) error {
	if status == C.KUATIA_STATUS_OK {
		return nil
	}
	if cerr == nil {
		return &Error{Status: Status(status), Code: "UNKNOWN", Message: fmt.Sprintf("status %d", int(status))}
	}
	defer C.kuatia_error_free(cerr)
	lang := cLang("")
	defer C.free(unsafe.Pointer(lang))
	e := &Error{
		Status:  Status(C.kuatia_error_status(cerr)),
		Code:    C.GoString(C.kuatia_error_code(cerr)),
		Message: C.GoString(C.kuatia_error_message_in(cerr, lang)),
		Path:    C.GoString(C.kuatia_error_path(cerr)),
		Rule:    C.GoString(C.kuatia_error_rule(cerr)),
	}
	if raw := C.kuatia_error_json_in(cerr, lang); raw != nil {
		if err := json.Unmarshal([]byte(C.GoString(raw)), &e.Findings); err != nil {
			e.Findings = nil
		}
	}
	if len(e.Findings) == 0 {
		e.Findings = []Finding{{Code: e.Code, Path: e.Path, Message: e.Message, Rule: e.Rule}}
	}
	for i := range e.Findings {
		if e.Findings[i].Rule == "" {
			e.Findings[i].Rule = "unclassified"
		}
	}
	e.Params = e.Findings[0].Params
	return e
}

// take copies an owned kuatia_bytes into Go memory and frees it.
func take(b *C.kuatia_bytes) []byte {
	defer C.kuatia_bytes_free(b)
	if b.ptr == nil {
		return []byte{}
	}
	return C.GoBytes(unsafe.Pointer(b.ptr), C.int(b.len))
}

// empty gives zero-length inputs a valid pointer: the C library reads NULL as "argument missing".
var empty [1]byte

// in is a (ptr, len) view of Go bytes for one call. Go memory without Go pointers may be passed to C for the
// duration of a call; the library never keeps it.
func in(b []byte) (*C.uint8_t, C.size_t) {
	if len(b) == 0 {
		return (*C.uint8_t)(unsafe.Pointer(&empty[0])), 0
	}
	return (*C.uint8_t)(unsafe.Pointer(&b[0])), C.size_t(len(b))
}

// inOpt is like in, but nil means "not given" (NULL).
func inOpt(b []byte) (*C.uint8_t, C.size_t) {
	if b == nil {
		return nil, 0
	}
	return in(b)
}

// jsonIn turns a JSON input into bytes: raw JSON ([]byte, string, json.RawMessage) is passed as it is, anything
// else is marshalled.
func jsonIn(v any, name string) ([]byte, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case []byte:
		return t, nil
	case json.RawMessage:
		return t, nil
	case string:
		return []byte(t), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("kuatia: %s: %w", name, err)
	}
	return b, nil
}

// jsonOut decodes a JSON result; a decoding failure would be a bug of the library.
func jsonOut(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return &Error{Status: StatusPanic, Code: "PANIC", Message: "undecodable result: " + err.Error()}
	}
	return nil
}
