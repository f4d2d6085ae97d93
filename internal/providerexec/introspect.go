package providerexec

import (
	"context"
	"errors"

	"github.com/garrison-ci/garrison/provider"
)

// Info is what a provider tells about itself.
type Info struct {
	// Version is the provider's version; "" if it does not implement
	// GetVersion.
	Version string
	// SupportedInterfaceVersions is nil if the provider does not implement
	// GetSupportedInterfaceVersions.
	SupportedInterfaceVersions []string
}

// Introspect asks the provider for its version and supported interface
// versions. A command the provider does not know (exit 1, as older
// providers answer) leaves the field empty; other failures (timeout,
// crash, invalid output) are returned.
func (p *Provider) Introspect(ctx context.Context) (Info, error) {
	var info Info
	v, err := p.GetVersion(ctx)
	switch {
	case err == nil:
		info.Version = v
	case !unsupported(err):
		return info, err
	}
	versions, err := p.GetSupportedInterfaceVersions(ctx)
	switch {
	case err == nil:
		info.SupportedInterfaceVersions = versions
	case !unsupported(err):
		return info, err
	}
	return info, nil
}

// unsupported reports whether err is a provider's exit 1, the answer to an
// unknown command.
func unsupported(err error) bool {
	var ce *CallError
	return errors.As(err, &ce) && errors.Is(err, ErrFailed) && ce.ExitCode == provider.ExitFailure
}
