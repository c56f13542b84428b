package kuatia

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSifen(t *testing.T) {
	const cdc = "01444444017001001000000122025031011234567890"
	req, err := SifenRequest("consulta", cdc, 7, false)
	if err != nil || req["service"] != "consulta" || !strings.Contains(req["xml"].(string), "<dCDC>"+cdc+"</dCDC>") ||
		!strings.HasPrefix(req["url"].(string), "https://sifen-test.") {
		t.Fatalf("%v %v", req, err)
	}
	if _, err := SifenRequest("recibe-lote", "[]", 1, false); asError(t, err).Code != "SIFEN_LOT_EMPTY" {
		t.Fatalf("%v", err)
	}
	answer, err := os.ReadFile(filepath.Join(repoRoot, "core", "tests", "sifen_samples", "consulta_0422.xml"))
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := SifenParseResponse(answer)
	if err != nil || parsed["service"] != "consulta" || !strings.Contains(fmt.Sprint(parsed["result"]), "0422") {
		t.Fatalf("%v %v", parsed, err)
	}
	if _, ok := parsed["action"]; !ok {
		t.Fatalf("no action: %v", parsed)
	}
	if _, err := SifenParseResponse([]byte("<html></html>")); asError(t, err).Code != "SIFEN_UNEXPECTED_RESPONSE" {
		t.Fatalf("%v", err)
	}
	if info, err := SifenDescribe("0160"); err != nil || info["code"] != "0160" {
		t.Fatalf("%v %v", info, err)
	}
	if info, err := SifenDescribe("0160"); err != nil || !strings.Contains(info["meaning"], "XML mal formado") {
		t.Fatalf("SifenDescribe in Spanish: %v %v", info, err)
	}
	if info, err := SifenDescribeIn("0160", "en"); err != nil || !strings.Contains(info["meaning"], "malformed") {
		t.Fatalf("SifenDescribeIn en: %v %v", info, err)
	}
	if info, err := SifenDescribe("9999"); err != nil || info != nil {
		t.Fatalf("%v %v", info, err)
	}
}

func TestSifenEvents(t *testing.T) {
	const golden = "01444444017001001000000122025031011234567890"  // emitted by the sandbox RUC 44444401-7
	const foreign = "01800695631001001000000122022081411234567891" // emitted by 80069563-1
	signer, err := SandboxSigner()
	if err != nil {
		t.Fatal(err)
	}
	defer signer.Close()
	cancel, err := SifenEventSign(map[string]any{"tipo": "cancelacion", "id": 1, "fecha_firma": "2025-03-11T09:00:00",
		"cdc": golden, "motivo": "Error en el precio"}, "44444401-7", signer)
	if err != nil || cancel.ID != 1 || cancel.Kind != "rGeVeCan" || cancel.CDC == nil || *cancel.CDC != golden ||
		!strings.HasPrefix(cancel.XML, `<rGesEve><rEve Id="1">`) {
		t.Fatalf("%+v %v", cancel, err)
	}
	// A receiver event, signed by the receiver: with the sandbox certificate that is 44444401-7, so the document
	// is one 80069563-1 emitted to it. Raw JSON works as well as a map.
	conf, err := SifenEventSign(`{"tipo":"conformidad","id":2,"fecha_firma":"2025-03-11T09:00:00","cdc":"`+foreign+`"}`,
		"44444401-7", signer)
	if err != nil || conf.Kind != "rGeVeConf" {
		t.Fatalf("%+v %v", conf, err)
	}
	req, err := SifenEventRequest([]SignedEvent{*cancel, *conf}, 9, false)
	if err != nil || req["service"] != "evento" || !strings.HasSuffix(req["url"].(string), "/de/ws/eventos/evento.wsdl") ||
		strings.Count(req["xml"].(string), "<rGesEve>") != 2 {
		t.Fatalf("%v %v", req, err)
	}
	if v, err := Verify(req["xml"].(string), time.Time{}); err != nil || !v.Valid || v.ReferenceID != "1" {
		t.Fatalf("%+v %v", v, err)
	}
	// The same through SifenRequest with the JSON array.
	arg, _ := json.Marshal([]SignedEvent{*cancel})
	if r, err := SifenRequest("evento", string(arg), 9, true); err != nil || !strings.HasPrefix(r["url"].(string), "https://sifen.set") {
		t.Fatalf("%v %v", r, err)
	}

	// Refusals carry the code and the JSON path.
	_, err = SifenEventSign(map[string]any{"tipo": "cancelacion", "id": 1, "fecha_firma": "2025-03-11T09:00:00",
		"cdc": golden, "motivo": "mal"}, "44444401-7", signer)
	if e := asError(t, err); e.Code != "SIFEN_EVENT_INVALID" || e.Path != "motivo" || !errors.Is(err, StatusInvalidInput) {
		t.Fatalf("%v", err)
	}
	_, err = SifenEventSign(map[string]any{"tipo": "conformidad", "id": 2, "fecha_firma": "2025-03-11T09:00:00",
		"cdc": golden}, "44444401-7", signer)
	if e := asError(t, err); e.Code != "SIFEN_EVENT_SIGNER" {
		t.Fatalf("the emitter cannot agree with its own document: %v", err)
	}
	_, err = SifenEventSign(map[string]any{"tipo": "anulacion", "id": 1}, "44444401-7", signer)
	if e := asError(t, err); len(e.Findings) != 2 || e.Findings[0].Path != "tipo" || e.Findings[1].Path != "fecha_firma" {
		t.Fatalf("%+v", e)
	}
	if _, err := SifenEventRequest([]SignedEvent{*cancel, *cancel}, 9, false); asError(t, err).Code != "SIFEN_EVENT_DUPLICATE_ID" {
		t.Fatalf("%v", err)
	}
	tampered := *cancel
	tampered.XML = strings.Replace(cancel.XML, "Error en el precio", "Error en el monto", 1)
	if _, err := SifenEventRequest([]SignedEvent{tampered}, 9, false); asError(t, err).Path != "arg[0].xml" {
		t.Fatalf("%v", err)
	}
	if _, err := SifenEventRequest(nil, 9, false); asError(t, err).Code != "SIFEN_EVENT_COUNT" {
		t.Fatalf("%v", err)
	}
	if _, err := SifenEventSign(nil, "44444401-7", signer); !errors.Is(err, StatusInvalidArgument) {
		t.Fatalf("a nil event is a NULL argument: %v", err)
	}
	signer.Close()
	if _, err := SifenEventSign(`{}`, "44444401-7", signer); !errors.Is(err, ErrClosed) {
		t.Fatalf("%v", err)
	}
}
