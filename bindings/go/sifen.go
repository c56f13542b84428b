package kuatia

/*
#include <kuatia.h>
*/
import "C"

// SifenRequest builds the SOAP request of a SIFEN web service for the host to POST over mutual TLS:
// {"service", "url", "content_type", "xml"} (plus "cdcs" for a lot). kind is "recibe" (arg: a signed rDE),
// "recibe-lote" (arg: a JSON array of signed rDEs), "consulta" (a CDC), "consulta-lote" (the lot number) or
// "consulta-ruc" (a RUC); dID is the request identifier; production picks the production endpoint.
func SifenRequest(kind, arg string, dID uint64, production bool) (map[string]any, error) {
	var out C.kuatia_bytes
	var cerr *C.kuatia_error
	kp, kn := in([]byte(kind))
	ap, an := in([]byte(arg))
	if err := errorOf(C.kuatia_sifen_request(kp, kn, ap, an, C.uint64_t(dID), C.bool(production), &out, &cerr), cerr); err != nil {
		return nil, err
	}
	req := map[string]any{}
	return req, jsonOut(take(&out), &req)
}

// SifenParseResponse parses SIFEN's answer (the SOAP XML of the HTTP response) into {"service", "result",
// "action"}: the typed result and what it means for the invoice lifecycle. Anything else is an error with code
// SIFEN_UNEXPECTED_RESPONSE or SIFEN_SOAP_FAULT.
func SifenParseResponse(data []byte) (map[string]any, error) {
	var out C.kuatia_bytes
	var cerr *C.kuatia_error
	p, n := in(data)
	if err := errorOf(C.kuatia_sifen_parse_response(p, n, &out, &cerr), cerr); err != nil {
		return nil, err
	}
	parsed := map[string]any{}
	return parsed, jsonOut(take(&out), &parsed)
}

// SifenDescribe returns what a SIFEN response code means and its usual fix ({"code", "meaning", "fix"}), or nil
// when the catalog does not document the code.
func SifenDescribe(code string) (map[string]string, error) {
	var out C.kuatia_bytes
	var cerr *C.kuatia_error
	p, n := in([]byte(code))
	if err := errorOf(C.kuatia_sifen_describe(p, n, &out, &cerr), cerr); err != nil {
		return nil, err
	}
	var info map[string]string
	return info, jsonOut(take(&out), &info)
}
