package scaleset

import (
	"errors"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
)

// TestApplyLedger replays job event sequences through the ledger rules.
func TestApplyLedger(t *testing.T) {
	ss := garrison.ScaleSet{Name: "set", EntityID: "ent-1", EntityType: garrison.Repository}
	now := time.Date(2026, 8, 6, 12, 0, 0, 0, time.UTC)
	assigned := JobMessage{Type: JobAssigned, JobID: "g-1", JobDisplayName: "build", RequestLabels: []string{"set"}}
	started := JobMessage{Type: JobStarted, JobID: "g-1", RunnerName: "ss-a", RunnerID: 7}
	done := JobMessage{Type: JobCompleted, JobID: "g-1", RunnerName: "ss-a", Result: "succeeded"}
	requeued := JobMessage{Type: JobCompleted, JobID: "g-1", Result: "canceled"}
	for _, tc := range []struct {
		name       string
		events     []JobMessage
		action     garrison.JobAction
		conclusion string
		reason     string
		refused    int // events refused as going backwards
	}{
		{"assigned", []JobMessage{assigned}, garrison.JobQueued, "", garrison.ReasonScaleSet("set"), 0},
		{"full life", []JobMessage{assigned, started, done}, garrison.JobCompleted, "success", "", 0},
		{"late assigned after start", []JobMessage{assigned, started, assigned}, garrison.JobInProgress, "", "", 1},
		{"completed without queued seen", []JobMessage{done}, garrison.JobCompleted, "success", "", 0},
		{"requeued after a timed-out assignment", []JobMessage{assigned, requeued, assigned}, garrison.JobQueued, "", garrison.ReasonScaleSet("set"), 0},
		{"requeued then served", []JobMessage{assigned, requeued, assigned, started, done}, garrison.JobCompleted, "success", "", 0},
		{"finished job not reopened", []JobMessage{assigned, started, done, assigned}, garrison.JobCompleted, "success", "", 1},
		{"canceled before any runner", []JobMessage{assigned, requeued}, garrison.JobCompleted, "cancelled", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var j garrison.Job
			exists, refused := false, 0
			for _, ev := range tc.events {
				u, ok := ledgerUpdate(ev)
				if !ok {
					t.Fatalf("event %+v not for the ledger", ev)
				}
				row := j
				if err := applyLedger(&row, exists, u, ss, now); err != nil {
					if garrison.CodeOf(err) != garrison.EInvalid {
						t.Fatalf("event %s: %v", ev.Type, err)
					}
					refused++
					continue
				}
				j, exists = row, true
			}
			if j.Action != tc.action || j.Conclusion != tc.conclusion || j.Reason != tc.reason || refused != tc.refused {
				t.Fatalf("got %s/%q reason %q refused %d; want %s/%q reason %q refused %d",
					j.Action, j.Conclusion, j.Reason, refused, tc.action, tc.conclusion, tc.reason, tc.refused)
			}
			if j.EntityID != ss.EntityID || (tc.events[0].Type == JobAssigned && j.Name != "build") {
				t.Errorf("row %+v", j)
			}
		})
	}
}

func TestApplyLedgerOtherEntity(t *testing.T) {
	j := garrison.Job{ID: -5, EntityID: "ent-2", Action: garrison.JobQueued}
	u, _ := ledgerUpdate(JobMessage{Type: JobStarted, JobID: "x", RunnerName: "r"})
	err := applyLedger(&j, true, u, garrison.ScaleSet{EntityID: "ent-1"}, time.Now())
	if !errors.Is(err, errOtherEntity) {
		t.Fatalf("err %v, want errOtherEntity", err)
	}
}

func TestLedgerID(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b JobMessage
		same bool
	}{
		{"same job id", JobMessage{JobID: "g-1"}, JobMessage{JobID: "g-1", RunnerRequestID: 9}, true},
		{"different job ids", JobMessage{JobID: "g-1"}, JobMessage{JobID: "g-2"}, false},
		{"request ids", JobMessage{RunnerRequestID: 1}, JobMessage{RunnerRequestID: 2}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := ledgerID(tc.a), ledgerID(tc.b)
			if a >= 0 || b >= 0 {
				t.Fatalf("ids %d %d, want negative", a, b)
			}
			if (a == b) != tc.same {
				t.Fatalf("ids %d and %d: same %v, want %v", a, b, a == b, tc.same)
			}
		})
	}
	if id := ledgerID(JobMessage{}); id != 0 {
		t.Fatalf("no ids: %d, want 0", id)
	}
}
