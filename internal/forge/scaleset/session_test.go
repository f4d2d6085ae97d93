package scaleset

import (
	"errors"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forgesim"
)

func TestSessionLifecycle(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	ctx := ctxT(t)
	s := e.newSet(t)
	sess, err := e.c.CreateSession(ctx, s.ID, "host-a")
	if err != nil {
		t.Fatal(err)
	}
	if sess.ID == "" || sess.OwnerName != "host-a" || sess.ScaleSetID != s.ID || sess.QueueToken == "" || sess.QueueTokenExpires.IsZero() {
		t.Fatalf("session %+v", sess)
	}
	if u, _ := url.Parse(sess.MessageQueueURL); u.Query().Get("sessionId") != sess.ID {
		t.Fatalf("queue URL %q keeps no query", sess.MessageQueueURL)
	}

	_, err = e.c.CreateSession(ctx, s.ID, "host-b")
	if !errors.Is(err, ErrSessionConflict) || !errors.Is(err, garrison.ErrConflict) {
		t.Fatalf("second session: err = %v", err)
	}
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 409 || ae.TypeName == "" {
		t.Fatalf("APIError %+v", ae)
	}

	fresh, err := e.c.RefreshSession(ctx, s.ID, sess.ID)
	if err != nil || fresh.ID != sess.ID || fresh.QueueToken == sess.QueueToken {
		t.Fatalf("refresh: %+v, %v", fresh, err)
	}
	if _, err := e.c.RefreshSession(ctx, s.ID, "00000000-0000-0000-0000-000000000000"); !errors.Is(err, garrison.ErrNotFound) {
		t.Fatalf("refresh unknown: err = %v", err)
	}
	if err := e.c.DeleteSession(ctx, s.ID, sess.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.c.DeleteSession(ctx, s.ID, sess.ID); !errors.Is(err, garrison.ErrNotFound) {
		t.Fatalf("delete twice: err = %v", err)
	}
	// The deleted session's queue token is refused.
	if _, err := e.c.GetMessage(ctx, fresh, 0, 1); !errors.Is(err, ErrTokenExpired) {
		t.Fatalf("poll of a deleted session: err = %v", err)
	}
	if _, err := e.c.CreateSession(ctx, s.ID, "host-b"); err != nil {
		t.Fatalf("create after delete: %v", err)
	}
	if _, err := e.c.CreateSession(ctx, 999, "host-b"); !errors.Is(err, garrison.ErrNotFound) || errors.Is(err, ErrSessionConflict) {
		t.Fatalf("session of a missing set: err = %v", err)
	}
}

// A session left by a dead listener is taken over by deleting it by id.
func TestSessionTakeover(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	ctx := ctxT(t)
	s := e.newSet(t)
	stale, err := e.sim.OpenForeignSession(s.ID, "dead-replica")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.CreateSession(ctx, s.ID, "me"); !errors.Is(err, ErrSessionConflict) {
		t.Fatalf("err = %v, want a conflict", err)
	}
	if err := e.c.DeleteSession(ctx, s.ID, stale); err != nil {
		t.Fatal(err)
	}
	sess, err := e.c.CreateSession(ctx, s.ID, "me")
	if err != nil {
		t.Fatal(err)
	}
	if got := e.sim.ScaleSets()[0]; got.SessionID != sess.ID || got.SessionOwner != "me" {
		t.Fatalf("sim sees %+v", got)
	}
}

// A session nobody polls expires on the service; then a new one can be created.
func TestIdleSessionExpires(t *testing.T) {
	clock := newClock()
	e := newEnvClock(t, forgesim.ScaleSetOptions{}, clock)
	s := e.newSet(t)
	if _, err := e.sim.OpenForeignSession(s.ID, "gone"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.CreateSession(ctxT(t), s.ID, "me"); !errors.Is(err, ErrSessionConflict) {
		t.Fatalf("err = %v", err)
	}
	clock.advance(3 * time.Minute)
	if _, err := e.c.CreateSession(ctxT(t), s.ID, "me"); err != nil {
		t.Fatalf("after the idle expiry: %v", err)
	}
}

func TestLongPollAssignedFlow(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	ctx := ctxT(t)
	s := e.newSet(t)
	sess, err := e.c.CreateSession(ctx, s.ID, "me")
	if err != nil {
		t.Fatal(err)
	}
	if m, err := e.c.GetMessage(ctx, sess, 0, 5); m != nil || err != nil {
		t.Fatalf("empty queue: %+v, %v", m, err)
	}
	if got := e.sim.ScaleSets()[0].MaxCapacity; got != 5 {
		t.Fatalf("X-ScaleSetMaxCapacity seen %d", got)
	}
	jobID, _ := e.sim.QueueJob("acme/app", "linux")
	q := e.c.Queue(sess)
	m := poll(t, q, 0)
	if !slices.Equal(types(m), []string{JobAssigned}) || m.Statistics == nil || m.Statistics.AssignedJobs != 1 {
		t.Fatalf("message %+v", m)
	}
	j := m.Jobs[0]
	if j.RunnerRequestID != 0 || j.JobID == "" || j.RepositoryName != "app" || j.OwnerName != "acme" || !slices.Equal(j.Labels, []string{"linux"}) {
		t.Fatalf("JobAssigned %+v", j)
	}
	// Not acknowledged: delivered again.
	again := poll(t, q, 0)
	if again.ID != m.ID {
		t.Fatalf("redelivery got %d, want %d", again.ID, m.ID)
	}
	if err := q.Ack(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	if err := q.Ack(ctx, m.ID); err != nil { // acknowledging twice is harmless
		t.Fatal(err)
	}
	if m, err := q.Get(ctx, m.ID, 5); m != nil || err != nil {
		t.Fatalf("after ack: %+v, %v", m, err)
	}
	// lastMessageId: a message up to it counts as processed, even un-acked.
	if err := e.sim.CancelJob(jobID); err != nil {
		t.Fatal(err)
	}
	m2 := poll(t, q, 0)
	if !slices.Equal(types(m2), []string{JobCompleted}) || m2.Jobs[0].Result != "canceled" {
		t.Fatalf("message %+v", m2)
	}
	if m, err := q.Get(ctx, m2.ID, 5); m != nil || err != nil {
		t.Fatalf("after lastMessageId: %+v, %v", m, err)
	}
}

func TestAvailableFlowAcquire(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{Available: true})
	ctx := ctxT(t)
	s := e.newSet(t)
	sess, err := e.c.CreateSession(ctx, s.ID, "me")
	if err != nil {
		t.Fatal(err)
	}
	q := e.c.Queue(sess)
	jobID, _ := e.sim.QueueJob("acme/app", "linux")
	m := poll(t, q, 0)
	if !slices.Equal(types(m), []string{JobAvailable}) || m.Statistics.AvailableJobs != 1 || m.Statistics.AssignedJobs != 0 {
		t.Fatalf("message %+v", m)
	}
	if m.Jobs[0].AcquireJobURL == "" || !slices.Equal(m.Available(), []int64{jobID}) {
		t.Fatalf("JobAvailable %+v", m.Jobs[0])
	}
	if err := q.Ack(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	got, err := q.Acquire(ctx, append(m.Available(), 424242))
	if err != nil || !slices.Equal(got, []int64{jobID}) {
		t.Fatalf("acquire: %v, %v", got, err)
	}
	if got, err := q.Acquire(ctx, []int64{jobID}); err != nil || len(got) != 0 {
		t.Fatalf("acquire twice: %v, %v", got, err)
	}
	m2 := poll(t, q, m.ID)
	if !slices.Equal(types(m2), []string{JobAssigned}) || m2.Jobs[0].RunnerRequestID != jobID || m2.Statistics.AssignedJobs != 1 || m2.Statistics.AcquiredJobs != 1 {
		t.Fatalf("message %+v stats %+v", m2, m2.Statistics)
	}
}

func TestBatchesOfFifty(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	ctx := ctxT(t)
	s := e.newSet(t)
	sess, _ := e.c.CreateSession(ctx, s.ID, "me")
	for range 60 {
		if _, err := e.sim.QueueJob("acme/app", "linux"); err != nil {
			t.Fatal(err)
		}
	}
	q := e.c.Queue(sess)
	m := poll(t, q, 0)
	if len(m.Jobs) != 50 || m.Statistics.AssignedJobs != 60 {
		t.Fatalf("first batch %d events, statistics %+v", len(m.Jobs), m.Statistics)
	}
	_ = q.Ack(ctx, m.ID)
	m2 := poll(t, q, m.ID)
	if len(m2.Jobs) != 10 || m2.ID <= m.ID {
		t.Fatalf("second batch %d events, id %d", len(m2.Jobs), m2.ID)
	}
}

func TestBOMBodies(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{BOM: true})
	ctx := ctxT(t)
	s := e.newSet(t)
	sess, err := e.c.CreateSession(ctx, s.ID, "me")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = e.sim.QueueJob("acme/app", "linux")
	if m := poll(t, e.c.Queue(sess), 0); len(m.Jobs) != 1 {
		t.Fatalf("message %+v", m)
	}
	if _, err := e.c.CreateSession(ctx, s.ID, "me"); !errors.Is(err, ErrSessionConflict) {
		t.Fatalf("error body with BOM: err = %v", err)
	}
}

// A Queue whose session was closed by someone else reports it as not found.
func TestQueueOfAClosedSession(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{})
	ctx := ctxT(t)
	s := e.newSet(t)
	sess, _ := e.c.CreateSession(ctx, s.ID, "me")
	q := e.c.Queue(sess)
	if err := e.c.DeleteSession(ctx, s.ID, sess.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Get(ctx, 0, 1); !errors.Is(err, garrison.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	if err := q.Close(ctx); !errors.Is(err, garrison.ErrNotFound) {
		t.Fatalf("close: err = %v", err)
	}
}

// Closing the simulator answers a held long poll at once.
func TestSimCloseEndsLongPolls(t *testing.T) {
	e := newEnv(t, forgesim.ScaleSetOptions{Hold: time.Hour})
	ctx := ctxT(t)
	s := e.newSet(t)
	sess, _ := e.c.CreateSession(ctx, s.ID, "me")
	type result struct {
		m   *Message
		err error
	}
	done := make(chan result, 1)
	go func() {
		m, err := e.c.GetMessage(ctx, sess, 0, 7)
		done <- result{m, err}
	}()
	for e.sim.ScaleSets()[0].MaxCapacity != 7 { // until the poll has arrived
		if ctx.Err() != nil {
			t.Fatal("the poll never arrived")
		}
		time.Sleep(time.Millisecond)
	}
	_ = e.sim.Close()
	if r := <-done; r.m != nil || r.err != nil {
		t.Fatalf("held poll after Close: %+v, %v", r.m, r.err)
	}
}
