package sqlstore

import (
	"context"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// importScaleSets writes the snapshot's scale sets with their ids, forge ids, the
// listener's progress (last message id, desired count) and tags; the session claim
// starts free. The id sequence moves past them (spec ID-4).
func (s *Store) importScaleSets(ctx context.Context, c conn, snap store.Snapshot, at time.Time) error {
	for _, ss := range snap.ScaleSets {
		ss.Tags = garrison.TagsFromNames(tagNames(ss.Tags))
		if ss.ID == 0 {
			return invalid("imported scale set %s has no id", ss.Name)
		}
		if err := ss.Validate(); err != nil {
			return invalid("imported scale set %d: %s", ss.ID, garrison.MessageOf(err))
		}
		if err := s.checkPoolTemplate(ctx, c, ss.TemplateID); err != nil {
			return notFound("template %d of scale set %d not found", ss.TemplateID, ss.ID)
		}
		ss.UpdatedAt = stamp(ss.UpdatedAt, at)
		args := append([]any{int64(ss.ID), ss.EntityID, stamp(ss.CreatedAt, at), ss.LastMessageID}, scaleSetArgs(ss)...)
		_, err := c.exec(ctx, `INSERT INTO scale_sets (id, entity_id, created_at, last_message_id, `+scaleSetColumns+`)
			VALUES (?, ?, ?, ?, `+scaleSetPlaceholders+`)`, args...)
		if s.d.unique(err) {
			return conflict("scale set %d (%s) already exists, or its name in runner group %q", ss.ID, ss.Name, ss.RunnerGroup)
		}
		if err := s.scaleSetWriteErr(err, ss); err != nil {
			return err
		}
		if _, err := s.setScaleSetTags(ctx, c, ss.ID, ss.Tags); err != nil {
			return err
		}
	}
	if len(snap.ScaleSets) == 0 {
		return nil
	}
	return s.syncSequence(ctx, c, "scale_sets", "id")
}
