package garmimport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// GARM's database backends (config [database] backend).
const (
	backendSQLite   = "sqlite3"
	backendPostgres = "postgresql"
	backendMySQL    = "mysql"
)

// garmPassphraseLen is the length GARM requires of [database] passphrase (AES-256).
const garmPassphraseLen = 32

// garmConfig is the part of GARM's config.toml an import reads (spec A.6). Other keys
// are ignored: this is GARM's file, not garrison's.
type garmConfig struct {
	Database struct {
		Backend    string `toml:"backend"`
		Passphrase string `toml:"passphrase"`
		SQLite     struct {
			DBFile string `toml:"db_file"`
		} `toml:"sqlite3"`
		Postgres garmPostgres `toml:"postgresql"`
	} `toml:"database"`
	JWTAuth struct {
		Secret string `toml:"secret"`
	} `toml:"jwt_auth"`
	APIServer struct {
		Bind string `toml:"bind"`
		Port int    `toml:"port"`
	} `toml:"apiserver"`
}

// garmPostgres is [database.postgresql] as GARM reads it.
type garmPostgres struct {
	Username string `toml:"username"`
	Password string `toml:"password"`
	Hostname string `toml:"hostname"`
	Port     int    `toml:"port"`
	Database string `toml:"database"`
	SSLMode  string `toml:"sslmode"`
}

// loadGARMConfig reads and checks GARM's config file. dbFile, when set, replaces
// [database.sqlite3] db_file (a copy of the database kept elsewhere).
func loadGARMConfig(path, dbFile string) (garmConfig, error) {
	var c garmConfig
	if _, err := toml.DecodeFile(path, &c); err != nil {
		return c, fmt.Errorf("%w: reading %s: %v", ErrConfig, path, err)
	}
	if dbFile != "" {
		c.Database.SQLite.DBFile = dbFile
		if c.Database.Backend == "" {
			c.Database.Backend = backendSQLite
		}
	}
	return c, c.check(path)
}

// check validates what the import needs.
func (c *garmConfig) check(path string) error {
	d := &c.Database
	if len(d.Passphrase) != garmPassphraseLen {
		return fmt.Errorf("%w: %s: [database] passphrase must be %d characters, got %d", ErrConfig, path, garmPassphraseLen, len(d.Passphrase))
	}
	switch d.Backend {
	case backendSQLite:
		if d.SQLite.DBFile == "" || !filepath.IsAbs(d.SQLite.DBFile) {
			return fmt.Errorf("%w: %s: [database.sqlite3] db_file must be an absolute path, got %q", ErrConfig, path, d.SQLite.DBFile)
		}
	case backendPostgres:
		p := d.Postgres
		if p.Hostname == "" || p.Username == "" || p.Database == "" {
			return fmt.Errorf("%w: %s: [database.postgresql] needs hostname, username and database", ErrConfig, path)
		}
	case backendMySQL:
		return fmt.Errorf("%w: MySQL sources are not supported; move GARM to SQLite or PostgreSQL first", ErrSource)
	default:
		return fmt.Errorf("%w: %s: unknown [database] backend %q (want sqlite3 or postgresql)", ErrConfig, path, d.Backend)
	}
	return nil
}

// dsn is a key=value connection string for GARM's PostgreSQL database (GARM's defaults:
// port 5432, sslmode prefer).
func (p garmPostgres) dsn() string {
	port, mode := p.Port, p.SSLMode
	if port == 0 {
		port = 5432
	}
	if mode == "" {
		mode = "prefer"
	}
	parts := []string{"host=" + dsnQuote(p.Hostname), "port=" + strconv.Itoa(port), "user=" + dsnQuote(p.Username),
		"dbname=" + dsnQuote(p.Database), "sslmode=" + dsnQuote(mode)}
	if p.Password != "" {
		parts = append(parts, "password="+dsnQuote(p.Password))
	}
	return strings.Join(parts, " ")
}

// location names the PostgreSQL database for the report, without the password.
func (p garmPostgres) location() string {
	port := p.Port
	if port == 0 {
		port = 5432
	}
	return fmt.Sprintf("%s@%s/%s", p.Username, net.JoinHostPort(p.Hostname, strconv.Itoa(port)), p.Database)
}

func dsnQuote(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

// errGARMRunning is wrapped by the refusal to import while GARM answers on its port.
var errGARMRunning = errors.New("GARM still appears to be running")

// probeGARM refuses when something accepts connections on GARM's API address (spec
// IMP-2): two managers on the same webhooks, runners and provider instances fight. A
// wildcard bind is probed on the loopback address.
func (c *garmConfig) probeGARM(ctx context.Context) error {
	port := c.APIServer.Port
	if port == 0 {
		return nil
	}
	host := c.APIServer.Bind
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	d := net.Dialer{Timeout: 2 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil
	}
	_ = conn.Close()
	return fmt.Errorf("%w: %w on %s; stop it first (systemctl stop garm) or pass --ignore-listener", ErrBlocked, errGARMRunning, addr)
}
