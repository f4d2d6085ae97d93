-- Leases claim work that must happen once across replicas (a pool's reconcile, ...).
CREATE TABLE leases (
	name       TEXT PRIMARY KEY,
	holder     TEXT NOT NULL,
	expires_at TIMESTAMPTZ NOT NULL
);
