package simprovider

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The pool index: an empty marker file <state_dir>/pools/<pool_id>/<provider_id> per
// record whose pool id is a safe name, so that listing one pool reads only its
// records. Markers are added before a record is written and removed after it is
// deleted, both under the state lock, so every record has its marker; a marker
// without a record (a crash between the steps) is skipped and pruned by a listing.
//
// indexVersion is the file in <state_dir>/pools that says the index is complete.
// State dirs from before the index lack it; the first listing of a pool then
// indexes all records once, under the lock.
const indexVersion = ".index-v1"

// pools is the directory of the pool index.
func (s *store) pools() string { return filepath.Join(s.dir, "pools") }

// poolDir is the index directory of poolID, which must be indexable.
func (s *store) poolDir(poolID string) string { return filepath.Join(s.pools(), poolID) }

// indexable reports whether poolID is safe to use as a directory name. Records of
// other pools are not indexed; their pools are listed by a full scan.
func indexable(poolID string) bool { return safeName(poolID) }

// addMarker adds r to its pool's index. The state lock must be held.
func (s *store) addMarker(r Record) error {
	if !indexable(r.PoolID) {
		return nil
	}
	if err := os.MkdirAll(s.poolDir(r.PoolID), 0o750); err != nil {
		return fmt.Errorf("sim pool index: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(s.poolDir(r.PoolID), r.ProviderID), os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("sim pool index: %w", err)
	}
	return f.Close()
}

// dropMarker removes id from poolID's index, and the pool's directory once it is
// empty. The state lock must be held.
func (s *store) dropMarker(poolID, id string) error {
	if !indexable(poolID) {
		return nil
	}
	err := os.Remove(filepath.Join(s.poolDir(poolID), id))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("sim pool index: %w", err)
	}
	_ = os.Remove(s.poolDir(poolID)) // fails while the pool has markers
	return nil
}

// ensureIndex builds the index from the records, once, when it is not complete.
func (s *store) ensureIndex() error {
	if ok, err := s.indexed(); ok || err != nil {
		return err
	}
	return s.withLock(func() error {
		if ok, err := s.indexed(); ok || err != nil {
			return err
		}
		return s.buildIndex()
	})
}

// indexed reports whether the index version file exists.
func (s *store) indexed() (bool, error) {
	_, err := os.Stat(filepath.Join(s.pools(), indexVersion))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// buildIndex adds a marker for every record, then writes the version file. The
// state lock must be held.
func (s *store) buildIndex() error {
	recs, err := s.scan(func(Record) bool { return true })
	if err != nil {
		return err
	}
	for _, r := range recs {
		if err := s.addMarker(r); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(s.pools(), 0o750); err != nil {
		return fmt.Errorf("sim pool index: %w", err)
	}
	return os.WriteFile(filepath.Join(s.pools(), indexVersion), []byte("1\n"), 0o600)
}

// inPool returns controller's records of the indexable poolID, read through the
// index, and prunes the markers found stale.
func (s *store) inPool(controller, poolID string) ([]Record, error) {
	entries, err := os.ReadDir(s.poolDir(poolID))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Record
	var stale []string
	for _, e := range entries {
		id := e.Name()
		if !safeName(id) {
			continue
		}
		r, err := s.read(s.path(id))
		if errors.Is(err, fs.ErrNotExist) || (err == nil && r.PoolID != poolID) {
			stale = append(stale, id) // or still being created, or just deleted
			continue
		}
		if err != nil {
			return nil, err
		}
		if r.ControllerID == controller {
			out = append(out, r)
		}
	}
	if err := s.prune(poolID, stale); err != nil {
		fmt.Fprintf(os.Stderr, "sim: pruning pool index of %s: %v\n", poolID, err)
	}
	return out, nil
}

// prune removes those of poolID's markers ids whose record is still absent or of
// another pool once the lock is held (so a create in progress keeps its marker).
func (s *store) prune(poolID string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return s.withLock(func() error {
		for _, id := range ids {
			r, err := s.read(s.path(id))
			if (err == nil && r.PoolID == poolID) || (err != nil && !errors.Is(err, fs.ErrNotExist)) {
				continue
			}
			if err := s.dropMarker(poolID, id); err != nil {
				return err
			}
		}
		return nil
	})
}
