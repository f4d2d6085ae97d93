package intake

import (
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/webhook"
	"github.com/garrison-ci/garrison/internal/store"
)

// Secrets of the entities scopes adds.
const (
	ghRepoBSecret = "secret-repo-b"
	ghOrgSecret   = "secret-org"
	ghEntSecret   = "secret-enterprise"
)

// Runners of the entities scopes adds (ourRunner is the GitHub repository's).
const (
	runnerRepoB   = "garm-repo-b"
	runnerOrg     = "garm-org"
	runnerEnt     = "garm-ent"
	runnerGtOrg   = "gt-org1"
	runnerGtRepo1 = "gt-repo1"
	runnerGtRepo2 = "gt-repo2"
	runnerGtFI    = "gt-forge-instance"
	runnerOrgSS   = "garm-org-scaleset" // a runner of the organization's scale set
)

// scoped adds, next to the env's entities, an entity of every scope, each with a pool
// and an idle runner: on GitHub a second repository (octo-org/other-repo), the
// organization octo-org and the enterprise octo-ent; on Gitea the repositories org1/repo1
// and org1/repo2, a runner for the organization org1, and the forge instance of the
// Gitea endpoint (its system hook signs with the Gitea secret).
func (e *env) scoped() {
	e.t.Helper()
	gh := []struct {
		ent    garrison.Entity
		runner string
	}{
		{garrison.Entity{Type: garrison.Repository, Owner: "octo-org", Name: "other-repo", WebhookSecret: ghRepoBSecret}, runnerRepoB},
		{garrison.Entity{Type: garrison.Organization, Name: "octo-org", WebhookSecret: ghOrgSecret}, runnerOrg},
		{garrison.Entity{Type: garrison.Enterprise, Name: "octo-ent", WebhookSecret: ghEntSecret}, runnerEnt},
	}
	for _, s := range gh {
		ent := e.entity(garrison.GitHubComEndpoint, garrison.GitHub, s.ent)
		e.newRunner(e.newPool(ent.ID, stdLabels...).ID, s.runner)
		if s.ent.Type == garrison.Organization {
			e.newScaleSetRunner(ent.ID, runnerOrgSS)
		}
	}
	e.newRunner(e.gpool.ID, runnerGtOrg)
	fi := e.entity("gitea-local", garrison.Gitea, garrison.Entity{Type: garrison.ForgeInstance, Name: "fi", WebhookSecret: giteaSecret})
	e.newRunner(e.newPool(fi.ID, "ubuntu-latest").ID, runnerGtFI)
	for name, runner := range map[string]string{"repo1": runnerGtRepo1, "repo2": runnerGtRepo2} {
		ent := e.entity("gitea-local", garrison.Gitea, garrison.Entity{Type: garrison.Repository, Owner: "org1", Name: name, WebhookSecret: giteaSecret})
		e.newRunner(e.newPool(ent.ID, "ubuntu-latest").ID, runner)
	}
}

func (e *env) newRunner(poolID, name string) {
	e.t.Helper()
	_, err := e.st.CreateInstance(e.t.Context(), garrison.Instance{Name: name, PoolID: poolID, ProviderName: "sim",
		OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64, Status: garrison.InstanceRunning, RunnerStatus: garrison.RunnerIdle})
	must(e.t, err)
}

// newScaleSetRunner adds a scale set to the entity with one idle runner.
func (e *env) newScaleSetRunner(entityID, name string) {
	e.t.Helper()
	ss, err := e.st.CreateScaleSet(e.t.Context(), garrison.ScaleSet{Name: "set-" + name, EntityID: entityID, ProviderName: "sim",
		Image: "ubuntu:24.04", Flavor: "small", OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64, MaxRunners: 2,
		RunnerGroup: garrison.DefaultRunnerGroup})
	must(e.t, err)
	_, err = e.st.CreateInstance(e.t.Context(), garrison.Instance{Name: name, ScaleSetID: ss.ID, ProviderName: "sim",
		OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64, Status: garrison.InstanceRunning, RunnerStatus: garrison.RunnerIdle})
	must(e.t, err)
}

// ghScoped builds a signed GitHub delivery of j for a hook of the given target type.
func ghScoped(target, secret string, j job) func(*env) delivery {
	return func(*env) delivery {
		b := j.github()
		return delivery{header: ghHeaders(target, "d-"+target+"-"+j.action+"-"+j.runner, b, secret), body: b}
	}
}

// giteaScoped builds a signed Gitea delivery of j for a hook of the given target type.
func giteaScoped(target string, j job) func(*env) delivery {
	return func(*env) delivery {
		b := j.gitea()
		return delivery{header: giteaHeaders(target, "g-"+target+"-"+j.repo+"-"+j.action+"-"+j.runner, b), body: b}
	}
}

// Deliveries of each scope, for a job run by runner.
func ghRepoA(action, runner string) func(*env) delivery {
	return ghScoped(webhook.TargetRepository, ghSecret, queued(500, stdLabels...).as(action, runner))
}

func ghRepoB(action, runner string) func(*env) delivery {
	j := queued(500, stdLabels...).as(action, runner)
	j.owner, j.repo = "octo-org", "other-repo"
	return ghScoped(webhook.TargetRepository, ghRepoBSecret, j)
}

func ghOrg(action, runner string) func(*env) delivery {
	return ghScoped(webhook.TargetOrganization, ghOrgSecret, queued(500, stdLabels...).as(action, runner))
}

func ghEnt(action, runner string) func(*env) delivery {
	j := queued(500, stdLabels...).as(action, runner)
	j.enterprise = "octo-ent"
	return ghScoped(webhook.TargetBusiness, ghEntSecret, j)
}

func gtOrg(action, runner string) func(*env) delivery {
	return giteaScoped(webhook.TargetOrganization, job{action: action, id: 500, labels: []string{"ubuntu-latest"}, runner: runner})
}

// gtSystem is a Gitea system-hook delivery (the forge instance's) for a job of org1/repo1.
func gtSystem(action, runner string) func(*env) delivery {
	return giteaScoped(webhook.TargetSystem, job{action: action, id: 500, labels: []string{"ubuntu-latest"}, runner: runner})
}

func gtRepo(repo string) func(action, runner string) func(*env) delivery {
	return func(action, runner string) func(*env) delivery {
		return giteaScoped(webhook.TargetRepository, job{action: action, id: 500, labels: []string{"ubuntu-latest"}, runner: runner, repo: repo})
	}
}

// TestForeignRunner checks that a delivery verified for one entity never touches the
// runner of another entity's pool, whatever the scopes: it is answered 200, records no
// job and changes no instance.
func TestForeignRunner(t *testing.T) {
	tests := []struct {
		name     string
		delivery func(action, runner string) func(*env) delivery
		runner   string // a runner of another entity
	}{
		{"GitHub repository names another repository's runner", ghRepoB, ourRunner},
		{"GitHub repository names its organization's runner", ghRepoA, runnerOrg},
		{"GitHub organization names a runner of one of its repositories", ghOrg, ourRunner},
		{"GitHub organization names its enterprise's runner", ghOrg, runnerEnt},
		{"GitHub enterprise names an organization's runner", ghEnt, runnerOrg},
		{"GitHub enterprise names a repository's runner", ghEnt, ourRunner},
		{"GitHub repository names its organization's scale-set runner", ghRepoA, runnerOrgSS},
		{"GitHub enterprise names an organization's scale-set runner", ghEnt, runnerOrgSS},
		{"Gitea repository names another repository's runner", gtRepo("repo2"), runnerGtRepo1},
		{"Gitea repository names its organization's runner", gtRepo("repo1"), runnerGtOrg},
		{"Gitea organization names a runner of one of its repositories", gtOrg, runnerGtRepo2},
		{"Gitea forge instance names a repository's runner", gtSystem, runnerGtRepo1},
		{"Gitea forge instance names an organization's runner", gtSystem, runnerGtOrg},
		{"Gitea repository names the forge instance's runner", gtRepo("repo1"), runnerGtFI},
		{"Gitea organization names the forge instance's runner", gtOrg, runnerGtFI},
	}
	for _, mode := range cacheModes {
		for _, tt := range tests {
			for _, action := range []string{"in_progress", "completed"} {
				t.Run(mode.name+"/"+tt.name+"/"+action, func(t *testing.T) {
					e := newEnv(t, withCacheTTL(mode.ttl))
					e.scoped()
					e.sendStep(t, 0, step{d: tt.delivery(action, tt.runner), status: 200, result: ResultForeignRunner})
					e.wantUntouched(tt.runner)
					e.wantNoJob(500)
					e.wantNotified()
				})
			}
		}
	}
}

// TestScaleSetRunnerOwned checks that the organization's own delivery naming the runner of
// its scale set is the organization's: the job is recorded and follows the runner. The
// completed job leaves the runner terminated but not marked for deletion: that is its
// scale set listener's to do (found by TestCrashRestartScaleSet: marked by the webhook,
// the runner waited forever, since the listener hands over only the runners it marks).
func TestScaleSetRunnerOwned(t *testing.T) {
	e := newEnv(t)
	e.scoped()
	e.sendStep(t, 0, step{d: ghOrg("in_progress", runnerOrgSS), status: 200, result: ResultOK})
	e.wantAction(500, garrison.JobInProgress)
	e.sendStep(t, 1, step{d: ghOrg("completed", runnerOrgSS), status: 200, result: ResultOK})
	e.wantAction(500, garrison.JobCompleted)
	in, err := e.st.Instance(t.Context(), runnerOrgSS)
	if err != nil {
		t.Fatal(err)
	}
	if in.Status != garrison.InstanceRunning || in.RunnerStatus != garrison.RunnerTerminated || in.JobID != 500 {
		t.Fatalf("scale-set runner after its job completed: %s/%s job %d, want running/terminated job 500", in.Status, in.RunnerStatus, in.JobID)
	}
}

// TestForeignRunnerKnownJob checks that another entity's delivery naming our runner does
// not advance a job the ledger knows either.
func TestForeignRunnerKnownJob(t *testing.T) {
	for _, mode := range cacheModes {
		t.Run(mode.name, func(t *testing.T) {
			e := newEnv(t, withCacheTTL(mode.ttl))
			e.scoped()
			e.sendStep(t, 0, step{d: ghRepoA("queued", ""), status: 200, result: ResultOK})
			e.takeNotified()
			e.sendStep(t, 1, step{d: ghRepoB("in_progress", ourRunner), status: 200, result: ResultForeignRunner})
			e.sendStep(t, 2, step{d: ghOrg("completed", ourRunner), status: 200, result: ResultForeignRunner})
			e.wantAction(500, garrison.JobQueued)
			if j := e.job(500); j.RunnerName != "" || j.EntityID != e.repo.ID {
				t.Fatalf("job = %+v", j)
			}
			e.wantUntouched(ourRunner)
			e.wantNotified()
		})
	}
}

// TestOwnRunnerEveryScope checks the other side: each entity's delivery naming its own
// runner marks it active, then terminated.
func TestOwnRunnerEveryScope(t *testing.T) {
	tests := []struct {
		name     string
		delivery func(action, runner string) func(*env) delivery
		runner   string
	}{
		{"GitHub repository", ghRepoB, runnerRepoB},
		{"GitHub organization", ghOrg, runnerOrg},
		{"GitHub enterprise", ghEnt, runnerEnt},
		{"Gitea repository", gtRepo("repo2"), runnerGtRepo2},
		{"Gitea organization", gtOrg, runnerGtOrg},
		{"Gitea forge instance", gtSystem, runnerGtFI},
	}
	for _, mode := range cacheModes {
		for _, tt := range tests {
			t.Run(mode.name+"/"+tt.name, func(t *testing.T) {
				e := newEnv(t, withCacheTTL(mode.ttl))
				e.scoped()
				e.sendStep(t, 0, step{d: tt.delivery("in_progress", tt.runner), status: 200, result: ResultOK})
				if i := e.instance(tt.runner); i.RunnerStatus != garrison.RunnerActive || i.JobID != 500 {
					t.Fatalf("after in_progress: %s/%s job %d", i.Status, i.RunnerStatus, i.JobID)
				}
				e.sendStep(t, 1, step{d: tt.delivery("completed", tt.runner), status: 200, result: ResultOK})
				if i := e.instance(tt.runner); i.RunnerStatus != garrison.RunnerTerminated || i.Status != garrison.InstancePendingDelete {
					t.Fatalf("after completed: %s/%s", i.Status, i.RunnerStatus)
				}
				e.wantAction(500, garrison.JobCompleted)
			})
		}
	}
}

// TestOwnRunnerOfNewPool checks that the runner of a pool created after the receiver
// cached the entity's pools is ours at once.
func TestOwnRunnerOfNewPool(t *testing.T) {
	e := newEnv(t, withCacheTTL(DefaultCacheTTL))
	e.sendStep(t, 0, step{d: ghJob(queued(600, stdLabels...), "d1"), status: 200, result: ResultOK})
	p := e.newPool(e.repo.ID, "self-hosted", "gpu")
	e.disablePool(p.ID) // a disabled pool's runners are ours all the same
	e.newRunner(p.ID, "garm-new")
	e.sendStep(t, 1, step{d: ghJob(queued(600, stdLabels...).as("in_progress", "garm-new"), "d2"), status: 200, result: ResultOK})
	if i := e.instance("garm-new"); i.RunnerStatus != garrison.RunnerActive || i.JobID != 600 {
		t.Fatalf("instance = %s/%s job %d", i.Status, i.RunnerStatus, i.JobID)
	}
}

// wantUntouched checks a runner is as scoped created it.
func (e *env) wantUntouched(name string) {
	e.t.Helper()
	i := e.instance(name)
	if i.Status != garrison.InstanceRunning || i.RunnerStatus != garrison.RunnerIdle || i.JobID != 0 || len(i.StatusMessages) != 0 {
		e.t.Fatalf("runner %s changed: %s/%s job %d, messages %v", name, i.Status, i.RunnerStatus, i.JobID, i.StatusMessages)
	}
}

// TestForeignJob checks that a delivery of another entity that names no runner of its own
// does not advance a job the ledger records for the first entity, while a delivery naming
// the entity's own runner still may.
func TestForeignJob(t *testing.T) {
	for _, mode := range cacheModes {
		t.Run(mode.name, func(t *testing.T) {
			e := newEnv(t, withCacheTTL(mode.ttl))
			e.scoped()
			e.sendStep(t, 0, step{d: ghRepoA("queued", ""), status: 200, result: ResultOK})
			e.takeNotified()
			e.sendStep(t, 1, step{d: ghRepoB("in_progress", "not-ours"), status: 200, result: ResultForeignJob})
			e.sendStep(t, 2, step{d: ghOrg("completed", ""), status: 200, result: ResultForeignJob})
			e.wantAction(500, garrison.JobQueued)
			e.wantNotified()
			e.sendStep(t, 3, step{d: ghOrg("in_progress", runnerOrg), status: 200, result: ResultOK})
			if i := e.instance(runnerOrg); i.RunnerStatus != garrison.RunnerActive || i.JobID != 500 {
				t.Fatalf("the organization's own runner: %s/%s job %d", i.Status, i.RunnerStatus, i.JobID)
			}
			e.wantAction(500, garrison.JobInProgress)
		})
	}
}

// TestForgeInstanceRecordsQueuedJob checks FI-3: a system-hook delivery for a job of any
// repository of the server is recorded for the forge instance and enqueues its pool.
func TestForgeInstanceRecordsQueuedJob(t *testing.T) {
	for _, mode := range cacheModes {
		t.Run(mode.name, func(t *testing.T) {
			e := newEnv(t, withCacheTTL(mode.ttl))
			e.scoped()
			e.takeNotified()
			e.sendStep(t, 0, step{d: gtSystem("queued", ""), status: 200, result: ResultOK})
			j := e.job(500)
			fi, err := e.st.Entity(t.Context(), j.EntityID)
			must(t, err)
			if fi.Type != garrison.ForgeInstance || j.EntityType != garrison.ForgeInstance || j.RepositoryName != "repo1" {
				t.Fatalf("job %+v recorded for %+v", j, fi)
			}
			pools, err := e.st.ListPools(t.Context(), store.PoolFilter{EntityID: fi.ID})
			must(t, err)
			e.wantNotified(pools[0].ID)
		})
	}
}
