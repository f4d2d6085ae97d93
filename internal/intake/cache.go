package intake

import (
	"context"
	"sync"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// maxCacheEntries bounds each map of the cache. Keys only come from existing rows (empty
// entity lists are not cached), so the bound is only reached with more entities than this,
// or by deliveries spelling a real entity's name in many letter cases; what does not fit
// is read every time until expired entries make room.
const maxCacheEntries = 4096

// cache is the receiver's read-through cache of what every delivery reads: the controller
// id, the endpoints of each forge type, the entities by name and the pools of each entity.
// An entry lives Options.CacheTTL from the start of the read that filled it.
//
// Cached data may only accept a delivery: every refusal (another controller, no endpoint,
// no entity, a signature that does not verify, no pool for a queued job) is decided on a
// fresh read, which also refreshes the entry. With a TTL of 0 or less nothing is kept and
// every read goes to the store.
type cache struct {
	st        Store
	ctrlID    func(ctx context.Context) (string, error)
	ctrl      *ttlMap[struct{}, string]
	endpoints *ttlMap[garrison.ForgeType, []garrison.Endpoint]
	entities  *ttlMap[store.EntityFilter, []garrison.Entity]
	pools     *ttlMap[string, []garrison.Pool]
	scaleSets *ttlMap[string, []garrison.ScaleSet]
}

func newCache(o Options) *cache {
	return &cache{
		st: o.Store, ctrlID: o.ControllerID,
		ctrl:      newTTLMap[struct{}, string](o.CacheTTL, o.Now, nil),
		endpoints: newTTLMap[garrison.ForgeType, []garrison.Endpoint](o.CacheTTL, o.Now, nil),
		entities: newTTLMap[store.EntityFilter](o.CacheTTL, o.Now, func(es []garrison.Entity) bool {
			return len(es) > 0 // the filter comes from the payload: keep only real names
		}),
		pools:     newTTLMap[string, []garrison.Pool](o.CacheTTL, o.Now, nil),
		scaleSets: newTTLMap[string, []garrison.ScaleSet](o.CacheTTL, o.Now, nil),
	}
}

// The readers below return the data, and whether it came from the cache (it may then be
// up to a TTL old); fresh skips the cache. The slices are shared: callers must not modify
// them.

func (c *cache) controllerID(ctx context.Context, fresh bool) (string, bool, error) {
	return c.ctrl.get(struct{}{}, fresh, func() (string, error) { return c.ctrlID(ctx) })
}

func (c *cache) listEndpoints(ctx context.Context, t garrison.ForgeType, fresh bool) ([]garrison.Endpoint, bool, error) {
	return c.endpoints.get(t, fresh, func() ([]garrison.Endpoint, error) { return c.st.ListEndpoints(ctx, t) })
}

func (c *cache) listEntities(ctx context.Context, f store.EntityFilter, fresh bool) ([]garrison.Entity, bool, error) {
	return c.entities.get(f, fresh, func() ([]garrison.Entity, error) { return c.st.ListEntities(ctx, f) })
}

func (c *cache) listPools(ctx context.Context, entityID string, fresh bool) ([]garrison.Pool, bool, error) {
	return c.pools.get(entityID, fresh, func() ([]garrison.Pool, error) {
		return c.st.ListPools(ctx, store.PoolFilter{EntityID: entityID})
	})
}

func (c *cache) listScaleSets(ctx context.Context, entityID string, fresh bool) ([]garrison.ScaleSet, bool, error) {
	return c.scaleSets.get(entityID, fresh, func() ([]garrison.ScaleSet, error) {
		return c.st.ListScaleSets(ctx, store.ScaleSetFilter{EntityID: entityID})
	})
}

// ttlMap is a concurrency-safe map whose entries expire a TTL after they were read.
type ttlMap[K comparable, V any] struct {
	ttl  time.Duration
	now  func() time.Time
	keep func(V) bool // whether a loaded value is kept; nil: always

	mu        sync.Mutex // guards m and nextSweep
	m         map[K]ttlEntry[V]
	nextSweep time.Time
}

type ttlEntry[V any] struct {
	v       V
	expires time.Time
}

func newTTLMap[K comparable, V any](ttl time.Duration, now func() time.Time, keep func(V) bool) *ttlMap[K, V] {
	return &ttlMap[K, V]{ttl: ttl, now: now, keep: keep, m: map[K]ttlEntry[V]{}}
}

// get returns k's value from the map when it has not expired and fresh is false (cached
// true), else from load, and then keeps it. A load error is returned and nothing kept.
func (t *ttlMap[K, V]) get(k K, fresh bool, load func() (V, error)) (v V, cached bool, err error) {
	if t.ttl <= 0 {
		v, err = load()
		return v, false, err
	}
	start := t.now()
	if !fresh {
		if v, ok := t.lookup(k, start); ok {
			return v, true, nil
		}
	}
	if v, err = load(); err != nil {
		return v, false, err
	}
	t.put(k, v, start.Add(t.ttl))
	return v, false, nil
}

func (t *ttlMap[K, V]) lookup(k K, now time.Time) (V, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.m[k]
	if !ok || !now.Before(e.expires) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// put keeps v until expires, or forgets k when keep refuses v. It sweeps expired entries
// at most once per TTL and keeps nothing new while the map is full.
func (t *ttlMap[K, V]) put(k K, v V, expires time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.keep != nil && !t.keep(v) {
		delete(t.m, k)
		return
	}
	if now := t.now(); !now.Before(t.nextSweep) {
		for key, e := range t.m {
			if !now.Before(e.expires) {
				delete(t.m, key)
			}
		}
		t.nextSweep = now.Add(t.ttl)
	}
	if _, ok := t.m[k]; !ok && len(t.m) >= maxCacheEntries {
		return
	}
	t.m[k] = ttlEntry[V]{v: v, expires: expires}
}

// size is the number of entries, expired ones included.
func (t *ttlMap[K, V]) size() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}
