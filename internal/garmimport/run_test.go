package garmimport

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// mutate runs statements on the copy of GARM's main database in dir (a test's own copy,
// never the fixture).
func mutate(t *testing.T, dir string, stmts ...string) {
	t.Helper()
	db := openCopy(t, filepath.Join(dir, "garm.db"))
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// rewriteConfig replaces text in the copied GARM config.
func rewriteConfig(t *testing.T, cfg, old, repl string) {
	t.Helper()
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s does not contain %q", cfg, old)
	}
	if err := os.WriteFile(cfg, bytes.Replace(b, []byte(old), []byte(repl), 1), 0o600); err != nil {
		t.Fatal(err)
	}
}

// wantUntouched checks the target holds nothing and kept its own controller id.
func wantUntouched(t *testing.T, st store.Store, controllerBefore string) {
	t.Helper()
	counts, _, err := targetCounts(t.Context(), st)
	if err != nil {
		t.Fatal(err)
	}
	for k, n := range counts {
		if n != 0 {
			t.Errorf("%d %s written", n, k)
		}
	}
	if c, _ := st.Controller(t.Context()); c.ID != controllerBefore {
		t.Errorf("controller id changed to %s", c.ID)
	}
}

// TestRefusals: each reason to refuse gives its error class and exit status, one clear
// message, and writes nothing.
func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T, dir, cfg string, o *Options)
		want   error
		exit   int
		inText string
	}{
		{"unsupported objects in use", func(t *testing.T, dir, _ string, o *Options) {
			o.SkipUnsupported = false
			mutate(t, dir, `INSERT INTO scale_sets (id, created_at, updated_at, scale_set_id, name, provider_name, max_runners,
				os_type, os_arch, repo_id) VALUES (1, '2026-11-24 12:00:00+00:00', '2026-11-24 12:00:00+00:00', 7, 'ss', 'lxd', 1,
				'linux', 'amd64', (SELECT r.id FROM repositories r JOIN github_endpoints e ON e.name = r.endpoint_name
				WHERE e.endpoint_type = 'gitea' LIMIT 1))`)
		}, ErrBlocked, ExitBlocked, "scale set ss (GitHub id 7) not imported: its entity"},
		{"unknown provider", func(t *testing.T, _, _ string, o *Options) {
			o.Providers, o.SkipUnsupported = []string{"docker"}, false
		},
			ErrBlocked, ExitBlocked, "9 pools use provider lxd, which garrison's config does not define"},
		{"wrong passphrase", func(t *testing.T, _, cfg string, _ *Options) {
			rewriteConfig(t, cfg, fixturePassphrase, "Zq8-wrongPassphrase-32chars-B2x!")
		}, ErrSource, ExitSource, "cannot decrypt github_credentials(1).payload: wrong passphrase or corrupted value"},
		{"unknown migration", func(t *testing.T, dir, _ string, _ *Options) {
			mutate(t, dir, `INSERT INTO migrations (id) VALUES ('0099_future')`)
		}, ErrSource, ExitSource, "unknown migrations 0099_future"},
		{"not a GARM database", func(t *testing.T, dir, _ string, _ *Options) {
			mutate(t, dir, `DROP TABLE migrations`, `DROP TABLE templates`)
		}, ErrSource, ExitSource, "unsupported GARM schema"},
		{"MySQL", func(t *testing.T, _, cfg string, _ *Options) {
			rewriteConfig(t, cfg, `backend = "sqlite3"`, `backend = "mysql"`)
		}, ErrSource, ExitSource, "MySQL sources are not supported; move GARM to SQLite or PostgreSQL first"},
		{"missing database", func(t *testing.T, dir, _ string, _ *Options) {
			if err := os.Remove(filepath.Join(dir, "garm.db")); err != nil {
				t.Fatal(err)
			}
		}, ErrSource, ExitSource, "garm.db"},
		{"garrison's database is GARM's", func(t *testing.T, dir, _ string, o *Options) {
			o.TargetFiles = []string{filepath.Join(dir, "garm.db")}
		}, ErrConfig, ExitConfig, "is GARM's own file"},
		{"no passphrase", func(t *testing.T, _, cfg string, _ *Options) {
			rewriteConfig(t, cfg, `passphrase = "`+fixturePassphrase+`"`, `passphrase = ""`)
		}, ErrConfig, ExitConfig, "passphrase must be 32 characters"},
		{"GARM still running", func(t *testing.T, _, cfg string, _ *Options) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
			b, _ := os.ReadFile(cfg)
			i := bytes.Index(b, []byte("port = "))
			j := i + bytes.IndexByte(b[i:], '\n')
			rewriteConfig(t, cfg, string(b[i:j]), "port = "+port)
		}, ErrBlocked, ExitBlocked, "GARM still appears to be running on 127.0.0.1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, cfg := copyFixture(t)
			st, _ := newTarget(t)
			ctrl, _ := st.Controller(t.Context())
			o := fixtureOptions(cfg, st)
			tc.setup(t, dir, cfg, &o)
			rep, err := Run(t.Context(), o)
			if !errors.Is(err, tc.want) || ExitStatus(err) != tc.exit {
				t.Fatalf("err = %v (exit %d), want %v (exit %d)", err, ExitStatus(err), tc.want, tc.exit)
			}
			var b bytes.Buffer
			_ = rep.WriteText(&b)
			if !strings.Contains(b.String()+err.Error(), tc.inText) {
				t.Errorf("neither the report nor the error says %q:\n%v\n%s", tc.inText, err, b.String())
			}
			wantUntouched(t, st, ctrl.ID)
		})
	}
}

// TestWrongPassphraseReportedOnce: a wrong passphrase fails every value; the error names
// the first one, not fourteen.
func TestWrongPassphraseReportedOnce(t *testing.T) {
	_, cfg := copyFixture(t)
	rewriteConfig(t, cfg, fixturePassphrase, "Zq8-wrongPassphrase-32chars-B2x!")
	st, _ := newTarget(t)
	_, err := Run(t.Context(), fixtureOptions(cfg, st))
	if n := strings.Count(err.Error(), "cannot decrypt"); n != 1 {
		t.Errorf("the error names %d values: %v", n, err)
	}
}

// TestNotEmptyTarget: a garrison database with data is refused (exit 3) unless forced;
// forced, the import merges, renumbering the credentials whose ids are taken.
func TestNotEmptyTarget(t *testing.T) {
	_, cfg := copyFixture(t)
	st, _ := newTarget(t)
	ctx := t.Context()
	cr, err := st.CreateCredentials(ctx, garrison.Credentials{Name: "mine", ForgeType: garrison.GitHub,
		AuthType: garrison.AuthPAT, Endpoint: "github.com", PAT: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(ctx, fixtureOptions(cfg, st))
	if !errors.Is(err, ErrNotEmpty) || ExitStatus(err) != ExitNotEmpty {
		t.Fatalf("err = %v, want ErrNotEmpty", err)
	}
	if rep.Target.Empty || !strings.Contains(rep.Target.Holds, "1 credentials") {
		t.Errorf("target %+v", rep.Target)
	}
	if ents, _ := st.ListEntities(ctx, store.EntityFilter{}); len(ents) != 0 {
		t.Fatal("refused, but entities were written")
	}
	o := fixtureOptions(cfg, st)
	o.Force = true
	if rep, err = Run(ctx, o); err != nil {
		t.Fatalf("forced: %v (%v)", err, rep.Blocking)
	}
	if got, _ := st.Credentials(ctx, cr.ID); got.Name != "mine" {
		t.Errorf("garrison's own credentials %d became %q", cr.ID, got.Name)
	}
	if len(rep.Renumbered) != 3 {
		t.Errorf("renumbered %+v, want all three GARM credentials moved", rep.Renumbered)
	}
	e, err := st.Entity(ctx, "a9efdfeb-f835-4c99-8244-a70b130ef1a0")
	if err != nil || e.CredentialsName != "acme-pat" {
		t.Errorf("acme/widgets uses %q (%v), want acme-pat under its new id", e.CredentialsName, err)
	}
	_, err = Run(ctx, o)
	if !errors.Is(err, ErrBlocked) {
		t.Errorf("importing twice: %v, want the collisions to block", err)
	}
}

// TestDryRun plans the whole import, prints it and writes nothing, into an existing
// database or none at all.
func TestDryRun(t *testing.T) {
	_, cfg := copyFixture(t)
	st, _ := newTarget(t)
	ctrl, _ := st.Controller(t.Context())
	for _, target := range []store.Store{st, nil} {
		o := fixtureOptions(cfg, target)
		o.DryRun = true
		rep, err := Run(t.Context(), o)
		if err != nil {
			t.Fatalf("dry run: %v", err)
		}
		var b bytes.Buffer
		if err := rep.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		text := b.String()
		for _, want := range []string{"DRY RUN — nothing will be written", "result   dry run: nothing written",
			"forge instances 1 · pools 9 ·", "instances 5", "jobs 2", "proxies 1 · file objects 1", "secrets  18/18 opened"} {
			if !strings.Contains(text, want) {
				t.Errorf("dry run output lacks %q:\n%s", want, text)
			}
		}
	}
	wantUntouched(t, st, ctrl.ID)
	o := fixtureOptions(cfg, st)
	o.DryRun, o.SkipUnsupported, o.Providers = true, false, []string{"docker"}
	if _, err := Run(t.Context(), o); !errors.Is(err, ErrBlocked) {
		t.Errorf("a dry run with pools of providers garrison lacks: %v, want ErrBlocked (exit 1)", err)
	}
}

// TestOptions: --no-history leaves events behind, --jobs selects jobs, an unknown
// provider with --skip-unsupported imports the pool disabled.
func TestOptions(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*Options)
		check func(t *testing.T, st store.Store, rep *Report)
	}{
		{"no history", func(o *Options) { o.NoHistory = true }, func(t *testing.T, st store.Store, rep *Report) {
			evs, _ := st.EntityEvents(t.Context(), "a9efdfeb-f835-4c99-8244-a70b130ef1a0", 0)
			i, _ := st.Instance(t.Context(), "wid-e7ublmqlzzu2")
			if len(evs) != 0 || len(i.StatusMessages) != 0 {
				t.Errorf("%d events, %d status messages", len(evs), len(i.StatusMessages))
			}
		}},
		{"no jobs", func(o *Options) { o.Jobs = JobsNone }, func(t *testing.T, st store.Store, rep *Report) {
			jobs, _ := st.ListJobs(t.Context(), store.JobFilter{})
			i, _ := st.Instance(t.Context(), "wid-e7ublmqlzzu2")
			if len(jobs) != 0 || i.JobID != 0 {
				t.Errorf("%d jobs, runner linked to job %d", len(jobs), i.JobID)
			}
		}},
		{"unknown provider skipped", func(o *Options) { o.Providers = []string{"docker"} }, func(t *testing.T, st store.Store, rep *Report) {
			pools, _ := st.ListPools(t.Context(), store.PoolFilter{})
			for _, p := range pools {
				if p.Enabled {
					t.Errorf("pool %s of an unknown provider is enabled", p.ID)
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, cfg := copyFixture(t)
			st, _ := newTarget(t)
			o := fixtureOptions(cfg, st)
			tc.edit(&o)
			rep, err := Run(t.Context(), o)
			if err != nil {
				t.Fatalf("%v %v", err, rep.Blocking)
			}
			tc.check(t, st, rep)
		})
	}
}

// TestLateBootingRunners: booting runners GARM last heard of longer ago than their pool's
// bootstrap timeout are announced as replaced at garrison's first reconcile.
func TestLateBootingRunners(t *testing.T) {
	for _, tc := range []struct {
		now  time.Time
		want bool
	}{
		{time.Date(2026, 11, 24, 12, 50, 0, 0, time.UTC), false}, // five minutes after GARM stopped
		{time.Date(2026, 11, 24, 14, 0, 0, 0, time.UTC), true},   // over an hour later
	} {
		_, cfg := copyFixture(t)
		st, _ := newTarget(t)
		o := fixtureOptions(cfg, st)
		o.DryRun, o.Now = true, func() time.Time { return tc.now }
		rep, err := Run(t.Context(), o)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.ContainsFunc(rep.Warnings, func(w string) bool {
			return strings.HasPrefix(w, "4 booting runners have not been heard of for longer than their pool's bootstrap timeout")
		})
		if got != tc.want {
			t.Errorf("at %v: warned %v, want %v (%q)", tc.now, got, tc.want, rep.Warnings)
		}
	}
}

// TestPrivateCopiesRemoved: the copies of GARM's SQLite files (secrets in them) are gone
// after an import, a failed one included (spec IMP-8).
func TestPrivateCopiesRemoved(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	for _, pass := range []string{fixturePassphrase, "Zq8-wrongPassphrase-32chars-B2x!"} {
		_, cfg := copyFixture(t)
		rewriteConfig(t, cfg, fixturePassphrase, pass)
		st, _ := newTarget(t)
		if _, err := Run(t.Context(), fixtureOptions(cfg, st)); (err == nil) != (pass == fixturePassphrase) {
			t.Fatalf("passphrase %q: %v", pass[:4], err)
		}
		left, err := filepath.Glob(filepath.Join(tmp, "garrison-import-garm-*"))
		if err != nil || len(left) != 0 {
			t.Errorf("passphrase %q: left behind %v (%v)", pass[:4], left, err)
		}
	}
}
