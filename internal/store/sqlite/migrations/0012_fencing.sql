-- Fencing tokens: each claim counts its takeovers; a write made under a claim carries the
-- token its holder got and is refused once a newer one exists.
ALTER TABLE leases ADD COLUMN token INTEGER NOT NULL DEFAULT 0;
ALTER TABLE scale_sets ADD COLUMN session_token INTEGER NOT NULL DEFAULT 0;
