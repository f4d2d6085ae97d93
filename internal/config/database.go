package config

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	zxcvbn "github.com/nbutton23/zxcvbn-go"
)

// PassphraseLen is the required length of database.passphrase (GARM's rule:
// it was the AES-256 key itself there).
const PassphraseLen = 32

// Defaults of [database.postgresql] (GARM's values).
const (
	DefaultPostgresPort    = 5432
	DefaultSSLMode         = "prefer"
	DefaultMaxOpenConns    = 25
	DefaultMaxIdleConns    = 5
	DefaultConnMaxLifetime = 30 * time.Minute
	DefaultConnMaxIdleTime = 300 * time.Second
)

// resolveDatabase checks [database].
func resolveDatabase(d *fileDatabase, errs *problems) Database {
	out := Database{Backend: BackendSQLite, Passphrase: d.Passphrase, Debug: d.Debug}
	if d.Backend != nil {
		out.Backend = Backend(*d.Backend)
	}
	checkPassphrase(errs, d.Passphrase)
	switch out.Backend {
	case BackendSQLite:
		out.SQLite = resolveSQLite(&d.SQLite, errs)
	case BackendPostgres:
		out.Postgres = resolvePostgres(&d.Postgres, errs)
	default:
		errs.field("database.backend", `must be "sqlite3" or "postgresql", got %q`, out.Backend)
	}
	return out
}

// checkPassphrase accepts "" (generated later) or 32 strong characters.
func checkPassphrase(errs *problems, p string) {
	switch {
	case p == "":
	case len(p) != PassphraseLen:
		errs.field("database.passphrase", "must be exactly %d characters (bytes), got %d", PassphraseLen, len(p))
	case weak(p):
		errs.field("database.passphrase", "is too weak: use a random string (or remove it to have one generated)")
	}
}

// weak reports whether a secret is guessable (zxcvbn score below 4, GARM's
// rule). Only a bounded prefix is scored to keep the check fast.
func weak(secret string) bool {
	const maxScored = 128
	if len(secret) > maxScored {
		secret = secret[:maxScored]
	}
	return zxcvbn.PasswordStrength(secret, nil).Score < 4
}

// resolveSQLite checks [database.sqlite3].
func resolveSQLite(s *fileSQLite, errs *problems) SQLite {
	out := SQLite{DBFile: s.DBFile, BusyTimeout: DefaultBusyTimeout}
	if s.DBFile != "" {
		if !filepath.IsAbs(s.DBFile) {
			errs.field("database.sqlite3.db_file", "must be an absolute path, got %q", s.DBFile)
		} else if fi, err := os.Stat(filepath.Dir(s.DBFile)); err != nil || !fi.IsDir() {
			errs.field("database.sqlite3.db_file", "directory %q does not exist", filepath.Dir(s.DBFile))
		}
	}
	if s.BusyTimeoutSeconds != nil {
		if *s.BusyTimeoutSeconds < 0 {
			errs.field("database.sqlite3.busy_timeout_seconds", "must be >= 0, got %d", *s.BusyTimeoutSeconds)
		}
		out.BusyTimeout = time.Duration(*s.BusyTimeoutSeconds) * time.Second
	}
	return out
}

// sslModes are the libpq sslmode values.
var sslModes = []string{"disable", "allow", "prefer", "require", "verify-ca", "verify-full"}

// resolvePostgres checks [database.postgresql]: dsn, or GARM's discrete
// keys turned into a key=value DSN, plus the pool sizes.
func resolvePostgres(p *filePostgres, errs *problems) Postgres {
	const sec = "database.postgresql"
	out := Postgres{
		MaxOpenConns:    intOr(errs, sec+".max_open_conns", p.MaxOpenConns, DefaultMaxOpenConns, 1),
		MaxIdleConns:    intOr(errs, sec+".max_idle_conns", p.MaxIdleConns, DefaultMaxIdleConns, 0),
		ConnMaxLifetime: DefaultConnMaxLifetime,
		ConnMaxIdleTime: DefaultConnMaxIdleTime,
	}
	if p.ConnMaxLifetimeMins != nil {
		out.ConnMaxLifetime = time.Duration(intOr(errs, sec+".conn_max_lifetime_mins", p.ConnMaxLifetimeMins, 0, 0)) * time.Minute
	}
	if p.ConnMaxIdleTimeSecs != nil {
		out.ConnMaxIdleTime = time.Duration(intOr(errs, sec+".conn_max_idle_time_secs", p.ConnMaxIdleTimeSecs, 0, 0)) * time.Second
	}
	discrete := p.Username != "" || p.Password != "" || p.Hostname != "" || p.Port != nil || p.Database != "" || p.SSLMode != ""
	switch {
	case p.DSN != "" && discrete:
		errs.field(sec+".dsn", "set either dsn or hostname/port/username/password/database/sslmode, not both")
	case p.DSN != "":
		checkDSN(errs, sec+".dsn", p.DSN)
		out.DSN = p.DSN
	default:
		out.DSN = postgresDSN(p, errs)
	}
	return out
}

// intOr returns *v (recording a problem if below lowest) or def when nil.
func intOr(errs *problems, key string, v *int, def, lowest int) int {
	if v == nil {
		return def
	}
	if *v < lowest {
		errs.field(key, "must be >= %d, got %d", lowest, *v)
	}
	return *v
}

// checkDSN does a light syntax check; the driver validates the rest.
func checkDSN(errs *problems, key, dsn string) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return
	}
	if !strings.Contains(dsn, "=") {
		errs.field(key, "must be a postgres:// URL or key=value connection string")
	}
}

// postgresDSN builds a key=value connection string from GARM's keys.
func postgresDSN(p *filePostgres, errs *problems) string {
	const sec = "database.postgresql"
	for _, req := range []struct{ key, val string }{
		{"hostname", p.Hostname}, {"username", p.Username}, {"database", p.Database},
	} {
		if req.val == "" {
			errs.field(sec+"."+req.key, "is required (or set dsn)")
		}
	}
	port := DefaultPostgresPort
	if p.Port != nil {
		port = *p.Port
		checkPort(errs, sec+".port", port)
	}
	mode := DefaultSSLMode
	if p.SSLMode != "" {
		mode = p.SSLMode
		if !slices.Contains(sslModes, mode) {
			errs.field(sec+".sslmode", "must be one of %s, got %q", strings.Join(sslModes, ", "), mode)
		}
	}
	parts := []string{
		"host=" + dsnQuote(p.Hostname), "port=" + strconv.Itoa(port),
		"user=" + dsnQuote(p.Username), "dbname=" + dsnQuote(p.Database), "sslmode=" + dsnQuote(mode),
	}
	if p.Password != "" {
		parts = append(parts, "password="+dsnQuote(p.Password))
	}
	return strings.Join(parts, " ")
}

// dsnQuote quotes a key=value connection string value as libpq requires.
func dsnQuote(v string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`)
	return "'" + r.Replace(v) + "'"
}
