-- Proxies (rest-api-2 §6): named HTTP(S) proxies that pools reference by pools.proxy_id.
-- The password is sealed.
CREATE TABLE proxies (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	name        TEXT NOT NULL,
	description TEXT NOT NULL DEFAULT '',
	http_proxy  TEXT NOT NULL DEFAULT '',
	https_proxy TEXT NOT NULL DEFAULT '',
	no_proxy    TEXT NOT NULL DEFAULT '',
	username    TEXT NOT NULL DEFAULT '',
	password    BLOB,
	created_at  TIMESTAMP NOT NULL,
	updated_at  TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX proxies_name ON proxies (lower(name));
CREATE INDEX pools_proxy ON pools (proxy_id);
