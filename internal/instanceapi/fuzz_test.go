package instanceapi

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/garrison-ci/garrison"
)

func FuzzParseStatusUpdate(f *testing.F) {
	for _, s := range []string{`{"status":"idle","message":"ok","agent_id":12}`, `{"agent_id":null}`, `null`, `[]`,
		`{"status":5}`, `{"agent_id":1.5}`, `status=idle`, ``, `{"message":"\u0000"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		u, err := parseStatusUpdate(body)
		if err != nil {
			if !errors.Is(err, errBadBody) {
				t.Fatalf("error %v is not errBadBody", err)
			}
			return
		}
		// A body the parser accepts survives a round trip.
		again, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		if u2, err := parseStatusUpdate(again); err != nil || u2.Status != u.Status || u2.Message != u.Message {
			t.Fatalf("round trip of %q: %+v %v", body, u2, err)
		}
		inst := garrison.Instance{RunnerStatus: garrison.RunnerInstalling, AgentID: 3}
		if err := applyStatus(&inst, u); err == nil && u.Status != "" && inst.RunnerStatus != u.Status {
			t.Fatalf("accepted %q but status is %s", u.Status, inst.RunnerStatus)
		} else if err != nil && garrison.CodeOf(err) != garrison.EInvalid {
			t.Fatalf("applyStatus error %v is not a 400", err)
		}
	})
}
