package httpapi

import (
	"context"
	"encoding/json"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/store"
)

// DefaultMetricsInterval is how often the metrics stream sends a snapshot (MS-1).
const DefaultMetricsInterval = 5 * time.Second

// snapshotFrame reads the store and encodes one snapshot.
func (s *Server) snapshotFrame(ctx context.Context) ([]byte, error) {
	snap, err := s.metricsSnapshot(ctx)
	if err != nil {
		s.log.WarnContext(ctx, "metrics stream: reading the snapshot", "err", err)
		return nil, err
	}
	return json.Marshal(snap)
}

func (s *Server) metricsSnapshot(ctx context.Context) (apiv1.MetricsSnapshot, error) {
	snap := apiv1.MetricsSnapshot{Entities: []apiv1.SnapshotEntity{}, Pools: []apiv1.SnapshotPool{}, ScaleSets: []apiv1.SnapshotPool{}}
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
		v := apiv1.SnapshotEntity{ID: e.ID, Name: e.FullName(), Type: string(e.Type), Endpoint: e.Endpoint,
			PoolCount: poolCount[e.ID]}
		if pm := s.opts.PoolManagers; pm != nil {
			v.Healthy, _ = pm.Status(e.ID)
		}
		snap.Entities = append(snap.Entities, v)
	}
	return snap, nil
}

func snapshotPoolOf(p garrison.Pool, e garrison.Entity) apiv1.SnapshotPool {
	v := apiv1.SnapshotPool{ID: p.ID, ProviderName: p.ProviderName, OSType: p.OSType, MaxRunners: p.MaxRunners,
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
func countRunners(pools []apiv1.SnapshotPool, insts []garrison.Instance) {
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
