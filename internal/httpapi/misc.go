package httpapi

import (
	"net/http"

	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/store"
)

// handleListProviders serves GET /providers from the configured providers.
func (s *Server) handleListProviders(w http.ResponseWriter, _ *http.Request) error {
	out := make([]apiv1.Provider, 0, len(s.opts.Providers))
	for _, p := range s.opts.Providers {
		v := apiv1.Provider{Name: p.Name(), Type: p.Type(), Description: p.Description()}
		if v.Type == "" {
			v.Type = "external"
		}
		if vp, ok := p.(VersionedProvider); ok {
			v.Version, v.InterfaceVersions = vp.Version(), vp.InterfaceVersions()
		}
		out = append(out, v)
	}
	writeOK(w, out)
	return nil
}

// handleListJobs serves GET /jobs.
func (s *Server) handleListJobs(w http.ResponseWriter, r *http.Request) error {
	jobs, err := s.store.ListJobs(r.Context(), store.JobFilter{})
	if err != nil {
		return err
	}
	out := make([]apiv1.Job, 0, len(jobs))
	for _, j := range jobs {
		out = append(out, jobView(j)) // the reason a job waits is the ledger's
	}
	writeOK(w, out)
	return nil
}

// notify tells the reconciler that pools changed.
func (s *Server) notify(poolIDs ...string) {
	if s.opts.Notify != nil && len(poolIDs) > 0 {
		s.opts.Notify(poolIDs...)
	}
}
