package storetest

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// MigrationsUpTo returns the NNNN_name.sql migrations of fsys up to version, for a
// backend's Backend.OpenAt.
func MigrationsUpTo(fsys fs.FS, version int64) (fs.FS, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, err
	}
	out := fstest.MapFS{}
	for _, name := range names {
		num, _, _ := strings.Cut(name, "_")
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("storetest: migration %s: %w", name, err)
		}
		if v > version {
			continue
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		out[name] = &fstest.MapFile{Data: b}
	}
	return out, nil
}

var migrationCases = []testCase{
	{"Migrations/ReopenIsNoOp", func(t *testing.T, b Backend, s store.Store) {
		if b.Reopen == nil || b.DB == nil {
			t.Skip("backend cannot reopen or query its database")
		}
		db := b.DB(t, s)
		count := func(query string) int {
			t.Helper()
			var n int
			must(t, db.QueryRowContext(t.Context(), query).Scan(&n))
			return n
		}
		applied := count(`SELECT COUNT(*) FROM schema_migrations`)
		if applied == 0 {
			t.Fatal("no migrations recorded")
		}
		must(t, s.Close())
		for range 2 {
			r, err := b.Reopen(t, s, NewSealer(Passphrase))
			must(t, err)
			must(t, r.Close())
		}
		wantEqual(t, "migrations after reopening", count(`SELECT COUNT(*) FROM schema_migrations`), applied)
		wantEqual(t, "github.com endpoints", count(`SELECT COUNT(*) FROM endpoints`), 1)
		wantEqual(t, "salts", count(`SELECT COUNT(*) FROM meta`), 2)
	}},
	{"Migrations/NewerSchemaRefused", func(t *testing.T, b Backend, s store.Store) {
		if b.Reopen == nil || b.DB == nil {
			t.Skip("backend cannot reopen or query its database")
		}
		must(t, s.Close())
		_, err := b.DB(t, s).ExecContext(t.Context(), `INSERT INTO schema_migrations (version, name, applied_at)
			VALUES (999999, 'from_the_future', CURRENT_TIMESTAMP)`)
		must(t, err)
		r, err := b.Reopen(t, s, NewSealer(Passphrase))
		if !errors.Is(err, store.ErrSchemaTooNew) {
			if r != nil {
				_ = r.Close()
			}
			t.Fatalf("got %v, want store.ErrSchemaTooNew", err)
		}
		t.Logf("refused with: %v", err)
	}},
	{"Migrations/JobSeqNumbersExistingJobs", func(t *testing.T, b Backend, _ store.Store) { migrateJobSeq(t, b) }},
	{"Migrations/ScaleSetsKeepInstancesAndEvents", func(t *testing.T, b Backend, _ store.Store) { migrateScaleSets(t, b) }},
}

// jobSeqVersion is the migration that gives jobs their Seq.
const jobSeqVersion = 5

// migrateJobSeq writes jobs in the schema before jobs had a Seq, migrates, and checks
// they are numbered from 1 in creation order, and that new jobs go on from there.
func migrateJobSeq(t *testing.T, b Backend) {
	if b.OpenAt == nil || b.Reopen == nil || b.DB == nil {
		t.Skip("backend cannot open an older schema")
	}
	ctx := t.Context()
	old := b.OpenAt(t, jobSeqVersion-1)
	db := b.DB(t, old)
	for _, j := range []struct {
		id      int64
		created string
	}{{30, "2026-01-01 10:00:00"}, {10, "2026-01-01 10:00:01.5"}, {20, "2026-01-01 10:00:01.25"}, {40, "2026-01-01 10:00:01.25"}} {
		_, err := db.ExecContext(ctx, fmt.Sprintf(`INSERT INTO jobs (id, action, labels, entity_id, created_at, updated_at)
			VALUES (%d, 'queued', '["linux"]', 'e1', '%s+00:00', '%[2]s+00:00')`, j.id, j.created))
		must(t, err)
	}
	must(t, old.Close())
	s, err := b.Reopen(t, old, NewSealer(Passphrase))
	must(t, err)
	list := ok(s.ListJobs(ctx, store.JobFilter{})).get(t)
	wantJobs(t, list, []int64{30, 20, 40, 10}, []int64{1, 2, 3, 4})
	if got := ok(s.Job(ctx, 10)).get(t); got.Seq != 4 || got.Action != garrison.JobQueued || !slices.Equal(got.Labels, []string{"linux"}) {
		t.Fatalf("job 10 after the migration: %+v", got)
	}
	next := ok(s.UpsertJob(ctx, 5, func(j *garrison.Job, _ bool) error { j.Action = garrison.JobQueued; return nil })).get(t)
	wantEqual(t, "seq of the first job after the migration", next.Seq, int64(5))
}

// wantJobs checks the workflow job ids and Seqs of a list, in order.
func wantJobs(t *testing.T, list []garrison.Job, ids, seqs []int64) {
	t.Helper()
	gotIDs, gotSeqs := make([]int64, 0, len(list)), make([]int64, 0, len(list))
	for _, j := range list {
		gotIDs, gotSeqs = append(gotIDs, j.ID), append(gotSeqs, j.Seq)
	}
	if !slices.Equal(gotIDs, ids) || !slices.Equal(gotSeqs, seqs) {
		t.Fatalf("jobs %v with seqs %v, want %v with %v", gotIDs, gotSeqs, ids, seqs)
	}
}

// scaleSetVersion is the migration that adds scale sets and makes instances' pool
// optional (rebuilding the instances table on SQLite).
const scaleSetVersion = 10

// migrateScaleSets writes an instance with status messages in the schema before scale
// sets, migrates, and checks both survive and that scale-set instances can be stored.
func migrateScaleSets(t *testing.T, b Backend) {
	if b.OpenAt == nil || b.Reopen == nil || b.DB == nil {
		t.Skip("backend cannot open an older schema")
	}
	ctx := t.Context()
	old := b.OpenAt(t, scaleSetVersion-1)
	f := setup(t, old)
	db := b.DB(t, old)
	_, err := db.ExecContext(ctx, fmt.Sprintf(`INSERT INTO instances (id, name, pool_id, provider_id, status, created_at, updated_at)
		VALUES ('i1', 'garm-old', '%s', 'prov-1', 'running', '2026-01-01 10:00:00+00:00', '2026-01-01 10:00:00+00:00')`, f.pool.ID))
	must(t, err)
	for i := range 3 {
		_, err := db.ExecContext(ctx, fmt.Sprintf(`INSERT INTO instance_events (instance_id, created_at, type, level, message)
			VALUES ('i1', '2026-01-01 10:00:0%d+00:00', 'status', 'info', 'message %d')`, i, i))
		must(t, err)
	}
	must(t, old.Close())
	s, err := b.Reopen(t, old, NewSealer(Passphrase))
	must(t, err)
	in := ok(s.Instance(ctx, "garm-old")).get(t)
	if in.PoolID != f.pool.ID || in.ScaleSetID != 0 || in.ProviderID != "prov-1" || in.Status != garrison.InstanceRunning {
		t.Fatalf("instance after the migration: %+v", in)
	}
	if len(in.StatusMessages) != 3 || in.StatusMessages[2].Message != "message 2" {
		t.Fatalf("status messages after the migration: %+v", in.StatusMessages)
	}
	ss := ok(s.CreateScaleSet(ctx, newScaleSet(f.entity.ID, "set-a"))).get(t)
	ok(s.CreateInstance(ctx, newScaleSetInstance("garm-new", ss.ID))).get(t)
	must(t, s.AddInstanceEvent(ctx, "garm-old", garrison.Event{Type: garrison.EventStatus, Message: "after"}))
	must(t, s.DeleteInstance(ctx, "garm-old")) // events cascade with the rebuilt table
}
