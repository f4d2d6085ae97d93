// Package providertest is the conformance kit for provider executables: it
// drives a provider binary through create, get, list, stop, start, delete,
// delete-again and remove-all using garrison's own host code, checks every
// answer against the contract and reports each failure with its reason.
//
// From a provider's tests:
//
//	func TestConformance(t *testing.T) {
//		providertest.Run(t, providertest.Options{
//			Executable: providertest.Build(t, "."),
//			ConfigFile: "testdata/config.toml",
//		})
//	}
//
// Outside tests, Check returns a Report whose table can be printed.
package providertest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"
)

// Options selects the provider under test and what to create.
type Options struct {
	// Executable is the absolute path of the provider binary.
	Executable string
	// ConfigFile is the provider's config file (absolute path).
	ConfigFile string
	// InterfaceVersion is "", v0.1.0 or v0.1.1.
	InterfaceVersion string
	// Image, Flavor, OSType and OSArch describe the instances created
	// (defaults: "", "", linux, amd64).
	Image, Flavor, OSType, OSArch string
	// ExtraSpecs are the pool extra specs sent with every command.
	ExtraSpecs json.RawMessage
	// ControllerID and PoolID default to fresh random UUIDs.
	ControllerID, PoolID string
	// EnvPrefixes and Environ control pass-through variables (see
	// providerexec.Config); Environ nil means os.Environ.
	EnvPrefixes []string
	Environ     func() []string
	// CallTimeout bounds each provider call (default 5 minutes).
	CallTimeout time.Duration
}

// withDefaults fills the zero fields of o.
func (o Options) withDefaults() Options {
	if o.OSType == "" {
		o.OSType = "linux"
	}
	if o.OSArch == "" {
		o.OSArch = "amd64"
	}
	if o.ControllerID == "" {
		o.ControllerID = newUUID()
	}
	if o.PoolID == "" {
		o.PoolID = newUUID()
	}
	if o.CallTimeout == 0 {
		o.CallTimeout = 5 * time.Minute
	}
	return o
}

// newUUID returns a random version-4 UUID string.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// newName returns a fresh instance name.
func newName() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "garrison-check-" + hex.EncodeToString(b[:])
}
