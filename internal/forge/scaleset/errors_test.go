package scaleset

import (
	"errors"
	"net/http"
	"testing"
	"time"

	gha "github.com/actions/scaleset"

	"github.com/garrison-ci/garrison"
)

func TestClassify(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name     string
		kind     callKind
		e        APIError
		sentinel error
		code     garrison.ErrorCode
	}{
		{"session conflict", sessionCreateCall, APIError{Status: 409}, ErrSessionConflict, garrison.EConflict},
		{"409 elsewhere is a plain conflict", adminCall, APIError{Status: 409}, nil, garrison.EConflict},
		{"queue token expired", queueCall, APIError{Status: 401}, ErrTokenExpired, garrison.EUnauthorized},
		{"admin 401", adminCall, APIError{Status: 401}, nil, garrison.EUnauthorized},
		{"agent exists", adminCall, APIError{Status: 409, TypeName: "GitHub.DistributedTask.WebApi.AgentExistsException"}, ErrRunnerExists, garrison.EConflict},
		{"job still running", adminCall, APIError{Status: 409, TypeName: "JobStillRunningException"}, ErrJobStillRunning, garrison.EConflict},
		{"agent not found", adminCall, APIError{Status: 404, TypeName: "AgentNotFoundException"}, nil, garrison.ENotFound},
		{"not found exception with other status", adminCall, APIError{Status: 400, TypeName: "RunnerScaleSetNotFoundException"}, nil, garrison.ENotFound},
		{"plain 404", adminCall, APIError{Status: 404}, nil, garrison.ENotFound},
		{"5xx", queueCall, APIError{Status: 503}, nil, garrison.EUnavailable},
		{"422", adminCall, APIError{Status: 422}, nil, garrison.EUnprocessable},
		{"400", adminCall, APIError{Status: 400}, nil, garrison.EInvalid},
		{"418", adminCall, APIError{Status: 418}, nil, garrison.EInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.e
			err := classify("op", tt.kind, &e, now)
			if tt.sentinel != nil && !errors.Is(err, tt.sentinel) {
				t.Errorf("err = %v, want %v", err, tt.sentinel)
			}
			for _, s := range []error{ErrSessionConflict, ErrTokenExpired, ErrRunnerExists, ErrJobStillRunning} {
				if s != tt.sentinel && errors.Is(err, s) {
					t.Errorf("err = %v also matches %v", err, s)
				}
			}
			if got := garrison.CodeOf(err); got != tt.code {
				t.Errorf("code %s, want %s (%v)", got, tt.code, err)
			}
			var ae *APIError
			if !errors.As(err, &ae) || ae.Status != tt.e.Status {
				t.Errorf("err = %v does not carry the APIError", err)
			}
		})
	}
}

func TestClassifyRateLimit(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tt := range []struct {
		name string
		e    APIError
		want time.Time
	}{
		{"429 with Retry-After", APIError{Status: 429, RetryAfter: 7 * time.Second}, now.Add(7 * time.Second)},
		{"429 without", APIError{Status: 429}, now.Add(time.Minute)},
		{"403 secondary limit", APIError{Status: 403, RetryAfter: time.Second}, now.Add(time.Second)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := classify("op", adminCall, &tt.e, now)
			var rl *garrison.RateLimitError
			if !errors.As(err, &rl) || !rl.Until.Equal(tt.want) || !errors.Is(err, garrison.ErrUnavailable) {
				t.Fatalf("err = %v, want a RateLimitError until %s", err, tt.want)
			}
		})
	}
}

func TestNewAPIErrorReadsBodies(t *testing.T) {
	req, _ := http.NewRequest(http.MethodGet, "http://svc/_apis/x?api-version=6.0-preview", nil)
	tests := []struct {
		name, ct, body, typeName, msg string
	}{
		{"exception", "application/json", `{"typeName": "AgentNotFoundException", "message": "gone"}`, "AgentNotFoundException", "gone"},
		{"text/plain", "text/plain; charset=utf-8", `{"typeName": "X"}`, "", `{"typeName": "X"}`},
		{"not JSON", "application/json", `oops`, "", "oops"},
		{"empty", "", ``, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := &http.Response{StatusCode: 404, Header: http.Header{"Content-Type": {tt.ct}, "Activityid": {"act-1"}, "Retry-After": {"3"}}}
			e := newAPIError(req, resp, []byte(tt.body))
			if e.TypeName != tt.typeName || e.Message != tt.msg || e.ActivityID != "act-1" || e.RetryAfter != 3*time.Second {
				t.Fatalf("APIError = %+v", e)
			}
			if e.URL != "http://svc/_apis/x" {
				t.Errorf("URL %q keeps its query", e.URL)
			}
		})
	}
}

func TestConfigURLAndAPIBase(t *testing.T) {
	ghes := garrison.Endpoint{Name: "ghes", BaseURL: "https://ghes.example.com/", APIBaseURL: "https://ghes.example.com/"}
	com := garrison.Endpoint{Name: "github.com"}
	tests := []struct {
		ep        garrison.Endpoint
		e         garrison.Entity
		cfg, base string
	}{
		{com, garrison.Entity{Type: garrison.Repository, Owner: "o", Name: "r"}, "https://github.com/o/r", "https://api.github.com"},
		{com, garrison.Entity{Type: garrison.Organization, Name: "o"}, "https://github.com/o", "https://api.github.com"},
		{ghes, garrison.Entity{Type: garrison.Enterprise, Name: "e"}, "https://ghes.example.com/enterprises/e", "https://ghes.example.com/api/v3"},
		{garrison.Endpoint{BaseURL: "http://127.0.0.1:9", APIBaseURL: "http://127.0.0.1:9/api/v3/"}, garrison.Entity{Type: garrison.Organization, Name: "o"},
			"http://127.0.0.1:9/o", "http://127.0.0.1:9/api/v3"},
		{garrison.Endpoint{BaseURL: "https://x", APIBaseURL: "https://api.x/"}, garrison.Entity{Type: garrison.Organization, Name: "o"}, "https://x/o", "https://api.x"},
	}
	for _, tt := range tests {
		cfg, err := ConfigURL(tt.ep, tt.e)
		if err != nil || cfg != tt.cfg {
			t.Errorf("ConfigURL(%v) = %q, %v; want %q", tt.e, cfg, err, tt.cfg)
		}
		base, err := apiBaseURL(tt.ep, false)
		if err != nil || base != tt.base {
			t.Errorf("apiBaseURL(%v) = %q, %v; want %q", tt.ep, base, err, tt.base)
		}
	}
	bad := []struct {
		ep garrison.Endpoint
		e  garrison.Entity
	}{
		{com, garrison.Entity{Type: garrison.Repository, Name: "r"}},
		{com, garrison.Entity{Type: "team", Name: "t"}},
		{garrison.Endpoint{BaseURL: "ftp://x"}, garrison.Entity{Type: garrison.Organization, Name: "o"}},
	}
	for _, tt := range bad {
		if _, err := ConfigURL(tt.ep, tt.e); !errors.Is(err, garrison.ErrInvalid) {
			t.Errorf("ConfigURL(%v, %v) err = %v, want ErrInvalid", tt.ep, tt.e, err)
		}
	}
	if _, err := apiBaseURL(garrison.Endpoint{APIBaseURL: "::"}, false); !errors.Is(err, garrison.ErrInvalid) {
		t.Errorf("bad API base URL err = %v", err)
	}
}

func TestNewRejectsBadCredentials(t *testing.T) {
	org := garrison.Entity{Type: garrison.Organization, Name: "o"}
	for _, c := range []garrison.Credentials{
		{Name: "empty pat", AuthType: garrison.AuthPAT},
		{Name: "bad key", AuthType: garrison.AuthApp, AppID: 1, InstallationID: 2, PrivateKey: []byte("nope")},
		{Name: "unknown", AuthType: "kerberos"},
	} {
		if _, err := New(garrison.Endpoint{}, c, org, Options{}); !errors.Is(err, garrison.ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", c.Name, err)
		}
	}
	if _, err := New(garrison.Endpoint{CACertBundle: []byte("not pem")}, garrison.Credentials{PAT: "x"}, org, Options{}); !errors.Is(err, garrison.ErrInvalid) {
		t.Errorf("bad CA bundle: err = %v", err)
	}
}

func TestBadSessionIsRefused(t *testing.T) {
	c, err := New(garrison.Endpoint{}, garrison.Credentials{PAT: "x"}, garrison.Entity{Type: garrison.Organization, Name: "o"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	bad := Session{ID: "s", ScaleSetID: 1, MessageQueueURL: "http://[::1", QueueToken: "t"}
	if _, err := c.GetMessage(t.Context(), bad, 0, 1); !errors.Is(err, garrison.ErrInvalid) {
		t.Errorf("get: err = %v", err)
	}
	if err := c.DeleteMessage(t.Context(), bad, 1); !errors.Is(err, garrison.ErrInvalid) {
		t.Errorf("ack: err = %v", err)
	}
	if _, err := c.sessionFromWire(1, gha.RunnerScaleSetSession{MessageQueueURL: "not a url", MessageQueueAccessToken: "t"}); !errors.Is(err, garrison.ErrUnprocessable) {
		t.Errorf("session without a queue URL: err = %v", err)
	}
	if _, err := c.sessionFromWire(1, gha.RunnerScaleSetSession{MessageQueueURL: "http://q/x"}); !errors.Is(err, garrison.ErrUnprocessable) {
		t.Errorf("session without a token: err = %v", err)
	}
}
