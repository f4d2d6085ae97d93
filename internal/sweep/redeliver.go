package sweep

import (
	"context"
	"errors"
	"time"

	"github.com/garrison-ci/garrison"
)

// hookState is what the sweep remembers about one entity's webhook between sweeps.
type hookState struct {
	hookID      int64
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
	hs := s.hookState(e.ID)
	if hs.hookID == 0 {
		id, err := r.InstalledHook(ctx, e)
		if errors.Is(err, garrison.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		hs.hookID = id
	}
	now := s.o.Now()
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
// oldest GUID first. ds is newest first.
func failed(ds []Delivery) []Delivery {
	ok := map[string]bool{}
	newest := map[string]Delivery{}
	var order []string
	for _, d := range ds {
		if d.GUID == "" {
			continue
		}
		if d.Status == "OK" {
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

func (s *Sweeper) hookState(entityID string) *hookState {
	s.mu.Lock()
	defer s.mu.Unlock()
	hs := s.hooks[entityID]
	if hs == nil {
		hs = &hookState{redelivered: map[string]time.Time{}}
		s.hooks[entityID] = hs
	}
	return hs
}

// prune forgets redelivered GUIDs older than cutoff: the forge no longer lists them.
func (hs *hookState) prune(cutoff time.Time) {
	for g, t := range hs.redelivered {
		if t.Before(cutoff) {
			delete(hs.redelivered, g)
		}
	}
}
