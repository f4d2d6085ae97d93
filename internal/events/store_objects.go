package events

import (
	"context"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// CreateEntity publishes a repository, organization or enterprise create.
func (s *Store) CreateEntity(ctx context.Context, e garrison.Entity) (garrison.Entity, error) {
	e, err := s.Store.CreateEntity(ctx, e)
	if err == nil {
		s.publish(garrison.EntityChangeType(e.Type), garrison.OpCreate, e)
	}
	return e, err
}

// UpdateEntity publishes an entity update.
func (s *Store) UpdateEntity(ctx context.Context, id string, fn func(*garrison.Entity) error) (garrison.Entity, error) {
	e, err := s.Store.UpdateEntity(ctx, id, fn)
	if err == nil {
		s.publish(garrison.EntityChangeType(e.Type), garrison.OpUpdate, e)
	}
	return e, err
}

// DeleteEntity publishes an entity delete.
func (s *Store) DeleteEntity(ctx context.Context, id string) error {
	old, found := lastRead(s, func() (garrison.Entity, error) { return s.Store.Entity(ctx, id) })
	err := s.Store.DeleteEntity(ctx, id)
	if err == nil && found {
		s.publish(garrison.EntityChangeType(old.Type), garrison.OpDelete, old)
	}
	return err
}

// AddEntityEvent publishes an update of the entity, whose events changed.
func (s *Store) AddEntityEvent(ctx context.Context, entityID string, ev garrison.Event) error {
	err := s.Store.AddEntityEvent(ctx, entityID, ev)
	if err == nil {
		if e, ok := lastRead(s, func() (garrison.Entity, error) { return s.Store.Entity(ctx, entityID) }); ok {
			s.publish(garrison.EntityChangeType(e.Type), garrison.OpUpdate, e)
		}
	}
	return err
}

// CreatePool publishes a pool create.
func (s *Store) CreatePool(ctx context.Context, p garrison.Pool) (garrison.Pool, error) {
	p, err := s.Store.CreatePool(ctx, p)
	if err == nil {
		s.publish(garrison.ChangePool, garrison.OpCreate, p)
	}
	return p, err
}

// UpdatePool publishes a pool update.
func (s *Store) UpdatePool(ctx context.Context, id string, fn func(*garrison.Pool) error) (garrison.Pool, error) {
	p, err := s.Store.UpdatePool(ctx, id, fn)
	if err == nil {
		s.publish(garrison.ChangePool, garrison.OpUpdate, p)
	}
	return p, err
}

// DeletePool publishes a pool delete.
func (s *Store) DeletePool(ctx context.Context, id string) error {
	old, found := lastRead(s, func() (garrison.Pool, error) { return s.Store.Pool(ctx, id) })
	err := s.Store.DeletePool(ctx, id)
	if err == nil {
		if !found {
			old = garrison.Pool{ID: id}
		}
		s.publish(garrison.ChangePool, garrison.OpDelete, old)
	}
	return err
}

// CreateInstance publishes an instance create.
func (s *Store) CreateInstance(ctx context.Context, i garrison.Instance) (garrison.Instance, error) {
	i, err := s.Store.CreateInstance(ctx, i)
	if err == nil {
		s.publish(garrison.ChangeInstance, garrison.OpCreate, i)
	}
	return i, err
}

// UpdateInstance publishes an instance update.
func (s *Store) UpdateInstance(ctx context.Context, name string, fn func(*garrison.Instance) error) (garrison.Instance, error) {
	i, err := s.Store.UpdateInstance(ctx, name, fn)
	if err == nil {
		s.publish(garrison.ChangeInstance, garrison.OpUpdate, i)
	}
	return i, err
}

// DeleteInstance publishes an instance delete when the instance existed.
func (s *Store) DeleteInstance(ctx context.Context, name string) error {
	old, found := lastRead(s, func() (garrison.Instance, error) { return s.Store.Instance(ctx, name) })
	err := s.Store.DeleteInstance(ctx, name)
	if err == nil && found {
		s.publish(garrison.ChangeInstance, garrison.OpDelete, old)
	}
	return err
}

// AddInstanceEvent publishes an update of the instance, whose status messages changed.
func (s *Store) AddInstanceEvent(ctx context.Context, name string, ev garrison.Event) error {
	err := s.Store.AddInstanceEvent(ctx, name, ev)
	if err == nil {
		if i, ok := lastRead(s, func() (garrison.Instance, error) { return s.Store.Instance(ctx, name) }); ok {
			s.publish(garrison.ChangeInstance, garrison.OpUpdate, i)
		}
	}
	return err
}

// UpsertJob publishes a job create for a new workflow job id, else a job update.
func (s *Store) UpsertJob(ctx context.Context, id int64, fn func(j *garrison.Job, exists bool) error) (garrison.Job, error) {
	j, _, err := s.RecordJob(ctx, store.JobRecord{ID: id, Job: fn})
	return j, err
}

// RecordJob publishes the job's create or update, then the update of its runner's
// instance when there was one.
func (s *Store) RecordJob(ctx context.Context, r store.JobRecord) (garrison.Job, *garrison.Instance, error) {
	existed := false
	fn := r.Job
	r.Job = func(j *garrison.Job, exists bool) error {
		existed = exists
		return fn(j, exists)
	}
	j, in, err := s.Store.RecordJob(ctx, r)
	if err != nil {
		return j, in, err
	}
	op := garrison.OpUpdate
	if !existed {
		op = garrison.OpCreate
	}
	s.publish(garrison.ChangeJob, op, j)
	if in != nil {
		s.publish(garrison.ChangeInstance, garrison.OpUpdate, *in)
	}
	return j, in, nil
}

// DeleteJob publishes a job delete when the job existed.
func (s *Store) DeleteJob(ctx context.Context, id int64) error {
	old, found := lastRead(s, func() (garrison.Job, error) { return s.Store.Job(ctx, id) })
	err := s.Store.DeleteJob(ctx, id)
	if err == nil && found {
		s.publish(garrison.ChangeJob, garrison.OpDelete, old)
	}
	return err
}
