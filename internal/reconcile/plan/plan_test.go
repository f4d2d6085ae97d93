package plan

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// testPool returns an enabled pool with tags self-hosted, linux, x64.
func testPool(id string, minIdle, maxRunners uint) garrison.Pool {
	return garrison.Pool{
		ID: id, EntityID: "ent", ProviderName: "sim", RunnerPrefix: "garm", MinIdleRunners: minIdle,
		MaxRunners: maxRunners, Enabled: true, Generation: 1,
		Tags: garrison.TagsFromNames([]string{"self-hosted", "Linux", "x64"}),
	}
}

// inst returns an instance of pool in the given states, last updated ago before t0.
func inst(pool, name string, st garrison.InstanceStatus, rs garrison.RunnerStatus, ago time.Duration) garrison.Instance {
	return garrison.Instance{ID: "id-" + name, Name: name, PoolID: pool, Status: st, RunnerStatus: rs,
		CreateAttempt: 1, Generation: 1, CreatedAt: t0.Add(-ago), UpdatedAt: t0.Add(-ago)}
}

func idle(pool, name string, ago time.Duration) garrison.Instance {
	return inst(pool, name, garrison.InstanceRunning, garrison.RunnerIdle, ago)
}

func queued(id int64, age time.Duration, labels ...string) garrison.Job {
	if labels == nil {
		labels = []string{"self-hosted", "linux"}
	}
	return garrison.Job{ID: id, Action: garrison.JobQueued, Labels: labels, EntityID: "ent", CreatedAt: t0.Add(-age)}
}

// planCase is one Plan scenario; spec.Pools defaults to [spec.Pool].
type planCase struct {
	name  string
	spec  Spec
	obs   Observed
	check func(t *testing.T, a Actions)
}

func runPlanCases(t *testing.T, cases []planCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.spec.Pools == nil {
				tc.spec.Pools = []garrison.Pool{tc.spec.Pool}
			}
			if tc.obs.Now.IsZero() {
				tc.obs.Now = t0
			}
			tc.check(t, Plan(tc.spec, tc.obs))
		})
	}
}

func wantCreates(n int, jobs ...int64) func(*testing.T, Actions) {
	return func(t *testing.T, a Actions) {
		t.Helper()
		if len(a.Creates) != n {
			t.Fatalf("creates = %+v, want %d", a.Creates, n)
		}
		for i, j := range jobs {
			if a.Creates[i].JobID != j {
				t.Fatalf("create %d is for job %d, want %d (%+v)", i, a.Creates[i].JobID, j, a.Creates)
			}
		}
	}
}

func wantDeletes(names ...string) func(*testing.T, Actions) {
	return func(t *testing.T, a Actions) {
		t.Helper()
		var got []string
		for _, d := range a.Deletes {
			got = append(got, d.Instance)
		}
		if fmt.Sprint(got) != fmt.Sprint(names) {
			t.Fatalf("deletes = %+v, want %v", a.Deletes, names)
		}
	}
}

func all(checks ...func(*testing.T, Actions)) func(*testing.T, Actions) {
	return func(t *testing.T, a Actions) {
		t.Helper()
		for _, c := range checks {
			c(t, a)
		}
	}
}

func wantUnserved(job int64, reason string) func(*testing.T, Actions) {
	return func(t *testing.T, a Actions) {
		t.Helper()
		for _, u := range a.Unserved {
			if u.JobID == job && strings.Contains(u.Reason, reason) {
				return
			}
		}
		t.Fatalf("unserved = %+v, want job %d with %q", a.Unserved, job, reason)
	}
}

func wantRequeue(d time.Duration) func(*testing.T, Actions) {
	return func(t *testing.T, a Actions) {
		t.Helper()
		if a.RequeueAfter != d {
			t.Fatalf("RequeueAfter = %v, want %v", a.RequeueAfter, d)
		}
	}
}

func TestPlanCapacity(t *testing.T) {
	p := testPool("p1", 2, 5)
	capped := testPool("p1", 5, 3)
	runPlanCases(t, []planCase{
		{name: "min idle from nothing", spec: Spec{Pool: p}, check: wantCreates(2, 0, 0)},
		{name: "booting and idle runners count toward min idle", spec: Spec{Pool: p}, obs: Observed{Instances: []garrison.Instance{
			inst("p1", "a", garrison.InstanceCreating, garrison.RunnerPending, 0), idle("p1", "b", 0),
		}}, check: wantCreates(0)},
		{name: "a failed create that will be retried counts toward min idle", spec: Spec{Pool: p}, obs: Observed{Instances: []garrison.Instance{
			withAttempt(inst("p1", "e", garrison.InstanceError, "", 0), 1), idle("p1", "b", 0),
		}}, check: wantCreates(0)},
		{name: "a failed create past the retry limit does not", spec: Spec{Pool: p}, obs: Observed{Instances: []garrison.Instance{
			withAttempt(inst("p1", "e", garrison.InstanceError, "", 0), 5), idle("p1", "b", 0),
		}}, check: wantCreates(1)},
		{name: "busy runners do not count as idle", spec: Spec{Pool: p}, obs: Observed{Instances: []garrison.Instance{
			inst("p1", "a", garrison.InstanceRunning, garrison.RunnerActive, 0),
		}}, check: wantCreates(2)},
		{name: "max counts everything not deleted", spec: Spec{Pool: capped}, obs: Observed{Instances: []garrison.Instance{
			withAttempt(inst("p1", "e", garrison.InstanceError, "", 0), 5),
			inst("p1", "d", garrison.InstancePendingDelete, garrison.RunnerTerminated, 0),
			inst("p1", "gone", garrison.InstanceDeleted, "", 0),
		}}, check: wantCreates(1)},
		{name: "a burst of jobs stops at max", spec: Spec{Pool: testPool("p1", 0, 3)}, obs: Observed{Jobs: []garrison.Job{
			queued(1, 4*time.Second), queued(2, 3*time.Second), queued(3, 2*time.Second), queued(4, time.Second),
		}}, check: all(wantCreates(3, 1, 2, 3), wantUnserved(4, "max_runners"))},
		{name: "disabled pool creates nothing", spec: Spec{Pool: disabled(p)}, obs: Observed{Jobs: []garrison.Job{queued(1, 0)}},
			check: all(wantCreates(0), wantUnserved(1, "disabled"))},
	})
}

func withAttempt(i garrison.Instance, n int) garrison.Instance { i.CreateAttempt = n; return i }

func disabled(p garrison.Pool) garrison.Pool { p.Enabled = false; return p }

func locked(j garrison.Job, instanceID string) garrison.Job { j.LockedBy = instanceID; return j }

func TestPlanJobs(t *testing.T) {
	p := testPool("p1", 0, 10)
	age := 30 * time.Second
	runPlanCases(t, []planCase{
		{name: "queued job with no idle runner gets one at once", spec: Spec{Pool: p, MinimumJobAge: age},
			obs: Observed{Jobs: []garrison.Job{queued(7, 0)}}, check: wantCreates(1, 7)},
		{name: "age backoff applies while a matching idle runner exists", spec: Spec{Pool: p, MinimumJobAge: age},
			obs:   Observed{Jobs: []garrison.Job{queued(7, 5*time.Second)}, Instances: []garrison.Instance{idle("p1", "a", time.Hour)}},
			check: all(wantCreates(0), wantRequeue(25*time.Second), wantDeletes())},
		{name: "job older than the backoff gets its own runner", spec: Spec{Pool: p, MinimumJobAge: age},
			obs:   Observed{Jobs: []garrison.Job{queued(7, 40*time.Second)}, Instances: []garrison.Instance{idle("p1", "a", 0)}},
			check: wantCreates(1, 7)},
		{name: "labels match case-insensitively as a subset of the tags", spec: Spec{Pool: p},
			obs: Observed{Jobs: []garrison.Job{queued(1, 0, "SELF-HOSTED", "linux", "X64")}}, check: wantCreates(1, 1)},
		{name: "a job no pool can serve is reported with the reason", spec: Spec{Pool: p},
			obs:   Observed{Jobs: []garrison.Job{queued(1, 0, "self-hosted", "gpu")}},
			check: all(wantCreates(0), wantUnserved(1, "no pool has all of the labels [self-hosted gpu]"))},
		{name: "a job served by the runner made for it gets no other", spec: Spec{Pool: p},
			obs: Observed{Jobs: []garrison.Job{locked(queued(1, time.Minute), "id-a")},
				Instances: []garrison.Instance{inst("p1", "a", garrison.InstanceCreating, garrison.RunnerPending, 0)}},
			check: wantCreates(0)},
		{name: "a displaced job is credited a new runner", spec: Spec{Pool: p, MinimumJobAge: age},
			obs: Observed{Jobs: []garrison.Job{locked(queued(1, time.Minute), "id-a")},
				Instances: []garrison.Instance{inst("p1", "a", garrison.InstanceRunning, garrison.RunnerActive, 0)}},
			check: wantCreates(1, 1)},
		{name: "a job whose runner failed to create waits for the retry", spec: Spec{Pool: p},
			obs: Observed{Jobs: []garrison.Job{locked(queued(1, time.Minute), "id-a")},
				Instances: []garrison.Instance{withAttempt(inst("p1", "a", garrison.InstanceError, "", 0), 2)}},
			check: wantCreates(0)},
		{name: "a job whose runner gave up gets a new one", spec: Spec{Pool: p},
			obs: Observed{Jobs: []garrison.Job{locked(queued(1, time.Minute), "id-a")},
				Instances: []garrison.Instance{withAttempt(inst("p1", "a", garrison.InstanceError, "", 0), 5)}},
			check: wantCreates(1, 1)},
		{name: "an unclaimed booting runner is locked to the job", spec: Spec{Pool: p},
			obs: Observed{Jobs: []garrison.Job{queued(1, 0)},
				Instances: []garrison.Instance{inst("p1", "a", garrison.InstancePendingCreate, garrison.RunnerPending, 0)}},
			check: func(t *testing.T, a Actions) {
				if len(a.Creates) != 0 || len(a.Locks) != 1 || a.Locks[0] != (Lock{JobID: 1, InstanceID: "id-a"}) {
					t.Fatalf("actions = %+v, want one lock", a)
				}
			}},
		{name: "jobs beyond the ledger's lifetime are ignored", spec: Spec{Pool: p},
			obs:   Observed{Jobs: []garrison.Job{queued(1, 25*time.Hour)}},
			check: all(wantCreates(0), wantUnserved(1, "queued for more than"))},
	})
}

func TestPlanSpreadsJobsOverPools(t *testing.T) {
	hi, lo := testPool("a-hi", 0, 2), testPool("b-lo", 0, 10)
	hi.Priority, lo.Priority = 10, 1
	a, b := testPool("a", 0, 10), testPool("b", 0, 10)
	jobs := []garrison.Job{queued(1, 4*time.Second), queued(2, 3*time.Second), queued(3, 2*time.Second), queued(4, time.Second)}
	tests := []struct {
		name     string
		pools    []garrison.Pool
		balancer garrison.Balancer
		want     map[string]int
	}{
		{"priority first, then the next one when full", []garrison.Pool{lo, hi}, garrison.RoundRobin, map[string]int{"a-hi": 2, "b-lo": 2}},
		{"roundrobin spreads equals", []garrison.Pool{a, b}, garrison.RoundRobin, map[string]int{"a": 2, "b": 2}},
		{"pack fills the first", []garrison.Pool{b, a}, garrison.Pack, map[string]int{"a": 4, "b": 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]int{}
			seen := map[int64]string{}
			for _, p := range tt.pools {
				acts := Plan(Spec{Pool: p, Pools: tt.pools, Balancer: tt.balancer}, Observed{Now: t0, Jobs: jobs})
				for _, c := range acts.Creates {
					if prev, dup := seen[c.JobID]; dup {
						t.Fatalf("job %d gets runners in %s and %s", c.JobID, prev, p.ID)
					}
					seen[c.JobID] = p.ID
				}
				got[p.ID] = len(acts.Creates)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("creates per pool = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPlanScaleDown(t *testing.T) {
	p := testPool("p1", 1, 10)
	grace := 5 * time.Minute
	runPlanCases(t, []planCase{
		{name: "surplus idle runners past the grace period go, longest idle first", spec: Spec{Pool: p},
			obs:   Observed{Instances: []garrison.Instance{idle("p1", "a", 10*time.Minute), idle("p1", "b", 20*time.Minute), idle("p1", "c", 7*time.Minute)}},
			check: wantDeletes("b", "a")},
		{name: "grace period protects recently idle runners", spec: Spec{Pool: p},
			obs:   Observed{Instances: []garrison.Instance{idle("p1", "a", time.Minute), idle("p1", "b", 2*time.Minute)}},
			check: all(wantDeletes(), wantRequeue(grace-2*time.Minute))},
		{name: "busy runners are never scaled down", spec: Spec{Pool: testPool("p1", 0, 10)},
			obs: Observed{Instances: []garrison.Instance{
				inst("p1", "a", garrison.InstanceRunning, garrison.RunnerActive, time.Hour),
				inst("p1", "b", garrison.InstanceRunning, garrison.RunnerActive, time.Hour)}},
			check: wantDeletes()},
		{name: "idle runners a queued job waits for are kept", spec: Spec{Pool: testPool("p1", 0, 10), MinimumJobAge: time.Minute},
			obs:   Observed{Jobs: []garrison.Job{queued(1, 0)}, Instances: []garrison.Instance{idle("p1", "a", time.Hour)}},
			check: all(wantDeletes(), wantCreates(0))},
		{name: "disabled pool scales idle runners down to zero", spec: Spec{Pool: disabled(p)},
			obs: Observed{Instances: []garrison.Instance{idle("p1", "a", time.Hour), idle("p1", "b", time.Hour),
				inst("p1", "c", garrison.InstanceRunning, garrison.RunnerActive, time.Hour)}},
			check: all(wantDeletes("a", "b"), wantCreates(0))},
	})
}

func TestPlanLifecycle(t *testing.T) {
	p := testPool("p1", 0, 10)
	p.RunnerBootstrapTimeout = 20
	gen2 := p
	gen2.Generation, gen2.MinIdleRunners = 2, 1
	runPlanCases(t, []planCase{
		{name: "runner that did not come up in time is reaped", spec: Spec{Pool: p},
			obs:   Observed{Instances: []garrison.Instance{inst("p1", "a", garrison.InstanceRunning, garrison.RunnerInstalling, 21*time.Minute)}},
			check: wantDeletes("a")},
		{name: "booting runner within its timeout is left alone", spec: Spec{Pool: p},
			obs:   Observed{Instances: []garrison.Instance{inst("p1", "a", garrison.InstanceRunning, garrison.RunnerPending, 5*time.Minute)}},
			check: all(wantDeletes(), wantRequeue(15*time.Minute))},
		{name: "failed create is retried after its backoff", spec: Spec{Pool: p},
			obs: Observed{Instances: []garrison.Instance{withAttempt(inst("p1", "a", garrison.InstanceError, "", time.Minute), 2)}},
			check: func(t *testing.T, a Actions) {
				if fmt.Sprint(a.Retries) != "[a]" {
					t.Fatalf("retries = %v", a.Retries)
				}
			}},
		{name: "failed create waits for its backoff", spec: Spec{Pool: p},
			obs: Observed{Instances: []garrison.Instance{withAttempt(inst("p1", "a", garrison.InstanceError, "", 5*time.Second), 2)}},
			check: all(func(t *testing.T, a Actions) {
				if len(a.Retries) != 0 {
					t.Fatalf("retried too early: %v", a.Retries)
				}
			}, wantRequeue(15*time.Second))},
		{name: "failed create past the attempt limit is retired", spec: Spec{Pool: p},
			obs: Observed{Instances: []garrison.Instance{withAttempt(inst("p1", "a", garrison.InstanceError, "", time.Hour), 5)}},
			check: all(wantDeletes("a"), func(t *testing.T, a Actions) {
				if len(a.Retries)+len(a.Creates) != 0 || !a.Deletes[0].Retire || !a.Deletes[0].Mark {
					t.Fatalf("actions = %+v, want only a retirement", a)
				}
			})},
		{name: "outdated idle runners are replaced, busy ones are not", spec: Spec{Pool: gen2},
			obs: Observed{Instances: []garrison.Instance{idle("p1", "old", 0),
				inst("p1", "busy", garrison.InstanceRunning, garrison.RunnerActive, 0)}},
			check: all(wantDeletes("old"), wantCreates(1))},
		{name: "marked instances are deleted, forced ones ignoring errors, busy ones wait", spec: Spec{Pool: p},
			obs: Observed{Instances: []garrison.Instance{
				inst("p1", "a", garrison.InstancePendingDelete, "", 0),
				inst("p1", "b", garrison.InstancePendingForceDelete, "", 0),
				inst("p1", "c", garrison.InstanceDeleting, "", 0),
				inst("p1", "d", garrison.InstancePendingDelete, "", 0),
			}, Busy: map[string]bool{"d": true}},
			check: all(wantDeletes("a", "b", "c"), wantRequeue(0), func(t *testing.T, a Actions) {
				if a.Deletes[0].Force || !a.Deletes[1].Force || a.Deletes[0].Mark {
					t.Fatalf("deletes = %+v", a.Deletes)
				}
			})},
		{name: "finished and failed runners are deleted", spec: Spec{Pool: p},
			obs: Observed{Instances: []garrison.Instance{
				inst("p1", "a", garrison.InstanceRunning, garrison.RunnerTerminated, 0),
				inst("p1", "b", garrison.InstanceRunning, garrison.RunnerFailed, 0)}},
			check: wantDeletes("a", "b")},
		{name: "pending creates resume, creating ones without a call are resolved, busy ones wait", spec: Spec{Pool: p},
			obs: Observed{Instances: []garrison.Instance{
				inst("p1", "a", garrison.InstancePendingCreate, garrison.RunnerPending, 0),
				inst("p1", "b", garrison.InstanceCreating, garrison.RunnerPending, 0),
				inst("p1", "c", garrison.InstanceCreating, garrison.RunnerPending, 0),
			}, Busy: map[string]bool{"c": true}},
			check: all(wantRequeue(0), func(t *testing.T, a Actions) {
				if fmt.Sprint(a.Resumes, a.Resolves) != "[a] [b]" {
					t.Fatalf("resumes %v resolves %v", a.Resumes, a.Resolves)
				}
			})},
	})
}

// retired returns a history record of a runner retired ago before t0.
func retired(pool, name string, ago time.Duration) garrison.Instance {
	in := inst(pool, name, garrison.InstanceDeleted, garrison.RunnerFailed, ago)
	in.ProviderFault = []byte("boom " + name)
	return in
}

func wantBackoff(failures int, until time.Duration, fault string) func(*testing.T, Actions) {
	return func(t *testing.T, a Actions) {
		t.Helper()
		b := a.Backoff
		if b == nil || b.Failures != failures || !b.Until.Equal(t0.Add(until)) || b.Fault != fault {
			t.Fatalf("backoff = %+v, want %d failures until t0%+v, fault %q", b, failures, until, fault)
		}
	}
}

func TestPlanHeals(t *testing.T) {
	p := testPool("p1", 2, 4)
	p.RunnerBootstrapTimeout = 20
	other := testPool("p2", 0, 4)
	pol := Policy{RetryBackoff: 10 * time.Second, MaxRetryBackoff: time.Minute}
	runPlanCases(t, []planCase{
		{name: "failed install is retired, never a busy runner", spec: Spec{Pool: p, Policy: pol},
			obs: Observed{Instances: []garrison.Instance{
				inst("p1", "a", garrison.InstanceRunning, garrison.RunnerFailed, 0),
				inst("p1", "b", garrison.InstanceRunning, garrison.RunnerActive, time.Hour)}},
			check: all(wantDeletes("a"), func(t *testing.T, a Actions) {
				if !a.Deletes[0].Retire {
					t.Fatalf("delete = %+v, want a retirement", a.Deletes[0])
				}
			})},
		{name: "retired runners do not hold capacity, but the pool backs off", spec: Spec{Pool: p, Policy: pol},
			obs: Observed{Instances: []garrison.Instance{retired("p1", "a", 15*time.Second), retired("p1", "b", 5*time.Second),
				retired("p1", "c", 20*time.Second), retired("p1", "d", 30*time.Second)}},
			// 4 failures: 10s doubled three times is 80s, capped at 1m, from the last one.
			check: all(wantCreates(0), wantBackoff(4, 55*time.Second, "boom b"), wantRequeue(55*time.Second))},
		{name: "after the backoff one runner is tried at a time", spec: Spec{Pool: p, Policy: pol},
			obs:   Observed{Instances: []garrison.Instance{retired("p1", "a", 11*time.Second)}},
			check: all(wantCreates(1), wantBackoff(1, -time.Second, "boom a"))},
		{name: "no second try while the first is on its way up", spec: Spec{Pool: p, Policy: pol},
			obs: Observed{Instances: []garrison.Instance{retired("p1", "a", time.Hour),
				inst("p1", "probe", garrison.InstanceRunning, garrison.RunnerInstalling, 0)}, Jobs: []garrison.Job{queued(7, time.Minute)}},
			check: all(wantCreates(0), func(t *testing.T, a Actions) {
				if len(a.Locks) != 1 {
					t.Fatalf("locks = %+v, want the job given to the probe", a.Locks)
				}
			})},
		{name: "a job finds no runner while the pool backs off, and says why", spec: Spec{Pool: p, Policy: pol},
			obs: Observed{Instances: []garrison.Instance{retired("p1", "a", time.Second)}, Jobs: []garrison.Job{queued(7, time.Minute)}},
			check: all(wantCreates(0), func(t *testing.T, a Actions) {
				if len(a.Unserved) != 1 || !strings.Contains(a.Unserved[0].Reason, "backing off after 1 failed runners") ||
					!strings.Contains(a.Unserved[0].Reason, "boom a") {
					t.Fatalf("unserved = %+v", a.Unserved)
				}
			})},
		{name: "a job goes to a healthy pool while another backs off", spec: Spec{Pool: other, Pools: []garrison.Pool{p, other}, Policy: pol},
			obs:   Observed{Instances: []garrison.Instance{retired("p1", "a", time.Second)}, Jobs: []garrison.Job{queued(7, time.Minute)}},
			check: wantCreates(1, 7)},
		{name: "a runner that came up since ends the streak", spec: Spec{Pool: p, Policy: pol},
			obs: Observed{Instances: []garrison.Instance{retired("p1", "a", time.Minute), idle("p1", "up", time.Second)}},
			check: all(wantCreates(1), func(t *testing.T, a Actions) {
				if a.Backoff != nil {
					t.Fatalf("backoff = %+v, want none", a.Backoff)
				}
			})},
		{name: "a runner seen up and gone since ends the streak too", spec: Spec{Pool: p, Policy: pol},
			obs: Observed{Instances: []garrison.Instance{retired("p1", "a", time.Minute)},
				LastUp: map[string]time.Time{"p1": t0.Add(-time.Second)}},
			check: all(wantCreates(2), func(t *testing.T, a Actions) {
				if a.Backoff != nil {
					t.Fatalf("backoff = %+v, want none", a.Backoff)
				}
			})},
		{name: "history is reaped past its age or count", spec: Spec{Pool: p, Policy: Policy{HistoryKeep: 2, HistoryTTL: time.Hour}},
			obs: Observed{Instances: []garrison.Instance{retired("p1", "a", time.Minute), retired("p1", "b", 2*time.Minute),
				retired("p1", "c", 3*time.Minute), retired("p1", "old", 2*time.Hour), retired("p2", "x", 3*time.Hour)},
				Busy: map[string]bool{}},
			check: func(t *testing.T, a Actions) {
				if fmt.Sprint(a.Reaps) != "[c old]" {
					t.Fatalf("reaps = %v, want [c old]", a.Reaps)
				}
			}},
	})
}
