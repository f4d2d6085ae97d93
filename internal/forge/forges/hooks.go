package forges

import (
	"context"
	"log/slog"
	"net/url"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/forge/gitea"
	"github.com/garrison-ci/garrison/internal/forge/github"
	"github.com/garrison-ci/garrison/internal/httpapi"
)

// hookRec is a webhook as both forges describe it.
type hookRec struct {
	ID          int64
	URL         string
	Events      []string
	Active      bool
	InsecureSSL bool
}

func (h hookRec) info() apiv1.HookInfo {
	return apiv1.HookInfo{ID: h.ID, URL: h.URL, Events: h.Events, Active: h.Active, InsecureSSL: h.InsecureSSL}
}

// hookOps are the webhook calls of one forge for one entity.
type hookOps interface {
	list(ctx context.Context) ([]hookRec, error)
	create(ctx context.Context, url, secret string, insecure bool) (hookRec, error)
	remove(ctx context.Context, id int64) error
	// ping asks the forge to deliver a ping; false when the forge cannot for this scope.
	ping(ctx context.Context, id int64) (bool, error)
}

type githubHooks struct {
	c *github.Client
	e garrison.Entity
}

func (g githubHooks) list(ctx context.Context) ([]hookRec, error) {
	hs, err := g.c.ListHooks(ctx, g.e)
	return recs(hs), err
}

func (g githubHooks) create(ctx context.Context, url, secret string, insecure bool) (hookRec, error) {
	h, err := g.c.CreateHook(ctx, g.e, url, secret, insecure)
	return hookRec{ID: h.ID, URL: h.URL, Events: h.Events, Active: h.Active, InsecureSSL: h.InsecureSSL}, err
}

func (g githubHooks) remove(ctx context.Context, id int64) error { return g.c.DeleteHook(ctx, g.e, id) }

func (g githubHooks) ping(ctx context.Context, id int64) (bool, error) {
	return true, g.c.PingHook(ctx, g.e, id)
}

type giteaHooks struct {
	c *gitea.Client
	e garrison.Entity
}

func (g giteaHooks) list(ctx context.Context) ([]hookRec, error) {
	hs, err := g.c.ListHooks(ctx, g.e)
	return recs(hs), err
}

// recs turns the forge's hooks into hookRecs.
func recs(hs []garrison.Hook) []hookRec {
	out := make([]hookRec, len(hs))
	for i, h := range hs {
		out[i] = hookRec{ID: h.ID, URL: h.URL, Events: h.Events, Active: h.Active, InsecureSSL: h.InsecureSSL}
	}
	return out
}

// create ignores insecure: Gitea hooks have no such setting (WH-3).
func (g giteaHooks) create(ctx context.Context, url, secret string, _ bool) (hookRec, error) {
	h, err := g.c.InstallHook(ctx, g.e, url, secret)
	return hookRec{ID: h.ID, URL: h.URL, Events: h.Events, Active: h.Active}, err
}

func (g giteaHooks) remove(ctx context.Context, id int64) error { return g.c.DeleteHook(ctx, g.e, id) }

// ping asks Gitea to test a repository hook (a synthetic push delivery, as GitHub's ping
// after an install, WH-3). Gitea cannot test organization or system hooks: nothing is
// sent for them.
func (g giteaHooks) ping(ctx context.Context, id int64) (bool, error) {
	if g.e.Type != garrison.Repository {
		return false, nil
	}
	return true, g.c.TestHook(ctx, g.e, id)
}

// hooksFor returns the webhook calls for e.
func (h *Hub) hooksFor(ctx context.Context, e garrison.Entity) (hookOps, error) {
	c, err := h.clientFor(ctx, e)
	if err != nil {
		return nil, err
	}
	switch fc := c.Client.(type) {
	case *gitea.Client:
		return giteaHooks{fc, e}, nil
	case *github.Client:
		return githubHooks{fc, e}, nil
	}
	return nil, garrison.Errorf(garrison.EInternal, "forges: no webhook calls for a %T", c.Client)
}

// sameURL compares hook URLs with trailing "/" ignored, case-insensitively (WH-4).
func sameURL(a, b string) bool {
	return b != "" && strings.EqualFold(strings.TrimRight(a, "/"), strings.TrimRight(b, "/"))
}

// ourHook is the hook for the controller webhook URL, else the one for the bare base URL
// (base reports which), else ok is false (WH-4).
func ourHook(hooks []hookRec, req httpapi.WebhookRequest) (h hookRec, base, ok bool) {
	for _, hk := range hooks {
		if sameURL(hk.URL, req.URL) {
			return hk, false, true
		}
	}
	for _, hk := range hooks {
		if sameURL(hk.URL, req.BaseURL) {
			return hk, true, true
		}
	}
	return hookRec{}, false, false
}

// installConflict refuses an install when the hook exists, or when another hook already
// points at this controller: its URL names the controller id or the webhook host (WH-2).
func installConflict(hooks []hookRec, req httpapi.WebhookRequest) error {
	host := ""
	if u, err := url.Parse(req.BaseURL); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	for _, hk := range hooks {
		if hk.URL == req.URL {
			return garrison.Errorf(garrison.EConflict, "hook already installed")
		}
	}
	for _, hk := range hooks {
		u := strings.ToLower(hk.URL)
		if (req.ControllerID != "" && strings.Contains(u, strings.ToLower(req.ControllerID))) || (host != "" && strings.Contains(u, host)) {
			return garrison.Errorf(garrison.EConflict,
				"a webhook containing the controller ID or hostname of this contreoller is already installed on this repository")
		}
	}
	return nil
}

// InstallWebhook installs the garrison webhook on the entity (WH-2, WH-3): refused when
// this controller's hook is there already; repositories and organizations are pinged
// after, a failed ping only logged.
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
	ops, err := h.hooksFor(ctx, e)
	if err != nil {
		return apiv1.HookInfo{}, err
	}
	hooks, err := ops.list(ctx)
	if err != nil {
		return apiv1.HookInfo{}, err
	}
	if err := installConflict(hooks, req); err != nil {
		return apiv1.HookInfo{}, err
	}
	hk, err := ops.create(ctx, req.URL, e.WebhookSecret, req.InsecureSSL)
	if err != nil {
		return apiv1.HookInfo{}, err
	}
	if e.Type != garrison.ForgeInstance {
		if tried, err := ops.ping(ctx, hk.ID); tried && err != nil {
			h.logger().WarnContext(ctx, "pinging the new webhook", "entity", e.ID, "hook", hk.ID, "err", err)
		}
	}
	return hk.info(), nil
}

// WebhookInfo returns the garrison webhook installed on the entity, or ErrNotFound (WH-4).
func (h *Hub) WebhookInfo(ctx context.Context, e garrison.Entity, req httpapi.WebhookRequest) (apiv1.HookInfo, error) {
	ops, err := h.hooksFor(ctx, e)
	if err != nil {
		return apiv1.HookInfo{}, err
	}
	hooks, err := ops.list(ctx)
	if err != nil {
		return apiv1.HookInfo{}, err
	}
	hk, _, ok := ourHook(hooks, req)
	if !ok {
		return apiv1.HookInfo{}, garrison.Errorf(garrison.ENotFound, "hook not found")
	}
	return hk.info(), nil
}

// UninstallWebhook removes the garrison webhook from the entity (WH-5): nothing to remove
// is success; a hook for the bare base URL is left for the administrator (400).
func (h *Hub) UninstallWebhook(ctx context.Context, e garrison.Entity, req httpapi.WebhookRequest) error {
	err := h.uninstallWebhook(ctx, e, req)
	h.observe(e, credentialsCall, "DeleteHook", err)
	if err == nil {
		h.noteHooksChanged(e)
	}
	return err
}

func (h *Hub) uninstallWebhook(ctx context.Context, e garrison.Entity, req httpapi.WebhookRequest) error {
	ops, err := h.hooksFor(ctx, e)
	if err != nil {
		return err
	}
	hooks, err := ops.list(ctx)
	if err != nil {
		return err
	}
	hk, base, ok := ourHook(hooks, req)
	switch {
	case !ok:
		return nil
	case base:
		return garrison.Errorf(garrison.EInvalid, "base hook found (%s) and must be deleted manually", hk.URL)
	}
	if err := ops.remove(ctx, hk.ID); err != nil && garrison.CodeOf(err) != garrison.ENotFound {
		return err
	}
	return nil
}

// logger is the hub's logger, a discarding one when none was given.
func (h *Hub) logger() *slog.Logger {
	if h.o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return h.o.Logger
}
