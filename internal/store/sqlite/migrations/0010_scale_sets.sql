-- Runner scale sets (rest-api-2 §2) and their runners. A scale set's runners are rows of
-- instances with scale_set_id set and pool_id NULL, so pool_id becomes nullable. SQLite
-- cannot relax a column in place: instances is rebuilt. Dropping it would cascade to
-- instance_events, so the events are copied aside first and put back after.
CREATE TABLE scale_sets (
	id                       INTEGER PRIMARY KEY AUTOINCREMENT,
	entity_id                TEXT NOT NULL REFERENCES entities (id),
	scale_set_id             BIGINT NOT NULL DEFAULT 0,
	name                     TEXT NOT NULL,
	disable_update           BOOLEAN NOT NULL DEFAULT FALSE,
	state                    TEXT NOT NULL DEFAULT '',
	extended_state           TEXT NOT NULL DEFAULT '',
	runner_prefix            TEXT NOT NULL DEFAULT '',
	provider_name            TEXT NOT NULL,
	image                    TEXT NOT NULL DEFAULT '',
	flavor                   TEXT NOT NULL DEFAULT '',
	os_type                  TEXT NOT NULL DEFAULT '',
	os_arch                  TEXT NOT NULL DEFAULT '',
	max_runners              BIGINT NOT NULL DEFAULT 0,
	min_idle_runners         BIGINT NOT NULL DEFAULT 0,
	enabled                  BOOLEAN NOT NULL DEFAULT FALSE,
	desired_runner_count     BIGINT NOT NULL DEFAULT 0,
	enable_shell             BOOLEAN NOT NULL DEFAULT FALSE,
	generation               BIGINT NOT NULL DEFAULT 0,
	runner_bootstrap_timeout BIGINT NOT NULL DEFAULT 0,
	extra_specs              TEXT,
	runner_group             TEXT NOT NULL DEFAULT '',
	template_id              BIGINT NOT NULL DEFAULT 0,
	proxy_id                 BIGINT NOT NULL DEFAULT 0,
	last_message_id          BIGINT NOT NULL DEFAULT 0,
	session_owner            TEXT NOT NULL DEFAULT '',
	session_id               TEXT NOT NULL DEFAULT '',
	session_expires_at       TIMESTAMP,
	created_at               TIMESTAMP NOT NULL,
	updated_at               TIMESTAMP NOT NULL
);
CREATE INDEX scale_sets_entity ON scale_sets (entity_id);
CREATE UNIQUE INDEX scale_sets_name ON scale_sets (entity_id, lower(runner_group), lower(name));

CREATE TABLE scale_set_tags (
	scale_set_id INTEGER NOT NULL REFERENCES scale_sets (id) ON DELETE CASCADE,
	tag_id       TEXT NOT NULL REFERENCES tags (id),
	position     INTEGER NOT NULL,
	PRIMARY KEY (scale_set_id, tag_id)
);
CREATE INDEX scale_set_tags_tag ON scale_set_tags (tag_id);

CREATE TABLE instance_events_saved AS SELECT * FROM instance_events;

CREATE TABLE instances_new (
	id             TEXT PRIMARY KEY,
	name           TEXT NOT NULL UNIQUE,
	pool_id        TEXT REFERENCES pools (id),
	scale_set_id   INTEGER REFERENCES scale_sets (id),
	provider_name  TEXT NOT NULL DEFAULT '',
	provider_id    TEXT NOT NULL DEFAULT '',
	agent_id       BIGINT NOT NULL DEFAULT 0,
	os_type        TEXT NOT NULL DEFAULT '',
	os_name        TEXT NOT NULL DEFAULT '',
	os_version     TEXT NOT NULL DEFAULT '',
	os_arch        TEXT NOT NULL DEFAULT '',
	addresses      TEXT,
	status         TEXT NOT NULL DEFAULT '',
	runner_status  TEXT NOT NULL DEFAULT '',
	provider_fault BLOB,
	create_attempt BIGINT NOT NULL DEFAULT 0,
	token_fetched  BOOLEAN NOT NULL DEFAULT FALSE,
	jit_config     BLOB,
	runner_group   TEXT NOT NULL DEFAULT '',
	generation     BIGINT NOT NULL DEFAULT 0,
	metadata_url   TEXT NOT NULL DEFAULT '',
	callback_url   TEXT NOT NULL DEFAULT '',
	heartbeat      TIMESTAMP,
	job_id         BIGINT NOT NULL DEFAULT 0,
	created_at     TIMESTAMP NOT NULL,
	updated_at     TIMESTAMP NOT NULL,
	CHECK ((pool_id IS NULL) <> (scale_set_id IS NULL))
);
INSERT INTO instances_new (id, name, pool_id, provider_name, provider_id, agent_id, os_type, os_name,
	os_version, os_arch, addresses, status, runner_status, provider_fault, create_attempt, token_fetched,
	jit_config, runner_group, generation, metadata_url, callback_url, heartbeat, job_id, created_at, updated_at)
SELECT id, name, pool_id, provider_name, provider_id, agent_id, os_type, os_name,
	os_version, os_arch, addresses, status, runner_status, provider_fault, create_attempt, token_fetched,
	jit_config, runner_group, generation, metadata_url, callback_url, heartbeat, job_id, created_at, updated_at
FROM instances;
DROP TABLE instances;
ALTER TABLE instances_new RENAME TO instances;
CREATE INDEX instances_pool ON instances (pool_id);
CREATE INDEX instances_scale_set ON instances (scale_set_id);
CREATE UNIQUE INDEX instances_provider_id ON instances (provider_name, provider_id) WHERE provider_id <> '';

INSERT INTO instance_events (id, instance_id, created_at, type, level, message)
SELECT id, instance_id, created_at, type, level, message FROM instance_events_saved;
DROP TABLE instance_events_saved;
