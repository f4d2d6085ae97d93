package sweep

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/garrison-ci/garrison"
)

// hookState is what the sweep remembers about one entity's webhook between sweeps.
type hookState struct {
	hookID int64
	// missingAt is when the last lookup found no garrison webhook (or was refused); the
	// hooks are not listed again before HookRecheck has passed. Zero: look it up.
	missingAt   time.Time
	checked     time.Time            // deliveries up to here were looked at
	redelivered map[string]time.Time // GUID → when it was redelivered
}

// redeliver asks the forge to redeliver, once per GUID, the deliveries of garrison's
// webhook that have no successful attempt since the previous sweep.
func (s *Sweeper) redeliver(ctx context.Context, e garrison.Entity, f Forge, st *Stats) error {
	r, ok := f.(Redeliverer)
	if !ok {
		return nil
	}
	hs, relook := s.hookState(e.ID)
	if relook {
		hs.hookID, hs.missingAt = 0, time.Time{}
	}
	now := s.o.Now()
	if hs.hookID == 0 {
		if found, err := s.lookUpHook(ctx, e, r, hs, now); !found {
			return err
		}
	}
	since := hs.checked
	if since.IsZero() {
		since = now.Add(-s.o.Lookback)
	}
	ds, err := r.ListHookDeliveries(ctx, e, hs.hookID, since.Add(-time.Minute))
	if errors.Is(err, garrison.ErrNotFound) {
		hs.hookID = 0 // the hook is gone; look it up again next time
		return nil
	}
	if err != nil {
		return err
	}
	capped, err := s.redeliverFailed(ctx, e, r, hs, failed(ds), st)
	if !capped {
		hs.checked = now
	}
	hs.prune(now.Add(-s.o.Lookback))
	return err
}

// lookUpHook finds garrison's webhook on the entity, unless a lookup less than
// HookRecheck ago found none: the listing is cached either way. A refused listing (the
// credentials may not read hooks) is cached like a missing hook, and reported.
func (s *Sweeper) lookUpHook(ctx context.Context, e garrison.Entity, r Redeliverer, hs *hookState, now time.Time) (bool, error) {
	if !hs.missingAt.IsZero() && now.Sub(hs.missingAt) < s.o.HookRecheck && !now.Before(hs.missingAt) {
		return false, nil
	}
	id, err := r.InstalledHook(ctx, e)
	switch {
	case errors.Is(err, garrison.ErrNotFound):
		hs.missingAt = now
		return false, nil
	case errors.Is(err, garrison.ErrUnauthorized):
		hs.missingAt = now
		return false, fmt.Errorf("look up the webhook (not again for %v): %w", s.o.HookRecheck, err)
	case err != nil:
		return false, err
	}
	hs.hookID, hs.missingAt = id, time.Time{}
	return true, nil
}

// redeliverFailed redelivers up to MaxRedeliveries deliveries; it reports whether it
// stopped at the cap.
func (s *Sweeper) redeliverFailed(ctx context.Context, e garrison.Entity, r Redeliverer, hs *hookState, ds []Delivery, st *Stats) (bool, error) {
	n := 0
	for _, d := range ds {
		if _, done := hs.redelivered[d.GUID]; done {
			continue
		}
		if n == s.o.MaxRedeliveries {
			return true, nil
		}
		if err := r.Redeliver(ctx, e, hs.hookID, d.ID); err != nil {
			return false, err
		}
		hs.redelivered[d.GUID] = s.o.Now()
		n++
		st.Redelivered++
	}
	return false, nil
}

// failed returns the newest attempt of each GUID none of whose attempts succeeded,
// oldest GUID first. ds is newest first. A delivery the receiver answered 422 (a job no
// pool can serve: recorded with its reason, or not garrison's) is as good as delivered:
// sending it again would get the same answer.
func failed(ds []Delivery) []Delivery {
	ok := map[string]bool{}
	newest := map[string]Delivery{}
	var order []string
	for _, d := range ds {
		if d.GUID == "" {
			continue
		}
		if d.Status == "OK" || d.StatusCode == http.StatusUnprocessableEntity {
			ok[d.GUID] = true
		}
		if _, seen := newest[d.GUID]; !seen {
			newest[d.GUID] = d
			order = append(order, d.GUID)
		}
	}
	var out []Delivery
	for i := len(order) - 1; i >= 0; i-- {
		if g := order[i]; !ok[g] {
			out = append(out, newest[g])
		}
	}
	return out
}

// hookState returns the entity's hook state, and whether ForgetHook asked for its
// webhook to be looked up again since.
func (s *Sweeper) hookState(entityID string) (*hookState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	hs := s.hooks[entityID]
	if hs == nil {
		hs = &hookState{redelivered: map[string]time.Time{}}
		s.hooks[entityID] = hs
	}
	relook := s.relook[entityID]
	delete(s.relook, entityID)
	return hs, relook
}

// ForgetHook makes the next sweep of the entity look its webhook up again, instead of
// trusting what the last lookup found: garrison installed or removed the webhook. It
// does not block.
func (s *Sweeper) ForgetHook(entityID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.relook[entityID] = true
}

// prune forgets redelivered GUIDs older than cutoff: the forge no longer lists them.
func (hs *hookState) prune(cutoff time.Time) {
	for g, t := range hs.redelivered {
		if t.Before(cutoff) {
			delete(hs.redelivered, g)
		}
	}
}
