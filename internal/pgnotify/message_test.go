package pgnotify

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestEncodeDecode(t *testing.T) {
	many := make([]string, 600)
	for i := range many {
		many[i] = fmt.Sprintf("0b6f4f1e-6a53-4c1d-9d8e-%012d", i)
	}
	cases := []struct {
		name     string
		in       Message
		payloads int
		keys     []string // the keys that arrive
	}{
		{"one pool", Message{From: "host-1-ab", Kind: KindPool, Keys: []string{"p1"}}, 1, []string{"p1"}},
		{"several scale sets", Message{From: "r", Kind: KindScaleSet, Keys: []string{"1", "22", "333"}}, 1, []string{"1", "22", "333"}},
		{"bad keys left out", Message{From: "r", Kind: KindPool, Keys: []string{"", "a b", "c,d", "ok", strings.Repeat("x", maxKey+1)}}, 1, []string{"ok"}},
		{"no keys: nothing to send", Message{From: "r", Kind: KindPool}, 0, nil},
		{"split under the payload limit", Message{From: "r", Kind: KindPool, Keys: many}, 3, many},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			payloads := Encode(tc.in)
			if len(payloads) != tc.payloads {
				t.Fatalf("%d payloads, want %d", len(payloads), tc.payloads)
			}
			var keys []string
			for _, p := range payloads {
				if len(p) >= MaxPayload {
					t.Fatalf("payload of %d bytes", len(p))
				}
				m, err := Decode(p)
				if err != nil {
					t.Fatalf("decode %q: %v", p, err)
				}
				if m.From != tc.in.From || m.Kind != tc.in.Kind {
					t.Fatalf("decoded %s/%s, want %s/%s", m.From, m.Kind, tc.in.From, tc.in.Kind)
				}
				keys = append(keys, m.Keys...)
			}
			if !slices.Equal(keys, tc.keys) {
				t.Fatalf("keys %v, want %v", keys, tc.keys)
			}
		})
	}
}

func TestDecodeRefuses(t *testing.T) {
	for _, p := range []string{
		"",
		"v1",
		"v2 r pool p1",
		"v1 r pool",
		"v1  pool p1",
		"v1 r pool p1,",
		"v1 r pool p1,,p2",
		"v1 r pool p1 extra",
		"v1 r\tx pool p1",
		"v1 r pool p\x00",
		"v1 r pool " + strings.Repeat("k", maxKey+1),
		"v1 r pool " + strings.Repeat("k,", MaxPayload),
	} {
		if m, err := Decode(p); err == nil {
			t.Errorf("Decode(%q) = %+v, want an error", p, m)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, p := range Encode(Message{From: "host-1", Kind: KindPool, Keys: []string{"a", "b"}}) {
		f.Add(p)
	}
	f.Add("v1 r scaleset 1,2,3")
	f.Add("v1 r pool ,")
	f.Fuzz(func(t *testing.T, payload string) {
		m, err := Decode(payload)
		if err != nil {
			return
		}
		// What decodes encodes back to the same message.
		again := Encode(m)
		if len(again) != 1 {
			t.Fatalf("decoded %+v re-encodes to %d payloads", m, len(again))
		}
		m2, err := Decode(again[0])
		if err != nil || m2.From != m.From || m2.Kind != m.Kind || !slices.Equal(m2.Keys, m.Keys) {
			t.Fatalf("round trip of %q: %+v then %+v (%v)", payload, m, m2, err)
		}
	})
}
