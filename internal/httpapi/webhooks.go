package httpapi

import (
	"context"
	"net/http"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// webhookRequest builds the forge webhook request from the controller's URLs; 400 when
// the controller webhook URL is empty.
func (s *Server) webhookRequest(ctx context.Context, insecure bool) (WebhookRequest, error) {
	c, err := s.store.Controller(ctx)
	if err != nil {
		return WebhookRequest{}, err
	}
	url := c.WebhookURLForController()
	if url == "" {
		return WebhookRequest{}, invalid("controller webhook url is empty")
	}
	return WebhookRequest{URL: url, BaseURL: c.WebhookURL, ControllerID: c.ID, InsecureSSL: insecure}, nil
}

// handleInstallWebhook serves POST /{Ent}/{id}/webhook.
func (s *Server) handleInstallWebhook(k entityKind) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		e, err := s.entityOfKind(r, k)
		if err != nil {
			return err
		}
		var p apiv1.InstallWebhookParams
		if err := decode(w, r, &p); err != nil {
			return err
		}
		if p.WebhookEndpointType != "" && p.WebhookEndpointType != "direct" {
			return invalid("unsupported webhook_endpoint_type %q (only direct is supported)", p.WebhookEndpointType)
		}
		req, err := s.webhookRequest(ctx, p.InsecureSSL)
		if err != nil {
			return err
		}
		fctx, cancel := context.WithTimeout(ctx, forgeCallTimeout)
		defer cancel()
		info, err := s.opts.Forge.InstallWebhook(fctx, e, req)
		if err != nil {
			return err
		}
		writeOK(w, hookView(info))
		return nil
	}
}

// handleGetWebhook serves GET /{Ent}/{id}/webhook.
func (s *Server) handleGetWebhook(k entityKind) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		e, err := s.entityOfKind(r, k)
		if err != nil {
			return err
		}
		req, err := s.webhookRequest(ctx, false)
		if err != nil {
			return notFound("hook not found")
		}
		fctx, cancel := context.WithTimeout(ctx, forgeCallTimeout)
		defer cancel()
		info, err := s.opts.Forge.WebhookInfo(fctx, e, req)
		if garrison.CodeOf(err) == garrison.ENotFound {
			err = notFound("hook not found")
		}
		if err != nil {
			return err
		}
		writeOK(w, hookView(info))
		return nil
	}
}

// handleUninstallWebhook serves DELETE /{Ent}/{id}/webhook.
func (s *Server) handleUninstallWebhook(k entityKind) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		e, err := s.entityOfKind(r, k)
		if err != nil {
			return err
		}
		req, err := s.webhookRequest(ctx, false)
		if err == nil {
			fctx, cancel := context.WithTimeout(ctx, forgeCallTimeout)
			err = s.opts.Forge.UninstallWebhook(fctx, e, req)
			cancel()
		}
		if err != nil {
			return err
		}
		writeEmpty(w)
		return nil
	}
}

// hookView makes sure events is a list, never null.
func hookView(h apiv1.HookInfo) apiv1.HookInfo {
	if h.Events == nil {
		h.Events = []string{}
	}
	return h
}
