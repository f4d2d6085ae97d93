-- Object content in the database (rest-api-2 §7), so that every replica serves every
-- object: chunk seq (from 0) of object object_id holds up to 512 KiB of it, in order.
-- Objects stored before this migration have their content only in the objects/ files of
-- the data directory; the server copies them in when it starts.
CREATE TABLE object_chunks (
	object_id BIGINT NOT NULL REFERENCES objects (id) ON DELETE CASCADE,
	seq       INTEGER NOT NULL,
	data      BYTEA NOT NULL,
	PRIMARY KEY (object_id, seq)
);
