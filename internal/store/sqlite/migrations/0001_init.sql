-- garrison schema, version 1 (SQLite). Keep in step with postgres/migrations.
-- Timestamps are UTC; secrets are sealed BLOBs; case-insensitive names use lower() indexes.

CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value BLOB NOT NULL
);

CREATE TABLE controller (
	id                      INTEGER PRIMARY KEY CHECK (id = 1),
	uuid                    TEXT NOT NULL,
	metadata_url            TEXT NOT NULL DEFAULT '',
	callback_url            TEXT NOT NULL DEFAULT '',
	webhook_url             TEXT NOT NULL DEFAULT '',
	agent_url               TEXT NOT NULL DEFAULT '',
	agent_releases_url      TEXT NOT NULL DEFAULT '',
	enable_agent_tools_sync BOOLEAN NOT NULL DEFAULT FALSE,
	agent_version           TEXT NOT NULL DEFAULT '',
	allow_insecure_agent    BOOLEAN NOT NULL DEFAULT FALSE,
	minimum_job_age_backoff BIGINT NOT NULL DEFAULT 0,
	ca_cert_bundle          BLOB,
	created_at              TIMESTAMP NOT NULL,
	updated_at              TIMESTAMP NOT NULL
);

CREATE TABLE users (
	id            TEXT PRIMARY KEY,
	username      TEXT NOT NULL,
	email         TEXT NOT NULL DEFAULT '',
	full_name     TEXT NOT NULL DEFAULT '',
	password_hash TEXT NOT NULL DEFAULT '',
	enabled       BOOLEAN NOT NULL DEFAULT FALSE,
	is_admin      BOOLEAN NOT NULL DEFAULT FALSE,
	generation    BIGINT NOT NULL DEFAULT 0,
	created_at    TIMESTAMP NOT NULL,
	updated_at    TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX users_username ON users (lower(username));

CREATE TABLE endpoints (
	name                        TEXT PRIMARY KEY,
	type                        TEXT NOT NULL,
	description                 TEXT NOT NULL DEFAULT '',
	base_url                    TEXT NOT NULL DEFAULT '',
	api_base_url                TEXT NOT NULL DEFAULT '',
	upload_base_url             TEXT NOT NULL DEFAULT '',
	ca_cert_bundle              BLOB,
	tools_metadata_url          TEXT NOT NULL DEFAULT '',
	use_internal_tools_metadata BOOLEAN NOT NULL DEFAULT FALSE,
	created_at                  TIMESTAMP NOT NULL,
	updated_at                  TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX endpoints_name ON endpoints (lower(name));
CREATE INDEX endpoints_type ON endpoints (type);

INSERT INTO endpoints (name, type, description, base_url, api_base_url, upload_base_url, created_at, updated_at)
VALUES ('github.com', 'github', 'github.com', 'https://github.com', 'https://api.github.com/',
	'https://uploads.github.com/', strftime('%Y-%m-%d %H:%M:%f', 'now'), strftime('%Y-%m-%d %H:%M:%f', 'now'));

CREATE TABLE credentials (
	id              INTEGER PRIMARY KEY AUTOINCREMENT,
	name            TEXT NOT NULL,
	description     TEXT NOT NULL DEFAULT '',
	forge_type      TEXT NOT NULL,
	auth_type       TEXT NOT NULL,
	endpoint_name   TEXT NOT NULL REFERENCES endpoints (name),
	pat             BLOB,
	app_id          BIGINT NOT NULL DEFAULT 0,
	installation_id BIGINT NOT NULL DEFAULT 0,
	private_key     BLOB,
	created_at      TIMESTAMP NOT NULL,
	updated_at      TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX credentials_name ON credentials (forge_type, lower(name));
CREATE INDEX credentials_endpoint ON credentials (endpoint_name);

CREATE TABLE entities (
	id             TEXT PRIMARY KEY,
	type           TEXT NOT NULL,
	owner          TEXT NOT NULL DEFAULT '',
	name           TEXT NOT NULL,
	credentials_id BIGINT NOT NULL REFERENCES credentials (id),
	endpoint_name  TEXT NOT NULL REFERENCES endpoints (name),
	webhook_secret BLOB,
	balancer       TEXT NOT NULL DEFAULT '',
	agent_mode     BOOLEAN NOT NULL DEFAULT FALSE,
	created_at     TIMESTAMP NOT NULL,
	updated_at     TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX entities_name ON entities (endpoint_name, type, lower(owner), lower(name));
CREATE INDEX entities_credentials ON entities (credentials_id);
CREATE INDEX entities_lower_name ON entities (lower(name));

CREATE TABLE entity_events (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	entity_id  TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
	created_at TIMESTAMP NOT NULL,
	type       TEXT NOT NULL DEFAULT '',
	level      TEXT NOT NULL DEFAULT '',
	message    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX entity_events_entity ON entity_events (entity_id, id);

CREATE TABLE pools (
	id                       TEXT PRIMARY KEY,
	entity_id                TEXT NOT NULL REFERENCES entities (id),
	provider_name            TEXT NOT NULL,
	runner_prefix            TEXT NOT NULL DEFAULT '',
	max_runners              BIGINT NOT NULL DEFAULT 0,
	min_idle_runners         BIGINT NOT NULL DEFAULT 0,
	image                    TEXT NOT NULL DEFAULT '',
	flavor                   TEXT NOT NULL DEFAULT '',
	os_type                  TEXT NOT NULL DEFAULT '',
	os_arch                  TEXT NOT NULL DEFAULT '',
	enabled                  BOOLEAN NOT NULL DEFAULT FALSE,
	runner_bootstrap_timeout BIGINT NOT NULL DEFAULT 0,
	extra_specs              TEXT,
	runner_group             TEXT NOT NULL DEFAULT '',
	priority                 BIGINT NOT NULL DEFAULT 0,
	enable_shell             BOOLEAN NOT NULL DEFAULT FALSE,
	generation               BIGINT NOT NULL DEFAULT 0,
	template_id              BIGINT NOT NULL DEFAULT 0,
	proxy_id                 BIGINT NOT NULL DEFAULT 0,
	created_at               TIMESTAMP NOT NULL,
	updated_at               TIMESTAMP NOT NULL
);
CREATE INDEX pools_entity ON pools (entity_id);

CREATE TABLE tags (
	id   TEXT PRIMARY KEY,
	name TEXT NOT NULL
);
CREATE UNIQUE INDEX tags_name ON tags (lower(name));

CREATE TABLE pool_tags (
	pool_id  TEXT NOT NULL REFERENCES pools (id) ON DELETE CASCADE,
	tag_id   TEXT NOT NULL REFERENCES tags (id),
	position INTEGER NOT NULL,
	PRIMARY KEY (pool_id, tag_id)
);
CREATE INDEX pool_tags_tag ON pool_tags (tag_id);

CREATE TABLE instances (
	id             TEXT PRIMARY KEY,
	name           TEXT NOT NULL UNIQUE,
	pool_id        TEXT NOT NULL REFERENCES pools (id),
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
	updated_at     TIMESTAMP NOT NULL
);
CREATE INDEX instances_pool ON instances (pool_id);
CREATE UNIQUE INDEX instances_provider_id ON instances (provider_name, provider_id) WHERE provider_id <> '';

CREATE TABLE instance_events (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	instance_id TEXT NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
	created_at  TIMESTAMP NOT NULL,
	type        TEXT NOT NULL DEFAULT '',
	level       TEXT NOT NULL DEFAULT '',
	message     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX instance_events_instance ON instance_events (instance_id, id);

CREATE TABLE jobs (
	id                BIGINT PRIMARY KEY,
	run_id            BIGINT NOT NULL DEFAULT 0,
	action            TEXT NOT NULL DEFAULT '',
	status            TEXT NOT NULL DEFAULT '',
	conclusion        TEXT NOT NULL DEFAULT '',
	name              TEXT NOT NULL DEFAULT '',
	started_at        TIMESTAMP,
	completed_at      TIMESTAMP,
	runner_id         BIGINT NOT NULL DEFAULT 0,
	runner_name       TEXT NOT NULL DEFAULT '',
	runner_group_id   BIGINT NOT NULL DEFAULT 0,
	runner_group_name TEXT NOT NULL DEFAULT '',
	repository_name   TEXT NOT NULL DEFAULT '',
	repository_owner  TEXT NOT NULL DEFAULT '',
	workflow_run_url  TEXT NOT NULL DEFAULT '',
	labels            TEXT,
	entity_id         TEXT NOT NULL DEFAULT '',
	entity_type       TEXT NOT NULL DEFAULT '',
	locked_by         TEXT NOT NULL DEFAULT '',
	created_at        TIMESTAMP NOT NULL,
	updated_at        TIMESTAMP NOT NULL
);
CREATE INDEX jobs_entity_action ON jobs (entity_id, action);
CREATE INDEX jobs_action ON jobs (action);
