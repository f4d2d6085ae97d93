package metrics

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// TestSnapshotFamilies: GARM's snapshot families carry GARM's labels, with repositories
// in garm_repository_* (D-2) and garm_health following the controller (D-1).
func TestSnapshotFamilies(t *testing.T) {
	f := seed(t)
	ctx := t.Context()
	ok(f.st.UpsertJob(ctx, 42, func(j *garrison.Job, _ bool) error {
		j.Action, j.Name, j.RunID, j.EntityID, j.EntityType = garrison.JobQueued, "build", 9, f.repo.ID, garrison.Repository
		j.RepositoryOwner, j.RepositoryName, j.Labels = "acme", "widgets", []string{"x64", "lab"}
		return nil
	})).get(t)
	m := New()
	if err := m.AddSnapshot(SnapshotOptions{Source: f.st, Providers: []ProviderInfo{{Name: "sim", Type: "external", Description: "simulator"}},
		Running: func(id string) bool { return id == f.repo.ID }}); err != nil {
		t.Fatal(err)
	}
	ctl := ok(f.st.Controller(ctx)).get(t)
	p := f.pool.ID
	wantLines(t, scrape(t, m),
		fmt.Sprintf(`garm_health{callback_url="",controller_id=%q,controller_webhook_url="",metadata_url="",webhook_url=""} 0`, ctl.ID),
		fmt.Sprintf(`garm_repository_info{id=%q,name="widgets"} 1`, f.repo.ID),
		fmt.Sprintf(`garm_repository_pool_manager_status{id=%q,name="widgets",running="true"} 1`, f.repo.ID),
		fmt.Sprintf(`garm_organization_info{id=%q,name="acme"} 1`, f.org.ID),
		fmt.Sprintf(`garm_organization_pool_manager_status{id=%q,name="acme",running="false"} 0`, f.org.ID),
		`garm_provider_info{description="simulator",name="sim",type="external"} 1`,
		fmt.Sprintf(`garm_pool_info{flavor="small",id=%q,image="ubuntu",os_arch="amd64",os_type="linux",pool_owner="acme/widgets",pool_type="repository",prefix="garm",provider="sim",tags="x64,lab"} 1`, p),
		fmt.Sprintf(`garm_pool_status{enabled="true",id=%q} 1`, p),
		fmt.Sprintf(`garm_pool_max_runners{id=%q} 4`, p),
		fmt.Sprintf(`garm_pool_min_idle_runners{id=%q} 1`, p),
		fmt.Sprintf(`garm_pool_bootstrap_timeout{id=%q} 20`, p),
		fmt.Sprintf(`garm_runner_status{name="garm-abc",pool_id=%q,pool_owner="acme/widgets",pool_type="repository",provider="sim",runner_status="idle",scaleset_id="",status="running"} 1`, p),
		`garm_job_status{conclusion="",job_id="1",name="build",owner="acme",repository="widgets",requested_labels="x64 lab",runner_name="",scaleset_job_id="",status="queued",workflow_job_id="42",workflow_run_id="9"} 1`,
		fmt.Sprintf(`garrison_pool_instances{pool_id=%q,runner_status="idle",status="running"} 1`, p),
		`garrison_jobs{entity_type="repository",forge="github",status="queued"} 1`,
		`garrison_jobs{entity_type="repository",forge="github",status="in_progress"} 0`,
		`garrison_jobs{entity_type="organization",forge="github",status="queued"} 0`,
	)
}

// TestSnapshotPeriod: the store is read at most once per period, and the health gauge
// turns 1 once an admin exists and the URLs are set.
func TestSnapshotPeriod(t *testing.T) {
	f := seed(t)
	ctx := t.Context()
	now := time.Unix(1700000000, 0)
	m := New()
	if err := m.AddSnapshot(SnapshotOptions{Source: f.st, Period: time.Minute, Now: func() time.Time { return now }}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(scrape(t, m), "garm_health{") {
		t.Fatal("no garm_health")
	}
	ok(f.st.CreateAdmin(ctx, garrison.User{Username: "admin", Email: "a@example.com", PasswordHash: "x", Enabled: true, IsAdmin: true})).get(t)
	ok(f.st.UpdateController(ctx, func(c *garrison.Controller) error {
		c.MetadataURL, c.CallbackURL = "http://g/api/v1/metadata", "http://g/api/v1/callbacks"
		return nil
	})).get(t)
	if body := scrape(t, m); strings.Contains(body, "garm_health{callback_url=\"http://g") {
		t.Error("the snapshot was read again within its period")
	}
	now = now.Add(time.Minute)
	wantLines(t, scrape(t, m), `garm_health{callback_url="http://g/api/v1/callbacks",`, `metadata_url="http://g/api/v1/metadata",webhook_url=""} 1`)
}

// countingSource counts the snapshot's reads of the instances.
type countingSource struct {
	Source
	instanceReads int
}

func (c *countingSource) ListInstances(ctx context.Context, f store.InstanceFilter) ([]garrison.Instance, error) {
	c.instanceReads++
	return c.Source.ListInstances(ctx, f)
}

// TestScrapeByName: a scrape that names only other families neither reads nor sends the
// snapshot families; one that names a snapshot family, or names none, has them.
func TestScrapeByName(t *testing.T) {
	f := seed(t)
	src := &countingSource{Source: f.st}
	m := New()
	if err := m.AddSnapshot(SnapshotOptions{Source: src, Period: time.Nanosecond}); err != nil {
		t.Fatal(err)
	}
	m.ObserveProviderCall("sim", "CreateInstance", time.Millisecond, nil)
	get := func(query string) string {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics"+query, nil))
		if rec.Code != 200 {
			t.Fatalf("scrape %s: %d %s", query, rec.Code, rec.Body)
		}
		return rec.Body.String()
	}
	body := get("?name[]=garrison_provider_calls_total")
	if !strings.Contains(body, `garrison_provider_calls_total{command="CreateInstance",provider="sim"} 1`) {
		t.Fatalf("the named family is missing:\n%s", body)
	}
	if strings.Contains(body, "garm_runner_status") || strings.Contains(body, "go_goroutines") || src.instanceReads != 0 {
		t.Fatalf("a scrape by name sent other families or read the instances (%d reads):\n%s", src.instanceReads, body)
	}
	if body := get("?name[]=garm_runner_status"); !strings.Contains(body, `garm_runner_status{name="garm-abc"`) || src.instanceReads != 1 {
		t.Fatalf("a scrape naming a snapshot family lacks it (%d reads):\n%s", src.instanceReads, body)
	}
	if body := get(""); !strings.Contains(body, "garm_runner_status{") || !strings.Contains(body, "garrison_provider_calls_total{") {
		t.Fatalf("a whole scrape lacks a family:\n%s", body)
	}
}
