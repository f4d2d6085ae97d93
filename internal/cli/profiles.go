package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ProfilesFile is the name of the profiles file in the configuration
// directory.
const ProfilesFile = "profiles.json"

// ErrNoProfile is returned when a command needs a server but no profile is
// configured.
var ErrNoProfile = errors.New("no profile configured; run `garrison init` or `garrison profile add`")

// Profile is a saved connection to a server.
type Profile struct {
	Name     string `json:"name"`
	URL      string `json:"url"`
	Username string `json:"username"`
	Token    string `json:"token"`
}

// profileFile is the content of ProfilesFile.
type profileFile struct {
	Active   string    `json:"active"`
	Profiles []Profile `json:"profiles"`
}

// profileStore reads and writes ProfilesFile in dir.
type profileStore struct {
	dir  string
	data profileFile
}

// configDir returns the directory holding the profiles.
func (a *app) configDir() (string, error) {
	if a.opts.ConfigDir != "" {
		return a.opts.ConfigDir, nil
	}
	if d := a.getenv(EnvConfigDir); d != "" {
		return d, nil
	}
	if d := a.getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "garrison"), nil
	}
	home := a.getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("find the configuration directory: %w", err)
		}
	}
	return filepath.Join(home, ".config", "garrison"), nil
}

// store loads the profiles; a missing file is an empty store.
func (a *app) store() (*profileStore, error) {
	dir, err := a.configDir()
	if err != nil {
		return nil, err
	}
	s := &profileStore{dir: dir}
	data, err := os.ReadFile(s.path())
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read profiles: %w", err)
	}
	if err := json.Unmarshal(data, &s.data); err != nil {
		return nil, fmt.Errorf("read profiles from %s: %w", s.path(), err)
	}
	return s, nil
}

func (s *profileStore) path() string { return filepath.Join(s.dir, ProfilesFile) }

// index returns the position of the named profile, or -1.
func (s *profileStore) index(name string) int {
	return slices.IndexFunc(s.data.Profiles, func(p Profile) bool { return p.Name == name })
}

// profile returns the named profile, or the active one when name is empty.
func (s *profileStore) profile(name string) (Profile, error) {
	if name == "" {
		if len(s.data.Profiles) == 0 {
			return Profile{}, ErrNoProfile
		}
		name = s.data.Active
		if name == "" {
			return Profile{}, errors.New("no active profile; run `garrison profile switch <name>`")
		}
	}
	i := s.index(name)
	if i < 0 {
		if len(s.data.Profiles) == 0 {
			return Profile{}, ErrNoProfile
		}
		return Profile{}, fmt.Errorf("profile %q not found", name)
	}
	return s.data.Profiles[i], nil
}

// put adds or replaces p.
func (s *profileStore) put(p Profile) {
	if i := s.index(p.Name); i >= 0 {
		s.data.Profiles[i] = p
		return
	}
	s.data.Profiles = append(s.data.Profiles, p)
}

// remove deletes the named profile; if it was active, the first remaining
// profile becomes active.
func (s *profileStore) remove(name string) error {
	i := s.index(name)
	if i < 0 {
		return fmt.Errorf("profile %q not found", name)
	}
	s.data.Profiles = slices.Delete(s.data.Profiles, i, i+1)
	if s.data.Active == name {
		s.data.Active = ""
		if len(s.data.Profiles) > 0 {
			s.data.Active = s.data.Profiles[0].Name
		}
	}
	return nil
}

// save writes the profiles atomically: the directory with mode 0700, the file
// with mode 0600.
func (s *profileStore) save() error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", s.dir, err)
	}
	if err := os.Chmod(s.dir, 0o700); err != nil {
		return fmt.Errorf("protect %s: %w", s.dir, err)
	}
	data, err := json.MarshalIndent(s.data, "", "  ")
	if err != nil {
		return fmt.Errorf("encode profiles: %w", err)
	}
	f, err := os.CreateTemp(s.dir, ".profiles-*.json")
	if err != nil {
		return fmt.Errorf("save profiles: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("save profiles: %w", err)
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("save profiles: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("save profiles: %w", err)
	}
	if err := os.Rename(tmp, s.path()); err != nil {
		return fmt.Errorf("save profiles: %w", err)
	}
	return nil
}

// validName reports whether name can be used as a profile name.
func validName(name string) error {
	if strings.TrimSpace(name) == "" {
		return errors.New("profile name must not be empty")
	}
	return nil
}
