package forgesim

import (
	"net/http"

	"github.com/garrison-ci/garrison"
)

// actionsSimRoutes are the /_sim/ controls of the Actions service, for tools that run
// the simulator in another process (garrison-dev forgesim).
func (s *Sim) actionsSimRoutes() {
	s.mux.HandleFunc("GET /_sim/scalesets", s.simScaleSets)
	s.mux.HandleFunc("POST /_sim/scalesets/faults", s.simScaleSetFaults)
	s.mux.HandleFunc("POST /_sim/scalesets/{id}/expire-queue-tokens", func(w http.ResponseWriter, r *http.Request) {
		s.ExpireQueueTokens(pathID(r, "id"))
		w.WriteHeader(http.StatusNoContent)
	})
	s.mux.HandleFunc("POST /_sim/scalesets/{id}/foreign-session", func(w http.ResponseWriter, r *http.Request) {
		id, err := s.OpenForeignSession(pathID(r, "id"), "forgesim")
		if err != nil {
			s.simError(w, err)
			return
		}
		s.write(w, ok(http.StatusCreated, map[string]string{"session_id": id}))
	})
	s.mux.HandleFunc("POST /_sim/runners/{id}/strand", func(w http.ResponseWriter, r *http.Request) {
		s.simFault(w, s.StrandRunner(pathID(r, "id")))
	})
	s.mux.HandleFunc("POST /_sim/jobs/{id}/cancel-assignment", func(w http.ResponseWriter, r *http.Request) {
		s.simFault(w, s.CancelAssignment(pathID(r, "id")))
	})
	s.mux.HandleFunc("POST /_sim/jobs/{id}/complete-early", func(w http.ResponseWriter, r *http.Request) {
		s.simFault(w, s.CompleteEarly(pathID(r, "id")))
	})
}

func (s *Sim) simFault(w http.ResponseWriter, err error) {
	if err != nil {
		s.simError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Sim) simScaleSets(w http.ResponseWriter, _ *http.Request) {
	type setJSON struct {
		ID           int64         `json:"id"`
		Name         string        `json:"name"`
		Scope        string        `json:"scope"`
		GroupID      int64         `json:"runner_group_id"`
		Labels       []string      `json:"labels"`
		SessionID    string        `json:"session_id,omitempty"`
		SessionOwner string        `json:"session_owner,omitempty"`
		Unacked      int           `json:"unacked"`
		Pending      int           `json:"pending"`
		MaxCapacity  int           `json:"max_capacity"`
		Statistics   ScaleSetStats `json:"statistics"`
	}
	out := []setJSON{}
	for _, ss := range s.ScaleSets() {
		out = append(out, setJSON{ss.ID, ss.Name, ss.Scope, ss.GroupID, ss.Labels, ss.SessionID, ss.SessionOwner, ss.Unacked, ss.Pending, ss.MaxCapacity, ss.Stats})
	}
	s.write(w, ok(http.StatusOK, out))
}

// simScaleSetFaults sets the service-wide faults: {"fail": n, "status": 503} makes the
// next n calls fail, {"outage": true|false} stalls the message streams,
// {"expire_admin_tokens": true} expires the admin tokens. Absent fields change nothing.
func (s *Sim) simScaleSetFaults(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Fail              *int  `json:"fail"`
		Status            int   `json:"status"`
		Outage            *bool `json:"outage"`
		ExpireAdminTokens bool  `json:"expire_admin_tokens"`
	}
	if err := decodeJSON(r, &req); err != nil {
		s.simError(w, garrison.Errorf(garrison.EInvalid, "bad JSON: %v", err))
		return
	}
	if req.Fail != nil {
		if *req.Fail > 0 && (req.Status < 400 || req.Status > 599) {
			s.simError(w, garrison.Errorf(garrison.EInvalid, "status %d is not an error status", req.Status))
			return
		}
		s.FailScaleSetCalls(*req.Fail, req.Status)
	}
	if req.Outage != nil {
		s.SetScaleSetOutage(*req.Outage)
	}
	if req.ExpireAdminTokens {
		s.ExpireAdminTokens()
	}
	w.WriteHeader(http.StatusNoContent)
}
