package dockerprovider

import (
	"errors"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
)

// ErrConfig marks an invalid provider config file.
var ErrConfig = errors.New("invalid docker provider config")

// Config is the provider's TOML configuration.
type Config struct {
	// Host is the daemon address (unix:// or tcp://).
	Host string `toml:"host"`
	// TLS files for tcp:// hosts.
	TLSCACert string `toml:"tls_ca_cert"`
	TLSCert   string `toml:"tls_cert"`
	TLSKey    string `toml:"tls_key"`
	// Network is the network containers join (default "bridge").
	Network string `toml:"network"`
	// StopTimeoutSeconds bounds a clean stop before SIGKILL.
	StopTimeoutSeconds int `toml:"stop_timeout_seconds"`
	// Flavors add to or override the built-in flavor table.
	Flavors map[string]Limits `toml:"flavors"`
}

// Limits are a container's resource limits; zero means unlimited.
type Limits struct {
	CPUs      float64 `toml:"cpus" json:"cpus"`
	MemoryMiB int64   `toml:"memory_mib" json:"memory_mib"`
}

// DefaultFlavors is the built-in flavor table.
var DefaultFlavors = map[string]Limits{
	"small":  {CPUs: 1, MemoryMiB: 1024},
	"medium": {CPUs: 2, MemoryMiB: 4096},
	"large":  {CPUs: 4, MemoryMiB: 8192},
	"xlarge": {CPUs: 8, MemoryMiB: 16384},
}

// LoadConfig reads and validates the TOML file at path; unknown keys are
// refused.
func LoadConfig(path string) (Config, error) {
	var c Config
	md, err := toml.DecodeFile(path, &c)
	if err != nil {
		return c, fmt.Errorf("%w: %s: %w", ErrConfig, path, err)
	}
	if undec := md.Undecoded(); len(undec) > 0 {
		return c, fmt.Errorf("%w: %s: unknown keys %v", ErrConfig, path, undec)
	}
	if err := c.normalize(); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// normalize fills defaults and validates.
func (c *Config) normalize() error {
	if c.Network == "" {
		c.Network = "bridge"
	}
	if c.Network == "host" || strings.HasPrefix(c.Network, "container:") {
		return fmt.Errorf("%w: network %q is not allowed: runners get their own network namespace", ErrConfig, c.Network)
	}
	if c.StopTimeoutSeconds <= 0 {
		c.StopTimeoutSeconds = 10
	}
	if c.Host != "" && !strings.HasPrefix(c.Host, "unix://") && !strings.HasPrefix(c.Host, "tcp://") {
		return fmt.Errorf("%w: host %q must start with unix:// or tcp://", ErrConfig, c.Host)
	}
	for name, l := range c.Flavors {
		if l.CPUs < 0 || l.MemoryMiB < 0 {
			return fmt.Errorf("%w: flavor %q has negative limits", ErrConfig, name)
		}
	}
	return nil
}

// flavor returns the limits of a flavor: config first, then built-ins;
// "" has none.
func (c Config) flavor(name string) (Limits, bool) {
	if name == "" {
		return Limits{}, true
	}
	if l, ok := c.Flavors[name]; ok {
		return l, true
	}
	l, ok := DefaultFlavors[name]
	return l, ok
}
