package provider

import (
	"errors"
	"testing"
)

var fuzzSeeds = []string{
	`{"provider_id":"i-1","name":"n","status":"running"}`,
	`{"provider_id":"i","name":"n","status":"error","provider_fault":"Ym9vbQ==","addresses":[{"address":"10.0.0.1","type":"private"}]}`,
	`[{"provider_id":"a","name":"a","status":"running"}]`,
	`null`, `[]`, ``, `{`, `[null]`, "\xff\xfe", `{"status":1}`, `{} {}`, `"x"`,
}

// FuzzParseInstance checks that hostile output never panics and that any
// accepted instance satisfies the contract.
func FuzzParseInstance(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		inst, err := ParseInstance(data)
		if err != nil {
			if !errors.Is(err, ErrInvalidOutput) {
				t.Fatalf("error does not wrap ErrInvalidOutput: %v", err)
			}
			return
		}
		if verr := inst.Validate(); verr != nil {
			t.Fatalf("accepted invalid instance: %v", verr)
		}
	})
}

// FuzzParseInstanceList does the same for ListInstances output.
func FuzzParseInstanceList(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		list, err := ParseInstanceList(data)
		if err != nil {
			if !errors.Is(err, ErrInvalidOutput) {
				t.Fatalf("error does not wrap ErrInvalidOutput: %v", err)
			}
			return
		}
		if list == nil {
			t.Fatal("nil list without error")
		}
		for _, inst := range list {
			if verr := inst.Validate(); verr != nil {
				t.Fatalf("accepted invalid instance: %v", verr)
			}
		}
	})
}
