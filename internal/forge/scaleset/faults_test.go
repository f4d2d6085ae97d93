package scaleset

import (
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forgesim"
)

func registrations(sim *forgesim.Sim) int {
	return sim.Calls()[forgesim.CallKey{Route: "POST /actions/runner-registration", Credential: "registration-token"}]
}

func TestQueueTokenExpiry(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	ctx := ctxT(t)
	s := e.newSet(t)
	sess, err := e.c.CreateSession(ctx, s.ID, "me")
	if err != nil {
		t.Fatal(err)
	}
	e.sim.ExpireQueueTokens(s.ID)
	// The bare calls report the expiry...
	if _, err := e.c.GetMessage(ctx, sess, 0, 1); !errors.Is(err, ErrTokenExpired) || !errors.Is(err, garrison.ErrUnauthorized) {
		t.Fatalf("get: err = %v", err)
	}
	if err := e.c.DeleteMessage(ctx, sess, 1); !errors.Is(err, ErrTokenExpired) {
		t.Fatalf("ack: err = %v", err)
	}
	if _, err := e.c.AcquireJobs(ctx, sess, []int64{1}); !errors.Is(err, ErrTokenExpired) {
		t.Fatalf("acquire: err = %v", err)
	}
	// ...and a Queue refreshes the session and goes on.
	q := e.c.Queue(sess)
	_, _ = e.sim.QueueJob("acme/app", "linux")
	m := poll(t, q, 0)
	if q.Session().QueueToken == sess.QueueToken {
		t.Fatal("the queue token was not renewed")
	}
	e.sim.ExpireQueueTokens(s.ID)
	if err := q.Ack(ctx, m.ID); err != nil {
		t.Fatalf("ack after expiry: %v", err)
	}
	e.sim.ExpireQueueTokens(s.ID)
	if _, err := q.Acquire(ctx, nil); err != nil {
		t.Fatalf("acquire after expiry: %v", err)
	}
}

// Queue renews a token that expires within Options.QueueRefreshBefore before using it.
func TestQueueRefreshesAhead(t *testing.T) {
	clk := newClock()
	e := newEnvClock(t, forgesim.ScaleSetOptions{QueueTokenTTL: time.Hour}, clk)
	s := e.newSet(t)
	sess, _ := e.c.CreateSession(ctxT(t), s.ID, "me")
	q := e.c.Queue(sess)
	if _, err := q.Get(ctxT(t), 0, 1); err != nil || q.Session().QueueToken != sess.QueueToken {
		t.Fatalf("fresh token replaced: %v", err)
	}
	clk.advance(55 * time.Minute)
	if _, err := q.Get(ctxT(t), 0, 1); err != nil {
		t.Fatal(err)
	}
	if q.Session().QueueToken == sess.QueueToken {
		t.Fatal("a token with 5 min left was not renewed ahead")
	}
}

func TestAdminTokenRenewal(t *testing.T) {
	clk := newClock()
	e := newEnvClock(t, forgesim.ScaleSetOptions{AdminTokenTTL: time.Hour}, clk)
	ctx := ctxT(t)
	e.newSet(t)
	if n := registrations(e.sim); n != 1 {
		t.Fatalf("%d registrations", n)
	}
	if _, err := e.c.ScaleSets(ctx); err != nil || registrations(e.sim) != 1 {
		t.Fatalf("the admin token was not reused: %v, %d registrations", err, registrations(e.sim))
	}
	// Refused before its time (revoked): bootstrap again and retry once.
	e.sim.ExpireAdminTokens()
	if _, err := e.c.ScaleSets(ctx); err != nil || registrations(e.sim) != 2 {
		t.Fatalf("after a refused token: %v, %d registrations", err, registrations(e.sim))
	}
	// Less than a minute left: renewed before use.
	clk.advance(59*time.Minute + 30*time.Second)
	if _, err := e.c.ScaleSets(ctx); err != nil || registrations(e.sim) != 3 {
		t.Fatalf("near expiry: %v, %d registrations", err, registrations(e.sim))
	}
}

func TestServerErrors(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	ctx := ctxT(t)
	s := e.newSet(t)
	sess, _ := e.c.CreateSession(ctx, s.ID, "me")
	// A few 5xx are retried away.
	e.sim.FailScaleSetCalls(2, http.StatusServiceUnavailable)
	if _, err := e.c.ScaleSet(ctx, s.ID); err != nil {
		t.Fatalf("after 2 failures: %v", err)
	}
	e.sim.FailScaleSetCalls(2, http.StatusBadGateway)
	if m, err := e.c.GetMessage(ctx, sess, 0, 1); err != nil || m != nil {
		t.Fatalf("poll after 2 failures: %v", err)
	}
	// More than the retries: EUnavailable with the status.
	c := e.client(t, garrison.Credentials{Name: "pat", AuthType: garrison.AuthPAT, PAT: testPAT}, org(), Options{RetryMax: 2})
	if _, err := c.ScaleSets(ctx); err != nil {
		t.Fatal(err)
	}
	e.sim.FailScaleSetCalls(100, http.StatusServiceUnavailable)
	_, err := c.ScaleSet(ctx, s.ID)
	var ae *APIError
	if !errors.Is(err, garrison.ErrUnavailable) || !errors.As(err, &ae) || ae.Status != 503 {
		t.Fatalf("err = %v", err)
	}
	if _, err := c.GetMessage(ctx, sess, 0, 1); !errors.Is(err, garrison.ErrUnavailable) {
		t.Fatalf("poll: err = %v", err)
	}
	// 429 after the retries is a rate limit.
	e.sim.FailScaleSetCalls(100, http.StatusTooManyRequests)
	_, err = c.ScaleSet(ctx, s.ID)
	var rl *garrison.RateLimitError
	if !errors.As(err, &rl) || rl.Until.IsZero() {
		t.Fatalf("429: err = %v", err)
	}
	e.sim.FailScaleSetCalls(0, 0)
	if _, err := c.ScaleSet(ctx, s.ID); err != nil {
		t.Fatalf("after the faults: %v", err)
	}
}

func TestNoRetriesOption(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	c := e.client(t, garrison.Credentials{Name: "pat", AuthType: garrison.AuthPAT, PAT: testPAT}, org(), Options{RetryMax: -1})
	s, err := c.CreateScaleSet(ctxT(t), ScaleSet{Name: "x", RunnerGroupID: 1})
	if err != nil {
		t.Fatal(err)
	}
	e.sim.FailScaleSetCalls(1, http.StatusInternalServerError)
	if _, err := c.ScaleSet(ctxT(t), s.ID); !errors.Is(err, garrison.ErrUnavailable) {
		t.Fatalf("err = %v", err)
	}
	if _, err := c.ScaleSet(ctxT(t), s.ID); err != nil {
		t.Fatal(err)
	}
}

func TestOutageThenRecovery(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	ctx := ctxT(t)
	s := e.newSet(t)
	sess, _ := e.c.CreateSession(ctx, s.ID, "me")
	q := e.c.Queue(sess)
	e.sim.SetScaleSetOutage(true)
	for range 3 {
		_, _ = e.sim.QueueJob("acme/app", "linux")
	}
	for range 3 {
		if m, err := q.Get(ctx, 0, 1); m != nil || err != nil {
			t.Fatalf("during the outage: %+v, %v", m, err)
		}
	}
	e.sim.SetScaleSetOutage(false)
	m := poll(t, q, 0)
	if len(m.Jobs) != 3 || m.Statistics.AssignedJobs != 3 {
		t.Fatalf("after the outage: %d events, %+v", len(m.Jobs), m.Statistics)
	}
}

// startRunner makes a runner of the scale set take and start the job.
func startRunner(t *testing.T, e *env, setID int64, name string, jobID int64) (JITConfig, string) {
	t.Helper()
	cfg, err := e.c.GenerateJITConfig(ctxT(t), setID, name, "")
	if err != nil {
		t.Fatal(err)
	}
	secret := runnerSecret(t, cfg)
	j, err := e.sim.Acquire(name, secret)
	if err != nil || j == nil || j.ID != jobID {
		t.Fatalf("acquire: %+v, %v", j, err)
	}
	if _, err := e.sim.StartJob(jobID, secret); err != nil {
		t.Fatal(err)
	}
	return cfg, secret
}

func TestCanceledAssignmentIsRequeued(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{MaxRequeues: 2})
	ctx := ctxT(t)
	s := e.newSet(t)
	sess, _ := e.c.CreateSession(ctx, s.ID, "me")
	q := e.c.Queue(sess)
	jobID, _ := e.sim.QueueJob("acme/app", "linux")
	m := poll(t, q, 0)
	_ = q.Ack(ctx, m.ID)
	last := m.ID
	for i := range 2 {
		if err := e.sim.CancelAssignment(jobID); err != nil {
			t.Fatal(err)
		}
		m := poll(t, q, last)
		_ = q.Ack(ctx, m.ID)
		last = m.ID
		if !slices.Equal(types(m), []string{JobCompleted, JobAssigned}) || m.Jobs[0].Result != "canceled" || m.Jobs[0].JobID != m.Jobs[1].JobID {
			t.Fatalf("requeue %d: %+v", i, m.Jobs)
		}
		if m.Statistics.AssignedJobs != 1 {
			t.Fatalf("requeue %d: statistics %+v", i, m.Statistics)
		}
	}
	// Past MaxRequeues the job is cancelled for good.
	if err := e.sim.CancelAssignment(jobID); err != nil {
		t.Fatal(err)
	}
	m = poll(t, q, last)
	if !slices.Equal(types(m), []string{JobCompleted}) || m.Statistics.AssignedJobs != 0 {
		t.Fatalf("final: %+v %+v", m.Jobs, m.Statistics)
	}
	if j, _ := e.sim.Job(jobID); j.Status != "completed" || j.Conclusion != "cancelled" {
		t.Fatalf("job %+v", j)
	}
	if err := e.sim.CancelAssignment(jobID); !errors.Is(err, garrison.ErrConflict) {
		t.Fatalf("cancel a finished job: err = %v", err)
	}
}

// A runner that took the job but did not start it lets it go on a canceled assignment.
func TestCanceledAssignmentFreesTheRunner(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	s := e.newSet(t)
	jobID, _ := e.sim.QueueJob("acme/app", "linux")
	cfg, err := e.c.GenerateJITConfig(ctxT(t), s.ID, "r1", "")
	if err != nil {
		t.Fatal(err)
	}
	secret := runnerSecret(t, cfg)
	if j, err := e.sim.Acquire("r1", secret); err != nil || j == nil {
		t.Fatalf("acquire: %v", err)
	}
	if err := e.sim.CancelAssignment(jobID); err != nil {
		t.Fatal(err)
	}
	st := e.sim.ScaleSets()[0].Stats
	if st.TotalBusyRunners != 0 || st.TotalIdleRunners != 1 || st.TotalAssignedJobs != 1 {
		t.Fatalf("statistics %+v", st)
	}
	if j, err := e.sim.Acquire("r1", secret); err != nil || j == nil || j.ID != jobID {
		t.Fatalf("re-acquire: %+v, %v", j, err)
	}
}

func TestCompletedWhileStillRunning(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	ctx := ctxT(t)
	s := e.newSet(t)
	sess, _ := e.c.CreateSession(ctx, s.ID, "me")
	q := e.c.Queue(sess)
	jobID, _ := e.sim.QueueJob("acme/app", "linux")
	_, secret := startRunner(t, e, s.ID, "r1", jobID)
	if err := e.sim.CompleteEarly(jobID); err != nil {
		t.Fatal(err)
	}
	m := poll(t, q, 0)
	if !slices.Equal(types(m), []string{JobAssigned, JobStarted, JobCompleted}) {
		t.Fatalf("events %v", types(m))
	}
	if m.Statistics.RunningJobs != 1 || m.Statistics.BusyRunners != 1 {
		t.Fatalf("the job must still run: %+v", m.Statistics)
	}
	_ = q.Ack(ctx, m.ID)
	if _, err := e.sim.CompleteJob(jobID, secret, "success"); err != nil {
		t.Fatal(err)
	}
	m2 := poll(t, q, m.ID)
	if !slices.Equal(types(m2), []string{JobCompleted}) || m2.Jobs[0].Result != "succeeded" || m2.Statistics.RunningJobs != 0 {
		t.Fatalf("real completion %+v %+v", m2.Jobs, m2.Statistics)
	}
	if err := e.sim.CompleteEarly(jobID); !errors.Is(err, garrison.ErrConflict) {
		t.Fatalf("early completion of a finished job: err = %v", err)
	}
}

// runner-registration answering 401 or 403 for a moment is retried; for longer it fails.
func TestRegistrationRetried(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	e.sim.FailRegistrations(1, http.StatusUnauthorized)
	if _, err := e.c.ScaleSets(ctxT(t)); err != nil {
		t.Fatalf("after one 401: %v", err)
	}
	c := e.client(t, garrison.Credentials{Name: "pat", AuthType: garrison.AuthPAT, PAT: testPAT}, org(), Options{RetryMax: 2})
	e.sim.FailRegistrations(2, http.StatusForbidden)
	if _, err := c.ScaleSets(ctxT(t)); err != nil {
		t.Fatalf("after two 403: %v", err)
	}
	e.sim.FailRegistrations(3, http.StatusForbidden)
	c = e.client(t, garrison.Credentials{Name: "pat", AuthType: garrison.AuthPAT, PAT: testPAT}, org(), Options{RetryMax: 2})
	if _, err := c.ScaleSets(ctxT(t)); !errors.Is(err, garrison.ErrUnauthorized) {
		t.Fatalf("after three 403: err = %v", err)
	}
	if n := registrations(e.sim); n != 2+3+3 {
		t.Fatalf("%d runner-registration calls", n)
	}
}
