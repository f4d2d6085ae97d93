package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forgesim"
)

// Intake load: deliveries prepared up front, sent by this many connections at once.
const (
	benchIntakeDeliveries = 20000
	benchIntakeSenders    = 16
)

// runIntake sends signed workflow_job "queued" deliveries, each for a new job of
// the one pool, straight to the server's webhook URL from benchIntakeSenders
// connections, until all are sent or --duration passed. The deliveries are real
// simulator deliveries (headers, HMAC signatures, payloads) captured by a sink hook.
func runIntake(ctx context.Context, e *env, r *Result) error {
	repos, err := e.setupRepos(ctx, 1, true)
	if err != nil {
		return err
	}
	if err := e.createPools(ctx, repos, benchPoolSpec{perRepo: 1, max: 1}); err != nil {
		return err
	}
	n := e.o.scaled(benchIntakeDeliveries, 50)
	ds, err := e.captureDeliveries(ctx, n)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.out, "sending %d signed deliveries from %d connections (at most %s)\n", len(ds), benchIntakeSenders, e.o.Duration)
	before, err := e.server.stats()
	if err != nil {
		return err
	}
	e.profileWindow(ctx, time.Duration(len(ds))*time.Second/2000)
	start := time.Now()
	pts, failed := e.blast(ctx, ds)
	elapsed := time.Since(start)
	after, err := e.server.stats()
	if err != nil {
		return err
	}
	r.setProc(before, after, elapsed)
	ok := len(pts)
	r.IntakePerSecond = ptr(round1(float64(ok) / elapsed.Seconds()))
	if p := pct(pointMS(pts)); p != nil {
		r.IntakeP99MS = ptr(p.P99)
	}
	r.chart, r.chartTitle = pts, "intake: delivery round trip (ms) by send time"
	if ok > 0 {
		r.CPUMsPerDelivery = ptr(round2(float64((after.cpu - before.cpu).Microseconds()) / 1000 / float64(ok)))
	}
	r.JobsTotal = ptr(ok)
	r.note("%d deliveries accepted (2xx), %d failed, in %.1fs; the sender runs on the same cores", ok, failed, elapsed.Seconds())
	return nil
}

// captureDeliveries queues n jobs for the first pool on the forge with a hook pointing at
// a local sink, and returns the deliveries the sink got: the headers (signed with the
// repository's secret) and payloads that garrison's hook would have received.
func (e *env) captureDeliveries(ctx context.Context, n int) ([]forgesim.Delivery, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	sink := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }),
		ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = sink.Serve(ln) }()
	defer sink.Close()
	p := e.pools[0]
	hook, err := e.Sim.AddHook("repos/"+p.repo, "http://"+ln.Addr().String()+"/sink", e.secrets[p.repo], garrison.GitHub)
	if err != nil {
		return nil, err
	}
	for range n {
		if _, err := e.Sim.QueueJob(p.repo, p.labels()...); err != nil {
			return nil, err
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	if err := e.Sim.WaitDeliveries(wctx); err != nil {
		return nil, fmt.Errorf("capturing deliveries: %w", err)
	}
	var out []forgesim.Delivery
	for _, d := range e.Sim.Deliveries() {
		if d.HookID == hook && d.Event == "workflow_job" && d.Action == "queued" {
			out = append(out, d)
		}
	}
	return out, nil
}

// blast POSTs the deliveries to the server's webhook URL from benchIntakeSenders
// connections until all are sent or --duration passed, and returns the round trip of
// each accepted one, with the number refused or failed.
func (e *env) blast(ctx context.Context, ds []forgesim.Delivery) ([]benchPoint, int) {
	ctx, cancel := context.WithTimeout(ctx, e.o.Duration)
	defer cancel()
	url := e.webhookURL
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: benchIntakeSenders}}
	var next, failed atomic.Int64
	var mu sync.Mutex
	var pts []benchPoint
	t0 := time.Now()
	var wg sync.WaitGroup
	for range benchIntakeSenders {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(ds) {
					return
				}
				at := time.Now()
				if !postDelivery(ctx, client, url, ds[i]) {
					failed.Add(1)
					continue
				}
				pt := benchPoint{at: at.Sub(t0).Seconds(), ms: msSince(at, time.Now())}
				mu.Lock()
				pts = append(pts, pt)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return pts, int(failed.Load())
}

// postDelivery sends one delivery and reports whether the server answered 2xx.
func postDelivery(ctx context.Context, c *http.Client, url string, d forgesim.Delivery) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(d.Payload))
	if err != nil {
		return false
	}
	req.Header = d.Header.Clone()
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode/100 == 2
}
