package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/garrison-ci/garrison/internal/config"
	"github.com/garrison-ci/garrison/internal/garmimport"
	"github.com/garrison-ci/garrison/internal/store"
)

// ImportFlags are the options of `garrison import-garm`.
type ImportFlags struct {
	Server          Flags // --data-dir, --config: the server's resolution
	GARMConfig      string
	GARMDBFile      string
	ReportJSON      string
	Jobs            string
	DryRun          bool
	Force           bool
	SkipUnsupported bool
	NoHistory       bool
	KeepJWT         bool
	IgnoreListener  bool
}

// ImportGARM resolves garrison's configuration as the server does, runs the import and
// prints the report. It returns the import's exit status (garmimport.ExitStatus) with the
// error, which it has already printed to stderr.
func ImportGARM(ctx context.Context, f ImportFlags, stdout, stderr io.Writer) (int, error) {
	mode := garmimport.JobsMode(f.Jobs)
	if mode != garmimport.JobsOpen && mode != garmimport.JobsAll && mode != garmimport.JobsNone {
		return 2, fmt.Errorf("--jobs %q: want open, all or none", f.Jobs)
	}
	cfg, err := LoadConfig(f.Server)
	if err != nil {
		return 2, err
	}
	tgt := &importTarget{cfg: cfg, dryRun: f.DryRun}
	defer tgt.close()
	rep, err := garmimport.Run(ctx, garmimport.Options{
		GARMConfig: f.GARMConfig, GARMDBFile: f.GARMDBFile, OpenTarget: tgt.open,
		TargetLocation: targetLocation(cfg.Database), TargetFiles: targetFiles(cfg.Database),
		Providers: providerNames(cfg.Providers), JWT: jwtState(cfg, f.Server.ConfigFile, f.KeepJWT),
		DryRun: f.DryRun, Force: f.Force, SkipUnsupported: f.SkipUnsupported, NoHistory: f.NoHistory,
		IgnoreListener: f.IgnoreListener, Jobs: mode,
	})
	if werr := rep.WriteText(stdout); werr != nil {
		return 1, werr
	}
	if f.ReportJSON != "" {
		if werr := writeReportJSON(f.ReportJSON, rep); werr != nil {
			fmt.Fprintln(stderr, "Error:", werr)
		}
	}
	if err == nil && !f.DryRun {
		err = adoptJWTSecret(cfg.DataDir, rep, stdout)
		printCutOver(stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "Error:", err)
		return garmimport.ExitStatus(err), err
	}
	return 0, nil
}

// importTarget opens garrison's store for the import under the server's locks, so that
// no server uses the data directory meanwhile.
type importTarget struct {
	cfg    Config
	dryRun bool
	locks  serverLocks
	st     store.Store
}

func (t *importTarget) open(ctx context.Context) (store.Store, error) {
	locks, err := lockServer(t.cfg.DataDir, t.cfg.Database)
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
	if t.st, err = OpenStore(ctx, db); err != nil {
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
func jwtState(cfg Config, configFile string, keep bool) garmimport.JWTState {
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

// DefaultImportJobs is the default of ImportFlags.Jobs: the open jobs (queued, in progress).
const DefaultImportJobs = string(garmimport.JobsOpen)
