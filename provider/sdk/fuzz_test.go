package sdk

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison/provider"
)

// FuzzReadBootstrap: the CreateInstance document on stdin is the manager's, and the
// SDK must not trust it blindly. Reading never panics; a refusal matches
// ErrInvalidInput; an accepted document has a name and extra specs that are valid
// JSON (never empty), and survives a round trip.
func FuzzReadBootstrap(f *testing.F) {
	for _, s := range []string{
		`{"name":"garm-x","tools":[{"os":"linux","architecture":"amd64","download_url":"https://x"}],"os_type":"linux","extra_specs":{"a":1}}`,
		`{"name":"garm-x","extra_specs":null}`, `{"name":"garm-x","extra_specs":"str"}`, `{"name":""}`, `{}`, `null`, `[]`,
		`{`, ``, "  \n", `{"name":"x","labels":[1]}`, `{"name":"x","jit_config_enabled":"yes"}`, `{"name":"\u0000"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		bi, err := readBootstrap(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrInvalidInput) || ExitCode(err) != provider.ExitFailure {
				t.Fatalf("error %v does not match ErrInvalidInput", err)
			}
			return
		}
		if bi.Name == "" || len(bytes.TrimSpace(bi.ExtraSpecs)) == 0 || !json.Valid(bi.ExtraSpecs) {
			t.Fatalf("accepted %q: name %q, extra specs %q", data, bi.Name, bi.ExtraSpecs)
		}
		raw, err := json.Marshal(bi)
		if err != nil {
			t.Fatal(err)
		}
		again, err := readBootstrap(bytes.NewReader(raw))
		if err != nil || again.Name != bi.Name || !reflect.DeepEqual(value(t, again.ExtraSpecs), value(t, bi.ExtraSpecs)) {
			t.Fatalf("round trip of %q: %+v %v", data, again, err)
		}
	})
}

// value decodes JSON to a generic value: encodings that differ only in escapes ("&" and
// "\u0026") or spaces compare equal.
func value(t *testing.T, raw json.RawMessage) any {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decode %q: %v", raw, err)
	}
	return v
}

// FuzzDecodeExtraSpecs: GARM_POOL_EXTRASPECS is base64 JSON from the manager. Decoding
// never panics; a refusal matches ErrInvalidInput; accepted specs are nil (absent or
// null) or valid JSON that encodes back to the same variable.
func FuzzDecodeExtraSpecs(f *testing.F) {
	for _, s := range []string{"", base64.StdEncoding.EncodeToString([]byte(`{"a":1}`)), base64.StdEncoding.EncodeToString([]byte(`null`)),
		base64.StdEncoding.EncodeToString([]byte(`{`)), "!!!", "e30", base64.StdEncoding.EncodeToString([]byte(` [1] `))} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		raw, err := decodeExtraSpecs(v)
		if err != nil {
			if !errors.Is(err, ErrInvalidInput) {
				t.Fatalf("error %v does not match ErrInvalidInput", err)
			}
			return
		}
		if raw == nil {
			return
		}
		if !json.Valid(raw) || strings.TrimSpace(string(raw)) == "null" {
			t.Fatalf("accepted %q as %q", v, raw)
		}
		again, err := decodeExtraSpecs(base64.StdEncoding.EncodeToString(raw))
		if err != nil || !bytes.Equal(again, raw) {
			t.Fatalf("round trip of %q: %q %v", v, again, err)
		}
	})
}
