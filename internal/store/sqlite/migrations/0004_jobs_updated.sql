-- The reconciler reads an entity's jobs changed since its last look (JobFilter.UpdatedSince).
CREATE INDEX jobs_entity_updated ON jobs (entity_id, updated_at);
