package metrics

import (
	"errors"
	"github.com/garrison-ci/garrison"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestProviderCallsAreExported(t *testing.T) {
	m := New()
	m.ObserveProviderCall("lxd", "CreateInstance", 120*time.Millisecond, nil)
	m.ObserveProviderCall("lxd", "CreateInstance", time.Second, errors.New("boom"))
	m.ObserveRateLimit("pat1", "core", garrison.RateLimit{Limit: 5000, Used: 12, Remaining: 4988, Reset: 1700000000})

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`garrison_provider_calls_total{command="CreateInstance",provider="lxd"} 2`,
		`garrison_provider_failures_total{command="CreateInstance",provider="lxd"} 1`,
		`garrison_provider_call_duration_seconds_count{command="CreateInstance",provider="lxd"} 2`,
		`garrison_forge_rate_limit{credentials="pat1",kind="remaining",resource="core"} 4988`,
		`garrison_forge_rate_limit{credentials="pat1",kind="reset",resource="core"} 1.7e+09`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics output lacks %q", want)
		}
	}
}
