package simprovider

import (
	"encoding/json"
	"testing"
)

// FuzzWithExtraSpecs: a pool's extra specs steer the simulation provider. Applying
// them never panics; accepted specs give a valid behaviour (failure rate within 0..1,
// no negative boot delay) that the same specs, encoded again, reproduce.
func FuzzWithExtraSpecs(f *testing.F) {
	for _, s := range []string{`{"boot_delay":"1.5s","failure_rate":0.25,"hang":true}`, `{"failure_rate":2}`,
		`{"boot_delay":"-1s"}`, `{"boot_delay":5}`, `{"hang":"yes"}`, `{}`, `null`, ``, `[]`, `{"failure_rate":NaN}`,
		`{"boot_delay":"9999999999h"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		base := Behaviour{}
		b, err := base.withExtraSpecs(raw)
		if err != nil {
			return
		}
		if err := b.validate(); err != nil || b.FailureRate != b.FailureRate {
			t.Fatalf("accepted %q into an invalid behaviour %+v: %v", raw, b, err)
		}
		again, err := json.Marshal(map[string]any{"boot_delay": b.BootDelay, "failure_rate": b.FailureRate, "hang": b.Hang})
		if err != nil {
			t.Fatal(err)
		}
		b2, err := base.withExtraSpecs(again)
		if err != nil || b2.BootDelay != b.BootDelay || b2.FailureRate != b.FailureRate || b2.Hang != b.Hang {
			t.Fatalf("round trip of %q: %+v %v, want %+v", raw, b2, err, b)
		}
	})
}
