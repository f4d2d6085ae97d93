package sdk

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"

	"github.com/garrison-ci/garrison/provider"
)

// Environment is the validated GARM_* environment of one invocation.
type Environment struct {
	Command          provider.Command
	ControllerID     string
	ConfigFile       string
	InterfaceVersion string // v0.1.0 or v0.1.1
	PoolID           string
	InstanceID       string
	// PoolExtraSpecs is GARM_POOL_EXTRASPECS decoded from base64 (v0.1.1);
	// nil when absent or JSON null. For CreateInstance prefer
	// BootstrapInstance.ExtraSpecs.
	PoolExtraSpecs json.RawMessage
}

// readEnvironment reads and validates the environment for its command
// (spec §4 "SDK validation").
func readEnvironment(getenv func(string) string) (Environment, error) {
	env := Environment{
		Command:      provider.Command(getenv(provider.EnvCommand)),
		ControllerID: getenv(provider.EnvControllerID),
		ConfigFile:   getenv(provider.EnvProviderConfig),
		PoolID:       getenv(provider.EnvPoolID),
		InstanceID:   getenv(provider.EnvInstanceID),
	}
	version, ok := provider.NormalizeInterfaceVersion(getenv(provider.EnvInterfaceVersion))
	if !ok {
		return env, fmt.Errorf("unsupported interface version %q", getenv(provider.EnvInterfaceVersion))
	}
	env.InterfaceVersion = version
	if err := env.validateCommon(); err != nil {
		return env, err
	}
	if err := env.validateForCommand(); err != nil {
		return env, err
	}
	if version == provider.InterfaceV011 {
		specs, err := decodeExtraSpecs(getenv(provider.EnvPoolExtraSpecs))
		if err != nil {
			return env, err
		}
		env.PoolExtraSpecs = specs
	}
	return env, nil
}

// validateCommon applies the checks shared by every command.
func (e Environment) validateCommon() error {
	switch {
	case e.Command == "":
		return fmt.Errorf("missing %s", provider.EnvCommand)
	case !e.Command.Valid():
		return fmt.Errorf("unknown %s %q", provider.EnvCommand, e.Command)
	case e.Command.IsV011Only() && e.InterfaceVersion != provider.InterfaceV011:
		return fmt.Errorf("command %s requires interface version %s", e.Command, provider.InterfaceV011)
	case e.ConfigFile == "":
		return fmt.Errorf("missing %s", provider.EnvProviderConfig)
	case e.ControllerID == "":
		return fmt.Errorf("missing %s", provider.EnvControllerID)
	}
	if _, err := os.Lstat(e.ConfigFile); err != nil {
		return fmt.Errorf("provider config file: %w", err)
	}
	return nil
}

// validateForCommand checks the per-command variables.
func (e Environment) validateForCommand() error {
	needPool := e.Command == provider.CreateInstance || e.Command == provider.ListInstances ||
		e.Command.TakesInstanceID() && e.InterfaceVersion == provider.InterfaceV011
	if needPool && e.PoolID == "" {
		return fmt.Errorf("missing %s", provider.EnvPoolID)
	}
	if e.Command.TakesInstanceID() && e.InstanceID == "" {
		return fmt.Errorf("missing %s", provider.EnvInstanceID)
	}
	return nil
}

// decodeExtraSpecs decodes GARM_POOL_EXTRASPECS; "" and null give nil. Refusals match
// ErrInvalidInput.
func decodeExtraSpecs(v string) (json.RawMessage, error) {
	if v == "" {
		return nil, nil
	}
	raw, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return nil, invalidInput{fmt.Errorf("decoding %s: %w", provider.EnvPoolExtraSpecs, err)}
	}
	if !json.Valid(raw) {
		return nil, invalidInput{fmt.Errorf("%s is not valid JSON", provider.EnvPoolExtraSpecs)}
	}
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	return raw, nil
}
