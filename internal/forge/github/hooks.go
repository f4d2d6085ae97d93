package github

import (
	"context"
	"time"

	gh "github.com/google/go-github/v90/github"

	"github.com/garrison-ci/garrison"
)

// InstallHook installs the garrison webhook (workflow_job, JSON, signed with secret) on a
// repository or organization. An existing hook with the same URL gives EConflict.
func (c *Client) InstallHook(ctx context.Context, e garrison.Entity, url, secret string) (garrison.Hook, error) {
	if _, err := c.FindHook(ctx, e, url); err == nil {
		return garrison.Hook{}, garrison.Errorf(garrison.EConflict, "github: a hook for %s is already installed on %s", url, e.FullName())
	} else if garrison.CodeOf(err) != garrison.ENotFound {
		return garrison.Hook{}, err
	}
	h := &gh.Hook{
		Name: gh.Ptr("web"), Active: gh.Ptr(true), Events: []string{"workflow_job"},
		Config: &gh.HookConfig{URL: &url, ContentType: gh.Ptr("json"), Secret: &secret, InsecureSSL: gh.Ptr("0")},
	}
	var err error
	switch e.Type {
	case garrison.Repository:
		h, _, err = c.gh.Repositories.CreateHook(ctx, e.Owner, e.Name, h)
	case garrison.Organization:
		h, _, err = c.gh.Organizations.CreateHook(ctx, e.Name, h)
	default:
		return garrison.Hook{}, errUnsupported("webhooks", e)
	}
	if err != nil {
		return garrison.Hook{}, wrap("create hook", err)
	}
	return toHook(h), nil
}

// FindHook returns the hook whose URL is url (garrison.SameHookURL), or ENotFound.
func (c *Client) FindHook(ctx context.Context, e garrison.Entity, url string) (garrison.Hook, error) {
	hooks, err := c.ListHooks(ctx, e)
	if err != nil {
		return garrison.Hook{}, err
	}
	for _, h := range hooks {
		if garrison.SameHookURL(h.URL, url) {
			return h, nil
		}
	}
	return garrison.Hook{}, garrison.Errorf(garrison.ENotFound, "github: no hook for %s on %s", url, e.FullName())
}

// ListHooks returns all hooks of a repository or organization.
func (c *Client) ListHooks(ctx context.Context, e garrison.Entity) ([]garrison.Hook, error) {
	opts := &gh.ListOptions{PerPage: 100}
	var out []garrison.Hook
	for {
		var hs []*gh.Hook
		var resp *gh.Response
		var err error
		switch e.Type {
		case garrison.Repository:
			hs, resp, err = c.gh.Repositories.ListHooks(ctx, e.Owner, e.Name, opts)
		case garrison.Organization:
			hs, resp, err = c.gh.Organizations.ListHooks(ctx, e.Name, opts)
		default:
			return nil, errUnsupported("webhooks", e)
		}
		if err != nil {
			return nil, wrap("list hooks", err)
		}
		for _, h := range hs {
			out = append(out, toHook(h))
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// RemoveHook deletes the hook whose URL is url (ENotFound when there is none).
func (c *Client) RemoveHook(ctx context.Context, e garrison.Entity, url string) error {
	h, err := c.FindHook(ctx, e, url)
	if err != nil {
		return err
	}
	switch e.Type {
	case garrison.Repository:
		_, err = c.gh.Repositories.DeleteHook(ctx, e.Owner, e.Name, h.ID)
	case garrison.Organization:
		_, err = c.gh.Organizations.DeleteHook(ctx, e.Name, h.ID)
	}
	return wrap("delete hook", err)
}

func toHook(h *gh.Hook) garrison.Hook {
	return garrison.Hook{ID: h.GetID(), URL: h.GetConfig().GetURL(), Events: h.Events, Active: h.GetActive()}
}

// ListHookDeliveries returns the deliveries of a hook, newest first, back to since (all
// of them when since is zero).
func (c *Client) ListHookDeliveries(ctx context.Context, e garrison.Entity, hookID int64, since time.Time) ([]garrison.HookDelivery, error) {
	opts := &gh.ListCursorOptions{PerPage: 100}
	var out []garrison.HookDelivery
	for {
		var ds []*gh.HookDelivery
		var resp *gh.Response
		var err error
		switch e.Type {
		case garrison.Repository:
			ds, resp, err = c.gh.Repositories.ListHookDeliveries(ctx, e.Owner, e.Name, hookID, opts)
		case garrison.Organization:
			ds, resp, err = c.gh.Organizations.ListHookDeliveries(ctx, e.Name, hookID, opts)
		default:
			return nil, errUnsupported("hook deliveries", e)
		}
		if err != nil {
			return nil, wrap("list hook deliveries", err)
		}
		for _, d := range ds {
			if !since.IsZero() && d.GetDeliveredAt().Before(since) {
				return out, nil
			}
			out = append(out, garrison.HookDelivery{
				ID: d.GetID(), GUID: d.GetGUID(), DeliveredAt: d.GetDeliveredAt().Time, Redelivery: d.GetRedelivery(),
				Status: d.GetStatus(), StatusCode: d.GetStatusCode(), Event: d.GetEvent(), Action: d.GetAction(),
			})
		}
		if resp.Cursor == "" {
			return out, nil
		}
		opts.Cursor = resp.Cursor
	}
}

// Redeliver asks the forge to send a delivery again (GitHub answers 202).
func (c *Client) Redeliver(ctx context.Context, e garrison.Entity, hookID, deliveryID int64) error {
	var err error
	switch e.Type {
	case garrison.Repository:
		_, _, err = c.gh.Repositories.RedeliverHookDelivery(ctx, e.Owner, e.Name, hookID, deliveryID)
	case garrison.Organization:
		_, _, err = c.gh.Organizations.RedeliverHookDelivery(ctx, e.Name, hookID, deliveryID)
	default:
		return errUnsupported("redelivery", e)
	}
	if accepted(err) {
		return nil
	}
	return wrap("redeliver", err)
}
