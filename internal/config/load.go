package config

import (
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/BurntSushi/toml"
)

// Load reads and parses the configuration file at path. Besides Parse's
// checks it warns when the file holds a secret and is readable by group or
// others.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: reading %s: %w", path, err)
	}
	cfg, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("config: %s: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 && cfg.hasSecrets() {
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf(
			"%s holds secrets but is readable by other users (mode %04o); chmod 600 it", path, fi.Mode().Perm()))
	}
	return cfg, nil
}

// hasSecrets reports whether the file set a secret value.
func (c *Config) hasSecrets() bool {
	return c.Database.Passphrase != "" || c.JWTAuth.Secret != "" || c.Database.Postgres.DSN != ""
}

// Parse decodes and validates a TOML document. On failure the error joins
// every problem found (see FieldError, UnknownKeyError, SyntaxError). Keys
// that are absent take their defaults; the SQLite db_file stays "" unless
// set (see SetDataDir), as do the secrets (see ApplySecrets).
func Parse(data []byte) (*Config, error) {
	var raw fileConfig
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		return nil, decodeError(data, err)
	}
	var errs, warns problems
	checkUndecoded(md.Undecoded(), &errs, &warns)
	cfg := resolve(&raw, &errs, &warns)
	if len(errs.errs) > 0 {
		return nil, errors.Join(errs.errs...)
	}
	for _, w := range warns.errs {
		cfg.Warnings = append(cfg.Warnings, w.Error())
	}
	return cfg, nil
}

// resolve turns the raw document into a Config, recording problems.
func resolve(raw *fileConfig, errs, warns *problems) *Config {
	cfg := &Config{
		Default:   resolveDefault(&raw.Default, errs),
		Logging:   resolveLogging(&raw.Logging, &raw.Default, errs, warns),
		Metrics:   resolveMetrics(&raw.Metrics, errs),
		JWTAuth:   resolveJWT(&raw.JWTAuth, errs, warns),
		APIServer: resolveAPIServer(&raw.APIServer, errs),
		Database:  resolveDatabase(&raw.Database, errs),
		Providers: resolveProviders(raw.Providers, errs, warns),
		Reconcile: resolveReconcile(&raw.Reconcile, errs),
		Server:    resolveServer(&raw.Server, errs),
	}
	warnWithoutEffect(cfg, warns)
	return cfg
}

// warnWithoutEffect warns about settings that are accepted but have no effect as set:
// one that depends on another setting, and one garrison ignores.
func warnWithoutEffect(c *Config, warns *problems) {
	if c.Database.Debug && c.Logging.Level > slog.LevelDebug {
		warns.field("database.debug", `SQL statements are logged at debug level: set [logging] log_level = "debug" to see them`)
	}
	if c.APIServer.TLS.CACertificate != "" {
		warns.field("apiserver.tls.ca_certificate", "is ignored: garrison does not request client certificates")
	}
	if c.Server.LeaseTTL != DefaultLeaseTTL && c.Database.Backend != BackendPostgres {
		warns.field("server.lease_ttl", "has no effect with SQLite: only replicas sharing a PostgreSQL database take claims")
	}
}

// decodeError turns a decoder failure into typed errors. Syntax errors come
// back as *SyntaxError. A type mismatch stops the decoder at the first bad
// key, so the document is walked again generically to report every
// mismatch (and unknown key) at once.
func decodeError(data []byte, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &SyntaxError{Line: pe.Position.Line, Column: pe.Position.Col, Message: pe.Message}
	}
	var doc map[string]any
	if _, gerr := toml.Decode(string(data), &doc); gerr != nil {
		return fmt.Errorf("decoding: %w", err)
	}
	var p problems
	checkTypes(&p, "", doc, fileType)
	if len(p.errs) == 0 {
		return fmt.Errorf("decoding: %w", err)
	}
	return errors.Join(p.errs...)
}
