package kuatia

/*
#include <stdlib.h>
#include <kuatia.h>
*/
import "C"

import (
	"encoding/json"
	"unsafe"
)

// SifenRequest builds the SOAP request of a SIFEN web service for the host to POST over mutual TLS:
// {"service", "url", "content_type", "xml"} (plus "cdcs" for a lot). kind is "recibe" (arg: a signed rDE),
// "recibe-lote" (arg: a JSON array of signed rDEs), "consulta" (a CDC), "consulta-lote" (the lot number),
// "consulta-ruc" (a RUC) or "evento" (arg: the JSON array of 1 to 15 SignedEvent, see SifenEventRequest); dID is
// the request identifier; production picks the production endpoint.
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

// SifenDescribe returns what a SIFEN response code means and its usual fix ({"code", "meaning", "fix"}) in the
// package's language (SetLanguage), or nil when the catalog does not document the code.
func SifenDescribe(code string) (map[string]string, error) {
	return SifenDescribeIn(code, "")
}

// SifenDescribeIn is SifenDescribe in lang ("": the package's language).
func SifenDescribeIn(code, lang string) (map[string]string, error) {
	var out C.kuatia_bytes
	var cerr *C.kuatia_error
	p, n := in([]byte(code))
	l := cLang(lang)
	defer C.free(unsafe.Pointer(l))
	if err := errorOf(C.kuatia_sifen_describe_in(p, n, l, &out, &cerr), cerr); err != nil {
		return nil, err
	}
	var info map[string]string
	return info, jsonOut(take(&out), &info)
}

// SignedEvent is a SIFEN event signed by SifenEventSign: its Id, payload element ("rGeVeCan", ...), the CDC it
// concerns (nil for an inutilización) and the signed rGesEve XML. Pass them, unchanged, to SifenEventRequest.
type SignedEvent struct {
	ID   uint64  `json:"id"`
	Kind string  `json:"kind"`
	CDC  *string `json:"cdc"`
	XML  string  `json:"xml"`
}

// SifenEventSign builds and signs one SIFEN event from its JSON form: a map, struct or raw JSON with "tipo"
// ("cancelacion", "inutilizacion", "nominacion", "transporte", "notificacion_recepcion", "conformidad",
// "disconformidad" or "desconocimiento"), "id", "fecha_firma" (Paraguay local YYYY-MM-DDThh:mm:ss) and the fields of
// its kind. firmanteRUC is who must sign (the emitter for emitter events, the receiver for receiver events); the
// signer's certificate must carry it. Errors carry every finding with its JSON path (SIFEN_EVENT_INVALID,
// SIFEN_EVENT_SIGNER, INVALID_CDC, VALIDATION_ERROR.*, ...).
func SifenEventSign(event any, firmanteRUC string, signer *Signer) (*SignedEvent, error) {
	data, err := jsonIn(event, "event")
	if err != nil {
		return nil, err
	}
	var out C.kuatia_bytes
	err = signer.use(func(s *C.kuatia_signer) error {
		var cerr *C.kuatia_error
		ep, en := inOpt(data)
		rp, rn := in([]byte(firmanteRUC))
		return errorOf(C.kuatia_sifen_event_sign(ep, en, rp, rn, s, &out, &cerr), cerr)
	})
	if err != nil {
		return nil, err
	}
	signed := &SignedEvent{}
	return signed, jsonOut(take(&out), signed)
}

// SifenEventRequest is SifenRequest("evento", ...) for events signed by SifenEventSign: the rEnviEventoDe request
// carrying them (1 to 15, distinct ids).
func SifenEventRequest(events []SignedEvent, dID uint64, production bool) (map[string]any, error) {
	if events == nil {
		events = []SignedEvent{}
	}
	arg, err := json.Marshal(events)
	if err != nil {
		return nil, err
	}
	return SifenRequest("evento", string(arg), dID, production)
}
