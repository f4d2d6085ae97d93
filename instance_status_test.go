package garrison_test

import (
	"slices"
	"testing"

	"github.com/garrison-ci/garrison"
)

// instanceStatuses are every instance status of instance-api.md §9.1, and two that are not.
var instanceStatuses = []garrison.InstanceStatus{
	garrison.InstancePendingCreate, garrison.InstanceCreating, garrison.InstanceRunning,
	garrison.InstanceStopped, garrison.InstanceError, garrison.InstancePendingDelete,
	garrison.InstancePendingForceDelete, garrison.InstanceDeleting, garrison.InstanceDeleted,
	garrison.InstanceUnknown, "", "bogus",
}

// specInstanceMoves is the table of instance-api.md §9.1, copied from the spec: where an
// instance may go from each status by a normal update, besides staying put. unknown may
// become any status.
var specInstanceMoves = map[garrison.InstanceStatus][]garrison.InstanceStatus{
	"pending_create":       {"creating", "pending_delete", "pending_force_delete"},
	"creating":             {"running", "error"},
	"running":              {"pending_delete", "pending_force_delete", "stopped", "unknown"},
	"stopped":              {"running", "pending_delete", "pending_force_delete", "unknown"},
	"error":                {"pending_delete", "pending_force_delete", "deleting", "unknown"},
	"pending_delete":       {"deleting", "pending_force_delete"},
	"pending_force_delete": {"deleting"},
	"deleting":             {"deleted", "error"},
	"deleted":              {},
}

func TestInstanceStatusValid(t *testing.T) {
	for _, s := range instanceStatuses {
		t.Run(string(s), func(t *testing.T) {
			_, inTable := specInstanceMoves[s]
			want := inTable || s == "unknown"
			if got := s.Valid(); got != want {
				t.Fatalf("InstanceStatus(%q).Valid() = %v, want %v", s, got, want)
			}
		})
	}
}

// TestInstanceStatusTransitions checks every pair of statuses against the spec's table.
func TestInstanceStatusTransitions(t *testing.T) {
	for _, from := range instanceStatuses {
		for _, to := range instanceStatuses {
			var want bool
			switch {
			case !to.Valid():
				want = false // nothing may become an unknown value
			case from == to:
				want = true // staying put is always allowed
			case from == "unknown":
				want = true
			default:
				want = slices.Contains(specInstanceMoves[from], to) // false for an invalid from
			}
			t.Run(string(from)+"->"+string(to), func(t *testing.T) {
				if got := from.CanTransition(to); got != want {
					t.Fatalf("InstanceStatus(%q).CanTransition(%q) = %v, want %v", from, to, got, want)
				}
			})
		}
	}
}

func TestInstanceStatusDeleting(t *testing.T) {
	deleting := []garrison.InstanceStatus{"pending_delete", "pending_force_delete", "deleting", "deleted"}
	for _, s := range instanceStatuses {
		t.Run(string(s), func(t *testing.T) {
			if got, want := s.Deleting(), slices.Contains(deleting, s); got != want {
				t.Fatalf("InstanceStatus(%q).Deleting() = %v, want %v", s, got, want)
			}
		})
	}
}

// runnerStatuses are every runner status of instance-api.md §9.2, and two that are not.
var runnerStatuses = []garrison.RunnerStatus{
	garrison.RunnerPending, garrison.RunnerInstalling, garrison.RunnerIdle, garrison.RunnerActive,
	garrison.RunnerFailed, garrison.RunnerOffline, garrison.RunnerOnline, garrison.RunnerTerminated,
	garrison.RunnerUnknown, "", "bogus",
}

// specRunnerMoves is the table of instance-api.md §9.2, copied from the spec. online and
// unknown have no row there; garrison treats them like offline (I-8). pending -> idle, which
// the spec allows garrison to accept (CB-5), is refused as GARM refuses it.
var specRunnerMoves = map[garrison.RunnerStatus][]garrison.RunnerStatus{
	"pending":    {"installing", "failed", "terminated", "active"},
	"installing": {"idle", "failed", "terminated", "active", "offline"},
	"idle":       {"active", "offline", "terminated"},
	"offline":    {"idle", "active", "terminated"},
	"active":     {"terminated"},
	"failed":     {"terminated"},
	"terminated": {},
}

func TestRunnerStatusValid(t *testing.T) {
	for _, s := range runnerStatuses {
		t.Run(string(s), func(t *testing.T) {
			_, inTable := specRunnerMoves[s]
			want := inTable || s == "online" || s == "unknown"
			if got := s.Valid(); got != want {
				t.Fatalf("RunnerStatus(%q).Valid() = %v, want %v", s, got, want)
			}
		})
	}
}

// TestRunnerStatusTransitions checks every pair of statuses against the spec's table.
func TestRunnerStatusTransitions(t *testing.T) {
	for _, from := range runnerStatuses {
		for _, to := range runnerStatuses {
			var want bool
			switch {
			case !to.Valid():
				want = false
			case from == to:
				want = true // staying put is always allowed
			case from == "online" || from == "unknown":
				want = slices.Contains(specRunnerMoves["offline"], to)
			default:
				want = slices.Contains(specRunnerMoves[from], to) // false for an invalid from
			}
			t.Run(string(from)+"->"+string(to), func(t *testing.T) {
				if got := from.CanTransition(to); got != want {
					t.Fatalf("RunnerStatus(%q).CanTransition(%q) = %v, want %v", from, to, got, want)
				}
			})
		}
	}
}

// TestRunnerStatusCallbackPath checks the moves the shipped install scripts make (CB-5),
// named one by one since the whole bootstrap depends on them.
func TestRunnerStatusCallbackPath(t *testing.T) {
	tests := []struct {
		name     string
		from, to garrison.RunnerStatus
		want     bool
	}{
		{"script starts installing", "pending", "installing", true},
		{"progress while installing", "installing", "installing", true},
		{"install succeeds", "installing", "idle", true},
		{"install fails", "installing", "failed", true},
		{"job starts before the idle callback", "pending", "active", true},
		{"idle without installing first", "pending", "idle", false},
		{"a failed runner does not come back", "failed", "idle", false},
		{"a terminated runner stays terminated", "terminated", "active", false},
		{"an online runner takes a job", "online", "active", true},
		{"an unknown runner is terminated", "unknown", "terminated", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.from.CanTransition(tt.to); got != tt.want {
				t.Fatalf("RunnerStatus(%q).CanTransition(%q) = %v, want %v", tt.from, tt.to, got, tt.want)
			}
		})
	}
}
