package simprovider

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/BurntSushi/toml"
)

// Config is the sim provider's TOML configuration.
type Config struct {
	StateDir string `toml:"state_dir"`
	Behaviour
}

// Behaviour controls how CreateInstance misbehaves; pool extra specs may
// override each field.
type Behaviour struct {
	BootDelay   Duration `toml:"boot_delay" json:"boot_delay"`
	FailureRate float64  `toml:"failure_rate" json:"failure_rate"`
	Hang        bool     `toml:"hang" json:"hang"`
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
		return c, fmt.Errorf("sim config %s: state_dir must be an absolute path", path)
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
	return b, b.validate()
}
