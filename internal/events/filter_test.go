package events

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/garrison-ci/garrison"
)

func TestParseSubscription(t *testing.T) {
	tests := []struct {
		name, msg string
		wantErr   bool
		empty     bool
		match     []string // "type op" pairs that must match
		noMatch   []string
	}{
		{"everything", `{"send-everything":true}`, false, false, []string{"pool create", "user update"}, nil},
		{"everything ignores bad filters", `{"send-everything":true,"filters":[{"entity-type":"nope"}]}`, false, false, []string{"job delete"}, nil},
		{"type, all ops", `{"filters":[{"entity-type":"pool"}]}`, false, false, []string{"pool create", "pool delete"}, []string{"instance create"}},
		{"ops", `{"filters":[{"entity-type":"job","operations":["create","delete"]}]}`, false, false, []string{"job create"}, []string{"job update"}},
		{"any filter", `{"filters":[{"entity-type":"job"},{"entity-type":"instance","operations":["update"]}]}`, false, false, []string{"instance update", "job update"}, []string{"instance delete"}},
		{"unknown keys", `{"filters":[{"entity-type":"proxy","x":1}],"y":[]}`, false, false, []string{"proxy create"}, nil},
		{"empty object", `{}`, false, true, nil, []string{"pool create"}},
		{"false", `{"send-everything":false}`, false, true, nil, nil},
		{"no filters", `{"filters":[]}`, false, true, nil, nil},
		{"null", `null`, false, true, nil, nil},
		{"not json", `hello`, true, false, nil, nil},
		{"array", `[]`, true, false, nil, nil},
		{"missing type", `{"filters":[{}]}`, true, false, nil, nil},
		{"unknown type", `{"filters":[{"entity-type":"runner"}]}`, true, false, nil, nil},
		{"unknown op", `{"filters":[{"entity-type":"pool","operations":["create","upsert"]}]}`, true, false, nil, nil},
		{"wrong type", `{"filters":{"entity-type":"pool"}}`, true, false, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseSubscription([]byte(tt.msg))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if s.Empty() != tt.empty {
				t.Errorf("Empty() = %v", s.Empty())
			}
			for _, m := range tt.match {
				if !s.Matches(split(m)) {
					t.Errorf("%s does not match", m)
				}
			}
			for _, m := range tt.noMatch {
				if s.Matches(split(m)) {
					t.Errorf("%s matches", m)
				}
			}
		})
	}
}

func split(s string) (garrison.ChangeType, garrison.ChangeOp) {
	for i := range s {
		if s[i] == ' ' {
			return garrison.ChangeType(s[:i]), garrison.ChangeOp(s[i+1:])
		}
	}
	return garrison.ChangeType(s), ""
}

// FuzzParseSubscription: the parser never panics; what it accepts names only known types
// and operations, and survives a round trip through JSON unchanged.
func FuzzParseSubscription(f *testing.F) {
	for _, seed := range []string{`{"send-everything":true}`, `{"filters":[{"entity-type":"pool","operations":["create"]}]}`,
		`{}`, `null`, `[]`, `{"filters":[{"entity-type":"x"}]}`, `{"filters":[{"entity-type":"job"},{"entity-type":"user"}]}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		s, err := ParseSubscription(msg)
		if err != nil {
			if !s.Empty() {
				t.Fatalf("error %v with a non-empty subscription %+v", err, s)
			}
			return
		}
		for _, fl := range s.Filters {
			if !slices.Contains(garrison.ChangeTypes, fl.Type) {
				t.Fatalf("accepted unknown type %q", fl.Type)
			}
			for _, op := range fl.Ops {
				if op != garrison.OpCreate && op != garrison.OpUpdate && op != garrison.OpDelete {
					t.Fatalf("accepted unknown op %q", op)
				}
			}
		}
		again, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		s2, err := ParseSubscription(again)
		if err != nil || s2.Everything != s.Everything || len(s2.Filters) != len(s.Filters) {
			t.Fatalf("round trip %s: %+v, %v; was %+v", again, s2, err, s)
		}
	})
}
