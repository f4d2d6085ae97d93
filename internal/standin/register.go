package standin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// ErrUsage is returned for missing or invalid command-line arguments.
var ErrUsage = errors.New("standin: usage")

// Registration describes a runner to register (config.sh or act_runner register).
type Registration struct {
	URL       string   // the repository/organization URL (GitHub) or the instance URL (Gitea)
	Token     string   // the registration token
	Name      string   // the runner name
	Labels    []string // the runner labels
	Group     string   // GitHub runner group (recorded only)
	Ephemeral bool
	// DefaultLabels adds self-hosted, the OS and the architecture (GitHub, unless
	// --no-default-labels).
	DefaultLabels bool
	HTTPClient    *http.Client // nil: a client with a 30 s timeout
}

// check reports missing fields as ErrUsage.
func (r Registration) check() error {
	var missing []string
	for name, v := range map[string]string{"url": r.URL, "token": r.Token, "name": r.Name} {
		if v == "" {
			missing = append(missing, "--"+name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: missing %s", ErrUsage, strings.Join(missing, ", "))
	}
	return nil
}

// client returns the HTTP client to use.
func (r Registration) client() client {
	if r.HTTPClient != nil {
		return client{http: r.HTTPClient}
	}
	return client{http: defaultHTTPClient}
}

// labels returns the labels to register.
func (r Registration) labels() []string {
	out := append([]string(nil), r.Labels...)
	if r.DefaultLabels {
		out = append([]string{"self-hosted", "Linux", "X64"}, out...)
	}
	return out
}

// ConfigureGitHub registers a GitHub runner with the simulator (config.sh) and writes
// .runner and .credentials into dir.
func ConfigureGitHub(ctx context.Context, dir string, r Registration) (Identity, error) {
	if err := r.check(); err != nil {
		return Identity{}, err
	}
	root, err := simRoot(r.URL)
	if err != nil {
		return Identity{}, fmt.Errorf("%w: --url: %w", ErrUsage, err)
	}
	reg, err := r.client().registerGitHub(ctx, root, r.Token, r.Name, r.labels(), r.Ephemeral)
	if err != nil {
		return Identity{}, fmt.Errorf("registering runner %s: %w", r.Name, err)
	}
	run := githubRunner{AgentID: reg.ID, AgentName: reg.Name, ServerURL: root, GitHubURL: r.URL,
		PoolID: 1, Ephemeral: r.Ephemeral, Work: "_work"}
	var cred githubCredentials
	cred.Scheme, cred.Data.ClientID = "OAuth", reg.Secret
	if err := writeJSON(dir, credentialsFile, cred); err != nil {
		return Identity{}, err
	}
	if err := writeJSON(dir, runnerFile, run); err != nil {
		return Identity{}, err
	}
	return Identity{ID: int64(reg.ID), Name: reg.Name, Secret: reg.Secret, SimURL: root}, nil
}

// RegisterGitea registers a Gitea runner with the simulator's Register RPC (act_runner
// register) and writes .runner into dir.
func RegisterGitea(ctx context.Context, dir string, r Registration) (Identity, error) {
	if err := r.check(); err != nil {
		return Identity{}, err
	}
	root, err := origin(r.URL)
	if err != nil {
		return Identity{}, fmt.Errorf("%w: --instance: %w", ErrUsage, err)
	}
	reg, err := r.client().registerGitea(ctx, root, r.Token, r.Name, r.labels(), r.Ephemeral)
	if err != nil {
		return Identity{}, fmt.Errorf("registering runner %s: %w", r.Name, err)
	}
	f := giteaRunner{Warning: "written by the garrison stand-in runner", ID: int64(reg.ID), Name: reg.Name,
		Token: reg.Token, Address: r.URL, Labels: reg.Labels}
	if err := writeJSON(dir, runnerFile, f); err != nil {
		return Identity{}, err
	}
	return Identity{ID: f.ID, Name: f.Name, Secret: f.Token, SimURL: root + "_sim/"}, nil
}

// Unconfigure forgets the local registration (config.sh remove).
func Unconfigure(dir string) error {
	for _, name := range []string{runnerFile, credentialsFile} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}
