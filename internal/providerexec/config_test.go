package providerexec

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestConfigValidate(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "plain")
	if err := os.WriteFile(notExec, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := Config{Name: "p", Executable: fakeExe, ControllerID: "c"}
	tests := []struct {
		name   string
		mutate func(*Config)
		ok     bool
	}{
		{"valid", func(*Config) {}, true},
		{"v0.1.1", func(c *Config) { c.InterfaceVersion = "v0.1.1" }, true},
		{"no name", func(c *Config) { c.Name = "" }, false},
		{"relative path", func(c *Config) { c.Executable = "fakeprovider" }, false},
		{"missing file", func(c *Config) { c.Executable = filepath.Join(dir, "nope") }, false},
		{"directory", func(c *Config) { c.Executable = dir }, false},
		{"not executable", func(c *Config) { c.Executable = notExec }, false},
		{"bad version", func(c *Config) { c.InterfaceVersion = "v0.2.0" }, false},
		{"no controller", func(c *Config) { c.ControllerID = "" }, false},
		{"relative config file", func(c *Config) { c.ConfigFile = "x.toml" }, false},
		{"missing config file", func(c *Config) { c.ConfigFile = filepath.Join(dir, "x.toml") }, false},
		{"empty prefix", func(c *Config) { c.EnvPrefixes = []string{""} }, false},
		{"negative limit", func(c *Config) { c.MaxConcurrency = -1 }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := good
			tt.mutate(&cfg)
			_, err := New(cfg)
			if tt.ok != (err == nil) {
				t.Fatalf("New() error = %v, want ok=%v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("error %v does not wrap ErrInvalidConfig", err)
			}
		})
	}
}
