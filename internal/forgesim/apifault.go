package forgesim

import (
	"net/http"
	"time"
)

// APIFault makes the GitHub API misbehave for every credential, as an outage would:
// each call waits Delay first (a slow forge), then, with Status set, fails with that
// status (a 5xx outage). The zero APIFault is a healthy forge. Runner-side routes (the
// stand-in runners' sessions) are not affected.
type APIFault struct {
	Status int
	Delay  time.Duration
}

// SetAPIFault replaces the API fault.
func (s *Sim) SetAPIFault(f APIFault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apiFault = f
}

// applyAPIFault waits out the fault's delay (or the request's end) and returns the reply
// of a failing call, nil when the call goes on.
func (s *Sim) applyAPIFault(r *http.Request) *reply {
	s.mu.Lock()
	f := s.apiFault
	s.mu.Unlock()
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
		}
	}
	if f.Status == 0 {
		return nil
	}
	rp := ghError(f.Status, http.StatusText(f.Status))
	return &rp
}
