package scaleset

import (
	"context"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forgesim"
)

// BenchmarkMessageRoundTrip measures one job through the queue against the simulator on
// loopback: the job is queued, its JobAssigned message polled and acknowledged.
func BenchmarkMessageRoundTrip(b *testing.B) {
	sim := forgesim.New(forgesim.Options{RateLimit: forgesim.RateLimitOptions{Disabled: true}})
	url, err := sim.Start("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer sim.Close()
	sim.AddToken(testPAT)
	sim.AddOrg("acme")
	if err := sim.AddRepo("acme/app"); err != nil {
		b.Fatal(err)
	}
	ep := garrison.Endpoint{Name: "sim", BaseURL: url, APIBaseURL: url + "/api/v3/"}
	c, err := New(ep, garrison.Credentials{Name: "pat", AuthType: garrison.AuthPAT, PAT: testPAT}, org(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	set, err := c.CreateScaleSet(ctx, ScaleSet{Name: "linux", RunnerGroupID: 1})
	if err != nil {
		b.Fatal(err)
	}
	sess, err := c.CreateSession(ctx, set.ID, "bench")
	if err != nil {
		b.Fatal(err)
	}
	q := c.Queue(sess)
	var last int64
	for b.Loop() {
		if _, err := sim.QueueJob("acme/app", "linux"); err != nil {
			b.Fatal(err)
		}
		m, err := q.Get(ctx, last, 10)
		if err != nil || m == nil {
			b.Fatalf("get: %v, %v", m, err)
		}
		if err := q.Ack(ctx, m.ID); err != nil {
			b.Fatal(err)
		}
		last = m.ID
	}
}
