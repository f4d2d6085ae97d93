package httpapi

import (
	"context"
	"encoding/json"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// DefaultMetricsInterval is how often the metrics stream sends a snapshot (MS-1).
const DefaultMetricsInterval = 5 * time.Second

// metricsSnapshot is the frame of GET /api/v1/ws/metrics (§1.4): lists are never null.
type metricsSnapshot struct {
	Entities  []snapshotEntity `json:"entities"`
	Pools     []snapshotPool   `json:"pools"`
	ScaleSets []snapshotPool   `json:"scale_sets"` // garrison has no scale sets: always []
}

type snapshotEntity struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Type          string `json:"type"`
	Endpoint      string `json:"endpoint"`
	PoolCount     int    `json:"pool_count"`
	ScaleSetCount int    `json:"scale_set_count"`
	Healthy       bool   `json:"healthy"`
}

// snapshotPool carries only its owner's name key (repo_name, org_name or enterprise_name).
type snapshotPool struct {
	ID                 string         `json:"id"`
	ProviderName       string         `json:"provider_name"`
	OSType             string         `json:"os_type"`
	MaxRunners         uint           `json:"max_runners"`
	Enabled            bool           `json:"enabled"`
	RepoName           string         `json:"repo_name,omitempty"`
	OrgName            string         `json:"org_name,omitempty"`
	EnterpriseName     string         `json:"enterprise_name,omitempty"`
	RunnerCounts       map[string]int `json:"runner_counts"`
	RunnerStatusCounts map[string]int `json:"runner_status_counts"`
}

// snapshotFrame reads the store and encodes one snapshot.
func (s *Server) snapshotFrame(ctx context.Context) ([]byte, error) {
	snap, err := s.metricsSnapshot(ctx)
	if err != nil {
		s.log.WarnContext(ctx, "metrics stream: reading the snapshot", "err", err)
		return nil, err
	}
	return json.Marshal(snap)
}

func (s *Server) metricsSnapshot(ctx context.Context) (metricsSnapshot, error) {
	snap := metricsSnapshot{Entities: []snapshotEntity{}, Pools: []snapshotPool{}, ScaleSets: []snapshotPool{}}
	ents, err := s.store.ListEntities(ctx, store.EntityFilter{})
	if err != nil {
		return snap, err
	}
	pools, err := s.store.ListPools(ctx, store.PoolFilter{})
	if err != nil {
		return snap, err
	}
	insts, err := s.store.ListInstances(ctx, store.InstanceFilter{})
	if err != nil {
		return snap, err
	}
	byID := make(map[string]garrison.Entity, len(ents))
	poolCount := map[string]int{}
	for _, e := range ents {
		byID[e.ID] = e
	}
	for _, p := range pools {
		poolCount[p.EntityID]++
		snap.Pools = append(snap.Pools, snapshotPoolOf(p, byID[p.EntityID]))
	}
	countRunners(snap.Pools, insts)
	for _, e := range ents {
		v := snapshotEntity{ID: e.ID, Name: e.FullName(), Type: string(e.Type), Endpoint: e.Endpoint,
			PoolCount: poolCount[e.ID]}
		if pm := s.opts.PoolManagers; pm != nil {
			v.Healthy, _ = pm.Status(e.ID)
		}
		snap.Entities = append(snap.Entities, v)
	}
	return snap, nil
}

func snapshotPoolOf(p garrison.Pool, e garrison.Entity) snapshotPool {
	v := snapshotPool{ID: p.ID, ProviderName: p.ProviderName, OSType: p.OSType, MaxRunners: p.MaxRunners,
		Enabled: p.Enabled, RunnerCounts: map[string]int{}, RunnerStatusCounts: map[string]int{}}
	switch p.EntityType {
	case garrison.Repository:
		v.RepoName = e.FullName()
	case garrison.Organization:
		v.OrgName = e.Name
	case garrison.Enterprise:
		v.EnterpriseName = e.Name
	}
	return v
}

// countRunners adds each instance to its pool's counts by status and, when set, by
// runner status.
func countRunners(pools []snapshotPool, insts []garrison.Instance) {
	idx := make(map[string]int, len(pools))
	for i, p := range pools {
		idx[p.ID] = i
	}
	for _, in := range insts {
		i, ok := idx[in.PoolID]
		if !ok {
			continue
		}
		pools[i].RunnerCounts[string(in.Status)]++
		if in.RunnerStatus != "" {
			pools[i].RunnerStatusCounts[string(in.RunnerStatus)]++
		}
	}
}
