package sweep

import (
	"context"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
)

// budgetForge reports a budget and spends cost of it per QueuedJobs call.
type budgetForge struct {
	remaining, limit, cost int
	reset                  time.Time
	calls                  int
}

func (f *budgetForge) QueuedJobs(context.Context, garrison.Entity) ([]garrison.Job, error) {
	f.calls++
	f.remaining -= f.cost
	return nil, nil
}

func (f *budgetForge) Budget() (int, int, time.Time) { return f.remaining, f.limit, f.reset }

func TestBudget(t *testing.T) {
	reset := time.Unix(1_900_000_000, 0)
	tests := []struct {
		name      string
		forge     budgetForge
		sweeps    int
		wantCalls int
	}{
		{"unknown budget is not capped", budgetForge{cost: 10}, 5, 5},
		{"share caps the window", budgetForge{remaining: 5000, limit: 5000, cost: 200, reset: reset}, 10, 3}, // 10% = 500
		{"low budget backs off", budgetForge{remaining: 900, limit: 5000, cost: 1, reset: reset}, 3, 0},
		{"budget just above low", budgetForge{remaining: 1001, limit: 5000, cost: 1, reset: reset}, 3, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.forge
			s, err := New(Options{Store: nopStore{}, Forges: func(context.Context, garrison.Entity) (Forge, error) { return &f, nil }})
			must(t, err)
			e := garrison.Entity{ID: "e1", Type: garrison.Repository, Owner: "o", Name: "r", CredentialsID: 1}
			for range tt.sweeps {
				if _, err := s.SweepEntity(t.Context(), e); err != nil {
					t.Fatal(err)
				}
			}
			if f.calls != tt.wantCalls {
				t.Fatalf("calls = %d, want %d", f.calls, tt.wantCalls)
			}
		})
	}
}

func TestBudgetNewWindow(t *testing.T) {
	f := &budgetForge{remaining: 5000, limit: 5000, cost: 600, reset: time.Unix(1, 0)}
	s, err := New(Options{Store: nopStore{}, Forges: func(context.Context, garrison.Entity) (Forge, error) { return f, nil }})
	must(t, err)
	e := garrison.Entity{ID: "e1", CredentialsID: 1}
	for range 2 {
		_, _ = s.SweepEntity(t.Context(), e)
	}
	if f.calls != 1 {
		t.Fatalf("calls = %d before reset, want 1", f.calls)
	}
	f.remaining, f.reset = 5000, time.Unix(2, 0)
	_, _ = s.SweepEntity(t.Context(), e)
	if f.calls != 2 {
		t.Fatalf("calls = %d after reset, want 2", f.calls)
	}
}

func TestFailed(t *testing.T) {
	ds := []Delivery{ // newest first
		{ID: 6, GUID: "c", Status: "OK"},
		{ID: 5, GUID: "b", Status: "failed"},
		{ID: 4, GUID: "c", Status: "failed"},
		{ID: 3, GUID: "b", Status: "Invalid HTTP Response: 500"},
		{ID: 2, GUID: "a", Status: "failed"},
		{ID: 1, GUID: "", Status: "failed"},
		{ID: 0, GUID: "d", Status: "Invalid HTTP Response: 422", StatusCode: 422},
	}
	got := failed(ds)
	if len(got) != 2 || got[0].ID != 2 || got[1].ID != 5 {
		t.Fatalf("failed = %+v, want a(2) then b(5)", got)
	}
}

// nopStore has no entities, pools or jobs.
type nopStore struct{ Store }
