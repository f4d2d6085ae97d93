package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/garrison-ci/garrison"
)

// Payload errors (W-5, W-7, W-9). Each wraps a *garrison.Error with code EInvalid; check
// them with errors.Is.
var (
	ErrMissingJobData = &garrison.Error{Code: garrison.EInvalid, Message: "missing job data"}
	ErrInvalidJSON    = &garrison.Error{Code: garrison.EInvalid, Message: "invalid JSON payload"}
	ErrMissingField   = &garrison.Error{Code: garrison.EInvalid, Message: "missing field"}
	ErrInvalidField   = &garrison.Error{Code: garrison.EInvalid, Message: "invalid field"}
	ErrIgnoredEvent   = &garrison.Error{Code: garrison.EUnprocessable, Message: "not a workflow_job event"}
)

// TargetTypeError reports a hook target type garrison cannot handle (W-7). It unwraps to a
// *garrison.Error with code EInvalid and the message the receiver returns.
type TargetTypeError struct{ Type string }

func (e *TargetTypeError) Error() string {
	return "cannot handle hook target type " + e.Type
}

// Unwrap classifies the error as EInvalid.
func (e *TargetTypeError) Unwrap() error {
	return &garrison.Error{Code: garrison.EInvalid, Message: e.Error()}
}

// Event is a parsed workflow_job delivery: what garrison needs to route and record it.
type Event struct {
	Meta
	Action string // queued, waiting, in_progress, completed

	// BaseURL is scheme://host of workflow_job.html_url (W-6); compare it with the
	// endpoint's base URL with the trailing "/" trimmed.
	BaseURL string
	// EntityOwner and EntityName name the entity the hook belongs to (W-7): the
	// repository owner and name for repository hooks, the organization (or enterprise
	// slug) as EntityName otherwise, both empty for Gitea system hooks.
	EntityOwner string
	EntityName  string
	// RepoOwner and RepoName name the repository the job runs in.
	RepoOwner string
	RepoName  string

	JobID           int64
	RunID           int64
	RunAttempt      int64
	Name            string
	WorkflowName    string
	Status          string
	Conclusion      string
	Labels          []string
	RunnerID        int64
	RunnerName      string
	RunnerGroupID   int64
	RunnerGroupName string
	HTMLURL         string
	RunURL          string // API URL of the workflow run
	RunPageURL      string // web page of the workflow run (garrison.RunPageURL)
	CreatedAt       time.Time
	StartedAt       time.Time
	CompletedAt     time.Time
}

// Parse reads the headers and parses a workflow_job body. Other events give
// ErrIgnoredEvent (the receiver answers 200 and does nothing, W-3).
func Parse(h http.Header, body []byte) (*Event, error) {
	m := ReadHeaders(h)
	if m.Event != EventWorkflowJob {
		return nil, fmt.Errorf("webhook: event %q: %w", m.Event, ErrIgnoredEvent)
	}
	return ParseWorkflowJob(m, body)
}

// ParseWorkflowJob parses a workflow_job body delivered with the given headers.
func ParseWorkflowJob(m Meta, body []byte) (*Event, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, ErrMissingJobData
	}
	var p payload
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, fmt.Errorf("webhook: %w: %w", ErrInvalidJSON, err)
	}
	if p.Job == nil {
		return nil, fmt.Errorf("webhook: workflow_job: %w", ErrMissingField)
	}
	ev := p.event(m)
	if err := ev.setEntity(&p); err != nil {
		return nil, err
	}
	switch {
	case ev.JobID == 0:
		return nil, fmt.Errorf("webhook: workflow_job.id: %w", ErrMissingField)
	case ev.JobID < 0:
		return nil, fmt.Errorf("webhook: workflow_job.id %d: %w", ev.JobID, ErrInvalidField)
	}
	return ev, nil
}

// setEntity fills EntityOwner and EntityName from the target type (W-7).
func (ev *Event) setEntity(p *payload) error {
	switch ev.TargetType {
	case TargetRepository:
		if ev.RepoOwner == "" || ev.RepoName == "" {
			return fmt.Errorf("webhook: repository.owner.login and repository.name: %w", ErrMissingField)
		}
		ev.EntityOwner, ev.EntityName = ev.RepoOwner, ev.RepoName
	case TargetOrganization:
		ev.EntityName = p.Organization.login(ev.Forge)
		if ev.EntityName == "" {
			return fmt.Errorf("webhook: organization: %w", ErrMissingField)
		}
	case TargetBusiness:
		ev.EntityName = p.Enterprise.Slug
		if ev.EntityName == "" {
			return fmt.Errorf("webhook: enterprise.slug: %w", ErrMissingField)
		}
	case TargetSystem:
		if ev.Forge != garrison.Gitea {
			return &TargetTypeError{Type: ev.TargetType}
		}
	default:
		return &TargetTypeError{Type: ev.TargetType}
	}
	return nil
}

// Job returns the domain job the event describes. Entity fields and bookkeeping
// timestamps are left for the caller.
func (ev *Event) Job() garrison.Job {
	return garrison.Job{
		ID:              ev.JobID,
		RunID:           ev.RunID,
		Action:          garrison.JobAction(ev.Action),
		Status:          ev.Status,
		Conclusion:      ev.Conclusion,
		Name:            ev.Name,
		StartedAt:       ev.StartedAt,
		CompletedAt:     ev.CompletedAt,
		RunnerID:        ev.RunnerID,
		RunnerName:      ev.RunnerName,
		RunnerGroupID:   ev.RunnerGroupID,
		RunnerGroupName: ev.RunnerGroupName,
		RepositoryName:  ev.RepoName,
		RepositoryOwner: ev.RepoOwner,
		WorkflowRunURL:  ev.RunPageURL,
		Labels:          append([]string(nil), ev.Labels...),
	}
}

// schemeHost returns scheme://host of raw, or "" when it has neither.
func schemeHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme) + "://" + u.Host
}
