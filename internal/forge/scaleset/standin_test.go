package scaleset

import (
	"slices"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/forgesim"
	"github.com/garrison-ci/garrison/internal/standin"
)

// The stand-in runner that garrison's bootstrap installs runs a scale set's JIT
// configuration as it runs a pool's: it takes the set's job, and the listener sees
// JobStarted and JobCompleted.
func TestStandInRunsAScaleSetJob(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	ctx := ctxT(t)
	set := e.newSet(t)
	sess, err := e.c.CreateSession(ctx, set.ID, "me")
	if err != nil {
		t.Fatal(err)
	}
	jobID, _ := e.sim.QueueJob("acme/app", "linux")
	cfg, err := e.c.GenerateJITConfig(ctx, set.ID, "standin-1", "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := standin.WriteJITConfig(dir, cfg.Encoded); err != nil {
		t.Fatal(err)
	}
	id, err := standin.LoadGitHub(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := standin.Run(ctx, id, standin.RunOptions{IdleTimeout: 10 * time.Second, JobDuration: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if j, _ := e.sim.Job(jobID); j.Status != "completed" || j.RunnerName != "standin-1" {
		t.Fatalf("job %+v", j)
	}
	q := e.c.Queue(sess)
	var seen []string
	var last int64
	for !slices.Contains(seen, JobCompleted) {
		m := poll(t, q, last)
		seen, last = append(seen, types(m)...), m.ID
		if err := q.Ack(ctx, m.ID); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(seen, []string{JobAssigned, JobStarted, JobCompleted}) {
		t.Fatalf("events %v", seen)
	}
}
