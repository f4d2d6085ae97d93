package providerexec

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/garrison-ci/garrison/provider"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultExecTimeout    = 10 * time.Minute
	DefaultMaxConcurrency = 10
	DefaultMaxStdout      = 1 << 20
	DefaultMaxStderr      = 64 << 10
	DefaultDrainTimeout   = 2 * time.Second
)

// ErrInvalidConfig is wrapped by every Config validation error.
var ErrInvalidConfig = errors.New("invalid provider configuration")

// Config describes one external provider.
type Config struct {
	// Name is the provider name pools refer to.
	Name string
	// Executable is the absolute path of the provider executable.
	Executable string
	// ConfigFile is the provider's own config file, sent as
	// GARM_PROVIDER_CONFIG_FILE. Optional here; SDK providers need it.
	ConfigFile string
	// InterfaceVersion is "", "v0.1.0" or "v0.1.1" ("" means v0.1.0).
	InterfaceVersion string
	// EnvPrefixes names the variables of garrison's own environment that are
	// passed through (by prefix). The six proxy variables are always added;
	// variables starting with GARM never pass.
	EnvPrefixes []string
	// ExecTimeout bounds every call; 0 means DefaultExecTimeout and a
	// negative value means no limit other than the caller's context.
	ExecTimeout time.Duration
	// CommandTimeouts bound single commands (by GARM_COMMAND value) more tightly than
	// ExecTimeout: a provider that does not answer in time is killed with its whole
	// process group and the call fails with ErrTimeout. Values must be positive.
	CommandTimeouts map[provider.Command]time.Duration
	// MaxConcurrency bounds simultaneous executions (0: default).
	MaxConcurrency int
	// ControllerID is sent as GARM_CONTROLLER_ID.
	ControllerID string
	// MaxStdout caps the bytes read from stdout (0: default). A provider
	// printing more is killed and the call fails with ErrBadOutput.
	MaxStdout int64
	// MaxStderr is how many trailing bytes of stderr are kept (0: default).
	MaxStderr int
	// DrainTimeout bounds waiting for stdout/stderr to close once the
	// provider has exited or been killed (0: default).
	DrainTimeout time.Duration

	// Logger receives one line per failed call (and stderr of successful
	// calls at debug level). nil discards.
	Logger *slog.Logger
	// Observer is told about every call. nil is a no-op.
	Observer Observer
	// Environ returns garrison's own environment ("KEY=value" entries) from
	// which pass-through variables are taken. nil means os.Environ.
	Environ func() []string
}

// Observer is told about the duration and outcome of every provider call.
type Observer interface {
	ObserveProviderCall(provider, command string, d time.Duration, err error)
}

// Validate checks the configuration: name, absolute executable path of an
// existing executable regular file, interface version, controller id,
// config file (absolute and present when set) and the env prefixes.
func (c Config) Validate() error {
	if c.Name == "" {
		return fmt.Errorf("%w: provider name is empty", ErrInvalidConfig)
	}
	if err := checkExecutable(c.Executable); err != nil {
		return fmt.Errorf("%w: provider %q: %w", ErrInvalidConfig, c.Name, err)
	}
	if _, ok := provider.NormalizeInterfaceVersion(c.InterfaceVersion); !ok {
		return fmt.Errorf("%w: provider %q: interface_version %q is not one of \"\", v0.1.0, v0.1.1",
			ErrInvalidConfig, c.Name, c.InterfaceVersion)
	}
	if c.ControllerID == "" {
		return fmt.Errorf("%w: provider %q: controller id is empty", ErrInvalidConfig, c.Name)
	}
	if c.ConfigFile != "" {
		if !filepath.IsAbs(c.ConfigFile) {
			return fmt.Errorf("%w: provider %q: config_file %q is not an absolute path", ErrInvalidConfig, c.Name, c.ConfigFile)
		}
		if _, err := os.Lstat(c.ConfigFile); err != nil {
			return fmt.Errorf("%w: provider %q: config_file: %w", ErrInvalidConfig, c.Name, err)
		}
	}
	for _, p := range c.EnvPrefixes {
		if strings.TrimSpace(p) == "" || strings.Contains(p, "=") {
			return fmt.Errorf("%w: provider %q: environment variable prefix %q is empty or contains '='",
				ErrInvalidConfig, c.Name, p)
		}
	}
	for cmd, d := range c.CommandTimeouts {
		if !knownCommand(cmd) || d <= 0 {
			return fmt.Errorf("%w: provider %q: command timeout %s=%v: unknown command or not positive", ErrInvalidConfig, c.Name, cmd, d)
		}
	}
	if c.MaxConcurrency < 0 || c.MaxStdout < 0 || c.MaxStderr < 0 || c.DrainTimeout < 0 {
		return fmt.Errorf("%w: provider %q: negative limit", ErrInvalidConfig, c.Name)
	}
	return nil
}

// checkExecutable reports why path is not an absolute path of an existing,
// executable regular file.
func checkExecutable(path string) error {
	if path == "" {
		return errors.New("provider executable is not set")
	}
	if !filepath.IsAbs(path) {
		return fmt.Errorf("provider executable %q is not an absolute path", path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("provider executable: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("provider executable %q is not a regular file", path)
	}
	if fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("provider executable %q is not executable", path)
	}
	return nil
}

// withDefaults returns c with zero limits replaced by the defaults.
func (c Config) withDefaults() Config {
	if c.ExecTimeout == 0 {
		c.ExecTimeout = DefaultExecTimeout
	}
	if c.MaxConcurrency == 0 {
		c.MaxConcurrency = DefaultMaxConcurrency
	}
	if c.MaxStdout == 0 {
		c.MaxStdout = DefaultMaxStdout
	}
	if c.MaxStderr == 0 {
		c.MaxStderr = DefaultMaxStderr
	}
	if c.DrainTimeout == 0 {
		c.DrainTimeout = DefaultDrainTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Environ == nil {
		c.Environ = os.Environ
	}
	return c
}

// knownCommand reports whether cmd is a command of the provider contract.
func knownCommand(cmd provider.Command) bool {
	switch cmd {
	case provider.GetVersion, provider.GetSupportedInterfaceVersions, provider.ValidatePoolInfo,
		provider.GetConfigJSONSchema, provider.GetExtraSpecsJSONSchema:
		return true
	}
	return cmd.IsInstanceCommand()
}

// timeoutFor is the time limit of one command: the smaller of ExecTimeout (when
// positive) and the command's own; 0 when neither applies.
func (c Config) timeoutFor(cmd provider.Command) time.Duration {
	d := max(c.ExecTimeout, 0)
	if own, ok := c.CommandTimeouts[cmd]; ok && (d == 0 || own < d) {
		d = own
	}
	return d
}
