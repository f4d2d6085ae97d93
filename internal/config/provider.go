package config

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// DefaultProviderExecutable is the file looked for in provider_dir.
const DefaultProviderExecutable = "garm-external-provider"

// resolveProviders checks every [[provider]] and that names are unique.
func resolveProviders(raw []fileProvider, errs, warns *problems) []Provider {
	out := make([]Provider, 0, len(raw))
	seen := map[string]int{}
	for i := range raw {
		key := fmt.Sprintf("provider[%d]", i)
		p := resolveProvider(key, &raw[i], errs, warns)
		if first, dup := seen[p.Name]; dup && p.Name != "" {
			errs.field(key+".name", "duplicate provider name %q (also provider[%d])", p.Name, first)
		} else {
			seen[p.Name] = i
		}
		out = append(out, p)
	}
	return out
}

// resolveProvider checks one [[provider]]; key is "provider[i]".
func resolveProvider(key string, r *fileProvider, errs, warns *problems) Provider {
	if r.Name == "" {
		errs.field(key+".name", "is required")
	}
	if r.ProviderType != "external" {
		errs.field(key+".provider_type", `must be "external", got %q (garrison runs providers as external executables)`, r.ProviderType)
	}
	ext := &r.External
	out := Provider{
		Name:                 r.Name,
		Description:          r.Description,
		DisableJITConfig:     r.DisableJITConfig,
		ConfigFile:           ext.ConfigFile,
		EnvironmentVariables: ext.EnvironmentVariables,
		InterfaceVersion:     resolveInterfaceVersion(key, ext.InterfaceVersion, errs),
		Executable:           resolveExecutable(key, ext, errs),
	}
	checkConfigFile(errs, key+".external.config_file", ext.ConfigFile)
	checkEnvPrefixes(key, ext.EnvironmentVariables, errs, warns)
	timeout := pickInt(key, "exec_timeout_seconds", r.ExecTimeoutSeconds, ext.ExecTimeoutSeconds, 0, errs)
	if timeout < 0 {
		errs.field(key+".external.exec_timeout_seconds", "must be >= 0 (0 = no limit), got %d", timeout)
	}
	out.ExecTimeout = time.Duration(timeout) * time.Second
	out.CommandTimeouts = resolveCommandTimeouts(key, ext.CommandTimeouts, errs)
	out.MaxConcurrency = pickInt(key, "max_concurrency", r.MaxConcurrency, ext.MaxConcurrency, DefaultMaxConcurrency, errs)
	if out.MaxConcurrency < 1 {
		errs.field(key+".external.max_concurrency", "must be >= 1, got %d", out.MaxConcurrency)
	}
	return out
}

// pickInt reads a knob that may be set in [[provider]] or in
// [provider.external]; both is fine only if they agree.
func pickInt(key, name string, top, ext *int, def int, errs *problems) int {
	switch {
	case top != nil && ext != nil && *top != *ext:
		errs.field(key+"."+name, "is also set in [provider.external] with a different value (%d != %d); set it once", *top, *ext)
		return *ext
	case ext != nil:
		return *ext
	case top != nil:
		return *top
	}
	return def
}

// resolveInterfaceVersion maps "" to v0.1.0 and rejects unknown versions.
func resolveInterfaceVersion(key, v string, errs *problems) string {
	switch v {
	case "", InterfaceV010:
		return InterfaceV010
	case InterfaceV011:
		return InterfaceV011
	}
	errs.field(key+".external.interface_version", `must be "", "v0.1.0" or "v0.1.1", got %q`, v)
	return v
}

// resolveExecutable finds the provider executable and checks that it is an
// absolute path to an existing, executable regular file.
func resolveExecutable(key string, ext *fileExternal, errs *problems) string {
	path, field := ext.ProviderExecutable, key+".external.provider_executable"
	if path == "" {
		if ext.ProviderDir == "" {
			errs.field(field, "is required (or set provider_dir)")
			return ""
		}
		path, field = filepath.Join(ext.ProviderDir, DefaultProviderExecutable), key+".external.provider_dir"
	}
	if !filepath.IsAbs(path) {
		errs.field(field, "must be an absolute path, got %q", path)
		return path
	}
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		errs.field(field, "provider executable %q: %v", path, statProblem(err))
	case !fi.Mode().IsRegular():
		errs.field(field, "provider executable %q is not a regular file", path)
	case fi.Mode().Perm()&0o111 == 0:
		errs.field(field, "provider executable %q is not executable (chmod +x it)", path)
	}
	return path
}

// checkConfigFile accepts "" or an absolute path to an existing file.
func checkConfigFile(errs *problems, key, path string) {
	if path == "" {
		return
	}
	if !filepath.IsAbs(path) {
		errs.field(key, "must be an absolute path, got %q", path)
		return
	}
	if fi, err := os.Stat(path); err != nil {
		errs.field(key, "%q: %v", path, statProblem(err))
	} else if fi.IsDir() {
		errs.field(key, "%q is a directory, not a file", path)
	}
}

// statProblem shortens an os.Stat error for a message.
func statProblem(err error) string {
	switch {
	case os.IsNotExist(err):
		return "does not exist"
	case os.IsPermission(err):
		return "permission denied"
	}
	return err.Error()
}

// checkEnvPrefixes rejects empty prefixes (they would pass everything) and
// warns about GARM* ones, which are never passed through.
func checkEnvPrefixes(key string, prefixes []string, errs, warns *problems) {
	for i, p := range prefixes {
		switch {
		case p == "":
			errs.field(key+".external.environment_variables", "item %d is empty (it would pass the whole environment)", i)
		case strings.HasPrefix(p, "GARM"):
			warns.field(key+".external.environment_variables", "%q has no effect: GARM* variables are never passed through", p)
		}
	}
}

// DefaultCommandTimeouts bound the provider commands that should answer quickly, so that
// a provider that hangs is killed and counted as a failure instead of holding its
// budget for ever. CreateInstance is bounded by the pool's bootstrap timeout, and
// RemoveAllInstances may take long: neither has a default.
var DefaultCommandTimeouts = map[string]time.Duration{
	"DeleteInstance": 5 * time.Minute, "GetInstance": time.Minute, "ListInstances": 2 * time.Minute,
	"StartInstance": 5 * time.Minute, "StopInstance": 5 * time.Minute,
	"GetVersion": time.Minute, "GetSupportedInterfaceVersions": time.Minute, "ValidatePoolInfo": time.Minute,
	"GetConfigJSONSchema": time.Minute, "GetExtraSpecsJSONSchema": time.Minute,
}

// providerCommands are the command names command_timeouts accepts.
var providerCommands = []string{"CreateInstance", "DeleteInstance", "GetInstance", "ListInstances", "RemoveAllInstances",
	"StartInstance", "StopInstance", "GetVersion", "GetSupportedInterfaceVersions", "ValidatePoolInfo",
	"GetConfigJSONSchema", "GetExtraSpecsJSONSchema"}

// resolveCommandTimeouts checks command_timeouts and fills in the defaults.
func resolveCommandTimeouts(key string, raw map[string]int, errs *problems) map[string]time.Duration {
	out := maps.Clone(DefaultCommandTimeouts)
	for _, cmd := range slices.Sorted(maps.Keys(raw)) {
		secs := raw[cmd]
		switch {
		case !slices.Contains(providerCommands, cmd):
			errs.field(key+".external.command_timeouts", "unknown command %q (one of %s)", cmd, strings.Join(providerCommands, ", "))
		case secs <= 0:
			errs.field(key+".external.command_timeouts", "%s must be > 0 seconds, got %d", cmd, secs)
		default:
			out[cmd] = time.Duration(secs) * time.Second
		}
	}
	return out
}
