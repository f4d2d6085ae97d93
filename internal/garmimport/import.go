package garmimport

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// Options say what to import and where.
type Options struct {
	// GARMConfig is the path of GARM's config.toml (required).
	GARMConfig string
	// GARMDBFile replaces the config's [database.sqlite3] db_file (a copy elsewhere).
	GARMDBFile string
	// OpenTarget opens garrison's store once GARM's side checked out (the caller closes
	// it after Run returns, and holds whatever lock keeps a server off it meanwhile). A
	// nil store, with DryRun only, means a database that does not exist yet.
	OpenTarget func(ctx context.Context) (store.Store, error)
	// TargetLocation names the target in the report (a file, or host/database).
	TargetLocation string
	// TargetFiles are the target's database files (SQLite), refused if they are GARM's.
	TargetFiles []string
	// Providers are the provider names garrison's config defines; nil skips the check.
	Providers []string
	// JWT describes garrison's JWT secret (spec B.1 --adopt-jwt-secret and B.8).
	JWT JWTState

	DryRun          bool     // read, open and plan everything; write nothing
	Force           bool     // import into a garrison database that holds data
	SkipUnsupported bool     // import what garrison can hold; list the rest (else it blocks)
	NoHistory       bool     // leave entity events and runner status messages behind
	IgnoreListener  bool     // do not check whether GARM still answers on its port
	Jobs            JobsMode // "" means JobsOpen

	// Now is the clock (nil: time.Now).
	Now func() time.Time

	passphrase, garmJWT string // from GARM's config
}

// JWTState is garrison's JWT secret as the server would use it.
type JWTState struct {
	Current        string // the secret garrison uses now
	FromConfigFile bool   // set in garrison's config file: the import cannot change it
	Keep           bool   // keep garrison's even where GARM's could be adopted
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now().UTC()
	}
	return time.Now().UTC()
}

// Run imports the GARM installation o names into o.Target, or with DryRun only plans it.
// The report says what was found and done, also when Run fails; the error wraps ErrConfig,
// ErrSource, ErrNotEmpty or ErrBlocked (see ExitStatus).
func Run(ctx context.Context, o Options) (*Report, error) {
	start := time.Now()
	rep := newReport(o.DryRun)
	rep.Target.Location, rep.Target.Empty = o.TargetLocation, true
	cfg, err := loadGARMConfig(o.GARMConfig, o.GARMDBFile)
	if err != nil {
		return rep.fail(err)
	}
	o.passphrase, o.garmJWT = cfg.Database.Passphrase, cfg.JWTAuth.Secret
	if err := checkNotGARMFiles(cfg, o.TargetFiles); err != nil {
		return rep.fail(err)
	}
	if !o.IgnoreListener {
		if err := cfg.probeGARM(ctx); err != nil {
			return rep.fail(err)
		}
	}
	src, err := openSource(ctx, cfg)
	if err != nil {
		return rep.fail(err)
	}
	defer src.close()
	rep.Source = SourceInfo{Backend: src.backend, Location: src.location, MainDBBytes: src.sizes[0], BlobDBBytes: src.sizes[1]}
	data, err := src.read(ctx)
	if err != nil {
		return rep.fail(err)
	}
	rep.Source.Layout = data.layout
	if o.OpenTarget == nil {
		return rep.fail(fmt.Errorf("%w: no garrison database to import into", ErrConfig))
	}
	st, err := o.OpenTarget(ctx)
	if err != nil {
		return rep.fail(fmt.Errorf("%w: garrison's database: %w", ErrConfig, err))
	}
	taken, err := checkTarget(ctx, st, o, rep)
	if err != nil {
		return rep.fail(err)
	}
	snap, err := newPlanner(data, o, rep, taken).plan()
	if err != nil {
		return rep.fail(err)
	}
	if !rep.Target.Empty {
		checkCollisions(ctx, st, snap, rep)
	}
	if len(rep.Blocking) > 0 {
		return rep.fail(fmt.Errorf("%w: %d problems", ErrBlocked, len(rep.Blocking)))
	}
	if o.DryRun {
		rep.Result = "dry run: nothing written"
		return rep, nil
	}
	return write(ctx, st, snap, rep, start)
}

// fail records err as the result.
func (r *Report) fail(err error) (*Report, error) {
	r.Result = fmt.Sprintf("blocked: %v (exit %d)", err, ExitStatus(err))
	return r, err
}

// write imports the snapshot in one transaction and verifies what was written.
func write(ctx context.Context, st store.Store, snap store.Snapshot, rep *Report, start time.Time) (*Report, error) {
	if st == nil {
		return rep.fail(fmt.Errorf("%w: no garrison database to import into", ErrConfig))
	}
	if err := st.Import(ctx, snap); err != nil {
		if msg := garrison.MessageOf(err); msg != "" {
			rep.blockf("garrison refused the import, nothing was written: %s", msg)
			return rep.fail(fmt.Errorf("%w: %w", ErrBlocked, err))
		}
		return rep.fail(fmt.Errorf("import-garm: writing garrison's database (nothing was written): %w", err))
	}
	if diffs := verify(ctx, st, snap); len(diffs) > 0 {
		for _, d := range diffs {
			rep.blockf("after the import: %s", d)
		}
		return rep.fail(fmt.Errorf("import-garm: the import committed but does not read back as written (%d differences)", len(diffs)))
	}
	rep.Result = fmt.Sprintf("imported in %s", time.Since(start).Round(time.Millisecond))
	return rep, nil
}

// checkNotGARMFiles refuses a garrison database that is one of GARM's own files.
func checkNotGARMFiles(cfg garmConfig, targets []string) error {
	if cfg.Database.Backend != backendSQLite {
		return nil
	}
	db := filepath.Clean(cfg.Database.SQLite.DBFile)
	blob := filepath.Join(filepath.Dir(db), "blob-"+filepath.Base(db))
	for _, t := range targets {
		if t = filepath.Clean(t); t == db || t == blob {
			return fmt.Errorf("%w: garrison's database %s is GARM's own file; give garrison its own db_file or --data-dir", ErrConfig, t)
		}
	}
	return nil
}
