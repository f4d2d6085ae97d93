package config

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"
)

// Default values of keys that are absent from the file.
const (
	DefaultBind          = "127.0.0.1"
	DefaultPort          = 9997
	DefaultDBFileName    = "garrison.db"
	DefaultMetricsPeriod = 60 * time.Second
	DefaultBusyTimeout   = 5 * time.Second
)

// Default returns the configuration used when no config file exists: listen
// on 127.0.0.1:9997, SQLite at <dataDir>/garrison.db, metrics enabled with
// authentication, log level info in text format, JWT time to live 24h and no
// providers. Secrets are empty: fill them with ApplySecrets.
func Default(dataDir string) *Config {
	c := &Config{
		Logging:   Logging{Format: LogFormatText, Level: slog.LevelInfo},
		Metrics:   Metrics{Enable: true, Period: DefaultMetricsPeriod},
		JWTAuth:   JWTAuth{TimeToLive: MinJWTTTL},
		APIServer: APIServer{Bind: DefaultBind, Port: DefaultPort, WebUI: true},
		Reconcile: defaultReconcile(),
		Server:    defaultServer(),
		Objects:   ObjectStore{MaxObjectSize: DefaultMaxObjectSize},
		Database: Database{
			Backend: BackendSQLite,
			SQLite:  SQLite{BusyTimeout: DefaultBusyTimeout},
		},
	}
	c.SetDataDir(dataDir)
	return c
}

// SetDataDir fills the settings that default to a place in the data
// directory and were not set in the file: the SQLite db_file becomes
// <dataDir>/garrison.db. Values from the file are kept.
func (c *Config) SetDataDir(dataDir string) {
	if c.Database.SQLite.DBFile == "" && dataDir != "" {
		c.Database.SQLite.DBFile = filepath.Join(dataDir, DefaultDBFileName)
	}
}

// DefaultDataDir returns $XDG_DATA_HOME/garrison, or ~/.local/share/garrison
// when XDG_DATA_HOME is unset or not absolute (the XDG base directory
// specification says relative values are to be ignored).
func DefaultDataDir() (string, error) {
	if xdg := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(xdg) {
		return filepath.Join(xdg, "garrison"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("config: finding the data directory: %w", err)
	}
	if home == "" {
		return "", errors.New("config: finding the data directory: home directory is empty")
	}
	return filepath.Join(home, ".local", "share", "garrison"), nil
}
