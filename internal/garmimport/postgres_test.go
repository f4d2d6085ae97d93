package garmimport

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store/postgres"
	"github.com/garrison-ci/garrison/internal/store/storetest"
)

const postgresDSNEnv = "GARRISON_TEST_POSTGRES_DSN"

// postgresBase returns the test server's DSN (a postgres:// URL) or skips the test.
func postgresBase(t *testing.T) *url.URL {
	t.Helper()
	dsn := os.Getenv(postgresDSNEnv)
	if dsn == "" {
		t.Skip("set " + postgresDSNEnv + "=postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable to run")
	}
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Skipf("%s must be a postgres:// URL for this test", postgresDSNEnv)
	}
	return u
}

// freshDatabase creates a database, dropped at cleanup, and returns a DSN for it.
func freshDatabase(t *testing.T) *url.URL {
	t.Helper()
	base := postgresBase(t)
	admin, err := sql.Open("pgx", base.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "garm_import_test_" + hex.EncodeToString(b)
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP DATABASE " + name + " WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u := *base
	u.Path = "/" + name
	return &u
}

// postgresType is the PostgreSQL type GARM's GORM models get for an SQLite declared type
// (spec A.9).
func postgresType(sqliteType string) string {
	switch t := strings.ToLower(sqliteType); {
	case t == "uuid":
		return "uuid"
	case t == "integer":
		return "bigint"
	case t == "numeric":
		return "boolean"
	case t == "datetime":
		return "timestamptz"
	case t == "json":
		return "jsonb"
	case t == "blob" || t == "longblob":
		return "bytea"
	}
	return "text"
}

type pgColumn struct{ name, typ string }

// loadGARMIntoPostgres builds GARM's schema in a fresh PostgreSQL database with the
// column types of spec A.9 and copies every row of the fixture's two SQLite databases,
// with the rows added by the statements extra, into it; it returns a GARM config.toml
// that names the database.
func loadGARMIntoPostgres(t *testing.T, extra ...string) string {
	t.Helper()
	dsn := freshDatabase(t)
	pg, err := sql.Open("pgx", dsn.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	dir, _ := copyFixture(t)
	if len(extra) > 0 {
		mutate(t, dir, extra...)
	}
	for _, file := range []string{"garm.db", "blob-garm.db"} {
		src := openCopy(t, filepath.Join(dir, file))
		tables, err := queryStrings(src, `SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'sqlite_sequence'`)
		if err != nil {
			t.Fatal(err)
		}
		for _, table := range tables {
			copyTable(t, src, pg, table)
		}
	}
	password, _ := dsn.User.Password()
	cfg := fmt.Sprintf(`[database]
backend = "postgresql"
passphrase = %q
[database.postgresql]
hostname = %q
port = %s
username = %q
password = %q
database = %q
sslmode = "disable"
[jwt_auth]
secret = %q
`, fixturePassphrase, dsn.Hostname(), dsn.Port(), dsn.User.Username(), password, strings.TrimPrefix(dsn.Path, "/"), fixtureJWTSecret)
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func queryStrings(db *sql.DB, q string) ([]string, error) {
	rows, err := db.Query(q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// copyTable creates one table in PostgreSQL and copies its rows.
func copyTable(t *testing.T, src, pg *sql.DB, table string) {
	t.Helper()
	rows, err := src.Query(`SELECT name, type, pk FROM pragma_table_info('` + table + `') ORDER BY cid`)
	if err != nil {
		t.Fatal(err)
	}
	var cols []pgColumn
	var defs, pks, params, names []string
	for rows.Next() {
		var c pgColumn
		var pk int
		if err := rows.Scan(&c.name, &c.typ, &pk); err != nil {
			t.Fatal(err)
		}
		c.typ = postgresType(c.typ)
		cols = append(cols, c)
		defs = append(defs, fmt.Sprintf("%q %s", c.name, c.typ))
		names = append(names, fmt.Sprintf("%q", c.name))
		params = append(params, "$"+strconv.Itoa(len(cols))+"::text::"+c.typ)
		if pk > 0 {
			pks = append(pks, fmt.Sprintf("%q", c.name))
		}
	}
	rows.Close()
	if len(pks) > 0 {
		defs = append(defs, "PRIMARY KEY ("+strings.Join(pks, ", ")+")")
	}
	if _, err := pg.Exec(`CREATE TABLE ` + table + ` (` + strings.Join(defs, ", ") + `)`); err != nil {
		t.Fatalf("create %s: %v", table, err)
	}
	data, err := src.Query(`SELECT ` + strings.Join(names, ", ") + ` FROM ` + table)
	if err != nil {
		t.Fatal(err)
	}
	defer data.Close()
	insert := `INSERT INTO ` + table + ` (` + strings.Join(names, ", ") + `) VALUES (` + strings.Join(params, ", ") + `)`
	for data.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := data.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, c := range cols {
			vals[i] = postgresText(vals[i], c.typ)
		}
		if _, err := pg.Exec(insert, vals...); err != nil {
			t.Fatalf("insert into %s: %v", table, err)
		}
	}
}

// postgresText renders an SQLite value as the text PostgreSQL parses into typ (nil for
// NULL; bytea as hex).
func postgresText(v any, typ string) any {
	switch x := v.(type) {
	case nil:
		return nil
	case time.Time:
		return x.Format(time.RFC3339Nano)
	case int64:
		if typ == "boolean" {
			return strconv.FormatBool(x != 0)
		}
		return strconv.FormatInt(x, 10)
	case []byte:
		if typ == "bytea" {
			return `\x` + hex.EncodeToString(x)
		}
		return string(x)
	case string:
		if typ == "jsonb" && strings.TrimSpace(x) == "" {
			return nil
		}
		if typ == "bytea" {
			return `\x` + hex.EncodeToString([]byte(x))
		}
		return x
	}
	return fmt.Sprint(v)
}

// TestPostgresSource imports a GARM installation kept in PostgreSQL (the fixture's rows
// in GARM's PostgreSQL column types) and finds the same as from SQLite.
func TestPostgresSource(t *testing.T) {
	cfg := loadGARMIntoPostgres(t)
	st, _ := newTarget(t)
	o := fixtureOptions(cfg, st)
	rep, err := Run(t.Context(), o)
	if err != nil {
		t.Fatalf("import: %v %v", err, rep.Blocking)
	}
	if rep.Source.Backend != backendPostgres || !strings.Contains(rep.Source.Location, "garm_import_test_") {
		t.Errorf("source %+v", rep.Source)
	}
	checkFixtureImport(t, st, rep)
}

// TestPostgresTarget imports the fixture into garrison's PostgreSQL backend.
func TestPostgresTarget(t *testing.T) {
	dsn := freshDatabase(t)
	st, err := postgres.Open(t.Context(), dsn.String(), storetest.NewSealer(storetest.Passphrase))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	_, cfg := copyFixture(t)
	rep, err := Run(t.Context(), fixtureOptions(cfg, st))
	if err != nil {
		t.Fatalf("import: %v %v", err, rep.Blocking)
	}
	checkFixtureImport(t, st, rep)
	c, err := st.CreateCredentials(t.Context(), garrison.Credentials{Name: "after", ForgeType: garrison.GitHub,
		AuthType: garrison.AuthPAT, Endpoint: "github.com", PAT: "after"})
	if err != nil || c.ID <= 3 {
		t.Errorf("credentials created after the import: id %d, %v", c.ID, err)
	}
}

// TestPostgresScaleSets imports scale sets from GARM on PostgreSQL into garrison on
// PostgreSQL.
func TestPostgresScaleSets(t *testing.T) {
	cfg := loadGARMIntoPostgres(t, scaleSetRows()...)
	st, err := postgres.Open(t.Context(), freshDatabase(t).String(), storetest.NewSealer(storetest.Passphrase))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rep, err := Run(t.Context(), fixtureOptions(cfg, st))
	if err != nil {
		t.Fatalf("import: %v %v", err, rep.Blocking)
	}
	checkScaleSet(t, st)
	next, err := st.CreateScaleSet(t.Context(), garrison.ScaleSet{EntityID: setRepo, Name: "after", ProviderName: "lxd",
		Image: "i", Flavor: "f", OSType: "linux", OSArch: "amd64", MaxRunners: 1, RunnerGroup: "Default"})
	if err != nil || next.ID <= 5 {
		t.Errorf("scale set created after the import: id %d, %v", next.ID, err)
	}
}
