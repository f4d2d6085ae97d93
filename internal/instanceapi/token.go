package instanceapi

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"

	"github.com/garrison-ci/garrison"
)

// fetchTokenMessage is the message of the fetchToken event (T-3).
const fetchTokenMessage = "runner registration token was retrieved"

// handleRegistrationToken serves GET runner-registration-token: once per create attempt
// of a non-JIT instance (T-1..T-5).
func (h *Handler) handleRegistrationToken(w http.ResponseWriter, r *http.Request) {
	ctx, ai := r.Context(), mustAuth(r)
	if err := h.claimToken(ctx, ai); err != nil {
		h.writeErr(w, r, err)
		return
	}
	tok, err := h.forge.RegistrationToken(ctx, ai.entity)
	if err != nil {
		h.releaseToken(ctx, ai)
		h.writeErr(w, r, fmt.Errorf("instanceapi: registration token: %w", err))
		return
	}
	ev := garrison.Event{CreatedAt: h.now(), Type: garrison.EventFetchToken, Level: garrison.LevelInfo, Message: fetchTokenMessage}
	if err := h.store.AddInstanceEvent(ctx, ai.inst.Name, ev); err != nil {
		h.log.WarnContext(ctx, "recording fetchToken event", "instance", ai.inst.Name, "err", err)
	}
	writeText(w, "text/plain", []byte(tok))
}

// claimToken marks the token fetched under the instance's row lock, so two concurrent
// fetches cannot both succeed. errNotAuthorized if the instance may not fetch one.
func (h *Handler) claimToken(ctx context.Context, ai *authInfo) error {
	_, err := h.store.UpdateInstance(ctx, ai.inst.Name, func(i *garrison.Instance) error {
		if err := tokenUsable(*i, ai.claims.CreateAttempt); err != nil {
			return errNotAuthorized
		}
		if len(i.JITConfig) > 0 || i.TokenFetched {
			return errNotAuthorized
		}
		i.TokenFetched = true
		return nil
	})
	return err
}

// releaseToken undoes claimToken after the forge failed to hand out a token, so the
// instance can try again.
func (h *Handler) releaseToken(ctx context.Context, ai *authInfo) {
	_, err := h.store.UpdateInstance(context.WithoutCancel(ctx), ai.inst.Name, func(i *garrison.Instance) error {
		i.TokenFetched = false
		return nil
	})
	if err != nil {
		h.log.ErrorContext(ctx, "releasing registration token claim", "instance", ai.inst.Name, "err", err)
	}
}

// errNotJIT answers a credentials request of a non-JIT instance (F-2).
var errNotJIT = notFound("instance not configured for JIT")

// handleCredentials serves GET credentials/{fileName}: the decoded JIT file
// ".{fileName}" (F-1..F-4).
func (h *Handler) handleCredentials(w http.ResponseWriter, r *http.Request) {
	ai := mustAuth(r)
	name := r.PathValue("fileName")
	body, err := jitFile(ai.inst.JITConfig, name)
	if err != nil {
		h.writeErr(w, r, err)
		return
	}
	w.Header().Set("Content-Disposition", "attachment; filename=."+name)
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	writeText(w, "application/octet-stream", body)
}

// jitFile returns the decoded content of JIT file "."+name.
func jitFile(cfg map[string]string, name string) ([]byte, error) {
	if len(cfg) == 0 {
		return nil, errNotJIT
	}
	enc, ok := cfg["."+name]
	if !ok {
		return nil, notFound("could not find file %q", "."+name)
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("instanceapi: JIT file .%s is not base64", name), err)
	}
	return b, nil
}
