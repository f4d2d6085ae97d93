package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/config"
	"github.com/garrison-ci/garrison/internal/garmimport"
	"github.com/garrison-ci/garrison/internal/store"
)

// importFlags are the flags of `garrison import-garm`.
type importFlags struct {
	server          serverFlags // --data-dir, --config: the server's resolution
	garmConfig      string
	garmDBFile      string
	reportJSON      string
	jobs            string
	dryRun          bool
	force           bool
	skipUnsupported bool
	noHistory       bool
	keepJWT         bool
	ignoreListener  bool
}

func newImportGARMCmd() *cobra.Command {
	var f importFlags
	cmd := &cobra.Command{
		Use:   "import-garm --garm-config /etc/garm/config.toml",
		Short: "Bring a stopped GARM installation into garrison",
		Long: `Bring a stopped GARM installation into garrison: controller id and URLs (existing
webhooks keep working), the admin user (same password), endpoints, credentials, repositories,
organizations and enterprises with their webhook secrets, pools, live runners (adopted, not
recreated) and open jobs. Secrets are re-sealed with garrison's key.

It writes into the database ` + "`garrison server`" + ` would use with the same --data-dir and
--config, in one transaction, and never writes to GARM's database. --dry-run prints what would
be imported and what cannot be. What garrison cannot hold yet (forge instances, runner install
templates, proxies, the object store, scale sets) blocks the import while in use, unless
--skip-unsupported.

Exit status: 0 done (or a clean dry run), 1 blocking problems, 2 configuration error,
3 garrison's database is not empty (--force merges), 4 GARM's database unreadable or the
passphrase wrong.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runImportGARM(cmd.Context(), f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.garmConfig, "garm-config", "", "GARM's config.toml (its [database] and [jwt_auth] are read)")
	fl.StringVar(&f.garmDBFile, "garm-db-file", "", "GARM's SQLite database, instead of the config's db_file (e.g. a copy)")
	fl.StringVar(&f.server.dataDir, "data-dir", "", "garrison's data directory, as for garrison server")
	fl.StringVar(&f.server.configFile, "config", "", "garrison's config.toml, as for garrison server")
	fl.BoolVar(&f.dryRun, "dry-run", false, "read and plan everything, print the report, write nothing")
	fl.BoolVar(&f.force, "force", false, "import into a garrison database that already holds data")
	fl.BoolVar(&f.skipUnsupported, "skip-unsupported", false, "import what garrison can hold and list the rest")
	fl.StringVar(&f.jobs, "jobs", string(garmimport.JobsOpen), "jobs to import: open (queued, in progress), all or none")
	fl.BoolVar(&f.noHistory, "no-history", false, "leave entity events and runner status messages behind")
	fl.BoolVar(&f.keepJWT, "keep-garrison-jwt-secret", false, "keep garrison's JWT secret instead of adopting GARM's")
	fl.BoolVar(&f.ignoreListener, "ignore-listener", false, "skip the check that GARM no longer answers on its port")
	fl.StringVar(&f.reportJSON, "report-json", "", "also write the report as JSON to this file")
	_ = cmd.MarkFlagRequired("garm-config")
	return cmd
}

// runImportGARM resolves garrison's configuration as the server does, runs the import and
// prints the report; it returns an exitError with the import's exit status.
func runImportGARM(ctx context.Context, f importFlags, stdout, stderr io.Writer) error {
	mode := garmimport.JobsMode(f.jobs)
	if mode != garmimport.JobsOpen && mode != garmimport.JobsAll && mode != garmimport.JobsNone {
		return fmt.Errorf("--jobs %q: want open, all or none", f.jobs)
	}
	cfg, err := loadServerConfig(f.server)
	if err != nil {
		return err
	}
	tgt := &importTarget{cfg: cfg, dryRun: f.dryRun}
	defer tgt.close()
	rep, err := garmimport.Run(ctx, garmimport.Options{
		GARMConfig: f.garmConfig, GARMDBFile: f.garmDBFile, OpenTarget: tgt.open,
		TargetLocation: targetLocation(cfg.Database), TargetFiles: targetFiles(cfg.Database),
		Providers: providerNames(cfg.Providers), JWT: jwtState(cfg, f.server.configFile, f.keepJWT),
		DryRun: f.dryRun, Force: f.force, SkipUnsupported: f.skipUnsupported, NoHistory: f.noHistory,
		IgnoreListener: f.ignoreListener, Jobs: mode,
	})
	if werr := rep.WriteText(stdout); werr != nil {
		return werr
	}
	if f.reportJSON != "" {
		if werr := writeReportJSON(f.reportJSON, rep); werr != nil {
			fmt.Fprintln(stderr, "Error:", werr)
		}
	}
	if err == nil && !f.dryRun {
		err = adoptJWTSecret(cfg.dataDir, rep, stdout)
		printCutOver(stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "Error:", err)
		return exitError{code: garmimport.ExitStatus(err)}
	}
	return nil
}

// importTarget opens garrison's store for the import under the server's locks, so that
// no server uses the data directory meanwhile.
type importTarget struct {
	cfg    serverConfig
	dryRun bool
	locks  serverLocks
	st     store.Store
}

func (t *importTarget) open(ctx context.Context) (store.Store, error) {
	locks, err := lockServer(t.cfg.dataDir, t.cfg.Database)
	if err != nil {
		return nil, err
	}
	t.locks = locks
	db := t.cfg.Database
	if t.dryRun && db.Backend == config.BackendSQLite {
		if _, err := os.Stat(db.SQLite.DBFile); errors.Is(err, fs.ErrNotExist) {
			return nil, nil // a dry run creates no database
		}
	}
	if t.st, err = openStore(ctx, db); err != nil {
		return nil, err
	}
	return t.st, nil
}

func (t *importTarget) close() {
	if t.st != nil {
		_ = t.st.Close()
	}
	if t.locks != nil {
		_ = t.locks.Unlock()
	}
}

func targetLocation(db config.Database) string {
	if db.Backend == config.BackendSQLite {
		return "sqlite3 " + db.SQLite.DBFile
	}
	return "postgresql (garrison's [database.postgresql])"
}

func targetFiles(db config.Database) []string {
	if db.Backend == config.BackendSQLite {
		return []string{db.SQLite.DBFile}
	}
	return nil
}

func providerNames(ps []config.Provider) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

// jwtState tells the import where garrison's JWT secret comes from: its config file (the
// import cannot change it) or the generated secrets file (GARM's can be adopted).
func jwtState(cfg serverConfig, configFile string, keep bool) garmimport.JWTState {
	fromFile := false
	if configFile != "" {
		c, err := config.Load(configFile)
		fromFile = err != nil || c.JWTAuth.Secret != ""
	}
	return garmimport.JWTState{Current: cfg.JWTAuth.Secret, FromConfigFile: fromFile, Keep: keep}
}

// adoptJWTSecret writes GARM's JWT secret into garrison's secrets file when the import
// decided so.
func adoptJWTSecret(dataDir string, rep *garmimport.Report, stdout io.Writer) error {
	secret, ok := rep.AdoptJWTSecret()
	if !ok {
		return nil
	}
	if err := config.SetJWTSecret(dataDir, secret); err != nil {
		return fmt.Errorf("the import is done, but GARM's JWT secret could not be stored (set [jwt_auth] secret in garrison's config to GARM's): %w", err)
	}
	fmt.Fprintf(stdout, "jwt      GARM's JWT secret stored in %s/%s\n", dataDir, config.SecretsFileName)
	return nil
}

func writeReportJSON(path string, rep *garmimport.Report) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("--report-json: %w", err)
	}
	if err := rep.WriteJSON(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("--report-json: %w", err)
	}
	return f.Close()
}

// printCutOver prints what to do next (spec B.10).
func printCutOver(w io.Writer) {
	fmt.Fprint(w, `
next steps
  1. keep GARM stopped and disabled (systemctl disable --now garm); its database is the rollback copy
  2. start garrison on GARM's address and port (or move DNS / the reverse proxy), same TLS name,
     so webhook, metadata and callback URLs and garm-cli profiles stay valid
  3. give garrison the same [[provider]] entries (names, executables, config files)
  4. check: garm-cli controller show (same controller id), pool list, runner list, a test job
`)
}
