package incusprovider

import (
	"encoding/json"
	"fmt"

	"github.com/garrison-ci/garrison/providers/internal/userdata"
)

// ExtraSpecs are the pool extra specs this provider accepts: the common
// keys plus resource limits that apply instead of (or on top of) the
// flavor's profile.
type ExtraSpecs struct {
	userdata.Spec
	// CPUs sets limits.cpu.
	CPUs int `json:"cpus,omitempty"`
	// MemoryMiB sets limits.memory.
	MemoryMiB int `json:"memory_mib,omitempty"`
}

// HasLimits reports whether the specs set resource limits.
func (s ExtraSpecs) HasLimits() bool { return s.CPUs > 0 || s.MemoryMiB > 0 }

// ParseExtraSpecs decodes a pool's extra specs strictly: empty or null is
// no specs, anything but an object or an unknown key is an error.
func ParseExtraSpecs(raw json.RawMessage) (ExtraSpecs, error) {
	var s ExtraSpecs
	if err := userdata.DecodeStrict(raw, &s); err != nil {
		return s, err
	}
	if s.CPUs < 0 || s.MemoryMiB < 0 {
		return s, fmt.Errorf("%w: cpus and memory_mib must not be negative", userdata.ErrInvalidSpec)
	}
	return s, s.Validate()
}

// ExtraSpecsSchema is the closed JSON schema of ExtraSpecs.
func ExtraSpecsSchema() json.RawMessage {
	props := userdata.SchemaProperties()
	props["cpus"] = map[string]any{"type": "integer", "minimum": 0, "description": "limits.cpu"}
	props["memory_mib"] = map[string]any{"type": "integer", "minimum": 0, "description": "limits.memory in MiB"}
	return userdata.Schema("garrison incus provider extra specs", props)
}
