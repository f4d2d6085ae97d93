package sweep

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/github"
	"github.com/garrison-ci/garrison/internal/forgesim"
	"github.com/garrison-ci/garrison/internal/intake"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/store/sqlite"
	"github.com/garrison-ci/garrison/internal/store/storetest"
)

// ghForge is the GitHub client as the sweep sees it through the forge hub: the client
// serves Forge and the delivery calls of Redeliverer; the hub adds the budget and the
// installed hook (found by the controller's webhook URL).
type ghForge struct {
	*github.Client
	hookURL string
}

func (f ghForge) Budget() (int, int, time.Time) {
	rl, ok := f.RateLimit()
	if !ok {
		return 0, 0, time.Time{}
	}
	return rl.Remaining, rl.Limit, time.Unix(rl.Reset, 0)
}

func (f ghForge) InstalledHook(ctx context.Context, e garrison.Entity) (int64, error) {
	h, err := f.FindHook(ctx, e, f.hookURL)
	return h.ID, err
}

// simEnv is a forge simulator whose repository acme/app sends webhooks to a receiver on
// a real SQLite store, and a sweeper using the real GitHub client against the simulator.
type simEnv struct {
	sim     *forgesim.Sim
	st      *sqlite.Store
	repo    garrison.Entity
	sweep   *Sweeper
	hookID  int64
	client  *github.Client
	hookURL string
}

const simSecret = "sweep-secret"

func newSimEnv(t *testing.T, faults forgesim.DeliveryFaults) *simEnv {
	t.Helper()
	ctx := t.Context()
	sim := forgesim.New(forgesim.Options{Delivery: faults, Seed: 7})
	simURL, err := sim.Start("127.0.0.1:0")
	must(t, err)
	t.Cleanup(func() { _ = sim.Close() })
	sim.AddToken("pat-1")
	sim.AddOrg("acme")
	must(t, sim.AddRepo("acme/app"))

	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "g.db"), storetest.NewSealer("test"))
	must(t, err)
	t.Cleanup(func() { _ = st.Close() })
	ep, err := st.CreateEndpoint(ctx, garrison.Endpoint{Name: "sim", Type: garrison.GitHub, BaseURL: simURL,
		APIBaseURL: simURL + "/api/v3/", UploadBaseURL: simURL + "/api/uploads/"})
	must(t, err)
	cred, err := st.CreateCredentials(ctx, garrison.Credentials{Name: "sim", ForgeType: garrison.GitHub,
		AuthType: garrison.AuthPAT, Endpoint: "sim", PAT: "pat-1"})
	must(t, err)
	repo, err := st.CreateEntity(ctx, garrison.Entity{Type: garrison.Repository, Owner: "acme", Name: "app",
		CredentialsID: cred.ID, WebhookSecret: simSecret, Balancer: garrison.RoundRobin})
	must(t, err)
	_, err = st.CreatePool(ctx, garrison.Pool{EntityID: repo.ID, ProviderName: "sim", MaxRunners: 50, Image: "i",
		Flavor: "f", OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64, Enabled: true,
		Tags: garrison.TagsFromNames([]string{"self-hosted", "linux"})})
	must(t, err)

	ctrl, err := st.Controller(ctx)
	must(t, err)
	h, err := intake.New(intake.Options{Store: st,
		ControllerID: func(context.Context) (string, error) { return ctrl.ID, nil }})
	must(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	hookURL := srv.URL + "/webhooks/" + ctrl.ID
	hookID, err := sim.AddHook("repos/acme/app", hookURL, simSecret, garrison.GitHub)
	must(t, err)

	client, err := github.New(ep, cred, github.Options{})
	must(t, err)
	sw, err := New(Options{Store: st, Forges: func(context.Context, garrison.Entity) (Forge, error) {
		return ghForge{Client: client, hookURL: hookURL}, nil
	}})
	must(t, err)
	return &simEnv{sim: sim, st: st, repo: repo, sweep: sw, hookID: hookID, client: client, hookURL: hookURL}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// ledgerIDs returns the ids of the queued jobs in the ledger.
func (e *simEnv) ledgerIDs(t *testing.T) map[int64]bool {
	t.Helper()
	jobs, err := e.st.ListJobs(t.Context(), store.JobFilter{Action: garrison.JobQueued})
	must(t, err)
	out := map[int64]bool{}
	for _, j := range jobs {
		out[j.ID] = true
	}
	return out
}

func TestSweepRecoversDroppedWebhooks(t *testing.T) {
	e := newSimEnv(t, forgesim.DeliveryFaults{Drop: 0.3})
	ctx := t.Context()
	const n = 50
	for range n {
		_, err := e.sim.QueueJob("acme/app", "self-hosted", "linux")
		must(t, err)
	}
	must(t, e.sim.WaitDeliveries(ctx))
	dropped := 0
	for _, d := range e.sim.Deliveries() {
		if d.Dropped {
			dropped++
		}
	}
	if dropped == 0 || len(e.ledgerIDs(t)) != n-dropped {
		t.Fatalf("dropped %d, ledger has %d: the fault switch did not work", dropped, len(e.ledgerIDs(t)))
	}

	st, err := e.sweep.SweepOnce(ctx)
	must(t, err)
	if st.Recorded != dropped || st.Known != n-dropped || st.Redelivered != dropped {
		t.Fatalf("stats %+v, want %d recorded, %d known, %d redelivered", st, dropped, n-dropped, dropped)
	}
	ledger := e.ledgerIDs(t)
	for _, j := range e.sim.Jobs() {
		if j.Status == "queued" && !ledger[j.ID] {
			t.Errorf("queued job %d is not in the ledger", j.ID)
		}
	}
	if len(ledger) != n {
		t.Fatalf("ledger has %d queued jobs, want %d", len(ledger), n)
	}

	// The redeliveries reach the receiver, which answers them 200.
	must(t, e.sim.WaitDeliveries(ctx))
	okGUIDs := map[string]bool{}
	for _, d := range e.sim.Deliveries() {
		if d.OK() {
			okGUIDs[d.GUID] = true
		}
	}
	for _, d := range e.sim.Deliveries() {
		if d.Event == "workflow_job" && !okGUIDs[d.GUID] {
			t.Errorf("delivery %s (job %d) never succeeded", d.GUID, d.JobID)
		}
	}

	// A second sweep finds nothing new and redelivers nothing twice.
	st, err = e.sweep.SweepOnce(ctx)
	must(t, err)
	if st.Recorded != 0 || st.Redelivered != 0 || st.Known != n {
		t.Fatalf("second sweep %+v", st)
	}
}

func TestSweepRecordsJobsNoPoolCanServe(t *testing.T) {
	e := newSimEnv(t, forgesim.DeliveryFaults{Drop: 1})
	ctx := t.Context()
	gpu, err := e.sim.QueueJob("acme/app", "self-hosted", "gpu")
	must(t, err)
	_, err = e.sim.QueueJob("acme/app", "self-hosted", "linux")
	must(t, err)
	st, err := e.sweep.SweepOnce(ctx)
	must(t, err)
	if st.Recorded != 2 || st.Unserved != 1 {
		t.Fatalf("stats %+v", st)
	}
	j, err := e.st.Job(ctx, gpu)
	must(t, err)
	if j.Action != garrison.JobQueued || j.Reason != "no pool has all of the labels [self-hosted gpu]" {
		t.Fatalf("unservable job = %+v, want it queued with the reason", j)
	}
}

// TestSweepLeavesDeliveriesAnswered422: a delivery the receiver answered 422 (a job no
// pool can serve, which it recorded with the reason) is not redelivered, sweep after
// sweep; the job is in the ledger with its reason.
func TestSweepLeavesDeliveriesAnswered422(t *testing.T) {
	e := newSimEnv(t, forgesim.DeliveryFaults{})
	ctx := t.Context()
	hosted, err := e.sim.QueueJob("acme/app", "ubuntu-latest")
	must(t, err)
	must(t, e.sim.WaitDeliveries(ctx))
	answered := false
	for _, d := range e.sim.Deliveries() {
		answered = answered || (d.JobID == hosted && d.StatusCode == 422)
	}
	if !answered {
		t.Fatalf("the receiver did not answer the hosted job's delivery 422: %+v", e.sim.Deliveries())
	}
	for range 2 {
		st, err := e.sweep.SweepOnce(ctx)
		must(t, err)
		if st.Redelivered != 0 || st.Known != 1 {
			t.Fatalf("stats %+v, want the job known and nothing redelivered", st)
		}
	}
	j, err := e.st.Job(ctx, hosted)
	must(t, err)
	if j.Reason != "no pool has all of the labels [ubuntu-latest]" {
		t.Fatalf("job reason %q", j.Reason)
	}
}
