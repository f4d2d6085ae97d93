package httpapi_test

import (
	"os"
	"slices"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/store"
)

// eachStore runs fn on SQLite, and on PostgreSQL when configured.
func eachStore(t *testing.T, fn func(t *testing.T, open func(testing.TB) store.Store)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, openSQLite) })
	t.Run("postgres", func(t *testing.T) {
		if os.Getenv(postgresDSNEnv) == "" {
			t.Skip("set " + postgresDSNEnv + " to run on PostgreSQL")
		}
		fn(t, openPostgres)
	})
}

// TestListsInCreationOrder creates objects of every listed kind in an order that neither
// their names, their IDs nor their priorities follow, and checks every REST list gives
// them oldest first, as GARM does.
func TestListsInCreationOrder(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(testing.TB) store.Store) {
		h := newHarness(t, open)
		o := orderFlow{t: t, h: h, tok: h.ready()}
		o.endpointsAndCredentials()
		ents := o.entities()
		pools := o.pools(ents)
		o.instances(ents, pools)
	})
}

// orderFlow creates objects through the API and lists them.
type orderFlow struct {
	t   *testing.T
	h   *harness
	tok string
}

func (o orderFlow) post(path string, body map[string]any, out any) {
	o.t.Helper()
	o.h.expect(o.h.call("POST", api(path), o.tok, body), 200, out)
}

// list GETs path and returns the name of each element.
func list[T any](o orderFlow, path string, name func(T) string) []string {
	o.t.Helper()
	var got []T
	o.h.expect(o.h.call("GET", api(path), o.tok, nil), 200, &got)
	out := make([]string, 0, len(got))
	for _, v := range got {
		out = append(out, name(v))
	}
	return out
}

func (o orderFlow) want(what string, got []string, want ...string) {
	o.t.Helper()
	if !slices.Equal(got, want) {
		o.t.Errorf("%s listed as %v, want %v", what, got, want)
	}
}

func (o orderFlow) endpointsAndCredentials() {
	for _, e := range []struct{ forge, name string }{{"github", "zeta"}, {"gitea", "gitea-m"}, {"github", "alpha"}, {"github", "Mike"}} {
		body := map[string]any{"name": e.name, "base_url": "https://" + e.name + ".example.com",
			"api_base_url": "https://" + e.name + ".example.com/api/"}
		if e.forge == "github" {
			body["upload_base_url"] = "https://" + e.name + ".example.com/uploads/"
		}
		o.post("/"+e.forge+"/endpoints", body, &apiv1.ForgeEndpoint{})
	}
	epName := func(e apiv1.ForgeEndpoint) string { return e.Name }
	o.want("github endpoints", list(o, "/github/endpoints", epName), "github.com", "zeta", "alpha", "Mike")
	o.want("gitea endpoints", list(o, "/gitea/endpoints", epName), "gitea-m")

	for _, c := range []struct{ forge, name, endpoint string }{
		{"github", "zulu", "github.com"}, {"gitea", "gamma", "gitea-m"}, {"github", "alpha", "zeta"}, {"github", "Mike", "github.com"},
	} {
		o.post("/"+c.forge+"/credentials", map[string]any{"name": c.name, "endpoint": c.endpoint, "auth_type": "pat",
			"pat": map[string]any{"oauth2_token": "x"}}, &apiv1.ForgeCredentials{})
	}
	credName := func(c apiv1.ForgeCredentials) string { return c.Name }
	o.want("github credentials", list(o, "/github/credentials", credName), "zulu", "alpha", "Mike")
	o.want("legacy credentials", list(o, "/credentials", credName), "zulu", "alpha", "Mike")
	o.want("gitea credentials", list(o, "/gitea/credentials", credName), "gamma")
}

// entities creates repositories, organizations and enterprises interleaved and returns
// their IDs by name.
func (o orderFlow) entities() map[string]string {
	ids := map[string]string{}
	for _, e := range []struct{ kind, owner, name string }{
		{"repositories", "zoo", "zebra"}, {"organizations", "", "zorg"}, {"repositories", "acme", "apple"},
		{"enterprises", "", "zent"}, {"organizations", "", "aorg"}, {"repositories", "mango", "mango"},
		{"enterprises", "", "aent"},
	} {
		body := map[string]any{"name": e.name, "credentials_name": "zulu", "webhook_secret": "s"}
		if e.owner != "" {
			body["owner"] = e.owner
		}
		var v struct {
			ID string `json:"id"`
		}
		o.post("/"+e.kind, body, &v)
		ids[e.name] = v.ID
	}
	repoName := func(r apiv1.Repository) string { return r.Owner + "/" + r.Name }
	orgName := func(r apiv1.Organization) string { return r.Name }
	o.want("repositories", list(o, "/repositories", repoName), "zoo/zebra", "acme/apple", "mango/mango")
	o.want("organizations", list(o, "/organizations", orgName), "zorg", "aorg")
	o.want("enterprises", list(o, "/enterprises", func(e apiv1.Enterprise) string { return e.Name }), "zent", "aent")
	return ids
}

// pools creates pools of several entities and priorities and returns their IDs by name.
func (o orderFlow) pools(ents map[string]string) map[string]string {
	ids := map[string]string{}
	for _, p := range []struct {
		name, path string
		priority   int
	}{
		{"zebra-0", "/repositories/" + ents["zebra"], 0}, {"zorg-10", "/organizations/" + ents["zorg"], 10},
		{"zebra-20", "/repositories/" + ents["zebra"], 20}, {"aent-5", "/enterprises/" + ents["aent"], 5},
		{"zebra-5", "/repositories/" + ents["zebra"], 5},
	} {
		var v apiv1.Pool
		o.post(p.path+"/pools", with(validPool(), "priority", p.priority), &v)
		ids[v.ID] = p.name
		ids[p.name] = v.ID
	}
	poolName := func(p apiv1.Pool) string { return ids[p.ID] }
	o.want("pools", list(o, "/pools", poolName), "zebra-0", "zorg-10", "zebra-20", "aent-5", "zebra-5")
	o.want("pools of a repository", list(o, "/repositories/"+ents["zebra"]+"/pools", poolName), "zebra-0", "zebra-20", "zebra-5")
	return ids
}

// instances creates runners (the reconciler's work, so through the store) and lists them.
func (o orderFlow) instances(ents, pools map[string]string) {
	for _, i := range []struct{ name, pool string }{{"zz-runner", "zebra-20"}, {"aa-runner", "zorg-10"}, {"mm-runner", "zebra-0"}, {"bb-runner", "zebra-20"}} {
		_, err := o.h.store.CreateInstance(o.t.Context(), garrison.Instance{Name: i.name, PoolID: pools[i.pool], ProviderName: "lxd",
			OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64, Status: garrison.InstanceRunning, RunnerStatus: garrison.RunnerIdle})
		if err != nil {
			o.t.Fatal(err)
		}
	}
	name := func(i apiv1.Instance) string { return i.Name }
	o.want("instances", list(o, "/instances", name), "zz-runner", "aa-runner", "mm-runner", "bb-runner")
	o.want("instances of a repository", list(o, "/repositories/"+ents["zebra"]+"/instances", name), "zz-runner", "mm-runner", "bb-runner")
	o.want("instances of a pool", list(o, "/pools/"+pools["zebra-20"]+"/instances", name), "zz-runner", "bb-runner")
}

// TestJobShape checks a job's id is the server's own sequence in creation order, its
// workflow_job_id the forge's, and that GET /jobs lists jobs oldest first, also where an
// instance shows the job it runs.
func TestJobShape(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(testing.TB) store.Store) {
		h := newHarness(t, open)
		o := orderFlow{t: t, h: h, tok: h.ready()}
		ctx := t.Context()
		for _, id := range []int64{300, 100, 200} {
			if _, err := h.store.UpsertJob(ctx, id, func(j *garrison.Job, _ bool) error {
				j.Action, j.RunID, j.Labels = garrison.JobQueued, 7, []string{"linux"}
				j.WorkflowRunURL = "https://github.com/o/r/actions/runs/7"
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		var jobs []apiv1.Job
		h.expect(h.call("GET", api("/jobs"), o.tok, nil), 200, &jobs)
		var ids, wfIDs []int64
		for _, j := range jobs {
			ids, wfIDs = append(ids, j.ID), append(wfIDs, j.WorkflowJobID)
		}
		if !slices.Equal(ids, []int64{1, 2, 3}) || !slices.Equal(wfIDs, []int64{300, 100, 200}) {
			t.Fatalf("jobs: ids %v, workflow job ids %v; want [1 2 3] and [300 100 200]", ids, wfIDs)
		}
		if jobs[0].WorkflowRunURL != "https://github.com/o/r/actions/runs/7" {
			t.Errorf("workflow_run_url %q", jobs[0].WorkflowRunURL)
		}

		f := newFixtureOn(t, h, o.tok)
		_, err := h.store.CreateInstance(ctx, garrison.Instance{Name: "busy", PoolID: f.poolID, ProviderName: "lxd",
			OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64, Status: garrison.InstanceRunning,
			RunnerStatus: garrison.RunnerActive, JobID: 100})
		if err != nil {
			t.Fatal(err)
		}
		var in apiv1.Instance
		h.expect(h.call("GET", api("/instances/busy"), o.tok, nil), 200, &in)
		if in.Job == nil || in.Job.ID != 2 || in.Job.WorkflowJobID != 100 {
			t.Fatalf("instance job = %+v", in.Job)
		}
	})
}
