package metrics

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// maxRemembered bounds the job → pool and entity → forge memories of ObservedStore.
const maxRemembered = 10000

// ObservedStore is a store whose writes feed the metrics: each job ledger write that moves
// a job to a new stage (Stages) is observed in garrison_job_queue_seconds as it commits,
// whoever writes it (webhook intake, sweep, reconciler), and deleting credentials drops
// their budget series. Everything else passes through.
type ObservedStore struct {
	store.Store
	m   *Metrics
	now func() time.Time

	mu     sync.Mutex
	pools  map[int64]string              // job id → the pool of its first runner
	forges map[string]garrison.ForgeType // entity id → forge type
}

// ObserveJobs wraps st so that job transitions are observed.
func (m *Metrics) ObserveJobs(st store.Store) *ObservedStore {
	return &ObservedStore{Store: st, m: m, now: time.Now, pools: map[int64]string{}, forges: map[string]garrison.ForgeType{}}
}

// UpsertJob writes the job and observes the stages the write reached.
func (s *ObservedStore) UpsertJob(ctx context.Context, id int64, fn func(j *garrison.Job, exists bool) error) (garrison.Job, error) {
	j, _, err := s.RecordJob(ctx, store.JobRecord{ID: id, Job: fn})
	return j, err
}

// RecordJob writes the job and its runner's instance and observes the stages the job
// reached.
func (s *ObservedStore) RecordJob(ctx context.Context, r store.JobRecord) (garrison.Job, *garrison.Instance, error) {
	var before garrison.Job
	var existed bool
	fn := r.Job
	r.Job = func(j *garrison.Job, exists bool) error {
		before, existed = *j, exists // the last call is the one that commits
		return fn(j, exists)
	}
	after, in, err := s.Store.RecordJob(ctx, r)
	if err != nil {
		return after, in, err
	}
	if in != nil && in.PoolID != "" && (after.LockedBy == "" || after.LockedBy == in.ID) {
		s.remember(after.ID, in.PoolID) // the runner's pool, without reading it back
	}
	if stages := Stages(before, existed, after); len(stages) > 0 {
		s.m.ObserveJobStages(after, s.place(ctx, after), stages, s.now())
	}
	if after.Action == garrison.JobCompleted {
		s.mu.Lock()
		delete(s.pools, after.ID)
		s.mu.Unlock()
	}
	return after, in, nil
}

// DeleteJob forgets the job's pool as well.
func (s *ObservedStore) DeleteJob(ctx context.Context, id int64) error {
	s.mu.Lock()
	delete(s.pools, id)
	s.mu.Unlock()
	return s.Store.DeleteJob(ctx, id)
}

// remember notes the pool of a job's first runner.
func (s *ObservedStore) remember(jobID int64, poolID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, known := s.pools[jobID]; known {
		return
	}
	if len(s.pools) >= maxRemembered {
		clear(s.pools)
	}
	s.pools[jobID] = poolID
}

// place finds the forge of the job's entity and the pool of its first runner.
func (s *ObservedStore) place(ctx context.Context, j garrison.Job) JobPlace {
	s.mu.Lock()
	forge, knownForge := s.forges[j.EntityID]
	pool, knownPool := s.pools[j.ID]
	s.mu.Unlock()
	if !knownForge && j.EntityID != "" {
		if e, err := s.Store.Entity(ctx, j.EntityID); err == nil {
			forge, knownForge = e.ForgeType, true
		}
	}
	if !knownPool {
		pool, knownPool = s.runnerPool(ctx, j)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.forges) >= maxRemembered {
		clear(s.forges)
	}
	if len(s.pools) >= maxRemembered {
		clear(s.pools)
	}
	if knownForge {
		s.forges[j.EntityID] = forge
	}
	if knownPool {
		s.pools[j.ID] = pool
	}
	return JobPlace{Forge: forge, PoolID: pool}
}

// runnerPool returns the pool of the instance bound to the job, or of the runner the forge
// named; false when the job has no runner yet.
func (s *ObservedStore) runnerPool(ctx context.Context, j garrison.Job) (string, bool) {
	var in garrison.Instance
	var err error
	switch {
	case j.LockedBy != "":
		in, err = s.Store.InstanceByID(ctx, j.LockedBy)
	case j.RunnerName != "":
		in, err = s.Store.Instance(ctx, j.RunnerName)
	default:
		return "", false
	}
	if errors.Is(err, garrison.ErrNotFound) {
		return "", true // not (or no longer) ours
	}
	return in.PoolID, err == nil
}

// DeleteCredentials deletes the credentials and drops their budget series (D-5).
func (s *ObservedStore) DeleteCredentials(ctx context.Context, id uint) error {
	c, readErr := s.Store.Credentials(ctx, id)
	if err := s.Store.DeleteCredentials(ctx, id); err != nil {
		return err
	}
	if readErr == nil {
		s.m.ForgetCredentials(c.ID, c.Name, c.Endpoint)
	}
	return nil
}

// Unwrap returns the wrapped store.
func (s *ObservedStore) Unwrap() store.Store { return s.Store }
