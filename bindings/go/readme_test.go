package kuatia

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeExample checks that docs/go.md's first example shows exactly the body of Example (example_test.go),
// which go test runs. (scripts/packages-check.sh also runs every Go block of the docs in a separate module.)
func TestReadmeExample(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "docs", "go.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- test: go -->\n```go\n(.*?)```").FindSubmatch(readme)
	if m == nil || len(m[1]) < 200 {
		t.Fatal("docs/go.md has no Go example after <!-- test: go -->")
	}
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	body := regexp.MustCompile(`(?s)// README-BEGIN\n(.*?)\t// README-END`).FindSubmatch(src)
	if body == nil {
		t.Fatal("example_test.go lacks README-BEGIN/END")
	}
	var lines []string
	for _, l := range strings.SplitAfter(string(body[1]), "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\t"))
	}
	if got, want := string(m[1]), strings.Join(lines, ""); got != want {
		t.Fatalf("docs/go.md example differs from example_test.go\ndocs/go.md:\n%s\nexample_test.go:\n%s", got, want)
	}
}
