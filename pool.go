package garrison

import (
	"encoding/json"
	"strings"
	"time"
)

// OS types and architectures a pool may ask for.
const (
	OSLinux   = "linux"
	OSWindows = "windows"
	ArchAMD64 = "amd64"
	ArchARM   = "arm"
	ArchARM64 = "arm64"
)

// Pool defaults.
const (
	DefaultRunnerPrefix           = "garm"
	DefaultRunnerBootstrapTimeout = 20 // minutes
)

// ValidOSType reports whether s is an OS type pools accept.
func ValidOSType(s string) bool { return s == OSLinux || s == OSWindows }

// ValidOSArch reports whether s is an architecture pools accept.
func ValidOSArch(s string) bool { return s == ArchAMD64 || s == ArchARM || s == ArchARM64 }

// Pool is a set of identical runners for one entity, created by one provider.
type Pool struct {
	ID                     string // UUID
	EntityID               string
	EntityType             EntityType
	ProviderName           string
	RunnerPrefix           string
	MaxRunners             uint
	MinIdleRunners         uint
	Image                  string
	Flavor                 string
	OSType                 string
	OSArch                 string
	Tags                   []Tag // names unique case-insensitively; IDs filled by the store
	Enabled                bool
	RunnerBootstrapTimeout uint            // minutes; 0 means the default
	ExtraSpecs             json.RawMessage // opaque JSON, stored verbatim; nil when unset
	RunnerGroup            string
	Priority               uint
	EnableShell            bool
	Generation             uint64 // bumped when the runner definition changes
	TemplateID             uint
	ProxyID                uint
	CreatedAt              time.Time
	UpdatedAt              time.Time
}

// BootstrapTimeout returns the effective bootstrap timeout in minutes.
func (p Pool) BootstrapTimeout() uint {
	if p.RunnerBootstrapTimeout == 0 {
		return DefaultRunnerBootstrapTimeout
	}
	return p.RunnerBootstrapTimeout
}

// Validate checks the invariants every stored pool must satisfy.
func (p Pool) Validate() error {
	switch {
	case p.ProviderName == "":
		return Errorf(EInvalid, "missing provider")
	case p.MaxRunners == 0:
		return Errorf(EInvalid, "max_runners must be greater than 0")
	case p.MinIdleRunners > p.MaxRunners:
		return Errorf(EInvalid, "min_idle_runners cannot be larger than max_runners")
	case len(p.Tags) == 0:
		return Errorf(EInvalid, "missing tags")
	case p.Flavor == "":
		return Errorf(EInvalid, "missing flavor")
	case p.Image == "":
		return Errorf(EInvalid, "missing image")
	case !ValidOSType(p.OSType):
		return Errorf(EInvalid, "invalid OS type %s", p.OSType)
	case !ValidOSArch(p.OSArch):
		return Errorf(EInvalid, "invalid OS architecture %s", p.OSArch)
	case len(p.ExtraSpecs) > 0 && !json.Valid(p.ExtraSpecs):
		return Errorf(EInvalid, "extra_specs is not valid JSON")
	}
	for _, t := range p.Tags {
		if strings.TrimSpace(t.Name) == "" {
			return Errorf(EInvalid, "empty tag")
		}
	}
	return nil
}

// HasLabels reports whether every label is among the pool's tags (case-insensitive).
// Job labels match a pool when they are a subset of its tags.
func (p Pool) HasLabels(labels []string) bool {
	for _, l := range labels {
		found := false
		for _, t := range p.Tags {
			if strings.EqualFold(l, t.Name) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Tag is a pool label. Tags are global: one ID per name (case-insensitive).
type Tag struct {
	ID   string
	Name string
}

// TagNames returns the names of the pool's tags.
func (p Pool) TagNames() []string {
	out := make([]string, len(p.Tags))
	for i, t := range p.Tags {
		out[i] = t.Name
	}
	return out
}

// TagsFromNames builds tags without IDs from names, normalised by NormalizeTags.
func TagsFromNames(names []string) []Tag {
	names = NormalizeTags(names)
	out := make([]Tag, len(names))
	for i, n := range names {
		out[i] = Tag{Name: n}
	}
	return out
}

// NormalizeTags trims, drops empty and case-insensitive duplicate tags, keeping order.
func NormalizeTags(tags []string) []string {
	out := make([]string, 0, len(tags))
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		t = strings.TrimSpace(t)
		k := strings.ToLower(t)
		if t == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, t)
	}
	return out
}

// RunnerGroupFor is the runner group the pool's runners join when the pool belongs to an
// entity of type t. Repositories have no runner groups: a repository pool's setting is
// ignored (as GARM does) and its runners join the default group, "".
func (p Pool) RunnerGroupFor(t EntityType) string {
	if t == Repository {
		return ""
	}
	return p.RunnerGroup
}
