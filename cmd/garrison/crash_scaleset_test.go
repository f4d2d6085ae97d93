package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/forgesim"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// The shape of the scale-set crash run.
const (
	ssCrashSet         = "crash-scaleset"
	ssCrashMax         = 6
	ssCrashBurstKills  = 18 // during the burst, at the moments of ssCrashMoments in turn
	ssCrashDownKills   = 4  // while idle runners are removed
	ssCrashJobsUpFront = 10
	ssCrashJobsPerKill = 2 // queued while the server is down
	ssCrashWaveKills   = 12
	ssCrashIdle        = 4 // idle runners kept for the scale-down kills
	// ssCrashTrapWait bounds the wait for an armed call; the kill happens anyway after it.
	ssCrashTrapWait = 15 * time.Second
)

// ssCrashMoments are the moments of the burst's kills, in turn ("" is a random moment,
// which mostly lands while the provider creates an instance).
var ssCrashMoments = []trapKind{trapAcquire, trapJIT, trapMessage, trapSession, trapAck, ""}

// TestCrashRestartScaleSet is TestCrashRestart for a runner scale set on the simulator's
// Actions service (GHES flow: jobs are offered, acquired, then assigned). Jobs are queued
// as scale-set messages, some while the server is down, and the server is killed
// (SIGKILL) at chosen moments: right after the service opened its message session,
// registered a runner, let it acquire jobs or deleted a message — before the server
// heard the answer — while it processes a message, while it removes an idle runner, and
// at random. Then every job must have run exactly once on its own runner, garrison must
// never have acted again on a message it recorded, the store never held more live
// runners than max_runners, and once scaled down nothing may be left in garrison, the
// provider or the forge; disabled, the scale set holds no session.
func TestCrashRestartScaleSet(t *testing.T) {
	rng := crashStart(t, "six")
	c, tr := newScaleSetCrashRun(t)
	ctx := t.Context()
	id := c.ScaleSetIDs[0]
	peak := c.watchLiveRunners(t, id)

	start := time.Now()
	ids := c.queueLabeled(t, rng, ssCrashJobsUpFront, ssCrashSet)
	kills, sprung := 0, map[trapKind]int{}
	for i := range ssCrashBurstKills {
		kills += c.killDuring(t, rng, tr, ssCrashMoments[i%len(ssCrashMoments)], sprung, func() {
			if i < ssCrashWaveKills {
				ids = append(ids, c.queueLabeled(t, rng, ssCrashJobsPerKill, ssCrashSet)...)
			}
		})
	}
	t.Logf("%d kills during the burst in %s (trapped: %v); %d jobs queued", kills, time.Since(start).Round(time.Second), sprung, len(ids))
	eventuallyWithin(t, 4*time.Minute, "every job completed", func() (bool, string) {
		done := c.CompletedJobs(ids)
		return done == len(ids), fmt.Sprintf("%d of %d jobs completed; %s", done, len(ids), c.RunnerCounts(ctx))
	})
	t.Logf("every job completed %s after the first was queued", time.Since(start).Round(time.Second))
	c.checkServedOnce(t, ids)
	eventually(t, "the ledger to agree with the forge", func() (bool, string) { return c.ledgerSettled(t, ids) })

	c.setMinIdle(t, id, ssCrashIdle)
	eventually(t, "idle runners to scale down", func() (bool, string) { return c.idleRunners(t, id, ssCrashIdle) })
	c.setMinIdle(t, id, 0)
	for range ssCrashDownKills {
		kills += c.killDuring(t, rng, tr, trapRemove, sprung, nil)
	}
	expectNoLeaks(t, c.Bed, 5*time.Minute)

	problems, summary := tr.report()
	for _, p := range problems {
		t.Error(p)
	}
	if n := peak.Load(); n > ssCrashMax {
		t.Errorf("the store held %d live runners of the scale set at once; max_runners is %d", n, ssCrashMax)
	}
	off := false
	if _, err := c.API.UpdateScaleSet(ctx, id, apiv1.UpdateScaleSetParams{Enabled: &off}); err != nil {
		t.Fatalf("disabling the scale set: %v", err)
	}
	eventually(t, "the disabled scale set's session to be closed", func() (bool, string) {
		ss := c.Sim.ScaleSets()
		return len(ss) == 1 && ss[0].SessionID == "", fmt.Sprintf("%+v", ss)
	})
	t.Logf("%d kills in all (trapped: %v); %s; at most %d live runners; nothing left, %s after the first job was queued",
		kills, sprung, summary, peak.Load(), time.Since(start).Round(time.Second))
	if err := c.srv.Stop(); err != nil {
		t.Errorf("final server stop: %v", err)
	}
}

// newScaleSetCrashRun starts the crash testbed with a trap in front of the simulator, a
// short long poll and session idle time, the GHES flow, and one scale set on the
// repository (no pool).
func newScaleSetCrashRun(t *testing.T) (*crashRun, *simTrap) {
	t.Helper()
	tr := newSimTrap()
	o := crashBedOptions(t)
	o.SimWrap = tr.wrap
	c := startCrashRun(t, o, func(b *testbed.Bed, ctx context.Context) error {
		// A session opened by a server killed before it heard the answer blocks new ones
		// until it idles out (SessionIdle).
		b.Sim.SetScaleSetOptions(forgesim.ScaleSetOptions{Hold: 3 * time.Second, SessionIdle: 5 * time.Second, Available: true})
		repo, err := b.SetupRepo(ctx)
		if err != nil {
			return err
		}
		_, err = b.AddScaleSet(ctx, repo.ID, apiv1.CreateScaleSetParams{Name: ssCrashSet, MaxRunners: ssCrashMax,
			MinIdleRunners: 1, Flavor: "small"})
		return err
	})
	return c, tr
}

// killDuring kills the server during a call of the given kind (a random moment for ""),
// restarts it and returns how many kills that took. The kill waits at most
// ssCrashTrapWait for the call. A session is opened as the server starts, so that
// moment takes two kills: one to restart the server, one while it opens its session.
func (c *crashRun) killDuring(t *testing.T, rng *rand.Rand, tr *simTrap, kind trapKind, sprung map[trapKind]int, whileDown func()) int {
	t.Helper()
	if kind == "" {
		c.killAndRestart(t, rng, whileDown)
		return 1
	}
	kills := 1
	if kind == trapSession {
		tr.arm(kind)
		c.killAndRestart(t, rng, whileDown)
		whileDown = nil
		kills++
	} else {
		tr.arm(kind)
	}
	fired := tr.await(ssCrashTrapWait)
	if fired {
		sprung[kind]++
		if kind == trapMessage {
			time.Sleep(time.Duration(rng.Int64N(int64(20 * time.Millisecond)))) // into the processing
		}
	}
	c.restart(t, func() {
		if fired {
			tr.release(kind)
		}
		if whileDown != nil {
			whileDown()
		}
	})
	return kills
}

// queueLabeled queues n jobs with the given runs-on labels and random short durations.
func (c *crashRun) queueLabeled(t *testing.T, rng *rand.Rand, n int, labels ...string) []int64 {
	t.Helper()
	ids := make([]int64, 0, n)
	for range n {
		d := 200*time.Millisecond + time.Duration(rng.Int64N(int64(time.Second)))
		id, err := c.Sim.QueueJobFor(testbed.Repo, d, labels...)
		if err != nil {
			t.Fatalf("queueing a job: %v", err)
		}
		c.Queued[id] = time.Now()
		ids = append(ids, id)
	}
	return ids
}

// checkServedOnce checks that every job went to the scale set and ran on a runner of
// its own (an ephemeral runner serves one job).
func (c *crashRun) checkServedOnce(t *testing.T, ids []int64) {
	t.Helper()
	ranOn := map[string]int64{}
	for _, id := range ids {
		j, _ := c.Sim.Job(id)
		if j.ScaleSetID == 0 || j.RunnerName == "" {
			t.Errorf("job %d: scale set %d, runner %q", id, j.ScaleSetID, j.RunnerName)
			continue
		}
		if other, dup := ranOn[j.RunnerName]; dup {
			t.Errorf("runner %s ran jobs %d and %d", j.RunnerName, other, id)
		}
		ranOn[j.RunnerName] = id
	}
}

// setMinIdle sets the scale set's min idle runners through the API.
func (c *crashRun) setMinIdle(t *testing.T, id, n uint) {
	t.Helper()
	if _, err := c.API.UpdateScaleSet(t.Context(), id, apiv1.UpdateScaleSetParams{MinIdleRunners: &n}); err != nil {
		t.Fatalf("setting min idle runners of scale set %d to %d: %v", id, n, err)
	}
}

// idleRunners reports whether the scale set has n idle runners.
func (c *crashRun) idleRunners(t *testing.T, id, n uint) (bool, string) {
	insts, err := c.API.ListScaleSetRunners(t.Context(), id, false)
	if err != nil {
		return false, err.Error()
	}
	idle := uint(0)
	for _, in := range insts {
		if testbed.RunnerState(in) == "idle" {
			idle++
		}
	}
	return idle >= n, fmt.Sprintf("%d idle; %s", idle, c.RunnerCounts(t.Context()))
}

// watchLiveRunners samples, until the test ends, the scale set's runners not on their
// way out, and returns the highest count seen.
func (c *crashRun) watchLiveRunners(t *testing.T, id uint) *atomic.Int64 {
	var peak atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			if insts, err := c.API.ListScaleSetRunners(ctx, id, false); err == nil {
				n := int64(0)
				for _, in := range insts {
					switch in.Status {
					case "pending_delete", "pending_force_delete", "deleting", "deleted":
					default:
						n++
					}
				}
				if n > peak.Load() {
					peak.Store(n)
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return &peak
}
