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

// FuzzParseSystemInfo: the system-info callback body is written by the instance. It
// never panics; an unreadable body is errBadBody (a 400); a readable one survives a
// round trip, and applying it stores exactly the non-empty OS fields and an agent id
// under CB-4 (a mismatch is a 400, never a silent overwrite).
func FuzzParseSystemInfo(f *testing.F) {
	for _, s := range []string{`{"os_name":"ubuntu","os_version":"24.04","agent_id":12}`, `{"agent_id":null}`, `{}`,
		`null`, `[]`, `{"os_name":5}`, `{"agent_id":-3}`, `{"agent_id":1.5}`, `os_name=x`, ``, `{"os_version":"\u0000"}`,
		`{"agent_id":99999999999999999999}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		si, err := parseSystemInfo(body)
		if err != nil {
			if !errors.Is(err, errBadBody) || garrison.CodeOf(err) != garrison.EInvalid {
				t.Fatalf("error %v is not errBadBody", err)
			}
			return
		}
		again, err := json.Marshal(si)
		if err != nil {
			t.Fatal(err)
		}
		si2, err := parseSystemInfo(again)
		if err != nil || si2.OSName != si.OSName || si2.OSVersion != si.OSVersion ||
			(si2.AgentID == nil) != (si.AgentID == nil) || (si.AgentID != nil && *si2.AgentID != *si.AgentID) {
			t.Fatalf("round trip of %q: %+v %v", body, si2, err)
		}
		before := garrison.Instance{OSName: "old", OSVersion: "1", AgentID: 3}
		inst := before
		err = applySystemInfo(&inst, si)
		switch {
		case err != nil:
			if !errors.Is(err, errAgentMismatch) || si.AgentID == nil || *si.AgentID == 3 || *si.AgentID == 0 {
				t.Fatalf("apply %+v: %v", si, err)
			}
		case si.empty() && (inst.OSName != before.OSName || inst.OSVersion != before.OSVersion || inst.AgentID != before.AgentID):
			t.Fatalf("an empty report changed the instance: %+v", inst)
		case si.OSName != "" && inst.OSName != si.OSName, si.OSName == "" && inst.OSName != "old",
			si.OSVersion != "" && inst.OSVersion != si.OSVersion, si.OSVersion == "" && inst.OSVersion != "1",
			inst.AgentID != 3:
			t.Fatalf("applied %+v: %+v", si, inst)
		}
	})
}
