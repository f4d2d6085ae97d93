package simprovider

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/garrison-ci/garrison/provider"
	"github.com/garrison-ci/garrison/provider/sdk"
)

// Record is one simulated instance as stored on disk.
type Record struct {
	ProviderID   string          `json:"provider_id"`
	Name         string          `json:"name"`
	ControllerID string          `json:"controller_id"`
	PoolID       string          `json:"pool_id"`
	Status       provider.Status `json:"status"`
	CreatedAt    time.Time       `json:"created_at"`
	// Bootstrap is the CreateInstance request, for a later runner to boot.
	Bootstrap provider.BootstrapInstance `json:"bootstrap"`
	// Boot is set when the instance was booted (boot = "script").
	Boot *BootState `json:"boot,omitempty"`
}

// Instance converts the record to its wire form.
func (r Record) Instance() provider.ProviderInstance {
	return provider.ProviderInstance{
		ProviderID: r.ProviderID, Name: r.Name, Status: r.Status,
		OSType: r.Bootstrap.OSType, OSArch: r.Bootstrap.OSArch, OSName: "sim", OSVersion: "1",
		Addresses: []provider.Address{{Address: "127.0.0.1", Type: provider.PrivateAddress}},
	}
}

// idPrefix starts every provider_id.
const idPrefix = "sim-"

// maxNameLen is the longest name safeName accepts.
const maxNameLen = 201

// safeName says whether s is usable as a file name: a letter or digit, then up to 200
// letters, digits, dots, underscores and dashes. (A regular expression with that
// repetition costs a provider execution more to compile at start-up than its whole call.)
func safeName(s string) bool {
	if s == "" || len(s) > maxNameLen || !isAlnum(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// store keeps records in dir/instances.
type store struct{ dir string }

// open creates the state directory layout.
func open(stateDir string) (*store, error) {
	s := &store{dir: stateDir}
	if err := os.MkdirAll(s.instances(), 0o750); err != nil {
		return nil, fmt.Errorf("sim state dir: %w", err)
	}
	return s, nil
}

func (s *store) instances() string { return filepath.Join(s.dir, "instances") }

func (s *store) path(id string) string { return filepath.Join(s.instances(), id+".json") }

// withLock runs fn holding the exclusive state lock.
func (s *store) withLock(fn func() error) error {
	f, err := os.OpenFile(filepath.Join(s.dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("locking sim state: %w", err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN) //nolint:errcheck // closing releases it anyway
	return fn()
}

// find loads the record named by a provider_id or instance name that
// belongs to controller; sdk.ErrNotFound otherwise.
func (s *store) find(controller, idOrName string) (Record, error) {
	for _, id := range []string{idOrName, idPrefix + idOrName} {
		if !safeName(id) {
			continue
		}
		r, err := s.read(s.path(id))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Record{}, err
		}
		if r.ControllerID == controller {
			return r, nil
		}
	}
	return Record{}, fmt.Errorf("instance %q: %w", idOrName, sdk.ErrNotFound)
}

// read decodes one record file.
func (s *store) read(path string) (Record, error) {
	var r Record
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("corrupt record %s: %w", path, err)
	}
	return r, nil
}

// write replaces a record atomically (temp file + rename).
func (s *store) write(r Record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.instances(), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.path(r.ProviderID))
}

// create stores a new record: its pool index marker first, then the record, so
// a record never lacks its marker. The state lock must be held.
func (s *store) create(r Record) error {
	if err := s.addMarker(r); err != nil {
		return err
	}
	if err := s.write(r); err != nil {
		_ = s.dropMarker(r.PoolID, r.ProviderID)
		return err
	}
	return nil
}

// removeLocked deletes r's record, then its marker in the pool index (of the pool
// recorded now); sdk.ErrNotFound if the record is gone. The state lock must be held.
func (s *store) removeLocked(r Record) error {
	if cur, err := s.read(s.path(r.ProviderID)); err == nil {
		r.PoolID = cur.PoolID
	}
	err := os.Remove(s.path(r.ProviderID))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("instance %q: %w", r.Name, sdk.ErrNotFound)
	}
	if err != nil {
		return err
	}
	if err := s.dropMarker(r.PoolID, r.ProviderID); err != nil {
		// The instance is gone; a stale marker is pruned by the next listing.
		fmt.Fprintf(os.Stderr, "sim: instance %s: %v\n", r.Name, err)
	}
	return nil
}

// all returns every record of controller (optionally only of poolID). A pool
// whose id is a safe name is read through the pool index, others by a full scan.
func (s *store) all(controller, poolID string) ([]Record, error) {
	if poolID != "" && indexable(poolID) {
		if err := s.ensureIndex(); err != nil {
			return nil, err
		}
		return s.inPool(controller, poolID)
	}
	return s.scan(func(r Record) bool {
		return r.ControllerID == controller && (poolID == "" || r.PoolID == poolID)
	})
}

// scan reads every record and returns those keep accepts.
func (s *store) scan(keep func(Record) bool) ([]Record, error) {
	entries, err := os.ReadDir(s.instances())
	if err != nil {
		return nil, err
	}
	var out []Record
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		r, err := s.read(filepath.Join(s.instances(), e.Name()))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted concurrently
		}
		if err != nil {
			return nil, err
		}
		if keep(r) {
			out = append(out, r)
		}
	}
	return out, nil
}
