package config

// DefaultMaxObjectSize is [object_store] max_object_size when absent: 1 GiB.
const DefaultMaxObjectSize int64 = 1 << 30

// ObjectStore holds [object_store] (a garrison section: GARM's object store has no
// settings of its own).
type ObjectStore struct {
	// MaxObjectSize is max_object_size: the largest object upload in bytes; larger
	// uploads are refused with 413.
	MaxObjectSize int64
	// CacheRunnerTools is cache_runner_tools: download the runner archives the forges
	// list into the object store once and have instances download them from garrison.
	CacheRunnerTools bool
}

// fileObjectStore is [object_store] as written.
type fileObjectStore struct {
	// max_object_size: bytes, default 1073741824 (1 GiB); >= 1.
	MaxObjectSize *int64 `toml:"max_object_size"`
	// cache_runner_tools: default false (instances download from the forge, as GARM's).
	CacheRunnerTools bool `toml:"cache_runner_tools"`
}

// resolveObjectStore checks [object_store].
func resolveObjectStore(f *fileObjectStore, errs *problems) ObjectStore {
	out := ObjectStore{MaxObjectSize: DefaultMaxObjectSize, CacheRunnerTools: f.CacheRunnerTools}
	if f.MaxObjectSize != nil {
		if n := *f.MaxObjectSize; n < 1 {
			errs.field("object_store.max_object_size", "must be at least 1 byte, got %d", n)
		} else {
			out.MaxObjectSize = n
		}
	}
	return out
}
