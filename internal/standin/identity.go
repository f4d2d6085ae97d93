package standin

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// File names in the runner directory.
const (
	runnerFile      = ".runner"
	credentialsFile = ".credentials"
)

// ErrNotConfigured is returned by the run modes when the runner directory holds no usable
// registration (.runner and .credentials for GitHub, .runner for Gitea).
var ErrNotConfigured = errors.New("standin: runner is not configured")

// Identity is what a configured runner knows about itself.
type Identity struct {
	ID     int64  // the forge's runner id
	Name   string // the runner name
	Secret string // the simulator credential, sent as "Authorization: Bearer <Secret>"
	SimURL string // the simulator's /_sim/ root, ending in "/"
}

// flexInt decodes a JSON number or a string holding one (JIT files use strings).
type flexInt int64

// UnmarshalJSON accepts 42 and "42".
func (f *flexInt) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("runner id %s: %w", b, err)
	}
	*f = flexInt(n)
	return nil
}

// githubRunner is the .runner file of a GitHub runner. JIT files spell the keys
// AgentId/ServerUrl, config.sh writes agentId/serverUrl; encoding/json matches both.
type githubRunner struct {
	AgentID   flexInt `json:"agentId"`
	AgentName string  `json:"agentName"`
	ServerURL string  `json:"serverUrl"`
	GitHubURL string  `json:"gitHubUrl"`
	PoolID    flexInt `json:"poolId,omitempty"`
	Ephemeral bool    `json:"ephemeral,omitempty"`
	Work      string  `json:"workFolder,omitempty"`
}

// githubCredentials is the .credentials file: Data.ClientId is the simulator secret.
type githubCredentials struct {
	Scheme string `json:"scheme"`
	Data   struct {
		ClientID string `json:"clientId"`
	} `json:"data"`
}

// giteaRunner is act_runner's .runner file.
type giteaRunner struct {
	Warning string   `json:"WARNING,omitempty"`
	ID      int64    `json:"id"`
	UUID    string   `json:"uuid,omitempty"`
	Name    string   `json:"name"`
	Token   string   `json:"token"`
	Address string   `json:"address"`
	Labels  []string `json:"labels"`
}

// readJSON decodes dir/name, tolerating the byte-order mark the real runner writes.
func readJSON(dir, name string, v any) error {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: %s is missing", ErrNotConfigured, name)
	}
	if err != nil {
		return err
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrNotConfigured, name, err)
	}
	return nil
}

// writeJSON writes v to dir/name with mode 0600.
func writeJSON(dir, name string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name), b, 0o600)
}

// LoadGitHub reads a GitHub runner's identity from dir (.runner and .credentials).
func LoadGitHub(dir string) (Identity, error) {
	var r struct { // only what is read: JIT files write other fields as strings
		AgentID   flexInt `json:"agentId"`
		AgentName string  `json:"agentName"`
		ServerURL string  `json:"serverUrl"`
	}
	if err := readJSON(dir, runnerFile, &r); err != nil {
		return Identity{}, err
	}
	var c githubCredentials
	if err := readJSON(dir, credentialsFile, &c); err != nil {
		return Identity{}, err
	}
	id := Identity{ID: int64(r.AgentID), Name: r.AgentName, Secret: c.Data.ClientID}
	if r.ServerURL != "" {
		id.SimURL = strings.TrimSuffix(r.ServerURL, "/") + "/"
	}
	return id, id.validate()
}

// LoadGitea reads a Gitea runner's identity from dir (.runner).
func LoadGitea(dir string) (Identity, error) {
	var r giteaRunner
	if err := readJSON(dir, runnerFile, &r); err != nil {
		return Identity{}, err
	}
	root, err := simRoot(r.Address)
	if err != nil {
		return Identity{}, fmt.Errorf("%w: address: %w", ErrNotConfigured, err)
	}
	id := Identity{ID: r.ID, Name: r.Name, Secret: r.Token, SimURL: root}
	return id, id.validate()
}

// validate reports a missing field as ErrNotConfigured.
func (id Identity) validate() error {
	switch {
	case id.Name == "":
		return fmt.Errorf("%w: no runner name", ErrNotConfigured)
	case id.Secret == "":
		return fmt.Errorf("%w: no runner credential", ErrNotConfigured)
	case id.SimURL == "":
		return fmt.Errorf("%w: no server URL", ErrNotConfigured)
	}
	return nil
}

// origin returns the scheme and host of a forge URL (a repository, organization or API
// base URL of the simulator) followed by "/".
func origin(forgeURL string) (string, error) {
	u, err := url.Parse(forgeURL)
	if err != nil {
		return "", err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an http(s) URL", forgeURL)
	}
	return u.Scheme + "://" + u.Host + "/", nil
}

// simRoot returns the simulator's /_sim/ root for a forge URL.
func simRoot(forgeURL string) (string, error) {
	o, err := origin(forgeURL)
	return o + "_sim/", err
}

// WriteJITConfig writes the files of a GitHub encoded_jit_config (base64 of a JSON
// object mapping file names such as ".runner" to base64 contents) into dir, as garrison's
// install script does with the files it fetches from the metadata service.
func WriteJITConfig(dir, encoded string) error {
	raw, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		return fmt.Errorf("standin: JIT config: %w", err)
	}
	var files map[string]string
	if err := json.Unmarshal(raw, &files); err != nil {
		return fmt.Errorf("standin: JIT config: %w", err)
	}
	for name, b64 := range files {
		if name != filepath.Base(name) || !strings.HasPrefix(name, ".") {
			return fmt.Errorf("standin: JIT config: unexpected file name %q", name)
		}
		content, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return fmt.Errorf("standin: JIT config %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o600); err != nil {
			return err
		}
	}
	return nil
}
