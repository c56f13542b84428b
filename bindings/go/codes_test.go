package kuatia

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestCodesAreTheRegistry: Codes() is the same list as tests/fixtures/codes.json (checked against the Rust registry).
func TestCodesAreTheRegistry(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot, "tests", "fixtures", "codes.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want []Code
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	got, err := Codes()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Codes() differs from the registry: %d vs %d entries", len(got), len(want))
	}
	if got[0].Code != "INVALID_RUC" {
		t.Fatalf("first code %q", got[0].Code)
	}
}
