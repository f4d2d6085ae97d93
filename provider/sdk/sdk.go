// Package sdk turns a Go type into a GARM-compatible provider executable.
//
// Implement Provider (and any of the optional interfaces Versioner,
// PoolValidator, ConfigSchemaProvider, ExtraSpecsSchemaProvider), write a
// Factory that builds it from the Environment (typically loading
// Environment.ConfigFile), and make main three lines:
//
//	package main
//
//	import ("example.com/myprovider"; "github.com/garrison-ci/garrison/provider/sdk")
//
//	func main() { sdk.Main(myprovider.New) }
//
// The SDK validates the environment like garm-provider-common does, decodes
// stdin, dispatches on GARM_COMMAND, encodes stdout and maps errors to exit
// codes: ErrNotFound to 30, ErrDuplicate to 31, anything else to 1 with the
// message on stderr.
package sdk

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/garrison-ci/garrison/provider"
)

// Errors a provider returns (possibly wrapped) to select the exit code.
var (
	// ErrNotFound makes the provider exit 30.
	ErrNotFound = errors.New("not found")
	// ErrDuplicate makes the provider exit 31.
	ErrDuplicate = errors.New("duplicate entity")
	// ErrUnsupported reports an optional command the provider lacks (exit 1).
	ErrUnsupported = errors.New("command not supported by this provider")
	// ErrInvalidInput marks what the SDK refuses of the manager's input: the stdin
	// document or GARM_POOL_EXTRASPECS (exit 1).
	ErrInvalidInput = errors.New("invalid input from the manager")
)

// invalidInput is an input error: its message is the cause's, and it matches both
// ErrInvalidInput and the cause.
type invalidInput struct{ err error }

func (e invalidInput) Error() string   { return e.err.Error() }
func (e invalidInput) Unwrap() []error { return []error{ErrInvalidInput, e.err} }

// Provider is what every provider implements. instance is GARM_INSTANCE_ID:
// the provider_id, or the instance name when the manager has no
// provider_id (a create that failed), so both must be accepted.
type Provider interface {
	// CreateInstance creates the instance described by bootstrap and returns
	// it with status running (or error with a ProviderFault).
	CreateInstance(ctx context.Context, bootstrap provider.BootstrapInstance) (provider.ProviderInstance, error)
	// DeleteInstance deletes an instance; ErrNotFound if it does not exist.
	DeleteInstance(ctx context.Context, instance string) error
	// GetInstance returns one instance; ErrNotFound if it does not exist.
	GetInstance(ctx context.Context, instance string) (provider.ProviderInstance, error)
	// ListInstances returns the instances of poolID created by this
	// controller.
	ListInstances(ctx context.Context, poolID string) ([]provider.ProviderInstance, error)
	// RemoveAllInstances deletes every instance of this controller.
	RemoveAllInstances(ctx context.Context) error
	// Start starts a stopped instance.
	Start(ctx context.Context, instance string) error
	// Stop stops a running instance.
	Stop(ctx context.Context, instance string) error
}

// Versioner is implemented by providers that answer GetVersion.
type Versioner interface {
	Version(ctx context.Context) string
}

// PoolValidator is implemented by providers that answer ValidatePoolInfo.
// image and flavor are empty unless the manager also sent a
// BootstrapInstance on stdin (garrison does; GARM does not).
type PoolValidator interface {
	ValidatePoolInfo(ctx context.Context, image, flavor string, extraSpecs json.RawMessage) error
}

// ConfigSchemaProvider is implemented by providers that answer
// GetConfigJSONSchema.
type ConfigSchemaProvider interface {
	ConfigJSONSchema(ctx context.Context) (json.RawMessage, error)
}

// ExtraSpecsSchemaProvider is implemented by providers that answer
// GetExtraSpecsJSONSchema.
type ExtraSpecsSchemaProvider interface {
	ExtraSpecsJSONSchema(ctx context.Context) (json.RawMessage, error)
}

// Factory builds a Provider for one invocation.
type Factory func(ctx context.Context, env Environment) (Provider, error)

// ExitCode maps a provider error to the process exit status.
func ExitCode(err error) int {
	switch {
	case err == nil:
		return provider.ExitOK
	case errors.Is(err, ErrNotFound):
		return provider.ExitNotFound
	case errors.Is(err, ErrDuplicate):
		return provider.ExitDuplicate
	}
	return provider.ExitFailure
}
