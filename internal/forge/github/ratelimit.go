package github

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/garrison-ci/garrison"
)

// RateStatus is one credential's last known budget for one resource.
type RateStatus struct {
	Credential string
	Resource   string
	garrison.RateLimit
}

// RateLimits returns the last known budgets of the client's credential, by resource.
func (c *Client) RateLimits() []RateStatus {
	return c.rt.snapshot()
}

// RateLimit returns the last known core budget of the client's credential, without
// calling the forge; false until an answer carried one.
func (c *Client) RateLimit() (garrison.RateLimit, bool) {
	c.rt.mu.Lock()
	defer c.rt.mu.Unlock()
	rl, ok := c.rt.budgets["core"]
	return rl, ok
}

// rateTransport sits between go-github and the authenticated transport: it records the
// rate headers, waits out limits and revalidates cached GET responses.
type rateTransport struct {
	next     http.RoundTripper
	cred     string
	clock    Clock
	log      *slog.Logger
	observer RateObserver
	retries  int
	maxWait  time.Duration // the longest wait for a limit done inline

	mu       sync.Mutex // guards budgets, resource, blocked and cache
	budgets  map[string]garrison.RateLimit
	resource map[string]string // "METHOD path" → resource, learned from answers
	blocked  time.Time         // no request before (secondary limit)
	cache    map[string]cachedResponse
}

type cachedResponse struct {
	etag   string
	header http.Header
	body   []byte
}

const maxLearned = 4096 // bounds the resource and cache maps

func newRateTransport(next http.RoundTripper, cred string, o Options) *rateTransport {
	return &rateTransport{
		next: next, cred: cred, clock: o.Clock, log: o.Logger, observer: o.Observer, retries: o.MaxRetries, maxWait: o.MaxWait,
		budgets: map[string]garrison.RateLimit{}, resource: map[string]string{}, cache: map[string]cachedResponse{},
	}
}

func (t *rateTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	key := req.Method + " " + req.URL.Path
	for attempt := 0; ; attempt++ {
		if err := t.waitTurn(req.Context(), key); err != nil {
			return nil, err
		}
		r, err := t.prepare(req, attempt)
		if err != nil {
			return nil, err
		}
		resp, err := t.next.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		t.record(key, resp.Header)
		if resp.StatusCode == http.StatusNotModified {
			if cached, ok := t.fromCache(req, resp); ok {
				return cached, nil
			}
			return resp, nil
		}
		if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
			return t.store(req, resp)
		}
		body, err := readAll(resp)
		if err != nil {
			return nil, err
		}
		wait, limited := t.limitWait(resp, body, attempt)
		if !limited || attempt >= t.retries {
			return resp, nil
		}
		t.log.Warn("github: rate limited", "credentials", t.cred, "status", resp.StatusCode, "wait", wait, "attempt", attempt+1)
		t.block(wait)
	}
}

// prepare clones the request for one attempt, rewinding the body and adding the
// conditional header of a cached GET.
func (t *rateTransport) prepare(req *http.Request, attempt int) (*http.Request, error) {
	r := req.Clone(req.Context())
	if attempt > 0 && req.GetBody != nil {
		b, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = b
	}
	if req.Method == http.MethodGet {
		t.mu.Lock()
		c, ok := t.cache[req.URL.String()]
		t.mu.Unlock()
		if ok {
			r.Header.Set("If-None-Match", c.etag)
		}
	}
	return r, nil
}

// waitTurn waits while a secondary limit runs or the request's resource is spent, when
// that ends within maxWait; a longer wait is not waited: it answers a
// *garrison.RateLimitError saying until when, at once, so that the caller does other
// work meanwhile instead of holding on to the call.
func (t *rateTransport) waitTurn(ctx context.Context, key string) error {
	for {
		t.mu.Lock()
		until := t.blocked
		res := t.resource[key]
		if res == "" {
			res = "core"
		}
		if b, ok := t.budgets[res]; ok && b.Limit > 0 && b.Remaining == 0 {
			if reset := time.Unix(b.Reset, 0); reset.After(until) {
				until = reset
			}
		}
		t.mu.Unlock()
		d := until.Sub(t.clock.Now())
		if d <= 0 {
			return nil
		}
		if d > t.maxWait {
			return &garrison.RateLimitError{Until: until, Credentials: t.cred}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.clock.After(d):
		}
	}
}

func (t *rateTransport) block(d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if until := t.clock.Now().Add(d); until.After(t.blocked) {
		t.blocked = until
	}
}

// record stores the x-ratelimit-* headers of an answer.
func (t *rateTransport) record(key string, h http.Header) {
	res := h.Get("X-RateLimit-Resource")
	limit, err := strconv.Atoi(h.Get("X-RateLimit-Limit"))
	if res == "" || err != nil {
		return
	}
	rl := garrison.RateLimit{Limit: limit}
	rl.Remaining, _ = strconv.Atoi(h.Get("X-RateLimit-Remaining"))
	rl.Used, _ = strconv.Atoi(h.Get("X-RateLimit-Used"))
	rl.Reset, _ = strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
	t.mu.Lock()
	if len(t.resource) >= maxLearned {
		t.resource = map[string]string{}
	}
	t.resource[key] = res
	t.budgets[res] = rl
	t.mu.Unlock()
	if t.observer != nil {
		t.observer.ObserveRateLimit(t.cred, res, rl)
	}
}

// limitWait says whether a 403/429 answer is a rate limit and how long to wait.
func (t *rateTransport) limitWait(resp *http.Response, body []byte, attempt int) (time.Duration, bool) {
	if s := resp.Header.Get("Retry-After"); s != "" {
		if secs, err := strconv.Atoi(s); err == nil {
			return time.Duration(max(secs, 1)) * time.Second, true
		}
	}
	if resp.Header.Get("X-RateLimit-Remaining") == "0" {
		reset, _ := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64)
		return max(time.Unix(reset, 0).Sub(t.clock.Now()), time.Second), true
	}
	var e struct {
		Message string `json:"message"`
		DocURL  string `json:"documentation_url"`
	}
	_ = json.Unmarshal(body, &e)
	if strings.Contains(e.DocURL, "secondary-rate-limits") || strings.Contains(e.DocURL, "abuse-rate-limits") ||
		strings.Contains(strings.ToLower(e.Message), "secondary rate limit") {
		return time.Minute << min(attempt, 4), true
	}
	return 0, false
}

// store caches a GET 200 answer that has an ETag.
func (t *rateTransport) store(req *http.Request, resp *http.Response) (*http.Response, error) {
	etag := resp.Header.Get("ETag")
	if req.Method != http.MethodGet || resp.StatusCode != http.StatusOK || etag == "" {
		return resp, nil
	}
	body, err := readAll(resp)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.cache) >= maxLearned {
		t.cache = map[string]cachedResponse{}
	}
	t.cache[req.URL.String()] = cachedResponse{etag: etag, header: resp.Header.Clone(), body: body}
	return resp, nil
}

// fromCache turns a 304 into the cached 200, marked X-From-Cache as caching transports do.
func (t *rateTransport) fromCache(req *http.Request, resp *http.Response) (*http.Response, bool) {
	t.mu.Lock()
	c, ok := t.cache[req.URL.String()]
	t.mu.Unlock()
	if !ok {
		return nil, false
	}
	_ = resp.Body.Close()
	h := c.header.Clone()
	for _, k := range []string{"X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Used", "X-Ratelimit-Reset", "X-Ratelimit-Resource"} {
		if v := resp.Header.Get(k); v != "" {
			h.Set(k, v)
		}
	}
	h.Set("X-From-Cache", "1")
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK, Proto: resp.Proto, ProtoMajor: resp.ProtoMajor,
		ProtoMinor: resp.ProtoMinor, Header: h, Body: io.NopCloser(bytes.NewReader(c.body)),
		ContentLength: int64(len(c.body)), Request: req,
	}, true
}

// readAll reads and replaces a response body so it can be read again.
func readAll(resp *http.Response) ([]byte, error) {
	b, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return b, nil
}

func (t *rateTransport) snapshot() []RateStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]RateStatus, 0, len(t.budgets))
	for res, b := range t.budgets {
		out = append(out, RateStatus{Credential: t.cred, Resource: res, RateLimit: b})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Resource < out[j].Resource })
	return out
}
