package forges

import (
	"errors"
	"fmt"

	"github.com/garrison-ci/garrison"
)

// Health records what forge calls say about an entity's pool management (the
// entity's pool_manager_status); *poolManagers satisfies it. Methods must not block.
type Health interface {
	SetFailed(entityID, reason string)
	Clear(entityID string)
}

// callKind says what the failure of a forge call made for an entity tells about it.
type callKind int

const (
	// credentialsCall: only a refusal (401, 403) is about the entity: its credentials.
	// A 404 may name something else (a runner, a hook, a runner group).
	credentialsCall callKind = iota
	// entityCall: the call reads the entity itself, so a 404 says the entity is gone
	// or out of the credentials' reach.
	entityCall
)

// observe records on the entity's status what a forge call made for it answered: a
// refusal of the credentials, or (entityCall) a missing entity, marks the entity's pool
// manager failed with the cause; any success clears that again, so the status recovers
// on its own with the forge. Other failures (5xx, network) say nothing about the entity.
//
// It also counts the call, as operation, for metrics.
func (h *Hub) observe(e garrison.Entity, kind callKind, operation string, err error) {
	h.count(e, operation, err)
	if h.o.Health == nil || e.ID == "" {
		return
	}
	switch {
	case err == nil:
		h.o.Health.Clear(e.ID)
	case errors.Is(err, garrison.ErrUnauthorized):
		h.o.Health.SetFailed(e.ID, fmt.Sprintf("the forge refused the credentials %q of %s %s: %s",
			e.CredentialsName, e.Type, e.FullName(), garrison.MessageOf(err)))
	case kind == entityCall && errors.Is(err, garrison.ErrNotFound):
		h.o.Health.SetFailed(e.ID, fmt.Sprintf("the forge does not know %s %s (404: it is gone or the credentials %q cannot see it): %s",
			e.Type, e.FullName(), e.CredentialsName, garrison.MessageOf(err)))
	}
}
