package incusprovider

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sort"

	incus "github.com/lxc/incus/v6/client"
	"github.com/lxc/incus/v6/shared/api"

	"github.com/garrison-ci/garrison/provider/sdk"
)

// Server is what the provider needs from an Incus (or LXD) server. Errors
// for missing objects wrap sdk.ErrNotFound.
type Server interface {
	// Instance returns one instance with its state.
	Instance(ctx context.Context, name string) (*api.InstanceFull, error)
	// Instances returns the instances whose config has every key/value of
	// match (the server may filter; callers check again).
	Instances(ctx context.Context, match map[string]string) ([]api.InstanceFull, error)
	// Create creates (and with req.Start starts) an instance and waits.
	Create(ctx context.Context, req api.InstancesPost) error
	// Delete deletes a stopped instance and waits.
	Delete(ctx context.Context, name string) error
	// SetState runs a state action (start, stop) and waits.
	SetState(ctx context.Context, name string, state api.InstanceStatePut) error
	// ImageAlias returns the fingerprint a local alias points to.
	ImageAlias(ctx context.Context, alias string) (string, error)
	// Profiles returns the profile names.
	Profiles(ctx context.Context) ([]string, error)
	// UserDataKey is the config key cloud-init user-data goes into.
	UserDataKey() string
}

// clientServer implements Server with the Incus Go client.
type clientServer struct {
	c incus.InstanceServer
}

// Connect opens the connection described by cfg.
func Connect(ctx context.Context, cfg Config) (Server, error) {
	args := &incus.ConnectionArgs{UserAgent: "garrison-incus-provider", InsecureSkipVerify: cfg.InsecureSkipVerify}
	var (
		c   incus.InstanceServer
		err error
	)
	if cfg.UnixSocketPath != "" {
		c, err = incus.ConnectIncusUnixWithContext(ctx, cfg.UnixSocketPath, args)
	} else {
		if err := readTLS(cfg, args); err != nil {
			return nil, err
		}
		c, err = incus.ConnectIncusWithContext(ctx, cfg.URL, args)
	}
	if err != nil {
		return nil, fmt.Errorf("connecting to incus: %w", err)
	}
	if cfg.ProjectName != "" {
		c = c.UseProject(cfg.ProjectName)
	}
	return &clientServer{c: c}, nil
}

// readTLS loads the PEM files named by cfg into args.
func readTLS(cfg Config, args *incus.ConnectionArgs) error {
	files := []struct {
		path string
		dst  *string
	}{
		{cfg.ClientCertificate, &args.TLSClientCert}, {cfg.ClientKey, &args.TLSClientKey},
		{cfg.TLSServerCertificate, &args.TLSServerCert}, {cfg.TLSCA, &args.TLSCA},
	}
	for _, f := range files {
		if f.path == "" {
			continue
		}
		b, err := os.ReadFile(f.path)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrConfig, err)
		}
		*f.dst = string(b)
	}
	return nil
}

// wrap maps a 404 to sdk.ErrNotFound.
func wrap(err error, format string, a ...any) error {
	if err == nil {
		return nil
	}
	msg := fmt.Sprintf(format, a...)
	if api.StatusErrorCheck(err, http.StatusNotFound) {
		return fmt.Errorf("%s: %w: %w", msg, sdk.ErrNotFound, err)
	}
	return fmt.Errorf("%s: %w", msg, err)
}

// wait waits for op bounded by ctx.
func wait(ctx context.Context, op incus.Operation, err error) error {
	if err != nil {
		return err
	}
	return op.WaitContext(ctx)
}

func (s *clientServer) Instance(_ context.Context, name string) (*api.InstanceFull, error) {
	inst, _, err := s.c.GetInstanceFull(name)
	return inst, wrap(err, "instance %q", name)
}

func (s *clientServer) Instances(_ context.Context, match map[string]string) ([]api.InstanceFull, error) {
	if !s.c.HasExtension("api_filtering") {
		list, err := s.c.GetInstancesFull(api.InstanceTypeAny)
		return list, wrap(err, "listing instances")
	}
	keys := make([]string, 0, len(match))
	for k := range match {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	filters := make([]string, 0, len(keys))
	for _, k := range keys {
		filters = append(filters, "config."+k+"="+match[k])
	}
	list, err := s.c.GetInstancesFullWithFilter(api.InstanceTypeAny, filters)
	return list, wrap(err, "listing instances")
}

// Create creates the instance, started when req.Start asks for it. Servers without the
// instance_create_start API extension (LXD 5.0) ignore req.Start, so the instance is
// started with a separate state change there.
func (s *clientServer) Create(ctx context.Context, req api.InstancesPost) error {
	start := req.Start && !s.c.HasExtension("instance_create_start")
	if start {
		req.Start = false
	}
	op, err := s.c.CreateInstance(req)
	if err := wait(ctx, op, err); err != nil {
		return wrap(err, "creating instance %q", req.Name)
	}
	if !start {
		return nil
	}
	return s.SetState(ctx, req.Name, api.InstanceStatePut{Action: "start", Timeout: -1})
}

func (s *clientServer) Delete(ctx context.Context, name string) error {
	op, err := s.c.DeleteInstance(name)
	return wrap(wait(ctx, op, err), "deleting instance %q", name)
}

func (s *clientServer) SetState(ctx context.Context, name string, state api.InstanceStatePut) error {
	op, err := s.c.UpdateInstanceState(name, state, "")
	return wrap(wait(ctx, op, err), "%s instance %q", state.Action, name)
}

func (s *clientServer) ImageAlias(_ context.Context, alias string) (string, error) {
	entry, _, err := s.c.GetImageAlias(alias)
	if err != nil {
		return "", wrap(err, "image alias %q", alias)
	}
	return entry.Target, nil
}

func (s *clientServer) Profiles(context.Context) ([]string, error) {
	names, err := s.c.GetProfileNames()
	return names, wrap(err, "listing profiles")
}

func (s *clientServer) UserDataKey() string {
	if s.c.HasExtension("cloud_init") {
		return "cloud-init.user-data"
	}
	return "user.user-data" // LXD before the cloud_init extension
}
