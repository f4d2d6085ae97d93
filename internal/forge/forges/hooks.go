package forges

import (
	"context"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/forge/gitea"
	"github.com/garrison-ci/garrison/internal/forge/github"
	"github.com/garrison-ci/garrison/internal/httpapi"
)

// InstallWebhook installs the garrison webhook on the entity's repository or organization.
func (h *Hub) InstallWebhook(ctx context.Context, e garrison.Entity, req httpapi.WebhookRequest) (apiv1.HookInfo, error) {
	info, err := h.installWebhook(ctx, e, req)
	h.observe(e, credentialsCall, "CreateHook", err)
	if err == nil {
		h.noteHooksChanged(e)
	}
	return info, err
}

// noteHooksChanged tells HooksChanged that e's webhooks changed.
func (h *Hub) noteHooksChanged(e garrison.Entity) {
	if h.o.HooksChanged != nil {
		h.o.HooksChanged(e.ID)
	}
}

func (h *Hub) installWebhook(ctx context.Context, e garrison.Entity, req httpapi.WebhookRequest) (apiv1.HookInfo, error) {
	c, err := h.clientsFor(ctx, e)
	if err != nil {
		return apiv1.HookInfo{}, err
	}
	if c.gt != nil {
		if _, err := findGiteaHook(ctx, c.gt, e, req); err == nil {
			return apiv1.HookInfo{}, garrison.Errorf(garrison.EConflict, "hook already installed")
		}
		hk, err := c.gt.CreateHook(ctx, e, req.URL, e.WebhookSecret)
		if err != nil {
			return apiv1.HookInfo{}, err
		}
		return giteaHookInfo(hk, req.InsecureSSL), nil
	}
	hk, err := c.gh.InstallHook(ctx, e, req.URL, e.WebhookSecret)
	if err != nil {
		return apiv1.HookInfo{}, err
	}
	return githubHookInfo(hk, req.InsecureSSL), nil
}

// WebhookInfo returns the garrison webhook installed on the entity, or ErrNotFound.
func (h *Hub) WebhookInfo(ctx context.Context, e garrison.Entity, req httpapi.WebhookRequest) (apiv1.HookInfo, error) {
	c, err := h.clientsFor(ctx, e)
	if err != nil {
		return apiv1.HookInfo{}, err
	}
	if c.gt != nil {
		hk, err := findGiteaHook(ctx, c.gt, e, req)
		if err != nil {
			return apiv1.HookInfo{}, err
		}
		return giteaHookInfo(hk, false), nil
	}
	hk, err := c.gh.FindHook(ctx, e, req.URL)
	if err != nil {
		return apiv1.HookInfo{}, garrison.Errorf(garrison.ENotFound, "hook not found")
	}
	return githubHookInfo(hk, false), nil
}

// UninstallWebhook removes the garrison webhook from the entity.
func (h *Hub) UninstallWebhook(ctx context.Context, e garrison.Entity, req httpapi.WebhookRequest) error {
	err := h.uninstallWebhook(ctx, e, req)
	h.observe(e, credentialsCall, "DeleteHook", err)
	if err == nil {
		h.noteHooksChanged(e)
	}
	return err
}

func (h *Hub) uninstallWebhook(ctx context.Context, e garrison.Entity, req httpapi.WebhookRequest) error {
	c, err := h.clientsFor(ctx, e)
	if err != nil {
		return err
	}
	if c.gt != nil {
		hk, err := findGiteaHook(ctx, c.gt, e, req)
		if err != nil {
			return err
		}
		return c.gt.DeleteHook(ctx, e, hk.ID)
	}
	return c.gh.RemoveHook(ctx, e, req.URL)
}

func findGiteaHook(ctx context.Context, c *gitea.Client, e garrison.Entity, req httpapi.WebhookRequest) (gitea.Hook, error) {
	hooks, err := c.ListHooks(ctx, e)
	if err != nil {
		return gitea.Hook{}, err
	}
	for _, hk := range hooks {
		if strings.EqualFold(strings.TrimRight(hk.URL, "/"), strings.TrimRight(req.URL, "/")) {
			return hk, nil
		}
	}
	return gitea.Hook{}, garrison.Errorf(garrison.ENotFound, "hook not found")
}

func githubHookInfo(hk github.Hook, insecure bool) apiv1.HookInfo {
	return apiv1.HookInfo{ID: hk.ID, URL: hk.URL, Events: hk.Events, Active: hk.Active, InsecureSSL: insecure}
}

func giteaHookInfo(hk gitea.Hook, insecure bool) apiv1.HookInfo {
	return apiv1.HookInfo{ID: hk.ID, URL: hk.URL, Events: hk.Events, Active: hk.Active, InsecureSSL: insecure}
}
