package config

import (
	"errors"
	"testing"
)

// FuzzParse feeds arbitrary documents to Parse: it must never panic, and
// every failure must be one of the package's typed errors (or a join of
// them).
func FuzzParse(f *testing.F) {
	seeds := []string{
		"",
		"[apiserver]\nbind = \"0.0.0.0\"\nport = 9997\n",
		"[database]\nbackend = \"postgresql\"\n[database.postgresql]\nhostname = \"h\"\nusername = \"u\"\ndatabase = \"d\"\n",
		"[[provider]]\nname = \"p\"\nprovider_type = \"external\"\n[provider.external]\nprovider_executable = \"/bin/sh\"\n",
		"[[github]]\nname = \"x\"\n[apiserver.webui]\nenable = true\n",
		"[apiserver]\nport = \"x\"\nprot = 1\n",
		"[jwt_auth]\ntime_to_live = \"3h\"\n",
		"a = [1, \"b\"]\n[x.y.z]\nq = 1979-05-27\n",
		"provider = [1]\n",
		"[[provider]]\n[[provider]]\nexternal = 3\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data)
		if err != nil {
			if cfg != nil {
				t.Fatal("Parse returned a config with an error")
			}
			for _, e := range flatten(err) {
				if !typed(e) {
					t.Fatalf("untyped error %T: %v", e, e)
				}
			}
			return
		}
		if cfg.APIServer.Port < 1 || cfg.APIServer.Port > 65535 || cfg.JWTAuth.TimeToLive < MinJWTTTL {
			t.Fatalf("accepted invalid config %+v", cfg)
		}
	})
}

// typed reports whether err is one of the package's error types.
func typed(err error) bool {
	var (
		fe *FieldError
		uk *UnknownKeyError
		se *SyntaxError
	)
	return errors.As(err, &fe) || errors.As(err, &uk) || errors.As(err, &se)
}
