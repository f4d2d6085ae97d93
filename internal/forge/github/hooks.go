package github

import (
	"context"
	"time"

	gh "github.com/google/go-github/v90/github"

	"github.com/garrison-ci/garrison"
)

// Hook is an installed webhook.
type Hook struct {
	ID          int64
	URL         string
	Events      []string
	Active      bool
	InsecureSSL bool // config insecure_ssl "1"
}

// Delivery is one webhook delivery attempt.
type Delivery struct {
	ID          int64
	GUID        string
	DeliveredAt time.Time
	Redelivery  bool
	Status      string // "OK" when the receiver answered 2xx
	StatusCode  int
	Event       string
	Action      string
}

// InstallHook installs the garrison webhook (workflow_job, JSON, signed with secret) on a
// repository or organization. An existing hook with the same URL gives EConflict.
func (c *Client) InstallHook(ctx context.Context, e garrison.Entity, url, secret string) (Hook, error) {
	if _, err := c.FindHook(ctx, e, url); err == nil {
		return Hook{}, garrison.Errorf(garrison.EConflict, "github: a hook for %s is already installed on %s", url, e.FullName())
	} else if garrison.CodeOf(err) != garrison.ENotFound {
		return Hook{}, err
	}
	return c.CreateHook(ctx, e, url, secret, false)
}

// CreateHook creates a workflow_job webhook (JSON, signed with secret) on a repository or
// organization without looking for an existing one. insecure sets the hook's insecure_ssl
// to "1" (the forge then skips TLS verification when delivering).
func (c *Client) CreateHook(ctx context.Context, e garrison.Entity, url, secret string, insecure bool) (Hook, error) {
	insecureSSL := "0"
	if insecure {
		insecureSSL = "1"
	}
	h := &gh.Hook{
		Name: gh.Ptr("web"), Active: gh.Ptr(true), Events: []string{"workflow_job"},
		Config: &gh.HookConfig{URL: &url, ContentType: gh.Ptr("json"), Secret: &secret, InsecureSSL: &insecureSSL},
	}
	var err error
	switch e.Type {
	case garrison.Repository:
		h, _, err = c.gh.Repositories.CreateHook(ctx, e.Owner, e.Name, h)
	case garrison.Organization:
		h, _, err = c.gh.Organizations.CreateHook(ctx, e.Name, h)
	default:
		return Hook{}, errUnsupported("webhooks", e)
	}
	if err != nil {
		return Hook{}, wrap("create hook", err)
	}
	return toHook(h), nil
}

// FindHook returns the hook whose URL is url, or ENotFound.
func (c *Client) FindHook(ctx context.Context, e garrison.Entity, url string) (Hook, error) {
	hooks, err := c.ListHooks(ctx, e)
	if err != nil {
		return Hook{}, err
	}
	for _, h := range hooks {
		if h.URL == url {
			return h, nil
		}
	}
	return Hook{}, garrison.Errorf(garrison.ENotFound, "github: no hook for %s on %s", url, e.FullName())
}

// ListHooks returns all hooks of a repository or organization.
func (c *Client) ListHooks(ctx context.Context, e garrison.Entity) ([]Hook, error) {
	opts := &gh.ListOptions{PerPage: 100}
	var out []Hook
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

// DeleteHook deletes the hook with the given id (ENotFound when it is gone).
func (c *Client) DeleteHook(ctx context.Context, e garrison.Entity, id int64) error {
	var err error
	switch e.Type {
	case garrison.Repository:
		_, err = c.gh.Repositories.DeleteHook(ctx, e.Owner, e.Name, id)
	case garrison.Organization:
		_, err = c.gh.Organizations.DeleteHook(ctx, e.Name, id)
	default:
		return errUnsupported("webhooks", e)
	}
	return wrap("delete hook", err)
}

// PingHook asks the forge to send the hook a ping event.
func (c *Client) PingHook(ctx context.Context, e garrison.Entity, id int64) error {
	var err error
	switch e.Type {
	case garrison.Repository:
		_, err = c.gh.Repositories.PingHook(ctx, e.Owner, e.Name, id)
	case garrison.Organization:
		_, err = c.gh.Organizations.PingHook(ctx, e.Name, id)
	default:
		return errUnsupported("webhooks", e)
	}
	return wrap("ping hook", err)
}

func toHook(h *gh.Hook) Hook {
	return Hook{ID: h.GetID(), URL: h.GetConfig().GetURL(), Events: h.Events, Active: h.GetActive(),
		InsecureSSL: h.GetConfig().GetInsecureSSL() == "1"}
}

// ListHookDeliveries returns the deliveries of a hook, newest first, back to since (all
// of them when since is zero).
func (c *Client) ListHookDeliveries(ctx context.Context, e garrison.Entity, hookID int64, since time.Time) ([]Delivery, error) {
	opts := &gh.ListCursorOptions{PerPage: 100}
	var out []Delivery
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
			out = append(out, Delivery{
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
