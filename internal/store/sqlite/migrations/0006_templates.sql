-- Runner install templates (rest-api-2.md §3). Names are unique case-insensitively across
-- owners, so the CLI's name lookup always finds one. Pools refer to a template by id in
-- pools.template_id (0: none; the system template of the pool's forge and OS is used).
CREATE TABLE templates (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	name        TEXT NOT NULL,
	description TEXT NOT NULL DEFAULT '',
	os_type     TEXT NOT NULL,
	forge_type  TEXT NOT NULL,
	owner       TEXT NOT NULL,
	data        BLOB NOT NULL,
	created_at  TIMESTAMP NOT NULL,
	updated_at  TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX templates_name ON templates (lower(name));
CREATE INDEX pools_template ON pools (template_id);
