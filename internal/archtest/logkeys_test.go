package archtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// errorKey finds an error logged under the key "error"; garrison logs errors as "err".
var errorKey = regexp.MustCompile(`slog\.Any\("error",|"error",\s*err\b`)

// TestLogErrorKey keeps one key for errors in log records, so that a query for err=...
// finds every failure.
func TestLogErrorKey(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if errorKey.MatchString(line) {
				t.Errorf("%s:%d: log errors under the key \"err\": %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
