-- Jobs record why they are waiting or were not served ("why is my job waiting?").
ALTER TABLE jobs ADD COLUMN reason TEXT NOT NULL DEFAULT '';
