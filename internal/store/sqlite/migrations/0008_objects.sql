-- The object store's catalogue (rest-api-2 §7). The content of object <id> is the file
-- objects/<id> under the server's data directory; only its metadata is here. tags is a
-- JSON array of lower-case strings.
CREATE TABLE objects (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	name        TEXT NOT NULL,
	description TEXT NOT NULL DEFAULT '',
	size        BIGINT NOT NULL DEFAULT 0,
	sha256      TEXT NOT NULL DEFAULT '',
	file_type   TEXT NOT NULL DEFAULT '',
	tags        TEXT NOT NULL DEFAULT '[]',
	created_at  TIMESTAMP NOT NULL,
	updated_at  TIMESTAMP NOT NULL
);
