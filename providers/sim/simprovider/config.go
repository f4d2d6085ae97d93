package simprovider

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Config is the sim provider's TOML configuration.
type Config struct {
	StateDir string `toml:"state_dir"`
	Behaviour
	Boot
}

// Boot modes.
const (
	// BootRecord keeps instances as records only (the default).
	BootRecord = "record"
	// BootScript also runs each instance's rendered runner install template.
	BootScript = "script"
)

// DefaultBootPath is the PATH of boot scripts when boot_path is not set.
const DefaultBootPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// Boot selects whether and how instances really boot. Providers get no environment from
// garrison, so everything the boot script needs comes from here.
type Boot struct {
	// Mode is "record" (default) or "script".
	Mode string `toml:"boot"`
	// Path is the boot script's PATH (default DefaultBootPath).
	Path string `toml:"boot_path"`
	// RunnerCache, when set, is passed as GARRISON_RUNNER_CACHE: a directory holding an
	// unpacked runner that the install script copies instead of downloading.
	RunnerCache string `toml:"runner_cache"`
	// Env holds further variables for the boot script (for example
	// GARRISON_STANDIN_JOB_DURATION or NO_PROXY). They cannot override the ones the
	// provider sets itself.
	Env map[string]string `toml:"boot_env"`
}

// ErrInvalidConfig is wrapped by configuration errors.
var ErrInvalidConfig = errors.New("invalid sim configuration")

// withDefaults fills the zero fields of b.
func (b Boot) withDefaults() Boot {
	if b.Mode == "" {
		b.Mode = BootRecord
	}
	if b.Path == "" {
		b.Path = DefaultBootPath
	}
	return b
}

// validate checks the mode and paths.
func (b Boot) validate() error {
	switch {
	case b.Mode != BootRecord && b.Mode != BootScript:
		return fmt.Errorf("%w: boot %q is not %q or %q", ErrInvalidConfig, b.Mode, BootRecord, BootScript)
	case b.RunnerCache != "" && !filepath.IsAbs(b.RunnerCache):
		return fmt.Errorf("%w: runner_cache must be an absolute path", ErrInvalidConfig)
	}
	for k := range b.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("%w: boot_env name %q", ErrInvalidConfig, k)
		}
	}
	return nil
}

// Behaviour controls how CreateInstance misbehaves; pool extra specs may
// override each field.
type Behaviour struct {
	BootDelay   Duration `toml:"boot_delay" json:"boot_delay"`
	FailureRate float64  `toml:"failure_rate" json:"failure_rate"`
	Hang        bool     `toml:"hang" json:"hang"`
	// RenameSuffix, when set, makes CreateInstance report (and keep) the instance
	// under its name plus this suffix: a provider that names instances its own way.
	RenameSuffix string `toml:"rename_suffix" json:"rename_suffix"`
}

// Duration is a time.Duration written as a Go duration string.
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration such as "1.5s".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

// MarshalText renders the duration.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// LoadConfig reads and validates the TOML config file.
func LoadConfig(path string) (Config, error) {
	var c Config
	if _, err := toml.DecodeFile(path, &c); err != nil {
		return c, fmt.Errorf("sim config %s: %w", path, err)
	}
	if c.StateDir == "" || !filepath.IsAbs(c.StateDir) {
		return c, fmt.Errorf("sim config %s: %w: state_dir must be an absolute path", path, ErrInvalidConfig)
	}
	c.Boot = c.Boot.withDefaults()
	if err := c.Boot.validate(); err != nil {
		return c, fmt.Errorf("sim config %s: %w", path, err)
	}
	return c, c.Behaviour.validate()
}

// validate checks the ranges of b.
func (b Behaviour) validate() error {
	if b.FailureRate < 0 || b.FailureRate > 1 {
		return fmt.Errorf("failure_rate %v is not within 0..1", b.FailureRate)
	}
	if b.BootDelay.Duration < 0 {
		return errors.New("boot_delay is negative")
	}
	return nil
}

// withExtraSpecs returns b overridden by the keys present in specs (a JSON
// object; null or empty leaves b unchanged).
func (b Behaviour) withExtraSpecs(specs json.RawMessage) (Behaviour, error) {
	if len(specs) == 0 || string(specs) == "null" {
		return b, nil
	}
	var o struct {
		BootDelay   *Duration `json:"boot_delay"`
		FailureRate *float64  `json:"failure_rate"`
		Hang        *bool     `json:"hang"`
		Rename      *string   `json:"rename_suffix"`
	}
	if err := json.Unmarshal(specs, &o); err != nil {
		return b, fmt.Errorf("extra specs: %w", err)
	}
	if o.BootDelay != nil {
		b.BootDelay = *o.BootDelay
	}
	if o.FailureRate != nil {
		b.FailureRate = *o.FailureRate
	}
	if o.Hang != nil {
		b.Hang = *o.Hang
	}
	if o.Rename != nil {
		b.RenameSuffix = *o.Rename
	}
	return b, b.validate()
}
