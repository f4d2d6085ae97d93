package incusprovider

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"

	"github.com/BurntSushi/toml"
)

// ErrConfig marks an invalid provider config file.
var ErrConfig = errors.New("invalid incus provider config")

// Instance types.
const (
	TypeContainer      = "container"
	TypeVirtualMachine = "virtual-machine"
)

// DefaultUnixSocket is used when neither unix_socket_path nor url is set.
const DefaultUnixSocket = "/var/lib/incus/unix.socket"

// Config is the provider's TOML configuration. Key names follow GARM's LXD
// provider where it has them.
type Config struct {
	// UnixSocketPath connects over the local socket; it wins over URL.
	UnixSocketPath string `toml:"unix_socket_path"`
	// URL is the HTTPS address of a remote server.
	URL string `toml:"url"`
	// ClientCertificate and ClientKey are PEM files for TLS client auth.
	ClientCertificate string `toml:"client_certificate"`
	ClientKey         string `toml:"client_key"`
	// TLSServerCertificate pins the server's certificate (PEM file).
	TLSServerCertificate string `toml:"tls_server_certificate"`
	// TLSCA is a CA (PEM file) to verify the server against (PKI mode).
	TLSCA string `toml:"tls_ca"`
	// InsecureSkipVerify disables server certificate verification.
	InsecureSkipVerify bool `toml:"insecure_skip_verify"`
	// ProjectName is the Incus project (default: the server's default).
	ProjectName string `toml:"project_name"`
	// Profiles are applied to every instance, after the default profile
	// and before the flavor's profile.
	Profiles []string `toml:"profiles"`
	// IncludeDefaultProfile adds the "default" profile first.
	IncludeDefaultProfile bool `toml:"include_default_profile"`
	// InstanceType is container (default) or virtual-machine.
	InstanceType string `toml:"instance_type"`
	// SecureBoot sets security.secureboot for virtual machines.
	SecureBoot bool `toml:"secure_boot"`
	// ImageRemotes are the image servers usable as "remote:alias".
	ImageRemotes map[string]ImageRemote `toml:"image_remotes"`
}

// ImageRemote is an image server.
type ImageRemote struct {
	// Address is the server URL ("addr" is accepted for GARM configs).
	Address string `toml:"address"`
	Addr    string `toml:"addr"`
	// Protocol is simplestreams (default), incus or lxd.
	Protocol string `toml:"protocol"`
	// SkipVerify disables TLS verification of the image server.
	SkipVerify bool `toml:"skip_verify"`
	// Public says the server needs no authentication.
	Public bool `toml:"public"`
}

// LoadConfig reads and validates the TOML file at path; unknown keys are
// refused.
func LoadConfig(path string) (Config, error) {
	var c Config
	md, err := toml.DecodeFile(path, &c)
	if err != nil {
		return c, fmt.Errorf("%w: %s: %w", ErrConfig, path, err)
	}
	if undec := md.Undecoded(); len(undec) > 0 {
		return c, fmt.Errorf("%w: %s: unknown keys %v", ErrConfig, path, undec)
	}
	if err := c.normalize(); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// normalize fills defaults and validates.
func (c *Config) normalize() error {
	if c.UnixSocketPath == "" && c.URL == "" {
		c.UnixSocketPath = DefaultUnixSocket
	}
	if c.InstanceType == "" {
		c.InstanceType = TypeContainer
	}
	if c.InstanceType != TypeContainer && c.InstanceType != TypeVirtualMachine {
		return fmt.Errorf("%w: instance_type %q is not %q or %q", ErrConfig, c.InstanceType, TypeContainer, TypeVirtualMachine)
	}
	if c.UnixSocketPath != "" && !filepath.IsAbs(c.UnixSocketPath) {
		return fmt.Errorf("%w: unix_socket_path must be absolute", ErrConfig)
	}
	if c.UnixSocketPath == "" {
		if err := c.checkRemote(); err != nil {
			return err
		}
	}
	return c.normalizeRemotes()
}

// checkRemote validates the HTTPS connection settings.
func (c *Config) checkRemote() error {
	u, err := url.Parse(c.URL)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("%w: url %q must be https://host[:port]", ErrConfig, c.URL)
	}
	if (c.ClientCertificate == "") != (c.ClientKey == "") {
		return fmt.Errorf("%w: client_certificate and client_key go together", ErrConfig)
	}
	return nil
}

// normalizeRemotes fills remote defaults and validates them.
func (c *Config) normalizeRemotes() error {
	for _, name := range c.remoteNames() {
		r := c.ImageRemotes[name]
		if r.Address == "" {
			r.Address = r.Addr
		}
		r.Addr = ""
		if r.Protocol == "" {
			r.Protocol = "simplestreams"
		}
		switch r.Protocol {
		case "simplestreams", "incus", "lxd":
		default:
			return fmt.Errorf("%w: image_remotes.%s: protocol %q is not simplestreams, incus or lxd", ErrConfig, name, r.Protocol)
		}
		if u, err := url.Parse(r.Address); err != nil || u.Scheme == "" || u.Host == "" {
			return fmt.Errorf("%w: image_remotes.%s: address %q is not a URL", ErrConfig, name, r.Address)
		}
		c.ImageRemotes[name] = r
	}
	return nil
}

// remoteNames returns the image remote names, sorted.
func (c *Config) remoteNames() []string {
	names := make([]string, 0, len(c.ImageRemotes))
	for n := range c.ImageRemotes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
