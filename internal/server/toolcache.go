package server

import (
	"context"
	"net/http"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/instanceapi"
	"github.com/garrison-ci/garrison/internal/reconcile"
	"github.com/garrison-ci/garrison/internal/toolcache"
	"github.com/garrison-ci/garrison/provider"
)

// newToolCache wires the runner-binary cache when [object_store] cache_runner_tools is
// set and the object store has its directory; nil otherwise.
func (a *Server) newToolCache() (*toolcache.Cache, error) {
	dir := a.objectsDir()
	if !a.cfg.Objects.CacheRunnerTools || dir == "" {
		return nil, nil
	}
	return toolcache.New(toolcache.Options{Forge: a.forges, Store: a.store, Dir: dir,
		MaxSize: a.cfg.Objects.MaxObjectSize, Log: a.logger})
}

// cachedForges is the reconciler's view of the forges with the runner downloads taken
// from the cache (fetching what it lacks), so providers boot from garrison's copies.
type cachedForges struct {
	reconcile.Forges
	cache *toolcache.Cache
}

func (f cachedForges) Forge(ctx context.Context, e garrison.Entity) (reconcile.Forge, error) {
	fg, err := f.Forges.Forge(ctx, e)
	if err != nil {
		return nil, err
	}
	return cachedForge{Forge: fg, cache: f.cache}, nil
}

type cachedForge struct {
	reconcile.Forge
	cache *toolcache.Cache
}

func (f cachedForge) RunnerDownloads(ctx context.Context, e garrison.Entity) ([]provider.RunnerApplicationDownload, error) {
	return f.cache.RunnerDownloads(ctx, e)
}

// cachedInstanceForge is the instance API's forge with the runner downloads the cache
// holds pointing at garrison; it fetches nothing (the reconciler did, before the
// instance was created).
type cachedInstanceForge struct {
	instanceapi.Forge
	cache *toolcache.Cache
}

func (f cachedInstanceForge) RunnerDownloads(ctx context.Context, e garrison.Entity) ([]provider.RunnerApplicationDownload, error) {
	return f.cache.Cached(ctx, e)
}

// reconcileForges is the reconciler's source of forges, through the cache when on.
func (a *Server) reconcileForges() reconcile.Forges {
	if a.tools == nil {
		return a.forges.ReconcileForges()
	}
	return cachedForges{Forges: a.forges.ReconcileForges(), cache: a.tools}
}

// runnerToolsHandler serves the cached runner archives; nil when the cache is off.
func (a *Server) runnerToolsHandler() http.Handler {
	if a.tools == nil {
		return nil
	}
	return a.tools.Handler()
}
