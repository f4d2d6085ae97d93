package httpapi

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison"
)

// FuzzTemplateData: whatever a client sends as a template's data, decoding and
// validation either accept it (and then it round-trips) or refuse it with a 400.
func FuzzTemplateData(f *testing.F) {
	for _, s := range []string{base64.StdEncoding.EncodeToString([]byte("echo {{ .RunnerName }}")), "", "!!", "YQ", "YQ==",
		base64.StdEncoding.EncodeToString([]byte("{{ .Nope }}")), "e3sgaWYgfX0="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if len(raw) > 8192 {
			return
		}
		data, err := decodeTemplateData(&raw)
		if err != nil {
			if !errors.Is(err, garrison.ErrInvalid) {
				t.Fatalf("decode error %v is not a 400", err)
			}
			return
		}
		// Line breaks are ignored, as Go's JSON decoding of bytes ignores them.
		if base64.StdEncoding.EncodeToString(data) != strings.NewReplacer("\r", "", "\n", "").Replace(raw) {
			t.Fatalf("%q decoded to %q, which does not encode back", raw, data)
		}
		if err := validateTemplateData(data); err != nil && !errors.Is(err, garrison.ErrInvalid) {
			t.Fatalf("validate error %v is not a 400", err)
		}
	})
}
