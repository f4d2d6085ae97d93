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
	return WebhookRequest{URL: url, BaseURL: c.WebhookURL, InsecureSSL: insecure}, nil
}

// handleInstallWebhook serves POST /{Ent}/{id}/webhook.
func (s *Server) handleInstallWebhook(k entityKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		e, err := s.entityOfKind(r, k)
		if err != nil {
			s.writeErr(w, r, err)
			return
		}
		var p apiv1.InstallWebhookParams
		if err := decode(w, r, &p); err != nil {
			s.writeErr(w, r, err)
			return
		}
		if p.WebhookEndpointType != "" && p.WebhookEndpointType != "direct" {
			s.writeErr(w, r, invalid("unsupported webhook_endpoint_type %q (only direct is supported)", p.WebhookEndpointType))
			return
		}
		req, err := s.webhookRequest(ctx, p.InsecureSSL)
		if err != nil {
			s.writeErr(w, r, err)
			return
		}
		fctx, cancel := context.WithTimeout(ctx, forgeCallTimeout)
		defer cancel()
		info, err := s.opts.Forge.InstallWebhook(fctx, e, req)
		if err != nil {
			s.writeErr(w, r, err)
			return
		}
		writeOK(w, hookView(info))
	}
}

// handleGetWebhook serves GET /{Ent}/{id}/webhook.
func (s *Server) handleGetWebhook(k entityKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		e, err := s.entityOfKind(r, k)
		if err != nil {
			s.writeErr(w, r, err)
			return
		}
		req, err := s.webhookRequest(ctx, false)
		if err != nil {
			s.writeErr(w, r, notFound("hook not found"))
			return
		}
		fctx, cancel := context.WithTimeout(ctx, forgeCallTimeout)
		defer cancel()
		info, err := s.opts.Forge.WebhookInfo(fctx, e, req)
		if garrison.CodeOf(err) == garrison.ENotFound {
			err = notFound("hook not found")
		}
		if err != nil {
			s.writeErr(w, r, err)
			return
		}
		writeOK(w, hookView(info))
	}
}

// handleUninstallWebhook serves DELETE /{Ent}/{id}/webhook.
func (s *Server) handleUninstallWebhook(k entityKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		e, err := s.entityOfKind(r, k)
		if err != nil {
			s.writeErr(w, r, err)
			return
		}
		req, err := s.webhookRequest(ctx, false)
		if err == nil {
			fctx, cancel := context.WithTimeout(ctx, forgeCallTimeout)
			err = s.opts.Forge.UninstallWebhook(fctx, e, req)
			cancel()
		}
		if err != nil {
			s.writeErr(w, r, err)
			return
		}
		writeEmpty(w)
	}
}

// hookView makes sure events is a list, never null.
func hookView(h apiv1.HookInfo) apiv1.HookInfo {
	if h.Events == nil {
		h.Events = []string{}
	}
	return h
}
