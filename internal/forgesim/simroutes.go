package forgesim

import (
	"net/http"
	"strings"
	"time"

	"github.com/garrison-ci/garrison"
)

func (s *Sim) routes() {
	s.githubRunnerRoutes()
	s.githubHookRoutes()
	s.githubRunRoutes()
	s.giteaRoutes()
	s.actionsRoutes()
	s.actionsSimRoutes()
	s.mux.HandleFunc("GET /_sim/downloads/{file}", s.serveTarball)
	s.mux.HandleFunc("GET /_sim/calls", s.simCalls)
	s.mux.HandleFunc("GET /_sim/jobs", s.simJobs)
	s.mux.HandleFunc("POST /_sim/jobs", s.simQueueJob)
	s.mux.HandleFunc("GET /_sim/runners", s.simRunners)
	s.mux.HandleFunc("GET /_sim/deliveries", s.simDeliveries)
	s.mux.HandleFunc("POST /_sim/repos", s.simAddRepo)
	s.mux.HandleFunc("POST /_sim/runners/register", s.simRegister)
	s.mux.HandleFunc("POST /_sim/runners/{name}/acquire", s.simAcquire)
	s.mux.HandleFunc("POST /_sim/jobs/{id}/start", s.simStart)
	s.mux.HandleFunc("POST /_sim/jobs/{id}/complete", s.simComplete)
}

// simError renders a classified error as {"message"} with the matching status.
func (s *Sim) simError(w http.ResponseWriter, err error) {
	status := map[garrison.ErrorCode]int{
		garrison.ENotFound: http.StatusNotFound, garrison.EUnauthorized: http.StatusUnauthorized,
		garrison.EConflict: http.StatusConflict, garrison.EInvalid: http.StatusBadRequest,
	}[garrison.CodeOf(err)]
	if status == 0 {
		status = http.StatusInternalServerError
	}
	s.write(w, reply{status: status, body: map[string]string{"message": err.Error()}})
}

func (s *Sim) simCalls(w http.ResponseWriter, _ *http.Request) {
	type call struct {
		Route      string `json:"route"`
		Credential string `json:"credential"`
		Count      int    `json:"count"`
	}
	out := []call{}
	for k, n := range s.Calls() {
		out = append(out, call{k.Route, k.Credential, n})
	}
	s.write(w, ok(http.StatusOK, out))
}

// JobJSON is the /_sim/ view of a job.
type JobJSON struct {
	ID          int64     `json:"id"`
	RunID       int64     `json:"run_id"`
	Repo        string    `json:"repo"`
	Name        string    `json:"name"`
	Labels      []string  `json:"labels"`
	Status      string    `json:"status"`
	Conclusion  string    `json:"conclusion,omitempty"`
	RunnerID    int64     `json:"runner_id,omitempty"`
	RunnerName  string    `json:"runner_name,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	StartedAt   time.Time `json:"started_at,omitzero"`
	CompletedAt time.Time `json:"completed_at,omitzero"`
	Duration    string    `json:"duration,omitempty"` // Go duration a stand-in runner runs it for
}

func jobJSON(j Job) JobJSON {
	out := JobJSON{
		ID: j.ID, RunID: j.RunID, Repo: j.Repo, Name: j.Name, Labels: j.Labels, Status: j.Status,
		Conclusion: j.Conclusion, RunnerID: j.RunnerID, RunnerName: j.RunnerName,
		CreatedAt: j.CreatedAt, StartedAt: j.StartedAt, CompletedAt: j.CompletedAt,
	}
	if j.Duration > 0 {
		out.Duration = j.Duration.String()
	}
	return out
}

func (s *Sim) simJobs(w http.ResponseWriter, _ *http.Request) {
	out := []JobJSON{}
	for _, j := range s.Jobs() {
		out = append(out, jobJSON(j))
	}
	s.write(w, ok(http.StatusOK, out))
}

func (s *Sim) simRunners(w http.ResponseWriter, _ *http.Request) {
	type rj struct {
		ID        int64    `json:"id"`
		Name      string   `json:"name"`
		Scope     string   `json:"scope"`
		Forge     string   `json:"forge"`
		Labels    []string `json:"labels"`
		Ephemeral bool     `json:"ephemeral"`
		Online    bool     `json:"online"`
		Busy      bool     `json:"busy"`
		JobID     int64    `json:"job_id,omitempty"`
	}
	out := []rj{}
	for _, r := range s.Runners() {
		out = append(out, rj{r.ID, r.Name, r.Scope, string(r.Forge), r.Labels, r.Ephemeral, r.Online, r.Busy, r.JobID})
	}
	s.write(w, ok(http.StatusOK, out))
}

func (s *Sim) simDeliveries(w http.ResponseWriter, _ *http.Request) {
	out := []map[string]any{}
	for _, d := range s.Deliveries() {
		m := deliveryJSON(&d)
		m["hook_id"], m["job_id"], m["dropped"] = d.HookID, d.JobID, d.Dropped
		out = append(out, m)
	}
	s.write(w, ok(http.StatusOK, out))
}

func (s *Sim) simAddRepo(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name string `json:"name"` // owner/name
		Org  bool   `json:"org"`  // create the owner as an organization
	}
	if err := decodeJSON(r, &req); err != nil {
		s.simError(w, garrison.Errorf(garrison.EInvalid, "bad JSON: %v", err))
		return
	}
	if owner, _, _ := strings.Cut(req.Name, "/"); req.Org && owner != "" {
		s.AddOrg(owner)
	}
	if err := s.AddRepo(req.Name); err != nil {
		s.simError(w, err)
		return
	}
	s.write(w, reply{status: http.StatusCreated})
}

func (s *Sim) simQueueJob(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Repo     string   `json:"repo"`
		Labels   []string `json:"labels"`
		Duration string   `json:"duration"`
	}
	if err := decodeJSON(r, &req); err != nil {
		s.simError(w, garrison.Errorf(garrison.EInvalid, "bad JSON: %v", err))
		return
	}
	var d time.Duration
	if req.Duration != "" {
		var err error
		if d, err = time.ParseDuration(req.Duration); err != nil || d < 0 {
			s.simError(w, garrison.Errorf(garrison.EInvalid, "bad duration %q", req.Duration))
			return
		}
	}
	id, err := s.QueueJobFor(req.Repo, d, req.Labels...)
	if err != nil {
		s.simError(w, err)
		return
	}
	j, _ := s.Job(id)
	s.write(w, ok(http.StatusCreated, jobJSON(j)))
}

func (s *Sim) simRegister(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Token     string   `json:"token"`
		Name      string   `json:"name"`
		Labels    []string `json:"labels"`
		Ephemeral bool     `json:"ephemeral"`
	}
	if err := decodeJSON(r, &req); err != nil {
		s.simError(w, garrison.Errorf(garrison.EInvalid, "bad JSON: %v", err))
		return
	}
	rn, err := s.RegisterRunner(req.Token, req.Name, req.Labels, req.Ephemeral)
	if err != nil {
		s.simError(w, err)
		return
	}
	s.write(w, ok(http.StatusCreated, map[string]any{"id": rn.ID, "name": rn.Name, "secret": rn.Secret, "labels": rn.Labels}))
}

func (s *Sim) simAcquire(w http.ResponseWriter, r *http.Request) {
	j, err := s.Acquire(r.PathValue("name"), bearer(r))
	switch {
	case err != nil:
		s.simError(w, err)
	case j == nil:
		w.WriteHeader(http.StatusNoContent)
	default:
		s.write(w, ok(http.StatusOK, jobJSON(*j)))
	}
}

func (s *Sim) simStart(w http.ResponseWriter, r *http.Request) {
	j, err := s.StartJob(pathID(r, "id"), bearer(r))
	if err != nil {
		s.simError(w, err)
		return
	}
	s.write(w, ok(http.StatusOK, jobJSON(j)))
}

func (s *Sim) simComplete(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Conclusion string `json:"conclusion"`
	}
	_ = decodeJSON(r, &req) // an empty or unreadable body means "success"
	j, err := s.CompleteJob(pathID(r, "id"), bearer(r), req.Conclusion)
	if err != nil {
		s.simError(w, err)
		return
	}
	s.write(w, ok(http.StatusOK, jobJSON(j)))
}
