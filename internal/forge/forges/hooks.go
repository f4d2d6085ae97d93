package forges

import (
	"context"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/httpapi"
)

// InstallWebhook installs the garrison webhook on the entity's repository or organization
// (ErrConflict when it is there already).
func (h *Hub) InstallWebhook(ctx context.Context, e garrison.Entity, req httpapi.WebhookRequest) (apiv1.HookInfo, error) {
	c, err := h.clientFor(ctx, e)
	if err != nil {
		return apiv1.HookInfo{}, err
	}
	hk, err := c.InstallHook(ctx, e, req.URL, e.WebhookSecret)
	h.observe(e, credentialsCall, err)
	if err != nil {
		return apiv1.HookInfo{}, err
	}
	h.noteHooksChanged(e)
	return hookInfo(hk, req.InsecureSSL), nil
}

// noteHooksChanged tells HooksChanged that e's webhooks changed.
func (h *Hub) noteHooksChanged(e garrison.Entity) {
	if h.o.HooksChanged != nil {
		h.o.HooksChanged(e.ID)
	}
}

// WebhookInfo returns the garrison webhook installed on the entity, or ErrNotFound.
func (h *Hub) WebhookInfo(ctx context.Context, e garrison.Entity, req httpapi.WebhookRequest) (apiv1.HookInfo, error) {
	c, err := h.clientFor(ctx, e)
	if err != nil {
		return apiv1.HookInfo{}, err
	}
	hk, err := c.FindHook(ctx, e, req.URL)
	if err != nil {
		return apiv1.HookInfo{}, err
	}
	return hookInfo(hk, false), nil
}

// UninstallWebhook removes the garrison webhook from the entity (ErrNotFound when there
// is none).
func (h *Hub) UninstallWebhook(ctx context.Context, e garrison.Entity, req httpapi.WebhookRequest) error {
	c, err := h.clientFor(ctx, e)
	if err != nil {
		return err
	}
	err = c.RemoveHook(ctx, e, req.URL)
	h.observe(e, credentialsCall, err)
	if err == nil {
		h.noteHooksChanged(e)
	}
	return err
}

// hookInfo is a hook in the REST API's shape; the forges do not report insecure_ssl
// back, so it is what the request asked.
func hookInfo(hk garrison.Hook, insecure bool) apiv1.HookInfo {
	return apiv1.HookInfo{ID: hk.ID, URL: hk.URL, Events: hk.Events, Active: hk.Active, InsecureSSL: insecure}
}
