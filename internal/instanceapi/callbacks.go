package instanceapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/garrison-ci/garrison"
)

// statusUpdate is the body of POST status (§8.1).
type statusUpdate struct {
	Status  garrison.RunnerStatus `json:"status"`
	Message string                `json:"message"`
	AgentID *int64                `json:"agent_id"`
}

// systemInfo is the body of POST system-info (§8.2).
type systemInfo struct {
	OSName    string `json:"os_name"`
	OSVersion string `json:"os_version"`
	AgentID   *int64 `json:"agent_id"`
}

// errBadBody answers a callback body that is not a JSON object (CB-1).
var errBadBody = invalid("invalid request")

// errAgentMismatch answers an agent id that contradicts the stored one (CB-4).
var errAgentMismatch = invalid("agent ID mismatch")

// parseStatusUpdate decodes a status callback body, whatever its declared content type
// (CB-7). Unknown keys are ignored.
func parseStatusUpdate(body []byte) (statusUpdate, error) {
	var u statusUpdate
	if err := json.Unmarshal(body, &u); err != nil {
		return statusUpdate{}, errors.Join(errBadBody, err)
	}
	return u, nil
}

// parseSystemInfo decodes a system-info callback body, whatever its declared content
// type. Unknown keys are ignored.
func parseSystemInfo(body []byte) (systemInfo, error) {
	var si systemInfo
	if err := json.Unmarshal(body, &si); err != nil {
		return systemInfo{}, errors.Join(errBadBody, err)
	}
	return si, nil
}

// empty reports whether the body says nothing to record.
func (si systemInfo) empty() bool {
	return si.OSName == "" && si.OSVersion == "" && (si.AgentID == nil || *si.AgentID == 0)
}

// applySystemInfo records what the instance reports about itself: its agent id (under
// the rules of applyAgentID) and its OS name and version when given.
func applySystemInfo(i *garrison.Instance, si systemInfo) error {
	if err := applyAgentID(i, si.AgentID); err != nil {
		return err
	}
	if si.OSName != "" {
		i.OSName = si.OSName
	}
	if si.OSVersion != "" {
		i.OSVersion = si.OSVersion
	}
	return nil
}

// readBody reads a capped request body.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	return io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
}

// applyStatus applies u to i under the transition rules (CB-3, CB-4, CB-5).
func applyStatus(i *garrison.Instance, u statusUpdate) error {
	if u.Status != "" && !i.RunnerStatus.CanTransition(u.Status) {
		return invalid("invalid runner status transition from %s to %s", i.RunnerStatus, u.Status)
	}
	if err := applyAgentID(i, u.AgentID); err != nil {
		return err
	}
	if u.Status != "" {
		i.RunnerStatus = u.Status
	}
	return nil
}

// applyAgentID stores a non-zero agent id unless a different one is stored (CB-4).
func applyAgentID(i *garrison.Instance, id *int64) error {
	if id == nil || *id == 0 {
		return nil
	}
	if i.AgentID != 0 && i.AgentID != *id {
		return errAgentMismatch
	}
	i.AgentID = *id
	return nil
}

// handleStatus serves POST status (§8.1). A message is recorded as a status message
// before the status changes (CB-2); a rejected update is recorded at level error with the
// reason instead, so the log never shows an accepted-looking message for a refused
// change (I-5).
func (h *Handler) handleStatus(w http.ResponseWriter, r *http.Request) {
	ctx, ai := r.Context(), mustAuth(r)
	body, err := readBody(w, r)
	if err != nil {
		h.writeErr(w, r, err)
		return
	}
	u, err := parseStatusUpdate(body)
	if err != nil {
		h.writeErr(w, r, err)
		return
	}
	probe := ai.inst
	if err := applyStatus(&probe, u); err != nil {
		h.recordRejected(ctx, ai.inst.Name, u.Message, err)
		h.writeErr(w, r, err)
		return
	}
	h.recordMessage(ctx, ai.inst.Name, garrison.LevelInfo, u.Message)
	updated, err := h.store.UpdateInstance(ctx, ai.inst.Name, func(i *garrison.Instance) error {
		if err := tokenUsable(*i, ai.claims.CreateAttempt); err != nil {
			return errNotAuthorized
		}
		return applyStatus(i, u)
	})
	if err != nil {
		h.writeErr(w, r, err)
		return
	}
	if updated.RunnerStatus != ai.inst.RunnerStatus && h.notify != nil && ai.inst.PoolID != "" {
		h.notify(ai.inst.PoolID)
	}
	h.log.DebugContext(ctx, "instance status callback", "instance", ai.inst.Name, "pool", ai.inst.PoolID,
		"runner_status", updated.RunnerStatus)
	writeText(w, "application/json", nil)
}

// recordMessage stores msg as a status message of the instance, cut to
// garrison.MaxEventMessageBytes; empty messages are skipped. Failures are logged: the
// status update matters more than its message.
func (h *Handler) recordMessage(ctx context.Context, name string, level garrison.EventLevel, msg string) {
	if msg == "" {
		return
	}
	ev := garrison.Event{CreatedAt: h.now(), Type: garrison.EventStatus, Level: level,
		Message: garrison.TruncateMessage(msg)}
	if err := h.store.AddInstanceEvent(ctx, name, ev); err != nil {
		h.log.WarnContext(ctx, "recording instance status message", "instance", name, "err", err)
	}
}

// recordRejected records the message of a refused status update at level error. A long
// message is cut so that the reason still fits.
func (h *Handler) recordRejected(ctx context.Context, name, msg string, reason error) {
	if msg == "" {
		return
	}
	suffix := " (rejected: " + garrison.MessageOf(reason) + ")"
	msg = garrison.Truncate(msg, garrison.MaxEventMessageBytes-len(suffix))
	h.recordMessage(ctx, name, garrison.LevelError, msg+suffix)
}

// handleSystemInfo serves POST system-info (§8.2).
func (h *Handler) handleSystemInfo(w http.ResponseWriter, r *http.Request) {
	ctx, ai := r.Context(), mustAuth(r)
	body, err := readBody(w, r)
	if err != nil {
		h.writeErr(w, r, err)
		return
	}
	si, err := parseSystemInfo(body)
	if err != nil {
		h.writeErr(w, r, err)
		return
	}
	if si.empty() {
		writeText(w, "application/json", nil)
		return
	}
	_, err = h.store.UpdateInstance(ctx, ai.inst.Name, func(i *garrison.Instance) error {
		if err := tokenUsable(*i, ai.claims.CreateAttempt); err != nil {
			return errNotAuthorized
		}
		return applySystemInfo(i, si)
	})
	if err != nil {
		h.writeErr(w, r, err)
		return
	}
	writeText(w, "application/json", nil)
}
