package dockerprovider

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/garrison-ci/garrison/providers/internal/userdata"
)

// ErrUnknownFlavor is returned for a flavor neither built in nor configured.
var ErrUnknownFlavor = errors.New("unknown flavor")

// ExtraSpecs are the pool extra specs this provider accepts: the common
// keys plus limit overrides.
type ExtraSpecs struct {
	userdata.Spec
	// CPUs overrides the flavor's CPU limit.
	CPUs float64 `json:"cpus,omitempty"`
	// MemoryMiB overrides the flavor's memory limit.
	MemoryMiB int64 `json:"memory_mib,omitempty"`
}

// ParseExtraSpecs decodes a pool's extra specs strictly.
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

// ResolveLimits returns the limits for flavor, overridden by the specs.
func (c Config) ResolveLimits(flavor string, s ExtraSpecs) (Limits, error) {
	l, ok := c.flavor(flavor)
	if !ok && (s.CPUs == 0 || s.MemoryMiB == 0) {
		return l, fmt.Errorf("%w %q (built in: small, medium, large, xlarge; or set cpus and memory_mib in extra specs)", ErrUnknownFlavor, flavor)
	}
	if s.CPUs > 0 {
		l.CPUs = s.CPUs
	}
	if s.MemoryMiB > 0 {
		l.MemoryMiB = s.MemoryMiB
	}
	return l, nil
}

// ExtraSpecsSchema is the closed JSON schema of ExtraSpecs.
func ExtraSpecsSchema() json.RawMessage {
	props := userdata.SchemaProperties()
	props["cpus"] = map[string]any{"type": "number", "minimum": 0, "description": "CPU limit (overrides the flavor)"}
	props["memory_mib"] = map[string]any{"type": "integer", "minimum": 0, "description": "memory limit in MiB (overrides the flavor)"}
	return userdata.Schema("garrison docker provider extra specs", props)
}
