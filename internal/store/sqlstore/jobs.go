package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// jobColumns are a job's columns after id, in jobArgs order.
const jobColumns = `run_id, action, status, conclusion, name, started_at, completed_at, runner_id,
	runner_name, runner_group_id, runner_group_name, repository_name, repository_owner, workflow_run_url,
	labels, entity_id, entity_type, locked_by, reason, created_at, updated_at`

// jobSelect reads jobColumns, timestamps marked for Dialect.TextTimes.
const jobSelect = `SELECT seq, id, run_id, action, status, conclusion, name, @ts(started_at), @ts(completed_at),
	runner_id, runner_name, runner_group_id, runner_group_name, repository_name, repository_owner,
	workflow_run_url, labels, entity_id, entity_type, locked_by, reason, @ts(created_at), @ts(updated_at) FROM jobs`

func scanJob(sc interface{ Scan(...any) error }) (garrison.Job, error) {
	var j garrison.Job
	err := sc.Scan(&j.Seq, &j.ID, &j.RunID, &j.Action, &j.Status, &j.Conclusion, &j.Name, utc(&j.StartedAt),
		utc(&j.CompletedAt), &j.RunnerID, &j.RunnerName, &j.RunnerGroupID, &j.RunnerGroupName,
		&j.RepositoryName, &j.RepositoryOwner, &j.WorkflowRunURL, jsonCol{&j.Labels}, &j.EntityID,
		&j.EntityType, &j.LockedBy, &j.Reason, utc(&j.CreatedAt), utc(&j.UpdatedAt))
	return j, err
}

func jobArgs(j garrison.Job) ([]any, error) {
	labels, err := jsonArg(nonNil(j.Labels))
	if err != nil {
		return nil, err
	}
	return []any{j.RunID, j.Action, j.Status, j.Conclusion, j.Name, timeArg(j.StartedAt),
		timeArg(j.CompletedAt), j.RunnerID, j.RunnerName, j.RunnerGroupID, j.RunnerGroupName,
		j.RepositoryName, j.RepositoryOwner, j.WorkflowRunURL, labels, j.EntityID, j.EntityType,
		j.LockedBy, j.Reason, j.CreatedAt, j.UpdatedAt}, nil
}

// errJobRace marks an insert that lost a race with another creating the same job.
var errJobRace = errors.New("job created concurrently")

// UpsertJob creates or updates the job with the given id atomically: fn receives the
// current row, locked (a zero Job with ID set when exists is false), and edits it in place.
// A new job gets the next Seq; ID, Seq and CreatedAt cannot change.
func (s *Store) UpsertJob(ctx context.Context, id int64, fn func(j *garrison.Job, exists bool) error) (garrison.Job, error) {
	j, _, err := s.RecordJob(ctx, store.JobRecord{ID: id, Job: fn})
	return j, err
}

// RecordJob writes the job as UpsertJob does and then, in the same transaction, the
// update r.Instance makes to the runner's instance (see store.JobRecord).
func (s *Store) RecordJob(ctx context.Context, r store.JobRecord) (garrison.Job, *garrison.Instance, error) {
	var (
		job  garrison.Job
		inst *garrison.Instance
		err  error
	)
	for range maxAttempts {
		err = s.write(ctx, func(c conn) error {
			var err error
			if job, err = s.upsertJobTx(ctx, c, r.ID, r.Job); err != nil {
				return err
			}
			inst, err = s.runnerUpdateTx(ctx, c, r, job)
			return err
		})
		if !errors.Is(err, errJobRace) {
			break
		}
	}
	if err != nil {
		return garrison.Job{}, nil, err
	}
	return job, inst, nil
}

// runnerUpdateTx applies a JobRecord's instance update; nil when it wrote nothing.
func (s *Store) runnerUpdateTx(ctx context.Context, c conn, r store.JobRecord, job garrison.Job) (*garrison.Instance, error) {
	if r.Runner == "" || r.Instance == nil {
		return nil, nil
	}
	in, err := s.updateInstanceTx(ctx, c, r.Runner, func(i *garrison.Instance) error {
		if !r.Instance(i, job) {
			return errUnchanged
		}
		return nil
	})
	switch {
	case errors.Is(err, errUnchanged), errors.Is(err, garrison.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &in, nil
}

func (s *Store) upsertJobTx(ctx context.Context, c conn, id int64, fn func(*garrison.Job, bool) error) (garrison.Job, error) {
	cur, err := scanJob(c.row(ctx, c.forUpdate(jobSelect+` WHERE id = ?`), id))
	exists := err == nil
	if errors.Is(err, sql.ErrNoRows) {
		cur = garrison.Job{ID: id}
	} else if err != nil {
		return cur, s.wrap("read job", err)
	}
	next := cur
	if err := fn(&next, exists); err != nil {
		return garrison.Job{}, err
	}
	next.ID, next.Seq, next.CreatedAt, next.UpdatedAt = id, cur.Seq, cur.CreatedAt, now()
	if !exists {
		next.CreatedAt = next.UpdatedAt
	}
	next.Labels = nonNil(next.Labels)
	args, err := jobArgs(next)
	if err != nil {
		return garrison.Job{}, err
	}
	if exists {
		_, err = c.exec(ctx, `UPDATE jobs SET (`+jobColumns+`) =
			(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) WHERE id = ?`, append(args, id)...)
	} else {
		err = c.row(ctx, `INSERT INTO jobs (id, `+jobColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
			append([]any{id}, args...)...).Scan(&next.Seq)
		if s.d.unique(err) {
			return garrison.Job{}, errJobRace
		}
	}
	if err != nil {
		return garrison.Job{}, s.wrap("store job", err)
	}
	return next, nil
}

// Job returns the job with the given id.
func (s *Store) Job(ctx context.Context, id int64) (garrison.Job, error) {
	j, err := scanJob(s.reader().row(ctx, jobSelect+` WHERE id = ?`, id))
	if err != nil {
		return j, s.noRows(err, "read job", "job %d not found", id)
	}
	return j, nil
}

// ListJobs lists the jobs matching f in creation order (by Seq).
func (s *Store) ListJobs(ctx context.Context, f store.JobFilter) ([]garrison.Job, error) {
	if !f.UpdatedSince.IsZero() {
		return s.listJobsSince(ctx, f)
	}
	// The (entity_id, action) and action indexes serve the filters.
	var w filter
	w.when(f.EntityID != "", `entity_id = ?`, f.EntityID)
	w.when(f.Action != "", `action = ?`, f.Action)
	rows, err := s.reader().query(ctx, jobSelect+w.where()+` ORDER BY seq`, w.args...)
	if err != nil {
		return nil, s.wrap("list jobs", err)
	}
	return collect(rows, scanJob, s.wrap)
}

// listJobsSince is ListJobs with UpdatedSince: a separate statement, so that the index on
// (entity_id, updated_at) serves it.
func (s *Store) listJobsSince(ctx context.Context, f store.JobFilter) ([]garrison.Job, error) {
	var w filter
	w.when(f.EntityID != "", `entity_id = ?`, f.EntityID)
	w.when(true, `updated_at >= ?`, timeArg(f.UpdatedSince))
	w.when(f.Action != "", `action = ?`, f.Action)
	rows, err := s.reader().query(ctx, jobSelect+w.where()+` ORDER BY seq`, w.args...)
	if err != nil {
		return nil, s.wrap("list jobs", err)
	}
	return collect(rows, scanJob, s.wrap)
}

// DeleteJob removes the job; nil if missing.
func (s *Store) DeleteJob(ctx context.Context, id int64) error {
	return s.write(ctx, func(c conn) error {
		_, err := c.exec(ctx, `DELETE FROM jobs WHERE id = ?`, id)
		return s.wrapErr("delete job", err)
	})
}
