package scaleset_test

import (
	"slices"
	"testing"
)

// TestRestartTakesOwnClaimBack: a server killed while it held a scale set's session claim
// restarts under the same owner (internal/server's sessionOwner); the new process takes
// the live claim back at once, closes the session its predecessor left open and opens
// its own, instead of waiting for the claim to lapse.
func TestRestartTakesOwnClaimBack(t *testing.T) {
	e := newEnv(t, 10, 0)
	e.svc.push(1, 2)
	e.step(e.controller("replica-a")) // killed after this step: the claim lasts an hour
	again := e.controller("replica-a")
	e.step(again)
	e.svc.do(func(f *fakeService) {
		if !slices.Contains(f.deleted, "session-1") || f.sessions[42] != "session-2" {
			t.Errorf("sessions deleted %v, open %v: want session-1 closed and session-2 open", f.deleted, f.sessions)
		}
	})
	if got := e.scaleSet().Session; got.Owner != "replica-a" || got.SessionID != "session-2" {
		t.Fatalf("claim %+v, want replica-a with session-2", got)
	}
	e.svc.push(2, 3)
	e.step(again)
	if n := e.live(); n != 3 {
		t.Fatalf("%d runners after the next message, want 3", n)
	}
}
