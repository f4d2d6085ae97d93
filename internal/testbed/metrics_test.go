package testbed_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/testbed"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// garmFamilies are GARM's metric families and their labels (shared/spec/streams-metrics.md
// §2.2). The scale-set families are left out: garrison has no scale sets, so they never
// have series.
var garmFamilies = map[string][]string{
	"garm_health":                           {"metadata_url", "callback_url", "webhook_url", "controller_webhook_url", "controller_id"},
	"garm_webhook_received":                 {"valid", "reason"},
	"garm_repository_info":                  {"name", "id"},
	"garm_repository_pool_manager_status":   {"name", "id", "running"},
	"garm_organization_info":                {"name", "id"},
	"garm_organization_pool_manager_status": {"name", "id", "running"},
	"garm_enterprise_info":                  {"name", "id"},
	"garm_enterprise_pool_manager_status":   {"name", "id", "running"},
	"garm_provider_info":                    {"name", "type", "description"},
	"garm_pool_info":                        {"id", "image", "flavor", "prefix", "os_type", "os_arch", "tags", "provider", "pool_owner", "pool_type"},
	"garm_pool_status":                      {"id", "enabled"},
	"garm_pool_max_runners":                 {"id"},
	"garm_pool_min_idle_runners":            {"id"},
	"garm_pool_bootstrap_timeout":           {"id"},
	"garm_runner_status":                    {"name", "status", "runner_status", "pool_owner", "pool_type", "pool_id", "scaleset_id", "provider"},
	"garm_runner_operations_total":          {"operation", "provider"},
	"garm_runner_errors_total":              {"operation", "provider"},
	"garm_job_status": {"job_id", "workflow_job_id", "scaleset_job_id", "workflow_run_id", "name", "status", "conclusion",
		"runner_name", "owner", "repository", "requested_labels"},
	"garm_github_operations_total":           {"operation", "scope"},
	"garm_github_errors_total":               {"operation", "scope"},
	"garm_github_rate_limit_limit":           {"credential_name", "credential_id", "endpoint"},
	"garm_github_rate_limit_remaining":       {"credential_name", "credential_id", "endpoint"},
	"garm_github_rate_limit_used":            {"credential_name", "credential_id", "endpoint"},
	"garm_github_rate_limit_reset_timestamp": {"credential_name", "credential_id", "endpoint"},
}

// TestDemoMetrics runs a demo-sized burst and scrapes /metrics with a metrics token once
// every job completed: every GARM family is there with GARM's labels, and each stage of
// garrison_job_queue_seconds counted every job once.
func TestDemoMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a server, the forge simulator and dozens of processes")
	}
	if err := testbed.CheckHost(); err != nil {
		t.Skip(err)
	}
	base := t.TempDir()
	var families map[string]*dto.MetricFamily
	o := testbed.DemoOptions{
		Options: testbed.Options{JobDuration: 300 * time.Millisecond, BootDelay: 50 * time.Millisecond,
			BaseDir: base, Tools: helperTools(t)},
		Jobs: 6, Timeout: 4 * time.Minute,
		AfterJobs: func(ctx context.Context, b *testbed.Bed) (err error) {
			families, err = scrapeAfterJobs(ctx, b, 6)
			return err
		},
	}
	var out bytes.Buffer
	if _, err := testbed.RunDemo(t.Context(), o, &out); err != nil {
		t.Fatalf("demo: %v\n%s\n%s", err, out.String(), serverLogTail(base))
	}
	for name, labels := range garmFamilies {
		checkFamily(t, families, name, labels)
	}
	if h := families["garm_health"]; h != nil && len(h.GetMetric()) == 1 && h.GetMetric()[0].GetGauge().GetValue() != 1 {
		t.Errorf("garm_health = %v, want 1 on an initialised controller with its URLs set", h.GetMetric()[0].GetGauge().GetValue())
	}
	checkQueueCounts(t, families["garrison_job_queue_seconds"], 6)
	checkDashboard(t, families)
	for _, name := range []string{"garrison_pool_instances", "garrison_provider_call_duration_seconds", "garrison_build_info",
		"garrison_forge_rate_limit_remaining", "garrison_store_write_wait_seconds"} {
		if families[name] == nil || len(families[name].GetMetric()) == 0 {
			t.Errorf("no %s series", name)
		}
	}
}

// scrapeAfterJobs waits until the ledger has every job completed and a runner exists,
// adds an organization and an enterprise, and scrapes /metrics with a metrics token.
func scrapeAfterJobs(ctx context.Context, b *testbed.Bed, jobs int) (map[string]*dto.MetricFamily, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		js, err := b.API.ListJobs(ctx)
		insts, err2 := b.API.ListInstances(ctx)
		if err == nil && err2 == nil && completed(js) == jobs && len(insts) > 0 {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the ledger has %d of %d jobs completed and %d instances (%v, %v)", completed(js), jobs, len(insts), err, err2)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, create := range []func() error{
		func() error {
			_, err := b.API.CreateOrganization(ctx, apiv1.CreateOrgParams{Name: "acme-org", CredentialsName: testbed.Credentials, WebhookSecret: "org-secret-0123456789"})
			return err
		},
		func() error {
			_, err := b.API.CreateEnterprise(ctx, apiv1.CreateOrgParams{Name: "acme-ent", CredentialsName: testbed.Credentials, WebhookSecret: "ent-secret-0123456789"})
			return err
		},
	} {
		if err := create(); err != nil {
			return nil, err
		}
	}
	tok, err := b.API.MetricsToken(ctx)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.URL+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	return p.TextToMetricFamilies(resp.Body)
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	slices.Sort(out)
	return out
}

func completed(js []apiv1.Job) int {
	n := 0
	for _, j := range js {
		if j.Status == "completed" {
			n++
		}
	}
	return n
}

// checkFamily checks a family has series, each with exactly the given label names.
func checkFamily(t *testing.T, families map[string]*dto.MetricFamily, name string, labels []string) {
	t.Helper()
	mf := families[name]
	if mf == nil || len(mf.GetMetric()) == 0 {
		t.Errorf("family %s missing", name)
		return
	}
	want := strings.Join(sorted(labels), ",")
	for _, m := range mf.GetMetric() {
		var got []string
		for _, l := range m.GetLabel() {
			got = append(got, l.GetName())
		}
		if g := strings.Join(sorted(got), ","); g != want {
			t.Errorf("%s labels %s, want %s", name, g, want)
			return
		}
	}
}

// checkQueueCounts checks each stage counted n jobs in all.
func checkQueueCounts(t *testing.T, mf *dto.MetricFamily, n int) {
	t.Helper()
	if mf == nil {
		t.Fatal("no garrison_job_queue_seconds")
	}
	counts := map[string]uint64{}
	for _, m := range mf.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "stage" {
				counts[l.GetValue()] += m.GetHistogram().GetSampleCount()
			}
		}
	}
	for _, stage := range []string{"assigned", "started", "completed"} {
		if counts[stage] != uint64(n) {
			t.Errorf("garrison_job_queue_seconds{stage=%q} counted %d jobs, want %d (all: %v)", stage, counts[stage], n, counts)
		}
	}
}
