package testbed

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// The round robin's health checks, as a load balancer's: a backend that does not answer
// /healthz within healthTimeout is left out until it answers again.
const (
	healthInterval = 200 * time.Millisecond
	healthTimeout  = 500 * time.Millisecond
	// maxProxiedBody bounds a request body the round robin buffers to retry it elsewhere.
	maxProxiedBody = 8 << 20
)

// RoundRobin is a load balancer in front of replicas: each request goes to the next
// backend that answered its last health check, and a request a backend refused to
// connect goes to the next one. Webhooks, API calls and instance callbacks thus spread
// over every replica alive, and a killed or paused one is left out within a second.
type RoundRobin struct {
	backends []*backend
	next     atomic.Uint64
	proxy    *httputil.ReverseProxy
	client   *http.Client // health checks

	// Requests counts the requests proxied to each backend (same order as the URLs).
	Requests []atomic.Int64
}

type backend struct {
	url *url.URL
	up  atomic.Bool
}

// NewRoundRobin balances over the base URLs (all up until a health check says otherwise).
func NewRoundRobin(urls []string) (*RoundRobin, error) {
	rr := &RoundRobin{client: &http.Client{Timeout: healthTimeout}, Requests: make([]atomic.Int64, len(urls))}
	for _, s := range urls {
		u, err := url.Parse(s)
		if err != nil {
			return nil, err
		}
		b := &backend{url: u}
		b.up.Store(true)
		rr.backends = append(rr.backends, b)
	}
	rr.proxy = &httputil.ReverseProxy{
		Rewrite:   func(r *httputil.ProxyRequest) { r.SetXForwarded() },
		Transport: &retryTransport{rr: rr, base: http.DefaultTransport},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, "no replica answered: "+err.Error(), http.StatusBadGateway)
		},
	}
	return rr, nil
}

func (rr *RoundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) { rr.proxy.ServeHTTP(w, r) }

// Watch health-checks every backend until ctx ends.
func (rr *RoundRobin) Watch(ctx context.Context) {
	t := time.NewTicker(healthInterval)
	defer t.Stop()
	for {
		var wg sync.WaitGroup
		for _, b := range rr.backends {
			wg.Go(func() { b.up.Store(rr.healthy(ctx, b)) })
		}
		wg.Wait()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// healthy reports whether b answers /healthz with 200 in time.
func (rr *RoundRobin) healthy(ctx context.Context, b *backend) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.url.JoinPath("/healthz").String(), nil)
	if err != nil {
		return false
	}
	resp, err := rr.client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// pick returns the index of the next backend that is up, or of the next one at all
// when none is.
func (rr *RoundRobin) pick() int {
	n := len(rr.backends)
	start := int(rr.next.Add(1) % uint64(n))
	for i := range n {
		if j := (start + i) % n; rr.backends[j].up.Load() {
			return j
		}
	}
	return start
}

// retryTransport sends a request to the backend RoundRobin picks, and to the next one
// when a backend cannot be reached (refused connection: killed), up to once per backend.
type retryTransport struct {
	rr   *RoundRobin
	base http.RoundTripper
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(io.LimitReader(req.Body, maxProxiedBody))
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	var errs []error
	for range t.rr.backends {
		i := t.rr.pick()
		out := req.Clone(req.Context())
		out.URL.Scheme, out.URL.Host, out.Host = t.rr.backends[i].url.Scheme, t.rr.backends[i].url.Host, ""
		if body != nil {
			out.Body = io.NopCloser(bytes.NewReader(body))
		}
		resp, err := t.base.RoundTrip(out)
		if err == nil {
			t.rr.Requests[i].Add(1)
			return resp, nil
		}
		errs = append(errs, err)
		if req.Context().Err() != nil {
			break
		}
		t.rr.backends[i].up.Store(false) // until its next health check
	}
	return nil, errors.Join(errs...)
}
