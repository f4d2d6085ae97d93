package garmimport

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// The fixture has no scale sets (GARM needs the Actions service to make one); these rows
// add them to a copy, as GARM writes them.
const (
	setRepo      = "a9efdfeb-f835-4c99-8244-a70b130ef1a0" // acme/widgets (GitHub)
	setGiteaRepo = "36980247-2373-4034-9b8c-1d1338d64273" // acme/gitrepo (Gitea)
	setTagX64    = "0bf55e6a-7763-4f37-bb57-3710fe056155"
	setTagLinux  = "12913b58-1f31-4405-b6fc-ebad46471656"
	setSource    = "3f701e4c-7944-4b53-bc78-45f857dd9bda" // a pool runner whose row the scale-set runners copy
)

// insertScaleSet is the statement that adds scale set id (GitHub id ghID) named name on
// entity repo with the given provider, template (NULL for none) and runner group.
func insertScaleSet(id, ghID int, name, repo, provider, template, group string) string {
	return `INSERT INTO scale_sets (id, created_at, updated_at, scale_set_id, name, git_hub_runner_group,
		disable_update, state, extended_state, provider_name, runner_prefix, max_runners, min_idle_runners,
		runner_bootstrap_timeout, image, flavor, os_type, os_arch, enabled, last_message_id, desired_runner_count,
		extra_specs, enable_shell, generation, repo_id, template_id)
		SELECT ` + strconv.Itoa(id) + `, created_at, updated_at, ` + strconv.Itoa(ghID) + `, '` + name + `', '` + group + `', 1, 'created', 'ok', '` +
		provider + `', 'ss', 8, 1, 0, 'ubuntu:24.04', 'small', 'linux', 'amd64', 1, 4711, 3, '{"disk":20}', 1, 2, '` +
		repo + `', ` + template + ` FROM pools LIMIT 1`
}

// insertSetRunner adds a runner of scale set id, copied from a pool runner's row (its JIT
// configuration sealed with the fixture's passphrase).
func insertSetRunner(id int, name string) string {
	return `INSERT INTO instances (id, created_at, updated_at, provider_id, name, agent_id, os_type, os_arch,
		os_name, os_version, status, runner_status, heartbeat, callback_url, metadata_url, create_attempt,
		token_fetched, jit_configuration, git_hub_runner_group, capabilities, generation, pool_id, scale_set_fk_id)
		SELECT '00000000-0000-4000-8000-00000000000` + strconv.Itoa(id) + `', created_at, updated_at, 'sim-` + name + `', '` + name + `', 900` + strconv.Itoa(id) + `,
		os_type, os_arch, os_name, os_version, status, 'idle', heartbeat, callback_url, metadata_url, create_attempt,
		token_fetched, jit_configuration, 'ci-runners', capabilities, 2, NULL, ` + strconv.Itoa(id) + ` FROM instances WHERE id = '` + setSource + `'`
}

// scaleSetRows are a GitHub scale set (5, with template 5 and two labels) and its runner.
func scaleSetRows() []string {
	return []string{
		insertScaleSet(5, 12, "ubuntu-ss", setRepo, "lxd", "5", "ci-runners"),
		`INSERT INTO scaleset_tags (scale_set_id, tag_id) VALUES (5, '` + setTagLinux + `'), (5, '` + setTagX64 + `')`,
		insertSetRunner(5, "ss-5runner00001"),
	}
}

// TestImportScaleSets: a scale set is imported with everything garrison's listener
// needs to take it over from GARM (its GitHub id, the last message GARM processed, the
// desired count) and its runners; scale sets garrison cannot hold are reported with
// their orphaned runners.
func TestImportScaleSets(t *testing.T) {
	tests := []struct {
		name    string
		extra   []string // more rows
		options func(*Options)
		check   func(t *testing.T, st store.Store, rep *Report)
	}{
		{"imported", nil, nil, func(t *testing.T, st store.Store, rep *Report) {
			checkScaleSet(t, st)
			wantCount(t, rep, "scale sets", KindCount{Found: 1, Imported: 1})
			wantLine(t, rep.Notes, "scale set ubuntu-ss (id 5, GitHub id 12): imported with 1 runners; its listener resumes after message 4711")
		}},
		{"on a Gitea repository", []string{insertScaleSet(6, 13, "gitea-ss", setGiteaRepo, "lxd", "NULL", ""), insertSetRunner(6, "ss-6runner00001")},
			nil, func(t *testing.T, st store.Store, rep *Report) {
				checkScaleSet(t, st)
				wantCount(t, rep, "scale sets", KindCount{Found: 2, Imported: 1, Skipped: 1})
				wantLine(t, notImportedTexts(rep), "scale set gitea-ss (GitHub id 13) not imported: its entity acme/gitrepo is on gitea; scale sets are GitHub's; it stays registered on GitHub and its 1 runners are orphaned")
				if _, err := st.Instance(t.Context(), "ss-6runner00001"); err == nil {
					t.Error("the runner of a scale set not imported was imported")
				}
			}},
		{"unknown provider, skipped", []string{insertScaleSet(6, 13, "incus-ss", setRepo, "incus", "NULL", "")},
			nil, func(t *testing.T, st store.Store, rep *Report) {
				ss, err := st.ScaleSet(t.Context(), 6)
				if err != nil || ss.Enabled || ss.RunnerGroup != garrison.DefaultRunnerGroup || ss.TemplateID != 2 {
					t.Fatalf("scale set %+v, %v: want it disabled in the Default group with the github/linux system template", ss, err)
				}
				wantLine(t, rep.Warnings, "1 scale set uses provider incus, which garrison's config does not define: imported disabled")
			}},
		{"unknown provider, blocking", []string{insertScaleSet(6, 13, "incus-ss", setRepo, "incus", "NULL", "")},
			func(o *Options) { o.SkipUnsupported = false }, func(t *testing.T, st store.Store, rep *Report) {
				wantLine(t, rep.Blocking, "1 scale set uses provider incus, which garrison's config does not define; add its [[provider]] to garrison's config (--config), or pass --skip-unsupported to import them disabled")
			}},
		{"not on GitHub yet", []string{insertScaleSet(6, 0, "new-ss", setRepo, "lxd", "NULL", "")},
			nil, func(t *testing.T, st store.Store, rep *Report) {
				ss, err := st.ScaleSet(t.Context(), 6)
				if err != nil || ss.State != garrison.ScaleSetPendingCreate {
					t.Fatalf("scale set %+v, %v: want pending_create", ss, err)
				}
				wantLine(t, rep.Warnings, "scale set new-ss has no GitHub scale set id; garrison's listener will not serve it: delete it and create it again")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, cfg := copyFixture(t)
			mutate(t, dir, append(scaleSetRows(), tt.extra...)...)
			st, _ := newTarget(t)
			o := fixtureOptions(cfg, st)
			if tt.options != nil {
				tt.options(&o)
			}
			rep, _ := Run(t.Context(), o)
			tt.check(t, st, rep)
		})
	}
}

// checkScaleSet compares scale set 5 and its runner with the rows scaleSetRows added.
func checkScaleSet(t *testing.T, st store.Store) {
	t.Helper()
	ctx := t.Context()
	ss, err := st.ScaleSet(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := garrison.ScaleSet{ID: 5, ScaleSetID: 12, Name: "ubuntu-ss", EntityID: setRepo, EntityType: garrison.Repository,
		DisableUpdate: true, State: garrison.ScaleSetCreated, ExtendedState: "ok", RunnerPrefix: "ss", ProviderName: "lxd",
		Image: "ubuntu:24.04", Flavor: "small", OSType: "linux", OSArch: "amd64", MaxRunners: 8, MinIdleRunners: 1,
		Enabled: true, DesiredRunnerCount: 3, EnableShell: true, Generation: 2, RunnerBootstrapTimeout: 20,
		RunnerGroup: "ci-runners", TemplateID: 5, LastMessageID: 4711}
	got := ss
	got.ExtraSpecs, got.Tags, got.CreatedAt, got.UpdatedAt = nil, nil, time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("scale set\n got %+v\nwant %+v", got, want)
	}
	if !sameJSON(ss.ExtraSpecs, []byte(`{"disk":20}`)) {
		t.Errorf("extra specs %s", ss.ExtraSpecs)
	}
	if names := tagNamesOf(ss.Tags); !slices.Equal(names, []string{"x64", "linux"}) {
		t.Errorf("labels %v, want [x64 linux] (GARM's order: by tag id)", names)
	}
	if ss.CreatedAt.IsZero() {
		t.Error("created_at not kept")
	}
	runners, err := st.ListInstances(ctx, store.InstanceFilter{ScaleSetID: 5})
	if err != nil || len(runners) != 1 {
		t.Fatalf("runners of the scale set: %+v, %v", runners, err)
	}
	r, src := mustInstance(t, st, runners[0].Name), mustInstance(t, st, "wid-hobjyzd3rgnw") // with their JIT configurations
	if r.Name != "ss-5runner00001" || r.PoolID != "" || r.ProviderName != "lxd" || r.AgentID != 9005 ||
		r.RunnerStatus != garrison.RunnerIdle || r.RunnerGroup != "ci-runners" || r.Generation != 2 {
		t.Errorf("runner %+v", r)
	}
	if len(r.JITConfig) == 0 || !maps.Equal(r.JITConfig, src.JITConfig) {
		t.Errorf("runner JIT config not opened and kept: %d files", len(r.JITConfig))
	}
}

func mustInstance(t *testing.T, st store.Store, name string) garrison.Instance {
	t.Helper()
	in, err := st.Instance(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func tagNamesOf(tags []garrison.Tag) []string {
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		out = append(out, t.Name)
	}
	return out
}

func notImportedTexts(rep *Report) []string {
	out := make([]string, 0, len(rep.NotImported))
	for _, n := range rep.NotImported {
		out = append(out, n.Text)
	}
	return out
}

func wantCount(t *testing.T, rep *Report, kind string, want KindCount) {
	t.Helper()
	got := *rep.Objects[kind]
	got.Conflicts = nil
	if got.Found != want.Found || got.Imported != want.Imported || got.Skipped != want.Skipped {
		t.Errorf("%s: %+v, want %+v", kind, got, want)
	}
}
