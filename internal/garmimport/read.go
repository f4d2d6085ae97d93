package garmimport

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// knownMigrations are the migration ids of GARM's main database up to afda4e76 (spec
// A.1). A database with others was written by a newer GARM.
var knownMigrations = []string{
	"SCHEMA_INIT", "0001_baseline", "0002_lower_indexes", "0003_forge_instances",
	"0004_garm_agent_version", "0005_allow_insecure_garm_agent", "0006_proxies",
}

// Entity tables of GARM and the column their pools, jobs and events name them by.
var entityTables = []struct{ table, fk, events string }{
	{"repositories", "repo_id", "repository_events"},
	{"organizations", "org_id", "organization_events"},
	{"enterprises", "enterprise_id", "enterprise_events"},
	{"forge_instances", "forge_instance_id", "forge_instance_events"},
}

// garmData is everything read from a GARM database: live rows, by table.
type garmData struct {
	layout      string
	controller  row
	users       []row
	endpoints   []row
	ghCreds     []row
	giteaCreds  []row
	entities    map[string][]row // by table (entityTables)
	events      map[string][]row // by entity id, oldest first
	tags        []row
	pools       []row
	poolTags    map[string][]string // pool id → tag ids, in GARM's output order (tag id)
	scaleSets   []row
	setTags     map[int64][]string // scale set id → tag ids, in GARM's output order (tag id)
	instances   []row
	addresses   map[string][]row // by instance id
	statuses    map[string][]row // by instance id, oldest first
	jobs        []row
	templates   []row
	proxies     []row
	objects     []row
	blobs       map[int64][]byte   // object id → content
	objectTags  map[int64][]string // object id → tags
	softDeleted int
}

// read recognises the schema (spec IMP-3) and reads every table the import uses.
func (s *source) read(ctx context.Context) (*garmData, error) {
	d := &garmData{entities: map[string][]row{}, events: map[string][]row{}, poolTags: map[string][]string{},
		setTags: map[int64][]string{}, addresses: map[string][]row{}, statuses: map[string][]row{}}
	var err error
	if d.layout, err = s.layout(ctx); err != nil {
		return nil, err
	}
	ctrl, err := s.all(ctx, d, "controller_infos", "created_at")
	if err != nil {
		return nil, err
	}
	if len(ctrl) != 1 {
		return nil, fmt.Errorf("%w: %s: controller_infos has %d rows, want 1 (start GARM once to create it)", ErrSource, s.location, len(ctrl))
	}
	d.controller = ctrl[0]
	for _, t := range []struct {
		dst            *[]row
		table, orderBy string
	}{
		{&d.users, "users", "created_at, id"}, {&d.endpoints, "github_endpoints", "created_at, name"},
		{&d.ghCreds, "github_credentials", "id"}, {&d.giteaCreds, "gitea_credentials", "id"},
		{&d.tags, "tags", "created_at, id"}, {&d.pools, "pools", "created_at, id"},
		{&d.scaleSets, "scale_sets", "id"}, {&d.instances, "instances", "created_at, name"},
		{&d.jobs, "workflow_jobs", "id"}, {&d.templates, "templates", "id"}, {&d.proxies, "proxies", "id"},
	} {
		if *t.dst, err = s.all(ctx, d, t.table, t.orderBy); err != nil {
			return nil, err
		}
	}
	if err := s.readEntities(ctx, d); err != nil {
		return nil, err
	}
	if err := s.readChildren(ctx, d); err != nil {
		return nil, err
	}
	d.objects, _, err = s.rows(ctx, s.blob, "file_objects", "id")
	if err != nil || len(d.objects) == 0 {
		return d, err
	}
	return d, s.readObjectContent(ctx, d)
}

// readObjectContent reads the objects' contents (SQLite blobs, or PostgreSQL large
// objects) and tags.
func (s *source) readObjectContent(ctx context.Context, d *garmData) error {
	d.blobs, d.objectTags = map[int64][]byte{}, map[int64][]string{}
	content := `content`
	if s.backend == backendPostgres {
		content = `CASE WHEN lo_oid <> 0 THEN lo_get(lo_oid) ELSE content END`
	}
	rows, err := s.blob.QueryContext(ctx, `SELECT file_object_id, `+content+` FROM file_blobs WHERE deleted_at IS NULL ORDER BY id`)
	if err != nil {
		return fmt.Errorf("%w: %s: reading file_blobs: %v", ErrSource, s.location, err)
	}
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			rows.Close()
			return fmt.Errorf("%w: %s: reading file_blobs: %v", ErrSource, s.location, err)
		}
		d.blobs[id] = b
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%w: %s: reading file_blobs: %v", ErrSource, s.location, err)
	}
	tags, _, err := s.rows(ctx, s.blob, "file_object_tags", "id")
	for _, t := range tags {
		d.objectTags[t.int("file_object_id")] = append(d.objectTags[t.int("file_object_id")], t.str("tag"))
	}
	return err
}

// all reads a table of the main database, counting its soft-deleted rows.
func (s *source) all(ctx context.Context, d *garmData, table, orderBy string) ([]row, error) {
	rows, deleted, err := s.rows(ctx, s.main, table, orderBy)
	d.softDeleted += deleted
	return rows, err
}

// layout recognises a GARM schema: afda4e76-compatible migrations, or the v0.2.x layout
// without a migrations table.
func (s *source) layout(ctx context.Context) (string, error) {
	has, err := s.hasTable(ctx, s.main, "migrations")
	if err != nil {
		return "", err
	}
	if !has {
		gitea, err := s.hasTable(ctx, s.main, "gitea_credentials")
		if err != nil {
			return "", err
		}
		templates, err := s.hasTable(ctx, s.main, "templates")
		if err != nil {
			return "", err
		}
		if !gitea || !templates {
			return "", fmt.Errorf("%w: unsupported GARM schema: no migrations, gitea_credentials or templates table; upgrade GARM to v0.2.1 or later and start it once", ErrSource)
		}
		return "v0.2.x (no migrations table)", nil
	}
	ids, err := s.strings(ctx, s.main, `SELECT id FROM migrations ORDER BY id`)
	if err != nil {
		return "", err
	}
	var unknown []string
	for _, id := range ids {
		if !slices.Contains(knownMigrations, id) {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) > 0 {
		return "", fmt.Errorf("%w: unsupported GARM schema: unknown migrations %s (a GARM newer than this garrison knows)", ErrSource, strings.Join(unknown, ", "))
	}
	applied := slices.DeleteFunc(ids, func(id string) bool { return id == "SCHEMA_INIT" })
	if len(applied) == 0 {
		return "migrations: none applied", nil
	}
	return fmt.Sprintf("migrations %s..%s (afda4e76-compatible)", applied[0], applied[len(applied)-1]), nil
}

// readEntities reads the four entity tables and their events.
func (s *source) readEntities(ctx context.Context, d *garmData) error {
	for _, et := range entityTables {
		rows, err := s.all(ctx, d, et.table, "created_at, id")
		if err != nil {
			return err
		}
		d.entities[et.table] = rows
		events, err := s.all(ctx, d, et.events, "created_at, id")
		if err != nil {
			return err
		}
		for _, ev := range events {
			id := ev.str(et.fk)
			d.events[id] = append(d.events[id], ev)
		}
	}
	return nil
}

// readChildren reads the rows that hang off pools, scale sets and instances.
func (s *source) readChildren(ctx context.Context, d *garmData) error {
	pt, _, err := s.rows(ctx, s.main, "pool_tags", "pool_id, tag_id")
	if err != nil {
		return err
	}
	for _, r := range pt {
		d.poolTags[r.str("pool_id")] = append(d.poolTags[r.str("pool_id")], r.str("tag_id"))
	}
	st, _, err := s.rows(ctx, s.main, "scaleset_tags", "scale_set_id, tag_id")
	if err != nil {
		return err
	}
	for _, r := range st {
		d.setTags[r.int("scale_set_id")] = append(d.setTags[r.int("scale_set_id")], r.str("tag_id"))
	}
	addrs, err := s.all(ctx, d, "addresses", "created_at, id")
	if err != nil {
		return err
	}
	for _, r := range addrs {
		d.addresses[r.str("instance_id")] = append(d.addresses[r.str("instance_id")], r)
	}
	sts, err := s.all(ctx, d, "instance_status_updates", "created_at, id")
	if err != nil {
		return err
	}
	for _, r := range sts {
		d.statuses[r.str("instance_id")] = append(d.statuses[r.str("instance_id")], r)
	}
	return nil
}
