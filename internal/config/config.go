package config

import (
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"time"
)

// Config is a validated, resolved configuration: defaults are applied,
// durations parsed and paths checked. Build it with Parse, Load or Default.
type Config struct {
	Default   DefaultSection // [default]
	Logging   Logging        // [logging] (plus the legacy [default] logging keys)
	Metrics   Metrics        // [metrics]
	JWTAuth   JWTAuth        // [jwt_auth]
	APIServer APIServer      // [apiserver]
	Database  Database       // [database]
	Providers []Provider     // [[provider]], in file order, names unique
	Reconcile Reconcile      // [reconcile] (garrison)
	Server    Server         // [server] (garrison)
	Objects   ObjectStore    // [object_store] (garrison)

	// Warnings are non-fatal findings (ignored GARM sections, a clamped JWT
	// time_to_live, a readable config file holding secrets, ...). The server
	// should log each one at startup.
	Warnings []string
}

// DefaultSection holds [default] (named so because Default builds a Config).
type DefaultSection struct {
	// CallbackURL is the legacy callback_url; "" when unset.
	CallbackURL string
	// MetadataURL is the legacy metadata_url; "" when unset.
	MetadataURL string
	// WebhookURL is the legacy webhook_url; "" when unset.
	WebhookURL string
	// EnableWebhookManagement is enable_webhook_management.
	EnableWebhookManagement bool
	// DebugServer is debug_server: serve net/http/pprof.
	DebugServer bool
}

// LogFormat is the log record encoding.
type LogFormat string

// The accepted log formats.
const (
	LogFormatText LogFormat = "text"
	LogFormatJSON LogFormat = "json"
)

// Logging holds [logging].
type Logging struct {
	// File is log_file; "" means stderr.
	File string
	// EnableLogStreamer is enable_log_streamer.
	EnableLogStreamer bool
	// Format is log_format (default text).
	Format LogFormat
	// Level is log_level (default info).
	Level slog.Level
	// AccessLevel is access_log_level (default info, as GARM): the level of the access_log
	// record of each request. "debug" keeps them out of an info log.
	AccessLevel slog.Level
	// Source is log_source: add file:line to records.
	Source bool
}

// Metrics holds [metrics].
type Metrics struct {
	// Enable is enable (default true).
	Enable bool
	// DisableAuth is disable_auth (default false: a metrics JWT is required).
	DisableAuth bool
	// Period is period (default 60s).
	Period time.Duration
}

// MinJWTTTL is the shortest admin token lifetime; shorter configured values
// are raised to it (as GARM does) with a warning.
const MinJWTTTL = 24 * time.Hour

// JWTAuth holds [jwt_auth].
type JWTAuth struct {
	// Secret is secret; "" until ApplySecrets when not in the file.
	Secret string
	// TimeToLive is time_to_live, at least MinJWTTTL.
	TimeToLive time.Duration
}

// APIServer holds [apiserver].
type APIServer struct {
	// Bind is bind, an IP address (default 127.0.0.1).
	Bind string
	// Port is port (default 9997).
	Port int
	// UseTLS is use_tls; when true TLS.Certificate and TLS.Key are set.
	UseTLS bool
	// TLS is [apiserver.tls].
	TLS TLS
	// CORSOrigins is cors_origins (or its alias cors_allowed_origins).
	CORSOrigins []string
	// TrustedProxies is trusted_proxies: the reverse proxies whose X-Forwarded-For header
	// names the client (login rate limit, logs). Empty: the header is never believed.
	TrustedProxies []netip.Prefix
	// WebUI is [apiserver.webui] enable: serve the web UI under /ui/ (default true).
	WebUI bool
}

// Addr returns the listen address "bind:port" (IPv6 bracketed).
func (a APIServer) Addr() string {
	return net.JoinHostPort(a.Bind, strconv.Itoa(a.Port))
}

// TLS holds [apiserver.tls]; the files exist and the pair loads.
type TLS struct {
	Certificate   string // certificate
	Key           string // key
	CACertificate string // ca_certificate, optional
}

// Backend names a storage backend.
type Backend string

// The accepted database backends.
const (
	BackendSQLite   Backend = "sqlite3"
	BackendPostgres Backend = "postgresql"
)

// Database holds [database].
type Database struct {
	// Backend is backend (default sqlite3).
	Backend Backend
	// Passphrase is passphrase; "" until ApplySecrets when not in the file.
	Passphrase string
	// Debug is debug: log SQL.
	Debug bool
	// SQLite is [database.sqlite3]; meaningful when Backend is sqlite3.
	SQLite SQLite
	// Postgres is [database.postgresql]; meaningful when Backend is postgresql.
	Postgres Postgres
}

// SQLite holds [database.sqlite3].
type SQLite struct {
	// DBFile is db_file, absolute; "" until SetDataDir when not in the file.
	DBFile string
	// BusyTimeout is busy_timeout_seconds (default 5s).
	BusyTimeout time.Duration
}

// Postgres holds [database.postgresql].
type Postgres struct {
	// DSN is a pgx connection string: dsn as written, or built in key=value
	// form from the GARM keys (hostname, port, username, password,
	// database, sslmode).
	DSN string
	// MaxOpenConns is max_open_conns (default 25).
	MaxOpenConns int
	// MaxIdleConns is max_idle_conns (default 5).
	MaxIdleConns int
	// ConnMaxLifetime is conn_max_lifetime_mins (default 30m).
	ConnMaxLifetime time.Duration
	// ConnMaxIdleTime is conn_max_idle_time_secs (default 300s).
	ConnMaxIdleTime time.Duration
}

// The provider interface versions (GARM_INTERFACE_VERSION values).
const (
	InterfaceV010 = "v0.1.0"
	InterfaceV011 = "v0.1.1"
)

// DefaultMaxConcurrency is the per-provider call limit when not configured.
const DefaultMaxConcurrency = 10

// Provider is one [[provider]] (always of type external).
type Provider struct {
	// Name is name, unique.
	Name string
	// Description is description.
	Description string
	// DisableJITConfig is disable_jit_config.
	DisableJITConfig bool
	// Executable is the absolute path of the provider executable:
	// provider_executable, else <provider_dir>/garm-external-provider. It
	// existed and was executable when the configuration was loaded.
	Executable string
	// ConfigFile is config_file (absolute, existing) or "".
	ConfigFile string
	// EnvironmentVariables is environment_variables: name prefixes.
	EnvironmentVariables []string
	// InterfaceVersion is InterfaceV010 (also for "") or InterfaceV011.
	InterfaceVersion string
	// ExecTimeout is exec_timeout_seconds; 0 means no limit.
	ExecTimeout time.Duration
	// MaxConcurrency is max_concurrency (default DefaultMaxConcurrency).
	MaxConcurrency int
	// CommandTimeouts is command_timeouts: per-command time limits, by GARM_COMMAND
	// value; DefaultCommandTimeouts fill the commands it leaves out.
	CommandTimeouts map[string]time.Duration
}

// Provider returns the provider with the given name.
func (c *Config) Provider(name string) (Provider, bool) {
	for _, p := range c.Providers {
		if p.Name == name {
			return p, true
		}
	}
	return Provider{}, false
}
