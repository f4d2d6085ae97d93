package scaleset

import (
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forgesim"
)

// TestListenerLoop is the whole cycle a scale-set listener runs, as documentation: open
// the session, long-poll, scale on the statistics, create a runner with a JIT config
// for each missing one, see the runner start and finish its job, acknowledge each
// message, close the session. The runner is played by the simulator's Go API.
func TestListenerLoop(t *testing.T) {
	for _, flow := range []struct {
		name string
		opts forgesim.ScaleSetOptions
	}{{"github.com assigned", forgesim.ScaleSetOptions{}}, {"GHES available", forgesim.ScaleSetOptions{Available: true}}} {
		t.Run(flow.name, func(t *testing.T) {
			e := newEnv(t, flow.opts)
			ctx := ctxT(t)
			const minIdle, maxRunners = 0, 4
			set := e.newSet(t)
			sess, err := e.c.CreateSession(ctx, set.ID, "listener-1")
			if err != nil {
				t.Fatal(err)
			}
			q := e.c.Queue(sess)
			defer func() {
				if err := q.Close(ctx); err != nil {
					t.Errorf("close: %v", err)
				}
			}()
			jobID, _ := e.sim.QueueJob("acme/app", "linux")

			var last int64
			runners := 0
			stats := sess.Statistics
			finished := false
			for step := 0; step < 100 && !finished; step++ {
				m, err := q.Get(ctx, last, maxRunners)
				if err != nil {
					t.Fatal(err)
				}
				if m == nil {
					continue // 202: the last statistics still hold
				}
				if m.Statistics != nil {
					stats = *m.Statistics
				}
				if ids := m.Available(); len(ids) > 0 {
					if _, err := q.Acquire(ctx, ids); err != nil {
						t.Fatal(err)
					}
				}
				for _, j := range m.Jobs {
					finished = finished || (j.Type == JobCompleted && j.Result == "succeeded")
				}
				if err := q.Ack(ctx, m.ID); err != nil {
					t.Fatal(err)
				}
				last = m.ID
				// Scale up to the target; the runner boots and runs its job.
				for target := garrison.ScaleSetTarget(minIdle, maxRunners, stats.AssignedJobs); runners < target; runners++ {
					cfg, err := e.c.GenerateJITConfig(ctx, set.ID, "runner-1", "")
					if err != nil {
						t.Fatal(err)
					}
					secret := runnerSecret(t, cfg)
					job, err := e.sim.Acquire(cfg.Runner.Name, secret)
					if err != nil || job == nil || job.ID != jobID {
						t.Fatalf("the runner took %+v (%v)", job, err)
					}
					if _, err := e.sim.StartJob(job.ID, secret); err != nil {
						t.Fatal(err)
					}
					if _, err := e.sim.CompleteJob(job.ID, secret, "success"); err != nil {
						t.Fatal(err)
					}
				}
			}
			if !finished {
				t.Fatal("no JobCompleted came")
			}
			if j, _ := e.sim.Job(jobID); j.Status != "completed" || j.Conclusion != "success" || runners != 1 {
				t.Fatalf("job %+v after %d runners", j, runners)
			}
			got := e.sim.ScaleSets()[0]
			if got.Unacked != 0 || got.Stats.TotalAssignedJobs != 0 || got.Stats.TotalRegisteredRunners != 0 {
				t.Fatalf("scale set left with %+v", got)
			}
		})
	}
}
