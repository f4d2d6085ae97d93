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
// for a queued delivery (a job no pool can serve is recorded with the reason, so that the
// job list says why it waits), and enqueues the pools matching any queued job.
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
		for _, p := range matching {
			notify[p.ID] = true
		}
		if len(matching) == 0 {
			j.Reason = garrison.UnservedReason(pools, j.Labels)
		}
		recorded, err := s.recordOne(ctx, e, j)
		if err != nil {
			return err
		}
		switch {
		case !recorded:
			st.Known++
		case j.Reason != "":
			st.Recorded++
			st.Unserved++
			s.logs.Log(ctx, slog.LevelInfo, "unserved", "sweep: queued job no pool can serve, recorded with the reason",
				"entity", e.FullName(), "job", j.ID, "labels", j.Labels, "reason", j.Reason)
		default:
			st.Recorded++
		}
	}
	s.notify(notify)
	return nil
}

// recordOne writes one queued job (with its reason, if any) unless the ledger knows it;
// it reports whether it did.
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
		cur.EntityID, cur.EntityType, cur.Reason = e.ID, e.Type, j.Reason
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
