package sweep

import (
	"context"
	"errors"
	"log/slog"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// errKnown aborts an upsert of a job the ledger already knows.
var errKnown = errors.New("sweep: job already in the ledger")

// recordQueued records the queued jobs the ledger does not know, with the receiver's rules
// for a queued delivery, and enqueues the pools matching any queued job.
func (s *Sweeper) recordQueued(ctx context.Context, e garrison.Entity, jobs []garrison.Job, st *Stats) error {
	if len(jobs) == 0 {
		return nil
	}
	pools, err := s.o.Store.ListPools(ctx, store.PoolFilter{EntityID: e.ID})
	if err != nil {
		return err
	}
	notify := map[string]bool{}
	for _, j := range jobs {
		matching := garrison.MatchingPools(pools, j.Labels)
		if len(matching) == 0 {
			st.Unmatched++
			s.logs.logf(ctx, slog.LevelInfo, "unmatched", "sweep: queued job no pool can serve, not recorded",
				"entity", e.FullName(), "job", j.ID, "labels", j.Labels)
			continue
		}
		for _, p := range matching {
			notify[p.ID] = true
		}
		recorded, err := s.recordOne(ctx, e, j)
		if err != nil {
			return err
		}
		if recorded {
			st.Recorded++
		} else {
			st.Known++
		}
	}
	s.notify(notify)
	return nil
}

// recordOne writes one queued job unless the ledger knows it; it reports whether it did.
func (s *Sweeper) recordOne(ctx context.Context, e garrison.Entity, j garrison.Job) (bool, error) {
	if _, err := s.o.Store.Job(ctx, j.ID); err == nil {
		return false, nil
	} else if !errors.Is(err, garrison.ErrNotFound) {
		return false, err
	}
	j.Action = garrison.JobQueued
	_, err := s.o.Store.UpsertJob(ctx, j.ID, func(cur *garrison.Job, exists bool) error {
		if exists {
			return errKnown // recorded by a webhook meanwhile
		}
		if err := cur.Advance(j); err != nil {
			return err
		}
		cur.EntityID, cur.EntityType = e.ID, e.Type
		return nil
	})
	if errors.Is(err, errKnown) {
		return false, nil
	}
	return err == nil, err
}

func (s *Sweeper) notify(ids map[string]bool) {
	if len(ids) == 0 {
		return
	}
	out := make([]string, 0, len(ids))
	for id := range ids {
		out = append(out, id)
	}
	s.o.Notify(out...)
}
