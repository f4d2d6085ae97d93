package scaleset

import (
	"errors"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forgesim"
)

func TestJITConfigAndAgents(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	ctx := ctxT(t)
	s := e.newSet(t)
	cfg, err := e.c.GenerateJITConfig(ctx, s.ID, "r1", "work")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Runner.ID == 0 || cfg.Runner.Name != "r1" || cfg.Runner.ScaleSetID != s.ID || cfg.Encoded == "" {
		t.Fatalf("JIT config %+v", cfg)
	}
	for _, f := range []string{".runner", ".credentials", ".credentials_rsaparams"} {
		if cfg.Files[f] == "" {
			t.Fatalf("file %s missing: %v", f, cfg.Files)
		}
	}
	if _, err := e.c.GenerateJITConfig(ctx, s.ID, "r1", ""); !errors.Is(err, ErrRunnerExists) || !errors.Is(err, garrison.ErrConflict) {
		t.Fatalf("duplicate name: err = %v", err)
	}
	if _, err := e.c.GenerateJITConfig(ctx, 999, "r2", ""); !errors.Is(err, garrison.ErrNotFound) {
		t.Fatalf("missing set: err = %v", err)
	}
	if _, err := e.c.GenerateJITConfig(ctx, s.ID, "", ""); !errors.Is(err, garrison.ErrInvalid) {
		t.Fatalf("no name: err = %v", err)
	}
	if r, err := e.c.Runner(ctx, cfg.Runner.ID); err != nil || r.ID != cfg.Runner.ID || r.Name != "r1" || r.ScaleSetID != s.ID || r.Status != "offline" || r.Busy {
		t.Fatalf("get runner %+v, %v", r, err)
	}
	if r, err := e.c.RunnerByName(ctx, "r1"); err != nil || r.ID != cfg.Runner.ID || r.Status != "offline" {
		t.Fatalf("find runner %+v, %v", r, err)
	}
	if _, err := e.c.RunnerByName(ctx, "ghost"); !errors.Is(err, garrison.ErrNotFound) {
		t.Fatalf("find missing: err = %v", err)
	}
	if _, err := e.c.Runner(ctx, 999999); !errors.Is(err, garrison.ErrNotFound) {
		t.Fatalf("get missing: err = %v", err)
	}
	var ae *APIError
	if _, err := e.c.Runner(ctx, 999999); !errors.As(err, &ae) || ae.TypeName != "AgentNotFoundException" {
		t.Fatalf("APIError %+v", ae)
	}

	// A busy runner cannot be removed; once its job is done the ephemeral runner is gone.
	jobID, _ := e.sim.QueueJob("acme/app", "linux")
	secret := runnerSecret(t, cfg)
	if j, err := e.sim.Acquire("r1", secret); err != nil || j == nil || j.ID != jobID {
		t.Fatalf("acquire %+v, %v", j, err)
	}
	if r, err := e.c.Runner(ctx, cfg.Runner.ID); err != nil || r.Status != "online" || !r.Busy {
		t.Fatalf("busy runner %+v, %v", r, err)
	}
	if err := e.c.RemoveRunner(ctx, cfg.Runner.ID); !errors.Is(err, ErrJobStillRunning) || !errors.Is(err, garrison.ErrConflict) {
		t.Fatalf("remove busy: err = %v", err)
	}
	if _, err := e.sim.StartJob(jobID, secret); err != nil {
		t.Fatal(err)
	}
	if _, err := e.sim.CompleteJob(jobID, secret, "success"); err != nil {
		t.Fatal(err)
	}
	if err := e.c.RemoveRunner(ctx, cfg.Runner.ID); !errors.Is(err, garrison.ErrNotFound) {
		t.Fatalf("remove gone: err = %v", err)
	}

	// An idle runner is removed.
	idle, err := e.c.GenerateJITConfig(ctx, s.ID, "r2", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.c.RemoveRunner(ctx, idle.Runner.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Runner(ctx, idle.Runner.ID); !errors.Is(err, garrison.ErrNotFound) {
		t.Fatalf("removed runner: err = %v", err)
	}
}

// Pool runners do not take a scale set's jobs, and scale-set runners take no other jobs.
func TestScaleSetJobsStayWithTheirSet(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	s := e.newSet(t)
	setJob, _ := e.sim.QueueJob("acme/app", "linux")
	token := registrationTokenFor(t, e)
	pool, err := e.sim.RegisterRunner(token, "pool-1", []string{"linux", "self-hosted"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if j, err := e.sim.Acquire("pool-1", pool.Secret); err != nil || j != nil {
		t.Fatalf("a pool runner took %+v (%v)", j, err)
	}
	poolJob, _ := e.sim.QueueJob("acme/app", "self-hosted")
	cfg, err := e.c.GenerateJITConfig(ctxT(t), s.ID, "set-1", "")
	if err != nil {
		t.Fatal(err)
	}
	j, err := e.sim.Acquire("set-1", runnerSecret(t, cfg))
	if err != nil || j == nil || j.ID != setJob {
		t.Fatalf("the set's runner took %+v (%v)", j, err)
	}
	if j, err := e.sim.Acquire("pool-1", pool.Secret); err != nil || j == nil || j.ID != poolJob {
		t.Fatalf("the pool runner took %+v (%v)", j, err)
	}
}

func registrationTokenFor(t *testing.T, e *env) string {
	t.Helper()
	c := e.c
	tok, err := c.registrationToken(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// The github.com form: the API at the root of the host, runner-registration without
// /api/v3.
func TestRootAPIForm(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	e.ep.APIBaseURL = e.url + "/"
	c := e.client(t, garrison.Credentials{Name: "pat", AuthType: garrison.AuthPAT, PAT: testPAT}, org(), Options{ExactAPIBaseURL: true})
	if _, err := c.CreateScaleSet(ctxT(t), ScaleSet{Name: "root", RunnerGroupID: 1}); err != nil {
		t.Fatal(err)
	}
}

// A runner lost in an outage shows offline and takes no job.
func TestStrandedRunner(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	ctx := ctxT(t)
	s := e.newSet(t)
	cfg, err := e.c.GenerateJITConfig(ctx, s.ID, "r1", "")
	if err != nil {
		t.Fatal(err)
	}
	secret := runnerSecret(t, cfg)
	if j, err := e.sim.Acquire("r1", secret); err != nil || j != nil { // connects; no job yet
		t.Fatalf("acquire: %+v, %v", j, err)
	}
	if r, _ := e.c.Runner(ctx, cfg.Runner.ID); r.Status != "online" {
		t.Fatalf("runner %+v", r)
	}
	if err := e.sim.StrandRunner(cfg.Runner.ID); err != nil {
		t.Fatal(err)
	}
	_, _ = e.sim.QueueJob("acme/app", "linux")
	if j, err := e.sim.Acquire("r1", secret); err != nil || j != nil {
		t.Fatalf("a stranded runner took %+v (%v)", j, err)
	}
	if r, _ := e.c.Runner(ctx, cfg.Runner.ID); r.Status != "offline" {
		t.Fatalf("stranded runner %+v", r)
	}
	if err := e.c.RemoveRunner(ctx, cfg.Runner.ID); err != nil {
		t.Fatalf("remove a stranded runner: %v", err)
	}
	if err := e.sim.StrandRunner(cfg.Runner.ID); !errors.Is(err, garrison.ErrNotFound) {
		t.Fatalf("strand a removed runner: err = %v", err)
	}
	busy, err := e.c.GenerateJITConfig(ctx, s.ID, "r2", "")
	if err != nil {
		t.Fatal(err)
	}
	if j, err := e.sim.Acquire("r2", runnerSecret(t, busy)); err != nil || j == nil {
		t.Fatalf("r2 acquire: %+v, %v", j, err)
	}
	if err := e.sim.StrandRunner(busy.Runner.ID); !errors.Is(err, garrison.ErrConflict) {
		t.Fatalf("strand a busy runner: err = %v", err)
	}
}
