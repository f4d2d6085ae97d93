package httpapi

import (
	"net/http"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

// handleListReplicas lists the replicas sharing the database (garrison's own route).
func (s *Server) handleListReplicas(w http.ResponseWriter, r *http.Request) error {
	reps, self, err := s.opts.Cluster.Replicas(r.Context())
	if err != nil {
		return err
	}
	now, ttl := s.now(), s.opts.Cluster.LeaseTTL()
	out := make([]apiv1.Replica, 0, len(reps))
	for _, rep := range reps {
		out = append(out, apiv1.Replica{ID: rep.ID, Address: rep.Address, Version: rep.Version,
			StartedAt: rep.StartedAt, HeartbeatAt: rep.HeartbeatAt, Alive: now.Sub(rep.HeartbeatAt) <= ttl,
			Self: rep.ID == self})
	}
	writeOK(w, out)
	return nil
}

// handleListClaims lists every claim: who holds which pool, sweep and scale-set session,
// with its fencing token (garrison's own route).
func (s *Server) handleListClaims(w http.ResponseWriter, r *http.Request) error {
	claims, err := s.opts.Cluster.Claims(r.Context())
	if err != nil {
		return err
	}
	now := s.now()
	out := make([]apiv1.Claim, 0, len(claims))
	for _, c := range claims {
		out = append(out, apiv1.Claim{Kind: c.Kind, Key: c.Key, Holder: c.Holder, Token: c.Token,
			ExpiresAt: c.ExpiresAt, Held: c.HeldAt(now)})
	}
	writeOK(w, out)
	return nil
}
