package scaleset

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/garrison-ci/garrison"
)

// Options tune a Client. The zero value is usable.
type Options struct {
	// Transport is the base transport (default: a clone of http.DefaultTransport). It is
	// cloned, not modified; the endpoint's CA bundle is added to the clone.
	Transport *http.Transport
	Logger    *slog.Logger
	// Now is the clock used for token expiry (default time.Now).
	Now func() time.Time
	// RetryMax bounds the retries of one call after a connection error, 429 or 5xx
	// (default 4, as the reference client). Negative: no retries.
	RetryMax int
	// RetryWaitMin and RetryWaitMax bound the wait between retries (default 1 s and 30 s);
	// a Retry-After header is honoured within them.
	RetryWaitMin, RetryWaitMax time.Duration
	// Timeout bounds one HTTP request, long polls included (default 5 min).
	Timeout time.Duration
	// ExactAPIBaseURL uses Endpoint.APIBaseURL as given. By default a GHES base URL gets
	// "api/v3" appended unless its path already ends so or its host starts with "api.",
	// as the github client does.
	ExactAPIBaseURL bool
	// QueueRefreshBefore is how long before its expiry Queue renews a queue token ahead of
	// use (default 10 min, GARM's rule); negative: only after a 401, as the reference
	// client does.
	QueueRefreshBefore time.Duration
	// UserAgent is sent on every call (default: a JSON object naming garrison, as the
	// service expects a JSON User-Agent).
	UserAgent string
}

// Client talks to the Actions service on behalf of one entity (repository, organization
// or enterprise) with one credential. It is safe for concurrent use.
type Client struct {
	log       *slog.Logger
	now       func() time.Time
	entity    garrison.Entity
	configURL string // web URL of the entity, sent to runner-registration
	apiBase   string // GitHub REST API root, without a trailing slash
	userAgent string
	http      *retryablehttp.Client // Actions service and GitHub API calls
	register  *retryablehttp.Client // runner-registration: also retries 401 and 403
	creds     tokenSource
	refresh   time.Duration // Options.QueueRefreshBefore

	mu         sync.Mutex // guards the admin connection below
	serviceURL string
	adminToken string
	adminExp   time.Time
}

// New returns a client for the entity on the endpoint with the credentials (PAT or App).
func New(ep garrison.Endpoint, cred garrison.Credentials, e garrison.Entity, opts Options) (*Client, error) {
	opts = opts.withDefaults()
	configURL, err := ConfigURL(ep, e)
	if err != nil {
		return nil, err
	}
	apiBase, err := apiBaseURL(ep, opts.ExactAPIBaseURL)
	if err != nil {
		return nil, err
	}
	tr, err := transport(opts.Transport, ep.CACertBundle)
	if err != nil {
		return nil, err
	}
	creds, err := newTokenSource(tr, cred, apiBase)
	if err != nil {
		return nil, err
	}
	return &Client{
		log:       opts.Logger.With("endpoint", ep.Name, "entity", e.FullName()),
		now:       opts.Now,
		entity:    e,
		configURL: configURL,
		apiBase:   apiBase,
		userAgent: opts.UserAgent,
		http:      newRetryClient(tr, opts, retryablehttp.DefaultRetryPolicy),
		register:  newRetryClient(tr, opts, retryAuthToo),
		creds:     creds,
		refresh:   opts.QueueRefreshBefore,
	}, nil
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	switch {
	case o.RetryMax == 0:
		o.RetryMax = 4
	case o.RetryMax < 0:
		o.RetryMax = 0
	}
	if o.RetryWaitMin <= 0 {
		o.RetryWaitMin = time.Second
	}
	if o.RetryWaitMax <= 0 {
		o.RetryWaitMax = 30 * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Minute
	}
	if o.QueueRefreshBefore == 0 {
		o.QueueRefreshBefore = 10 * time.Minute
	}
	if o.UserAgent == "" {
		o.UserAgent = `{"system":"garrison","subsystem":"scaleset","kind":"scaleset"}`
	}
	return o
}

// ConfigURL is the web URL of an entity, which the Actions service knows it by:
// https://github.com/OWNER/REPO, https://github.com/ORG or
// https://github.com/enterprises/SLUG (the endpoint's base URL for GHES).
func ConfigURL(ep garrison.Endpoint, e garrison.Entity) (string, error) {
	base := strings.TrimRight(ep.BaseURL, "/")
	if base == "" {
		base = garrison.GitHubComBaseURL
	}
	if !garrison.ValidURL(base) {
		return "", garrison.Errorf(garrison.EInvalid, "scaleset: endpoint %q has no valid base URL", ep.Name)
	}
	switch {
	case e.Type == garrison.Repository && e.Owner != "" && e.Name != "":
		return base + "/" + url.PathEscape(e.Owner) + "/" + url.PathEscape(e.Name), nil
	case e.Type == garrison.Organization && e.Name != "":
		return base + "/" + url.PathEscape(e.Name), nil
	case e.Type == garrison.Enterprise && e.Name != "":
		return base + "/enterprises/" + url.PathEscape(e.Name), nil
	}
	return "", garrison.Errorf(garrison.EInvalid, "scaleset: %s %q cannot have scale sets", e.Type, e.FullName())
}

// apiBaseURL is the REST API root without a trailing slash.
func apiBaseURL(ep garrison.Endpoint, exact bool) (string, error) {
	api := strings.TrimRight(ep.APIBaseURL, "/")
	if api == "" {
		return strings.TrimRight(garrison.GitHubComAPIBaseURL, "/"), nil
	}
	u, err := url.Parse(api)
	if err != nil || !garrison.ValidURL(api) {
		return "", garrison.Errorf(garrison.EInvalid, "scaleset: endpoint %q: invalid API base URL %q", ep.Name, ep.APIBaseURL)
	}
	if exact || api == strings.TrimRight(garrison.GitHubComAPIBaseURL, "/") ||
		strings.HasSuffix(u.Path, "/api/v3") || strings.HasPrefix(u.Hostname(), "api.") {
		return api, nil
	}
	return api + "/api/v3", nil
}

// transport clones the base transport and installs the endpoint's CA bundle.
func transport(base *http.Transport, caBundle []byte) (*http.Transport, error) {
	if base == nil {
		base = http.DefaultTransport.(*http.Transport)
	}
	tr := base.Clone()
	if len(caBundle) == 0 {
		return tr, nil
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caBundle) {
		return nil, garrison.Errorf(garrison.EInvalid, "scaleset: the endpoint CA bundle holds no PEM certificate")
	}
	if tr.TLSClientConfig == nil {
		tr.TLSClientConfig = &tls.Config{}
	}
	tr.TLSClientConfig.RootCAs = pool
	return tr, nil
}

func newRetryClient(tr *http.Transport, o Options, policy retryablehttp.CheckRetry) *retryablehttp.Client {
	return &retryablehttp.Client{
		HTTPClient:   &http.Client{Transport: tr, Timeout: o.Timeout},
		RetryWaitMin: o.RetryWaitMin,
		RetryWaitMax: o.RetryWaitMax,
		RetryMax:     o.RetryMax,
		CheckRetry:   policy,
		Backoff:      retryablehttp.DefaultBackoff,
		// The last answer comes back as it is, so that its status can be classified.
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
		RequestLogHook: func(_ retryablehttp.Logger, r *http.Request, attempt int) {
			if attempt > 0 {
				o.Logger.Debug("scaleset: retrying", "method", r.Method, "path", r.URL.Path, "attempt", attempt)
			}
		},
	}
}

// retryAuthToo is the policy of the runner-registration call: the service may refuse a
// fresh registration token for a moment, so 401 and 403 are retried as well.
func retryAuthToo(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() == nil && err == nil && resp != nil &&
		(resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
		return true, nil
	}
	return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
}
