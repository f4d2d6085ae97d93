package config

// This file declares the TOML document exactly as written by users. Pointer
// fields tell "absent" (use the default) from "set to the zero value". The
// public, resolved form is Config; see resolve*.go for the mapping.

// fileConfig is the whole document.
type fileConfig struct {
	Default   fileDefault     `toml:"default"`
	Logging   fileLogging     `toml:"logging"`
	Metrics   fileMetrics     `toml:"metrics"`
	JWTAuth   fileJWT         `toml:"jwt_auth"`
	APIServer fileAPIServer   `toml:"apiserver"`
	Database  fileDatabase    `toml:"database"`
	Providers []fileProvider  `toml:"provider"`
	Reconcile fileReconcile   `toml:"reconcile"`
	Server    fileServer      `toml:"server"`
	Objects   fileObjectStore `toml:"object_store"`
}

// fileDefault is [default].
type fileDefault struct {
	// callback_url: legacy URL instances report status to (GARM moved it to
	// the controller settings). Optional, absolute http(s) URL.
	CallbackURL string `toml:"callback_url"`
	// metadata_url: legacy URL instances fetch metadata from. Optional.
	MetadataURL string `toml:"metadata_url"`
	// webhook_url: legacy URL installed as the forge webhook target. Optional.
	WebhookURL string `toml:"webhook_url"`
	// enable_webhook_management: let garrison install/remove forge webhooks.
	EnableWebhookManagement bool `toml:"enable_webhook_management"`
	// debug_server: serve net/http/pprof on the API listener.
	DebugServer bool `toml:"debug_server"`
	// log_file: legacy spelling of [logging] log_file.
	LogFile *string `toml:"log_file"`
	// enable_log_streamer: legacy spelling of [logging] enable_log_streamer.
	EnableLogStreamer *bool `toml:"enable_log_streamer"`
}

// fileLogging is [logging].
type fileLogging struct {
	// log_file: path of the log file; empty logs to stderr.
	LogFile *string `toml:"log_file"`
	// enable_log_streamer: stream logs to admin clients over a websocket.
	EnableLogStreamer *bool `toml:"enable_log_streamer"`
	// log_format: "text" (default) or "json".
	LogFormat *string `toml:"log_format"`
	// log_level: "debug", "info" (default), "warn" or "error".
	LogLevel *string `toml:"log_level"`
	// access_log_level: the level of each request's access_log record (default "info").
	AccessLogLevel *string `toml:"access_log_level"`
	// log_source: add the source file and line to every record.
	LogSource bool `toml:"log_source"`
}

// fileMetrics is [metrics].
type fileMetrics struct {
	// enable: serve the Prometheus endpoint. Default true.
	Enable *bool `toml:"enable"`
	// disable_auth: serve it without a metrics JWT. Default false.
	DisableAuth bool `toml:"disable_auth"`
	// period: Go duration between recomputations of gauges. Default "60s".
	Period *string `toml:"period"`
}

// fileJWT is [jwt_auth].
type fileJWT struct {
	// secret: HS256 signing secret; generated when absent.
	Secret string `toml:"secret"`
	// time_to_live: Go duration of admin tokens; default and minimum "24h".
	TimeToLive *string `toml:"time_to_live"`
}

// fileAPIServer is [apiserver].
type fileAPIServer struct {
	// bind: IP address to listen on. Default "127.0.0.1".
	Bind *string `toml:"bind"`
	// port: TCP port, 1-65535. Default 9997.
	Port *int `toml:"port"`
	// use_tls: serve HTTPS with [apiserver.tls].
	UseTLS bool `toml:"use_tls"`
	// tls: [apiserver.tls].
	TLS fileTLS `toml:"tls"`
	// cors_origins: allowed CORS origins (GARM's key); "*" allows any.
	CORSOrigins []string `toml:"cors_origins"`
	// cors_allowed_origins: garrison alias of cors_origins.
	CORSAllowedOrigins []string `toml:"cors_allowed_origins"`
	// trusted_proxies: CIDRs of reverse proxies whose X-Forwarded-For is believed.
	TrustedProxies []string `toml:"trusted_proxies"`
	// webui: [apiserver.webui].
	WebUI fileWebUI `toml:"webui"`
}

// fileWebUI is [apiserver.webui].
type fileWebUI struct {
	// enable: serve the web UI under /ui/. Default true (GARM: false).
	Enable *bool `toml:"enable"`
}

// fileTLS is [apiserver.tls].
type fileTLS struct {
	// certificate: PEM certificate (full chain) path.
	Certificate string `toml:"certificate"`
	// key: PEM private key path.
	Key string `toml:"key"`
	// ca_certificate: optional PEM CA bundle path (client certificate CA).
	CACertificate string `toml:"ca_certificate"`
}

// fileDatabase is [database].
type fileDatabase struct {
	// backend: "sqlite3" (default) or "postgresql".
	Backend *string `toml:"backend"`
	// passphrase: 32 characters encrypting secrets at rest; generated when absent.
	Passphrase string `toml:"passphrase"`
	// debug: log every SQL statement.
	Debug bool `toml:"debug"`
	// sqlite3: [database.sqlite3].
	SQLite fileSQLite `toml:"sqlite3"`
	// postgresql: [database.postgresql].
	Postgres filePostgres `toml:"postgresql"`
}

// fileSQLite is [database.sqlite3].
type fileSQLite struct {
	// db_file: absolute path of the database; default <data dir>/garrison.db.
	DBFile string `toml:"db_file"`
	// busy_timeout_seconds: wait for a locked database, >= 0. Default 5.
	BusyTimeoutSeconds *int `toml:"busy_timeout_seconds"`
}

// filePostgres is [database.postgresql]: either dsn or the discrete keys.
type filePostgres struct {
	// dsn: libpq/pgx connection string (URL or key=value form). garrison key.
	DSN string `toml:"dsn"`
	// username, password, hostname, port, database, sslmode: GARM's keys.
	Username string `toml:"username"`
	Password string `toml:"password"`
	Hostname string `toml:"hostname"`
	Port     *int   `toml:"port"`
	Database string `toml:"database"`
	SSLMode  string `toml:"sslmode"`
	// Connection pool sizing (GARM's keys).
	MaxOpenConns        *int `toml:"max_open_conns"`
	MaxIdleConns        *int `toml:"max_idle_conns"`
	ConnMaxLifetimeMins *int `toml:"conn_max_lifetime_mins"`
	ConnMaxIdleTimeSecs *int `toml:"conn_max_idle_time_secs"`
}

// fileProvider is one [[provider]].
type fileProvider struct {
	// name: unique name referenced by pools.
	Name string `toml:"name"`
	// provider_type: must be "external".
	ProviderType string `toml:"provider_type"`
	// description: shown by the providers API.
	Description string `toml:"description"`
	// disable_jit_config: use registration tokens instead of JIT configs.
	DisableJITConfig bool `toml:"disable_jit_config"`
	// exec_timeout_seconds / max_concurrency may also be set here.
	ExecTimeoutSeconds *int `toml:"exec_timeout_seconds"`
	MaxConcurrency     *int `toml:"max_concurrency"`
	// external: [provider.external].
	External fileExternal `toml:"external"`
}

// fileExternal is [provider.external].
type fileExternal struct {
	// config_file: absolute path passed as GARM_PROVIDER_CONFIG_FILE.
	ConfigFile string `toml:"config_file"`
	// provider_dir: directory holding "garm-external-provider".
	ProviderDir string `toml:"provider_dir"`
	// provider_executable: absolute path of the provider; wins over provider_dir.
	ProviderExecutable string `toml:"provider_executable"`
	// environment_variables: name prefixes passed through to the provider.
	EnvironmentVariables []string `toml:"environment_variables"`
	// interface_version: "", "v0.1.0" or "v0.1.1".
	InterfaceVersion string `toml:"interface_version"`
	// exec_timeout_seconds: bound of every call, 0 = none. Default 0.
	ExecTimeoutSeconds *int `toml:"exec_timeout_seconds"`
	// max_concurrency: concurrent calls to this provider, >= 1. Default 10.
	MaxConcurrency *int `toml:"max_concurrency"`
	// command_timeouts: command name (GARM_COMMAND) -> seconds, > 0.
	CommandTimeouts map[string]int `toml:"command_timeouts"`
}
