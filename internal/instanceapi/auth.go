package instanceapi

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/auth"
)

// authInfo is what the middleware learned about the calling instance.
type authInfo struct {
	token  string
	claims *auth.InstanceClaims
	inst   garrison.Instance
	pool   garrison.Pool
	entity garrison.Entity
}

type authKey struct{}

// authFrom returns the authInfo the middleware stored in ctx.
func authFrom(ctx context.Context) (*authInfo, bool) {
	ai, ok := ctx.Value(authKey{}).(*authInfo)
	return ai, ok
}

// mustAuth returns the authInfo of an authenticated request.
func mustAuth(r *http.Request) *authInfo {
	ai, _ := authFrom(r.Context())
	return ai
}

// errRefused marks a failed acceptance check; it is never shown to the client.
var errRefused = errors.New("instanceapi: instance token refused")

// authenticate applies the acceptance checks of §2 in order. On success it returns r
// with the authInfo in its context; otherwise it has written the response.
func (h *Handler) authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	ai, err := h.check(r)
	switch {
	case errors.Is(err, errRefused):
		h.log.DebugContext(r.Context(), "instance token refused", "path", r.URL.Path, "err", err)
		writeAuthFailed(w)
		return nil, false
	case err != nil:
		h.log.ErrorContext(r.Context(), "instance authentication failed", "path", r.URL.Path, "err", err)
		writeJSON(w, http.StatusInternalServerError, errorBody{Error: "Server error"})
		return nil, false
	}
	return r.WithContext(context.WithValue(r.Context(), authKey{}, ai)), true
}

// check runs checks 1–7 of §2; errRefused (wrapped) means 401, other errors are the
// store's.
func (h *Handler) check(r *http.Request) (*authInfo, error) {
	ctx := r.Context()
	token, err := bearerToken(r.Header.Get("Authorization")) // 1
	if err != nil {
		return nil, err
	}
	claims, err := h.tokens.VerifyInstance(token) // 2, 3
	if err != nil {
		return nil, errors.Join(errRefused, err)
	}
	if claims.IsAgent { // 3, whatever the verifier does
		return nil, refused("agent token")
	}
	ai := &authInfo{token: token, claims: claims}
	if ai.inst, err = h.store.Instance(ctx, claims.Name); err != nil { // 4
		return nil, refusedIfMissing(err, "instance")
	}
	if ai.pool, err = h.runnerPool(ctx, ai.inst); err != nil {
		return nil, err
	}
	if ai.entity, err = h.store.Entity(ctx, ai.pool.EntityID); err != nil {
		return nil, refusedIfMissing(err, "entity")
	}
	return ai, tokenUsable(ai.inst, claims.CreateAttempt) // 5, 6, 7
}

// runnerPool returns the pool of a pool's runner, or the pool view of a scale set's
// (garrison.ScaleSet.AsPool): the runner definition its bootstrap reads.
func (h *Handler) runnerPool(ctx context.Context, in garrison.Instance) (garrison.Pool, error) {
	switch {
	case in.ScaleSetID != 0:
		ss, err := h.store.ScaleSet(ctx, in.ScaleSetID)
		if err != nil {
			return garrison.Pool{}, refusedIfMissing(err, "scale set")
		}
		return ss.AsPool(), nil
	case in.PoolID == "":
		return garrison.Pool{}, refused("instance has no pool")
	}
	p, err := h.store.Pool(ctx, in.PoolID)
	if err != nil {
		return p, refusedIfMissing(err, "pool")
	}
	return p, nil
}

// tokenUsable applies checks 5–7 to the instance as currently stored.
func tokenUsable(inst garrison.Instance, createAttempt int) error {
	switch {
	case !runnerBootstrapping(inst.RunnerStatus):
		return refused("runner status " + string(inst.RunnerStatus))
	case createAttempt != inst.CreateAttempt:
		return refused("token of an earlier create attempt")
	case inst.Status != garrison.InstanceCreating && inst.Status != garrison.InstanceRunning:
		return refused("instance status " + string(inst.Status))
	}
	return nil
}

// runnerBootstrapping reports whether s is a runner status that may use the token.
func runnerBootstrapping(s garrison.RunnerStatus) bool {
	return s == garrison.RunnerPending || s == garrison.RunnerInstalling
}

// bearerToken applies check 1 and A-2: exactly "<scheme> <token>", scheme Bearer in any
// case. No cookie fallback.
func bearerToken(header string) (string, error) {
	parts := strings.Split(header, " ")
	if len(parts) != 2 || parts[1] == "" {
		return "", refused("malformed Authorization header")
	}
	if !strings.EqualFold(parts[0], "Bearer") {
		return "", refused("scheme is not Bearer")
	}
	return parts[1], nil
}

// refused returns errRefused with a reason for the logs.
func refused(reason string) error {
	return errors.Join(errRefused, errors.New(reason))
}

// refusedIfMissing turns a not-found store error into a refusal.
func refusedIfMissing(err error, what string) error {
	if errors.Is(err, garrison.ErrNotFound) {
		return errors.Join(errRefused, errors.New(what+" not found"), err)
	}
	return err
}
