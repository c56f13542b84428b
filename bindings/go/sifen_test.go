package kuatia

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if info, err := SifenDescribe("9999"); err != nil || info != nil {
		t.Fatalf("%v %v", info, err)
	}
}
