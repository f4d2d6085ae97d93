package providerexec

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/garrison-ci/garrison/provider"
)

// envFlags selects the optional variables of one call.
type envFlags struct {
	poolID, instanceID, extraSpecs bool
}

// flagsFor returns which optional variables cmd sends under version v
// (spec §4 table).
func flagsFor(cmd provider.Command, v string) envFlags {
	v011 := v == provider.InterfaceV011
	switch cmd {
	case provider.CreateInstance, provider.ListInstances:
		return envFlags{poolID: true, extraSpecs: v011}
	case provider.DeleteInstance, provider.GetInstance, provider.StartInstance, provider.StopInstance:
		return envFlags{poolID: v011, instanceID: true, extraSpecs: v011}
	case provider.RemoveAllInstances:
		return envFlags{poolID: v011, extraSpecs: v011}
	case provider.ValidatePoolInfo:
		return envFlags{extraSpecs: v011}
	}
	return envFlags{}
}

// EncodeExtraSpecs returns the GARM_POOL_EXTRASPECS value for raw: standard
// padded base64 of the compact JSON; provider.NullExtraSpecs when empty.
func EncodeExtraSpecs(raw json.RawMessage) (string, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return provider.NullExtraSpecs, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return "", fmt.Errorf("%w: extra specs are not valid JSON: %w", ErrInvalidRequest, err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// buildEnv returns the exact child environment: the manager-built GARM_*
// variables followed by the pass-through variables.
func (p *Provider) buildEnv(cmd provider.Command, t provider.Target) ([]string, error) {
	f := flagsFor(cmd, p.version)
	env := []string{
		provider.EnvCommand + "=" + string(cmd),
		provider.EnvControllerID + "=" + p.cfg.ControllerID,
		provider.EnvProviderConfig + "=" + p.cfg.ConfigFile,
		provider.EnvInterfaceVersion + "=" + p.version,
	}
	if f.poolID {
		env = append(env, provider.EnvPoolID+"="+t.PoolID)
	}
	if f.instanceID {
		env = append(env, provider.EnvInstanceID+"="+t.InstanceID)
	}
	if f.extraSpecs {
		specs, err := EncodeExtraSpecs(t.ExtraSpecs)
		if err != nil {
			return nil, err
		}
		env = append(env, provider.EnvPoolExtraSpecs+"="+specs)
	}
	return append(env, p.passThrough()...), nil
}

// passThrough selects the variables of garrison's own environment whose
// names match a configured prefix or a proxy variable, never GARM*.
func (p *Provider) passThrough() []string {
	var out []string
	seen := make(map[string]bool)
	for _, kv := range p.cfg.Environ() {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || seen[name] || strings.HasPrefix(name, provider.ReservedEnvPrefix) {
			continue
		}
		if matchesPrefix(name, p.prefixes) {
			seen[name] = true
			out = append(out, kv)
		}
	}
	return out
}

// matchesPrefix reports whether name starts with one of prefixes.
func matchesPrefix(name string, prefixes []string) bool {
	for _, pre := range prefixes {
		if strings.HasPrefix(name, pre) {
			return true
		}
	}
	return false
}
