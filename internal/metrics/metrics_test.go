package metrics

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
)

// scrape returns the text exposition of m's registry.
func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("scrape: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

func wantLines(t *testing.T, body string, lines ...string) {
	t.Helper()
	for _, want := range lines {
		if !strings.Contains(body, want) {
			t.Errorf("metrics output lacks %q", want)
		}
	}
}

func TestProviderCallsAreExported(t *testing.T) {
	m := New()
	m.ObserveProviderCall("lxd", "CreateInstance", 120*time.Millisecond, nil)
	m.ObserveProviderCall("lxd", "CreateInstance", time.Second, errors.New("boom"))
	wantLines(t, scrape(t, m),
		`garrison_provider_calls_total{command="CreateInstance",provider="lxd"} 2`,
		`garrison_provider_failures_total{command="CreateInstance",provider="lxd"} 1`,
		`garrison_provider_call_duration_seconds_count{command="CreateInstance",provider="lxd"} 2`,
		`garm_runner_operations_total{operation="CreateInstance",provider="lxd"} 2`,
		`garm_runner_errors_total{operation="CreateInstance",provider="lxd"} 1`,
		`go_goroutines`,
		`garrison_build_info{go_version="go`,
	)
}

func TestForgeCallsAndBudgets(t *testing.T) {
	m := New()
	m.ObserveForgeCall("CreateEntityRegistrationToken", "Repository", nil)
	m.ObserveForgeCall("CreateEntityRegistrationToken", "Repository", errors.New("403"))
	m.ObserveForgeRateLimit(7, "pat1", "github.com", "core", garrison.RateLimit{Limit: 5000, Used: 12, Remaining: 4988, Reset: 1700000000})
	m.ObserveForgeRateLimit(7, "pat1", "github.com", "search", garrison.RateLimit{Limit: 30, Remaining: 29})
	body := scrape(t, m)
	wantLines(t, body,
		`garm_github_operations_total{operation="CreateEntityRegistrationToken",scope="Repository"} 2`,
		`garm_github_errors_total{operation="CreateEntityRegistrationToken",scope="Repository"} 1`,
		`garrison_forge_rate_limit{credentials="pat1",kind="remaining",resource="core"} 4988`,
		`garrison_forge_rate_limit{credentials="pat1",kind="reset",resource="core"} 1.7e+09`,
		`garrison_forge_rate_limit{credentials="pat1",kind="remaining",resource="search"} 29`,
		`garrison_forge_rate_limit_remaining{credentials="pat1",endpoint="github.com"} 4988`,
		`garm_github_rate_limit_limit{credential_id="7",credential_name="pat1",endpoint="github.com"} 5000`,
		`garm_github_rate_limit_remaining{credential_id="7",credential_name="pat1",endpoint="github.com"} 4988`,
		`garm_github_rate_limit_used{credential_id="7",credential_name="pat1",endpoint="github.com"} 12`,
		`garm_github_rate_limit_reset_timestamp{credential_id="7",credential_name="pat1",endpoint="github.com"} 1.7e+09`,
	)
	if strings.Contains(body, `garm_github_rate_limit_remaining{credential_id="7",credential_name="pat1",endpoint="github.com"} 29`) {
		t.Error("a non-core budget reached GARM's families")
	}
	// D-5: a deleted credential's budget series go away.
	m.ForgetCredentials(7, "pat1", "github.com")
	body = scrape(t, m)
	for _, gone := range []string{`credential_name="pat1"`, `credentials="pat1"`} {
		if strings.Contains(body, gone) {
			t.Errorf("series with %s remain after ForgetCredentials", gone)
		}
	}
}
