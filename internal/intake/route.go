package intake

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/webhook"
	"github.com/garrison-ci/garrison/internal/store"
)

// route finds the entities a delivery may be for (W-6, W-7): on every endpoint of the
// delivery's forge type whose base URL matches html_url, the entity named by the payload.
// It answers 200 when there is none.
func (h *Handler) route(ctx context.Context, ev *webhook.Event) ([]garrison.Entity, reply, bool) {
	eps, err := h.store.ListEndpoints(ctx, ev.Forge)
	if err != nil {
		return nil, h.storeFailure(ctx, ev, "list endpoints", err), false
	}
	names := map[string]bool{}
	for _, ep := range eps {
		if endpointMatches(ep.BaseURL, ev.BaseURL, ev.HTMLURL) {
			names[strings.ToLower(ep.Name)] = true
		}
	}
	if len(names) == 0 {
		h.logs.logf(ctx, slog.LevelWarn, ResultOwnerUnknown, "webhook: no endpoint for the job's URL",
			"delivery", ev.DeliveryID, "forge", ev.Forge, "base_url", ev.BaseURL)
		return nil, okReply(ResultOwnerUnknown), false
	}
	typ, ok := entityType(ev.TargetType)
	var found []garrison.Entity
	if ok {
		all, err := h.store.ListEntities(ctx, store.EntityFilter{Type: typ, Owner: ev.EntityOwner, Name: ev.EntityName})
		if err != nil {
			return nil, h.storeFailure(ctx, ev, "list entities", err), false
		}
		for _, e := range all {
			if names[strings.ToLower(e.Endpoint)] && e.ForgeType == ev.Forge {
				found = append(found, e)
			}
		}
	}
	if len(found) == 0 {
		h.logs.logf(ctx, slog.LevelInfo, ResultEntityUnknown, "webhook: delivery for an entity garrison does not manage",
			"delivery", ev.DeliveryID, "forge", ev.Forge, "target_type", ev.TargetType,
			"owner", ev.EntityOwner, "name", ev.EntityName)
		return nil, okReply(ResultEntityUnknown), false
	}
	return found, reply{}, true
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

// entityType maps a hook target type to the entity type it names. Gitea system hooks name
// the forge instance, which garrison does not manage as an entity.
func entityType(target string) (garrison.EntityType, bool) {
	switch target {
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
// returns the first that verifies. An entity without a secret verifies nothing.
func (h *Handler) verify(ctx context.Context, hdr http.Header, raw []byte, ev *webhook.Event, cands []garrison.Entity) (garrison.Entity, reply, bool) {
	var first error
	for _, e := range cands {
		var err error = errNoSecret
		if e.WebhookSecret != "" {
			err = webhook.Verify(hdr, raw, []byte(e.WebhookSecret))
		}
		if err == nil {
			return e, reply{}, true
		}
		if first == nil {
			first = err
		}
	}
	h.logs.logf(ctx, slog.LevelWarn, ResultBadSignature, "webhook: signature check failed",
		"delivery", ev.DeliveryID, "forge", ev.Forge, "entity", cands[0].FullName(), "reason", garrison.MessageOf(first))
	return garrison.Entity{}, errReply(ResultBadSignature, first), false
}

// errNoSecret refuses deliveries for an entity that has no webhook secret.
var errNoSecret = &garrison.Error{Code: garrison.EUnauthorized, Message: "entity has no webhook secret"}
