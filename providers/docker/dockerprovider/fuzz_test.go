package dockerprovider

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/garrison-ci/garrison/providers/internal/userdata"
)

// FuzzParseExtraSpecs: a pool's extra specs come from the manager. Parsing never
// panics, refuses only with userdata.ErrInvalidSpec, and accepted specs have no negative
// limit and survive a round trip.
func FuzzParseExtraSpecs(f *testing.F) {
	for _, s := range []string{`{"cpus":2,"memory_mib":2048,"extra_packages":["jq"]}`, `{"cpus":-1}`, `{"memory_mib":1e30}`,
		`{"cpus":"2"}`, `{"unknown":true}`, `{}`, `null`, ``, `[]`, `{} x`, `{"runner_install_template":"e3tpZn19"}`,
		`{"pre_install_scripts":{"a b":"YQ=="}}`, `{"extra_context":{"k":"v"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, err := ParseExtraSpecs(raw)
		if err != nil {
			if !errors.Is(err, userdata.ErrInvalidSpec) {
				t.Fatalf("error %v is not ErrInvalidSpec", err)
			}
			return
		}
		if s.CPUs < 0 || s.MemoryMiB < 0 {
			t.Fatalf("accepted negative limits: %+v", s)
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseExtraSpecs(out)
		if err != nil || !reflect.DeepEqual(normalize(t, again), normalize(t, s)) {
			t.Fatalf("round trip of %q: %+v %v", raw, again, err)
		}
	})
}

// normalize turns specs into generic JSON, where nil and empty collections agree.
func normalize(t *testing.T, s ExtraSpecs) any {
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}
