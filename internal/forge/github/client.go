package github

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	gh "github.com/google/go-github/v90/github"

	"github.com/garrison-ci/garrison"
)

// Clock abstracts time for the rate-limit waits.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// RateObserver receives every budget update (for metrics).
type RateObserver interface {
	ObserveRateLimit(credential, resource string, rl garrison.RateLimit)
}

// Options tune a Client. The zero value is usable.
type Options struct {
	// Transport is the base transport (default: a clone of http.DefaultTransport). When the
	// endpoint has a CA bundle it must be an *http.Transport; it is cloned, not modified.
	Transport http.RoundTripper
	Logger    *slog.Logger
	Clock     Clock
	Observer  RateObserver
	// DownloadsTTL is how long runner download lists are cached (default 40 min).
	DownloadsTTL time.Duration
	// ExactAPIBaseURL uses Endpoint.APIBaseURL as given. By default a base URL that is not
	// api.github.com gets "api/v3/" appended unless its path already ends so or its host
	// starts with "api." (GHES, as GARM does).
	ExactAPIBaseURL bool
	// MaxRetries bounds the retries of one call after rate-limit answers (default 5).
	MaxRetries int
	// MaxWait is the longest wait for a rate limit to end that a call does before it is
	// sent (default 2s: GitHub's reset times are whole seconds). A longer one fails the
	// call at once with a *garrison.RateLimitError.
	MaxWait time.Duration
	// ReleaseSpacing is the least time between two calls released after a rate limit
	// (default 250ms); ReleaseWindow is how long after the limit's end calls stay paced so
	// (default 10s). See pacing.go.
	ReleaseSpacing, ReleaseWindow time.Duration
	// RetryBackoff is the first backoff after a rate-limit answer the forge gives no
	// usable wait for, or a repeated one (default 1s); it doubles per answer in a row up
	// to MaxBackoff (default 5 min).
	RetryBackoff, MaxBackoff time.Duration
	// Rand returns a uniform random number in [0, n) for the jitters (default
	// math/rand/v2).
	Rand func(n int64) int64
}

// Client talks to one GitHub or GHES endpoint with one credential. It is safe for
// concurrent use.
type Client struct {
	gh   *gh.Client
	rt   *rateTransport
	log  *slog.Logger
	cred string
	ttl  time.Duration

	mu        sync.Mutex // guards downloads
	downloads map[string]cachedDownloads
}

// New returns a client for the endpoint and credentials (PAT or GitHub App installation).
func New(ep garrison.Endpoint, cred garrison.Credentials, opts Options) (*Client, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Clock == nil {
		opts.Clock = realClock{}
	}
	if opts.DownloadsTTL <= 0 {
		opts.DownloadsTTL = 40 * time.Minute
	}
	if opts.MaxRetries <= 0 {
		opts.MaxRetries = 5
	}
	if opts.MaxWait <= 0 {
		opts.MaxWait = 2 * time.Second
	}
	opts = pacingDefaults(opts)
	base, err := baseTransport(opts.Transport, ep.CACertBundle)
	if err != nil {
		return nil, err
	}
	urlOpt, apiBase, err := urlOptions(ep, opts.ExactAPIBaseURL)
	if err != nil {
		return nil, err
	}
	auth, err := authTransport(base, cred, apiBase)
	if err != nil {
		return nil, err
	}
	rt := newRateTransport(auth, credName(cred), opts)
	ghOpts := []gh.ClientOptionsFunc{gh.WithHTTPClient(&http.Client{Transport: rt}), gh.WithDisableRateLimitCheck()}
	if urlOpt != nil {
		ghOpts = append(ghOpts, urlOpt)
	}
	client, err := gh.NewClient(ghOpts...)
	if err != nil {
		return nil, garrison.Errorf(garrison.EInvalid, "github: endpoint %q: %v", ep.Name, err)
	}
	return &Client{
		gh: client, rt: rt, log: opts.Logger.With("endpoint", ep.Name, "credentials", cred.Name),
		cred: credName(cred), ttl: opts.DownloadsTTL, downloads: map[string]cachedDownloads{},
	}, nil
}

func credName(c garrison.Credentials) string {
	if c.Name != "" {
		return c.Name
	}
	return fmt.Sprintf("credentials-%d", c.ID)
}

// baseTransport clones the base transport and installs the endpoint's CA bundle.
func baseTransport(rt http.RoundTripper, caBundle []byte) (http.RoundTripper, error) {
	if len(caBundle) == 0 {
		if rt == nil {
			return http.DefaultTransport.(*http.Transport).Clone(), nil
		}
		return rt, nil
	}
	if rt == nil {
		rt = http.DefaultTransport
	}
	ht, ok := rt.(*http.Transport)
	if !ok {
		return nil, garrison.Errorf(garrison.EInvalid, "github: a CA bundle needs an *http.Transport base")
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caBundle) {
		return nil, garrison.Errorf(garrison.EInvalid, "github: the endpoint CA bundle holds no PEM certificate")
	}
	ht = ht.Clone()
	if ht.TLSClientConfig == nil {
		ht.TLSClientConfig = &tls.Config{}
	}
	ht.TLSClientConfig.RootCAs = pool
	return ht, nil
}

// urlOptions picks go-github's URL option and returns the effective API base URL.
func urlOptions(ep garrison.Endpoint, exact bool) (gh.ClientOptionsFunc, string, error) {
	api := ep.APIBaseURL
	if api == "" || strings.TrimRight(api, "/") == strings.TrimRight(garrison.GitHubComAPIBaseURL, "/") {
		return nil, strings.TrimRight(garrison.GitHubComAPIBaseURL, "/"), nil
	}
	upload := ep.UploadBaseURL
	if upload == "" {
		upload = api
	}
	var opt gh.ClientOptionsFunc
	if exact {
		opt = gh.WithURLs(&api, &upload)
	} else {
		opt = gh.WithEnterpriseURLs(api, upload)
	}
	probe, err := gh.NewClient(opt)
	if err != nil {
		return nil, "", garrison.Errorf(garrison.EInvalid, "github: endpoint %q: %v", ep.Name, err)
	}
	return opt, strings.TrimRight(probe.BaseURL(), "/"), nil
}

// authTransport adds the credential: a PAT header or a ghinstallation transport.
func authTransport(base http.RoundTripper, c garrison.Credentials, apiBase string) (http.RoundTripper, error) {
	switch c.AuthType {
	case garrison.AuthPAT, "":
		if c.PAT == "" {
			return nil, garrison.Errorf(garrison.EInvalid, "github: credentials %q have no token", c.Name)
		}
		return &patTransport{next: base, token: c.PAT}, nil
	case garrison.AuthApp:
		itr, err := ghinstallation.New(base, c.AppID, c.InstallationID, c.PrivateKey)
		if err != nil {
			return nil, fmt.Errorf("github: app credentials %q: %w: %w", c.Name, garrison.ErrInvalid, err)
		}
		itr.BaseURL = apiBase
		return itr, nil
	}
	return nil, garrison.Errorf(garrison.EInvalid, "github: unknown auth type %q", c.AuthType)
}

type patTransport struct {
	next  http.RoundTripper
	token string
}

func (t *patTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return t.next.RoundTrip(r)
}
