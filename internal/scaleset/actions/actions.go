// Package actions connects garrison's scale-set listeners and REST API to the Actions
// service client (internal/forge/scaleset): one client per entity, made from the entity's
// credentials and endpoint, and the translation between the client's types and errors
// and the listener's consumer-side interface.
package actions

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/garrison-ci/garrison"
	fss "github.com/garrison-ci/garrison/internal/forge/scaleset"
	"github.com/garrison-ci/garrison/internal/scaleset"
)

// Store is what the hub reads to build clients.
type Store interface {
	Credentials(ctx context.Context, id uint) (garrison.Credentials, error)
	Endpoint(ctx context.Context, name string) (garrison.Endpoint, error)
}

// Options configure a Hub.
type Options struct {
	Store  Store
	Logger *slog.Logger
	// Client tunes every client (Options.ExactAPIBaseURL for the simulator, say).
	Client fss.Options
}

// Hub makes and caches one Actions service client per entity; it implements
// scaleset.Services and the REST API's ScaleSetForge.
type Hub struct {
	o       Options
	mu      sync.Mutex
	clients map[string]cached // by entity id
}

type cached struct {
	c                  *fss.Client
	credStamp, epStamp time.Time
}

// New returns a hub with no clients yet.
func New(o Options) *Hub {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Client.Logger == nil {
		o.Client.Logger = o.Logger
	}
	return &Hub{o: o, clients: map[string]cached{}}
}

// client returns the entity's client, made again when its credentials or endpoint changed.
func (h *Hub) client(ctx context.Context, e garrison.Entity) (*fss.Client, error) {
	cred, err := h.o.Store.Credentials(ctx, e.CredentialsID)
	if err != nil {
		return nil, err
	}
	ep, err := h.o.Store.Endpoint(ctx, cred.Endpoint)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	c, ok := h.clients[e.ID]
	h.mu.Unlock()
	if ok && c.credStamp.Equal(cred.UpdatedAt) && c.epStamp.Equal(ep.UpdatedAt) {
		return c.c, nil
	}
	cl, err := fss.New(ep, cred, e, h.o.Client)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.clients[e.ID] = cached{c: cl, credStamp: cred.UpdatedAt, epStamp: ep.UpdatedAt}
	h.mu.Unlock()
	return cl, nil
}

// Service implements scaleset.Services.
func (h *Hub) Service(ctx context.Context, e garrison.Entity) (scaleset.Service, error) {
	c, err := h.client(ctx, e)
	if err != nil {
		return nil, err
	}
	return service{c: c}, nil
}

// service adapts a client to scaleset.Service.
type service struct{ c *fss.Client }

func stats(s fss.Statistics) scaleset.Statistics {
	return scaleset.Statistics{TotalAvailableJobs: s.AvailableJobs, TotalAcquiredJobs: s.AcquiredJobs,
		TotalAssignedJobs: s.AssignedJobs, TotalRunningJobs: s.RunningJobs, TotalRegisteredRunners: s.RegisteredRunners,
		TotalBusyRunners: s.BusyRunners, TotalIdleRunners: s.IdleRunners}
}

func toSession(s fss.Session) scaleset.Session {
	return scaleset.Session{ID: s.ID, MessageQueueURL: s.MessageQueueURL, QueueToken: s.QueueToken,
		QueueTokenExpires: s.QueueTokenExpires, Statistics: stats(s.Statistics)}
}

func fromSession(scaleSetID int, s scaleset.Session) fss.Session {
	return fss.Session{ID: s.ID, ScaleSetID: int64(scaleSetID), MessageQueueURL: s.MessageQueueURL, QueueToken: s.QueueToken}
}

// mapErr turns the client's sentinels into the listener's.
func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fss.ErrSessionConflict):
		return fmt.Errorf("%w: %w", scaleset.ErrSessionConflict, err)
	case errors.Is(err, fss.ErrTokenExpired):
		return fmt.Errorf("%w: %w", scaleset.ErrQueueTokenExpired, err)
	case errors.Is(err, fss.ErrJobStillRunning):
		return fmt.Errorf("%w: %w", scaleset.ErrJobStillRunning, err)
	}
	return err
}

func (s service) CreateSession(ctx context.Context, id int, owner string) (scaleset.Session, error) {
	sess, err := s.c.CreateSession(ctx, int64(id), owner)
	if err != nil {
		return scaleset.Session{}, mapErr(err)
	}
	return toSession(sess), nil
}

func (s service) RefreshSession(ctx context.Context, id int, cur scaleset.Session) (scaleset.Session, error) {
	sess, err := s.c.RefreshSession(ctx, int64(id), cur.ID)
	if err != nil {
		return cur, mapErr(err)
	}
	return toSession(sess), nil
}

func (s service) DeleteSession(ctx context.Context, id int, sessionID string) error {
	err := s.c.DeleteSession(ctx, int64(id), sessionID)
	if errors.Is(err, garrison.ErrNotFound) {
		return nil
	}
	return mapErr(err)
}

// GetMessage long-polls once. The session carries no scale set id here: the queue URL is
// the session's own.
func (s service) GetMessage(ctx context.Context, sess scaleset.Session, last int64, capacity int) (*scaleset.Message, error) {
	m, err := s.c.GetMessage(ctx, fromSession(0, sess), last, capacity)
	if err != nil || m == nil {
		return nil, mapErr(err)
	}
	out := &scaleset.Message{ID: m.ID}
	if m.Statistics != nil {
		out.Statistics = stats(*m.Statistics)
	}
	for _, j := range m.Jobs {
		out.Jobs = append(out.Jobs, scaleset.JobMessage{Type: j.Type, RunnerRequestID: j.RunnerRequestID, JobID: j.JobID,
			RunnerID: j.RunnerID, RunnerName: j.RunnerName, Result: j.Result, WorkflowRunID: j.WorkflowRunID,
			OwnerName: j.OwnerName, RepositoryName: j.RepositoryName, JobDisplayName: j.DisplayName,
			EventName: j.EventName, RequestLabels: j.Labels})
	}
	return out, nil
}

func (s service) AckMessage(ctx context.Context, sess scaleset.Session, id int64) error {
	return mapErr(s.c.DeleteMessage(ctx, fromSession(0, sess), id))
}

func (s service) AcquireJobs(ctx context.Context, id int, sess scaleset.Session, ids []int64) ([]int64, error) {
	got, err := s.c.AcquireJobs(ctx, fromSession(id, sess), ids)
	return got, mapErr(err)
}

func (s service) GenerateJITConfig(ctx context.Context, id int, name string) (scaleset.JITConfig, error) {
	j, err := s.c.GenerateJITConfig(ctx, int64(id), name, "_work")
	if errors.Is(err, fss.ErrRunnerExists) {
		return scaleset.JITConfig{}, fmt.Errorf("%w: %w", garrison.ErrConflict, err)
	}
	if err != nil {
		return scaleset.JITConfig{}, err
	}
	return scaleset.JITConfig{RunnerID: j.Runner.ID, Name: j.Runner.Name, Files: j.Files}, nil
}

func (s service) RemoveRunner(ctx context.Context, agentID int64) error {
	return mapErr(s.c.RemoveRunner(ctx, agentID))
}

func (s service) Runner(ctx context.Context, agentID int64) (scaleset.RunnerState, error) {
	r, err := s.c.Runner(ctx, agentID)
	if err != nil {
		return scaleset.RunnerState{}, mapErr(err)
	}
	return scaleset.RunnerState{Online: r.Status == "online", Busy: r.Busy}, nil
}
