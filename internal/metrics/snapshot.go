package metrics

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// Source is what the snapshot families are computed from: the store's lists.
type Source interface {
	Controller(ctx context.Context) (garrison.Controller, error)
	HasAdmin(ctx context.Context) (bool, error)
	ListEntities(ctx context.Context, f store.EntityFilter) ([]garrison.Entity, error)
	ListPools(ctx context.Context, f store.PoolFilter) ([]garrison.Pool, error)
	ListInstances(ctx context.Context, f store.InstanceFilter) ([]garrison.Instance, error)
	ListJobs(ctx context.Context, f store.JobFilter) ([]garrison.Job, error)
}

// ProviderInfo describes one configured provider for garm_provider_info.
type ProviderInfo struct{ Name, Type, Description string }

// SnapshotOptions configure the snapshot families (GARM's periodic gauges).
type SnapshotOptions struct {
	Source Source
	// Providers lists the configured providers.
	Providers []ProviderInfo
	// Running reports whether an entity's pool manager runs (nil: all run).
	Running func(entityID string) bool
	// Period is how long one snapshot is reused (GARM's [metrics] period; default 60s).
	Period time.Duration
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// snapshot is what one read of the store gives; each part is nil when its read failed,
// so one failing list spoils only its own families (PM-6).
type snapshot struct {
	controller *garrison.Controller
	admin      bool
	entities   []garrison.Entity
	pools      []garrison.Pool
	instances  []garrison.Instance
	jobs       []garrison.Job
	ok         struct{ entities, pools, instances, jobs bool }
}

// snapshotter reads the store at most once per period, when scraped.
type snapshotter struct {
	o SnapshotOptions

	mu   sync.Mutex // guards last and at; held during a read so scrapes share it
	last snapshot
	at   time.Time
}

func newSnapshotter(o SnapshotOptions) *snapshotter {
	if o.Period <= 0 {
		o.Period = 60 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Running == nil {
		o.Running = func(string) bool { return true }
	}
	return &snapshotter{o: o}
}

// get returns the current snapshot, reading the store when the last one is a period old.
func (s *snapshotter) get() snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.o.Now()
	if !s.at.IsZero() && now.Sub(s.at) < s.o.Period {
		return s.last
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.last, s.at = s.read(ctx), now
	return s.last
}

// read lists everything the families need; a failure is logged and leaves that part out.
func (s *snapshotter) read(ctx context.Context) snapshot {
	var sn snapshot
	src := s.o.Source
	logErr := func(what string, err error) bool {
		if err != nil {
			s.o.Logger.WarnContext(ctx, "metrics: read "+what, "err", err)
			return false
		}
		return true
	}
	if c, err := src.Controller(ctx); logErr("controller", err) {
		sn.controller = &c
	}
	admin, err := src.HasAdmin(ctx)
	sn.admin = logErr("admin", err) && admin
	sn.entities, err = src.ListEntities(ctx, store.EntityFilter{})
	sn.ok.entities = logErr("entities", err)
	sn.pools, err = src.ListPools(ctx, store.PoolFilter{})
	sn.ok.pools = logErr("pools", err)
	sn.instances, err = src.ListInstances(ctx, store.InstanceFilter{})
	sn.ok.instances = logErr("instances", err)
	sn.jobs, err = src.ListJobs(ctx, store.JobFilter{})
	sn.ok.jobs = logErr("jobs", err)
	return sn
}
