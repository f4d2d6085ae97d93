package garmimport

import (
	"bytes"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// runFixture imports a (mutated) fixture copy into a fresh store and fails on error.
func runFixture(t *testing.T, cfg string) (*Report, store.Store) {
	t.Helper()
	st, _ := newTarget(t)
	rep, err := Run(t.Context(), fixtureOptions(cfg, st))
	if err != nil {
		var b bytes.Buffer
		_ = rep.WriteText(&b)
		t.Fatalf("import: %v\n%s", err, b.String())
	}
	return rep, st
}

// TestV021Layout (spec T-6): a GARM v0.2.x database — no migrations table, no forge
// instances or proxies, the old agent columns — is imported; the newer controller
// settings take their defaults.
func TestV021Layout(t *testing.T) {
	dir, cfg := copyFixture(t)
	mutate(t, dir,
		`DELETE FROM pool_tags WHERE pool_id = '065d7906-c92d-4978-b160-c5192ce73db5'`,
		`DELETE FROM pools WHERE id = '065d7906-c92d-4978-b160-c5192ce73db5'`,
		`UPDATE pools SET proxy_id = NULL`,
		`UPDATE workflow_jobs SET forge_instance_id = NULL`,
		`DROP TABLE migrations`, `DROP TABLE forge_instance_events`, `DROP TABLE forge_instances`, `DROP TABLE proxies`,
		`UPDATE controller_infos SET garm_agent_version = 'v9', allow_insecure_garm_agent = 1`,
		`ALTER TABLE controller_infos DROP COLUMN garm_agent_version`,
		`ALTER TABLE controller_infos DROP COLUMN allow_insecure_garm_agent`,
		`ALTER TABLE controller_infos RENAME COLUMN cached_garm_agent_releases TO cached_garm_agent_release`,
	)
	rep, st := runFixture(t, cfg)
	if rep.Source.Layout != "v0.2.x (no migrations table)" {
		t.Errorf("layout %q", rep.Source.Layout)
	}
	c, _ := st.Controller(t.Context())
	if c.ID != fixtureController || c.AgentVersion != "" || c.AllowInsecureAgent {
		t.Errorf("controller %s, agent version %q, insecure %v", c.ID, c.AgentVersion, c.AllowInsecureAgent)
	}
	if n := rep.Objects["pools"]; n.Found != 8 || n.Imported != 8 {
		t.Errorf("pools %+v", n)
	}
}

// TestLegacySecret (spec T-7): a webhook secret sealed by GARM v0.1.3 opens and is
// counted as legacy.
func TestLegacySecret(t *testing.T) {
	dir, cfg := copyFixture(t)
	db := openCopy(t, filepath.Join(dir, "garm.db"))
	legacy := sealLegacy(t, fixturePassphrase, []byte("an-old-webhook-secret"))
	if _, err := db.Exec(`UPDATE repositories SET webhook_secret = ? WHERE id = ?`, legacy, "ba24aa00-bb56-4fdc-9a20-6080a54142ac"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	rep, st := runFixture(t, cfg)
	if rep.Secrets.Legacy != 1 || rep.Secrets.Opened != rep.Secrets.Total {
		t.Errorf("secrets %+v", rep.Secrets)
	}
	e, _ := st.Entity(t.Context(), "ba24aa00-bb56-4fdc-9a20-6080a54142ac")
	if e.WebhookSecret != "an-old-webhook-secret" {
		t.Errorf("webhook secret %q", e.WebhookSecret)
	}
}

// TestWALOnly (spec T-8): rows a running GARM left in the -wal file only (a copy taken
// without a checkpoint) are imported.
func TestWALOnly(t *testing.T) {
	dir, _ := copyFixture(t)
	live := openCopy(t, filepath.Join(dir, "garm.db"))
	for _, s := range []string{`PRAGMA journal_mode = WAL`, `PRAGMA wal_autocheckpoint = 0`,
		`UPDATE users SET full_name = 'Written to the WAL only'`} {
		if _, err := live.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	// Copy the files while the connection is still open, as a backup of a running GARM
	// would: the change is in garm.db-wal, not in garm.db.
	snapDir, cfg := copyFixture(t)
	copyFile(t, filepath.Join(dir, "garm.db"), filepath.Join(snapDir, "garm.db"))
	copyFile(t, filepath.Join(dir, "garm.db-wal"), filepath.Join(snapDir, "garm.db-wal"))
	if mainOnly := readFullName(t, filepath.Join(snapDir, "garm.db")+"?immutable=1"); mainOnly != "Acme Admin" {
		t.Fatalf("the main file alone already has the change (%q): the test would prove nothing", mainOnly)
	}
	_, st := runFixture(t, cfg)
	if u, _ := st.UserByName(t.Context(), "admin"); u.FullName != "Written to the WAL only" {
		t.Errorf("full name %q: the -wal file was not read", u.FullName)
	}
}

func readFullName(t *testing.T, dsn string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var name string
	if err := db.QueryRow(`SELECT full_name FROM users`).Scan(&name); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestStatusMapping (spec B.6): an instance GARM was deleting is marked for deletion, a
// deleted one is left behind, a creating one stays creating for the provider check.
func TestStatusMapping(t *testing.T) {
	dir, cfg := copyFixture(t)
	mutate(t, dir,
		`UPDATE instances SET status = 'deleting' WHERE name = 'wid-hobjyzd3rgnw'`,
		`UPDATE instances SET status = 'deleted' WHERE name = 'wid-co5vttboxzvw'`,
		`UPDATE instances SET status = 'creating' WHERE name = 'org-zupebcupvdzd'`,
	)
	rep, st := runFixture(t, cfg)
	for name, want := range map[string]garrison.InstanceStatus{
		"wid-hobjyzd3rgnw": garrison.InstancePendingDelete, "org-zupebcupvdzd": garrison.InstanceCreating,
	} {
		if i, err := st.Instance(t.Context(), name); err != nil || i.Status != want {
			t.Errorf("%s: %s (%v), want %s", name, i.Status, err, want)
		}
	}
	if _, err := st.Instance(t.Context(), "wid-co5vttboxzvw"); err == nil {
		t.Error("a deleted instance was imported")
	}
	if rep.StatusChanges["deleting→pending_delete"] != 1 || rep.StatusChanges["deleted (not imported)"] != 1 {
		t.Errorf("status changes %v", rep.StatusChanges)
	}
}

// TestPoolDefaults: a pool without runner prefix or bootstrap timeout gets GARM's
// defaults, as GARM reports them (garm, 20 minutes).
func TestPoolDefaults(t *testing.T) {
	dir, cfg := copyFixture(t)
	mutate(t, dir, `UPDATE pools SET runner_prefix = '', runner_bootstrap_timeout = 0 WHERE id = '9fa05ba7-3fa8-40cd-8594-0ccf707045c8'`)
	_, st := runFixture(t, cfg)
	p, err := st.Pool(t.Context(), "9fa05ba7-3fa8-40cd-8594-0ccf707045c8")
	if err != nil || p.RunnerPrefix != garrison.DefaultRunnerPrefix || p.RunnerBootstrapTimeout != garrison.DefaultRunnerBootstrapTimeout {
		t.Errorf("prefix %q, bootstrap timeout %d (%v)", p.RunnerPrefix, p.RunnerBootstrapTimeout, err)
	}
}
