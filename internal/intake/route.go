package intake

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/webhook"
	"github.com/garrison-ci/garrison/internal/store"
)

// routed is the outcome of routing a delivery and checking its signature.
type routed struct {
	ent     garrison.Entity   // the entity whose secret verifies the signature
	cands   []garrison.Entity // the entities the delivery may be for
	refused Result            // ResultOwnerUnknown, ResultEntityUnknown, ResultBadSignature; "" if accepted
	sigErr  error             // why the signature was refused
	cached  bool              // whether cached data took part in the outcome
	failed  string            // the store read that failed, with the error returned
}

// resolve finds the entity a delivery is for and checks the signature with its secret
// (W-6, W-7, W-8). Cached routing data are tried first; a refusal they lead to is only
// answered when fresh data refuse too, so a new entity or a rotated secret is honoured at
// once. A stale positive (a removed entity, a replaced secret) lasts at most the TTL.
func (h *Handler) resolve(ctx context.Context, hdr http.Header, raw []byte, ev *webhook.Event) (garrison.Entity, reply, bool) {
	r, err := h.route(ctx, hdr, raw, ev, false)
	if err == nil && r.refused != "" && r.cached {
		r, err = h.route(ctx, hdr, raw, ev, true)
	}
	switch {
	case err != nil:
		return garrison.Entity{}, h.storeFailure(ctx, ev, r.failed, err), false
	case r.refused != "":
		return garrison.Entity{}, h.refuse(ctx, ev, r), false
	}
	return r.ent, reply{}, true
}

// refuse logs and answers a delivery routing refused: 200 for an unknown endpoint or
// entity (W-6, W-7), the signature error otherwise (W-8).
func (h *Handler) refuse(ctx context.Context, ev *webhook.Event, r routed) reply {
	switch r.refused {
	case ResultOwnerUnknown:
		h.logf(ctx, slog.LevelWarn, ResultOwnerUnknown, "webhook: no endpoint for the job's URL",
			"delivery", ev.DeliveryID, "forge", ev.Forge, "base_url", ev.BaseURL)
		return okReply(ResultOwnerUnknown)
	case ResultEntityUnknown:
		h.logf(ctx, slog.LevelInfo, ResultEntityUnknown, "webhook: delivery for an entity garrison does not manage",
			"delivery", ev.DeliveryID, "forge", ev.Forge, "target_type", ev.TargetType,
			"owner", ev.EntityOwner, "name", ev.EntityName)
		return okReply(ResultEntityUnknown)
	}
	h.logf(ctx, slog.LevelWarn, ResultBadSignature, "webhook: signature check failed",
		"delivery", ev.DeliveryID, "forge", ev.Forge, "entity", r.cands[0].FullName(), "reason", garrison.MessageOf(r.sigErr))
	return errReply(ResultBadSignature, r.sigErr)
}

// route finds the entities a delivery may be for: on every endpoint of the delivery's
// forge type whose base URL matches html_url, the entity named by the payload; then the
// first of them whose secret verifies the signature. fresh skips the cache.
func (h *Handler) route(ctx context.Context, hdr http.Header, raw []byte, ev *webhook.Event, fresh bool) (routed, error) {
	eps, cached, err := h.cache.listEndpoints(ctx, ev.Forge, fresh)
	if err != nil {
		return routed{failed: "list endpoints"}, err
	}
	names := matchingEndpoints(eps, ev)
	if len(names) == 0 {
		return routed{refused: ResultOwnerUnknown, cached: cached}, nil
	}
	typ, ok := entityType(ev.TargetType)
	if !ok {
		return routed{refused: ResultEntityUnknown}, nil // whatever the data say
	}
	all, entsCached, err := h.cache.listEntities(ctx, store.EntityFilter{Type: typ, Owner: ev.EntityOwner, Name: ev.EntityName}, fresh)
	if err != nil {
		return routed{failed: "list entities"}, err
	}
	r := routed{cached: cached || entsCached}
	for _, e := range all {
		if e.ForgeType == ev.Forge && slices.Contains(names, strings.ToLower(e.Endpoint)) {
			r.cands = append(r.cands, e)
		}
	}
	if len(r.cands) == 0 {
		r.refused = ResultEntityUnknown
		return r, nil
	}
	if r.ent, r.sigErr = verify(hdr, raw, r.cands); r.sigErr != nil {
		r.refused = ResultBadSignature
	}
	return r, nil
}

// matchingEndpoints returns the lower-cased names of the endpoints whose base URL matches
// the delivery's html_url (W-6).
func matchingEndpoints(eps []garrison.Endpoint, ev *webhook.Event) []string {
	var names []string
	for _, ep := range eps {
		if endpointMatches(ep.BaseURL, ev.BaseURL, ev.HTMLURL) {
			names = append(names, strings.ToLower(ep.Name))
		}
	}
	return names
}

// endpointMatches compares scheme://host of a job's html_url with an endpoint base URL,
// trailing "/" trimmed (W-6). A base URL with a path also matches URLs under it.
func endpointMatches(baseURL, jobBase, htmlURL string) bool {
	base := strings.TrimRight(baseURL, "/")
	if base == "" || jobBase == "" {
		return false
	}
	if strings.EqualFold(base, jobBase) {
		return true
	}
	u, err := url.Parse(base)
	if err != nil || strings.Trim(u.Path, "/") == "" {
		return false
	}
	prefix := base + "/"
	return len(htmlURL) > len(prefix) && strings.EqualFold(htmlURL[:len(prefix)], prefix)
}

// entityType maps a hook target type to the entity type it names. A Gitea system hook
// names the forge instance of the endpoint the job's html_url matched (FI-3): the payload
// names no owner, so every forge instance is looked up and the endpoint picks it.
func entityType(target string) (garrison.EntityType, bool) {
	switch target {
	case webhook.TargetSystem:
		return garrison.ForgeInstance, true
	case webhook.TargetRepository:
		return garrison.Repository, true
	case webhook.TargetOrganization:
		return garrison.Organization, true
	case webhook.TargetBusiness:
		return garrison.Enterprise, true
	}
	return "", false
}

// verify checks the signature (W-8) against the secret of each candidate entity and
// returns the first that verifies, else the first candidate's error. An entity without a
// secret verifies nothing.
func verify(hdr http.Header, raw []byte, cands []garrison.Entity) (garrison.Entity, error) {
	var first error
	for _, e := range cands {
		var err error = errNoSecret
		if e.WebhookSecret != "" {
			err = webhook.Verify(hdr, raw, []byte(e.WebhookSecret))
		}
		if err == nil {
			return e, nil
		}
		if first == nil {
			first = err
		}
	}
	return garrison.Entity{}, first
}

// errNoSecret refuses deliveries for an entity that has no webhook secret.
var errNoSecret = &garrison.Error{Code: garrison.EUnauthorized, Message: "entity has no webhook secret"}
