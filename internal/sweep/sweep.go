package sweep

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/logx"
	"github.com/garrison-ci/garrison/internal/store"
)

// Stats counts what sweeps did.
type Stats struct {
	Entities    int // entities swept
	Skipped     int // entities skipped for budget
	Recorded    int // queued jobs added to the ledger
	Known       int // queued jobs the ledger already knew
	Unserved    int // of Recorded, jobs no pool can serve (recorded with the reason)
	Redelivered int // failed deliveries redelivered
}

func (s *Stats) add(o Stats) {
	s.Entities += o.Entities
	s.Skipped += o.Skipped
	s.Recorded += o.Recorded
	s.Known += o.Known
	s.Unserved += o.Unserved
	s.Redelivered += o.Redelivered
}

// Sweeper runs the missed-webhook sweeps. It is safe for concurrent use.
type Sweeper struct {
	o       Options
	budgets *budgets
	logs    *logx.Limiter

	mu    sync.Mutex // guards hooks and relook
	hooks map[string]*hookState
	// relook holds the entities whose webhook must be looked up again (ForgetHook).
	relook map[string]bool

	// A hookState is only touched by the sweep of its entity; sweeps of one entity are
	// serialised by entityMu.
	entityMu sync.Map // entity id → *sync.Mutex
}

// New returns a Sweeper; it fails when a required option is missing.
func New(opts Options) (*Sweeper, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Sweeper{
		o: o, budgets: newBudgets(o.BudgetShare, o.LowBudget),
		logs:  logx.NewLimiter(o.Logger, o.LogEvery, o.Now),
		hooks: map[string]*hookState{}, relook: map[string]bool{},
	}, nil
}

// SweepOnce sweeps every entity now, one after the other. Failures of one entity do not
// stop the others; they are joined in the error.
func (s *Sweeper) SweepOnce(ctx context.Context) (Stats, error) {
	ents, err := s.o.Store.ListEntities(ctx, store.EntityFilter{})
	if err != nil {
		return Stats{}, fmt.Errorf("sweep: list entities: %w", err)
	}
	var total Stats
	var errs []error
	for _, e := range ents {
		st, err := s.SweepEntity(ctx, e)
		total.add(st)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return total, errors.Join(errs...)
}

// SweepEntity sweeps one entity, unless its credential's budget says to wait.
func (s *Sweeper) SweepEntity(ctx context.Context, e garrison.Entity) (Stats, error) {
	mu, _ := s.entityMu.LoadOrStore(e.ID, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	var st Stats
	f, err := s.o.Forges(ctx, e)
	if err != nil {
		return st, fmt.Errorf("sweep %s: forge client: %w", e.FullName(), err)
	}
	before, ok := s.budgets.allow(e.CredentialsID, f)
	if !ok {
		st.Skipped++
		s.logs.Log(ctx, slog.LevelWarn, "budget", "sweep: API budget low, skipping",
			"entity", e.FullName(), "credentials", e.CredentialsName)
		return st, nil
	}
	defer s.budgets.charge(e.CredentialsID, f, before)
	st.Entities++
	jobs, err := f.QueuedJobs(ctx, e)
	if err != nil {
		return st, fmt.Errorf("sweep %s: queued jobs: %w", e.FullName(), err)
	}
	if err := s.recordQueued(ctx, e, jobs, &st); err != nil {
		return st, fmt.Errorf("sweep %s: record jobs: %w", e.FullName(), err)
	}
	if err := s.redeliver(ctx, e, f, &st); err != nil {
		return st, fmt.Errorf("sweep %s: redeliver: %w", e.FullName(), err)
	}
	return st, nil
}
