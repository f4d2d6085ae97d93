-- Replicas sharing the database and their heartbeats (the operator's view of who runs).
CREATE TABLE replicas (
	id           TEXT PRIMARY KEY,
	address      TEXT NOT NULL,
	version      TEXT NOT NULL,
	started_at   TIMESTAMPTZ NOT NULL,
	heartbeat_at TIMESTAMPTZ NOT NULL
);
