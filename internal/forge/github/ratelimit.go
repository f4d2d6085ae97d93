package github

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"sort"
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

	// Pacing and backoff (pacing.go).
	releaseSpacing, releaseWindow time.Duration
	retryBackoff, maxBackoff      time.Duration
	rand                          func(n int64) int64 // uniform in [0, n)

	mu        sync.Mutex // guards the fields below
	budgets   map[string]garrison.RateLimit
	resource  map[string]string // "METHOD path" → resource, learned from answers
	blocked   time.Time         // no request before (Retry-After, backoff)
	limitEnd  time.Time         // the end of the latest limit a call met
	nextTurn  time.Time         // the earliest turn of the next paced call
	strikes   int               // rate-limit answers in a row (limited)
	lastLimit time.Time         // when the last strike was answered
	cache     map[string]cachedResponse
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
		releaseSpacing: o.ReleaseSpacing, releaseWindow: o.ReleaseWindow, retryBackoff: o.RetryBackoff,
		maxBackoff: o.MaxBackoff, rand: o.Rand,
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
		sent := t.clock.Now()
		resp, err := t.next.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		t.record(key, resp.Header)
		if resp.StatusCode == http.StatusNotModified {
			t.answered(sent)
			if cached, ok := t.fromCache(req, resp); ok {
				return cached, nil
			}
			return resp, nil
		}
		if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
			t.answered(sent)
			return t.store(req, resp)
		}
		body, err := readAll(resp)
		if err != nil {
			return nil, err
		}
		kind, forgeWait := classifyLimit(resp.Header, body, t.clock.Now())
		if kind == notLimited {
			t.answered(sent)
			return resp, nil
		}
		until := t.limited(kind, forgeWait, sent)
		t.log.Warn("github: rate limited", "credentials", t.cred, "status", resp.StatusCode,
			"until", until, "attempt", attempt+1)
		if attempt >= t.retries {
			_ = resp.Body.Close()
			return nil, &garrison.RateLimitError{Until: until, Credentials: t.cred}
		}
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

// record stores the x-ratelimit-* headers of an answer.
func (t *rateTransport) record(key string, h http.Header) {
	rl, res, ok := parseRateHeaders(h)
	if !ok {
		return
	}
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
