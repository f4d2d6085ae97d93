package httpapi

import (
	"net/http"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// handleGetController serves GET /controller and the legacy GET /controller-info.
func (s *Server) handleGetController(w http.ResponseWriter, r *http.Request) error {
	c, err := s.store.Controller(r.Context())
	if err != nil {
		return err
	}
	writeOK(w, s.controllerView(c))
	return nil
}

// handleUpdateController serves PUT /controller.
func (s *Server) handleUpdateController(w http.ResponseWriter, r *http.Request) error {
	var p apiv1.UpdateControllerParams
	if err := decode(w, r, &p); err != nil {
		return err
	}
	apply, err := controllerUpdate(p)
	if err != nil {
		return err
	}
	c, err := s.store.UpdateController(r.Context(), func(c *garrison.Controller) error {
		apply(c)
		return nil
	})
	if err != nil {
		return err
	}
	writeOK(w, s.controllerView(c))
	return nil
}

// controllerUpdate validates p and returns the change it makes.
func controllerUpdate(p apiv1.UpdateControllerParams) (func(*garrison.Controller), error) {
	urls := []urlField{
		{"metadata_url", p.MetadataURL}, {"callback_url", p.CallbackURL},
		{"webhook_url", p.WebhookURL}, {"agent_url", p.AgentURL},
	}
	for _, u := range urls {
		if u.val != nil && !garrison.ValidURL(*u.val) {
			return nil, invalid("invalid %s", u.key)
		}
	}
	if err := checkControllerAgent(p); err != nil {
		return nil, err
	}
	clear := p.ClearCACertBundle != nil && *p.ClearCACertBundle
	if clear && len(p.CACertBundle) > 0 {
		return nil, invalid("ca_cert_bundle and clear_ca_cert_bundle are mutually exclusive")
	}
	var bundle []byte
	if len(p.CACertBundle) > 0 {
		var err error
		if bundle, err = parseCABundle("ca_cert_bundle", p.CACertBundle); err != nil {
			return nil, err
		}
	}
	return func(c *garrison.Controller) {
		setIf(&c.MetadataURL, p.MetadataURL)
		setIf(&c.CallbackURL, p.CallbackURL)
		setIf(&c.WebhookURL, p.WebhookURL)
		setIf(&c.AgentURL, p.AgentURL)
		setIf(&c.MinimumJobAgeBackoff, p.MinimumJobAgeBackoff)
		// Only the neutral garm-agent values get here; storing them clears what an
		// import may have brought ("" is the default releases URL and the latest version).
		setIf(&c.AgentReleasesURL, p.GARMAgentReleasesURL)
		setIf(&c.EnableAgentToolsSync, p.EnableAgentToolsSync)
		setIf(&c.AllowInsecureAgent, p.AllowInsecureAgent)
		if p.GARMAgentVersion != nil {
			c.AgentVersion = ""
		}
		switch {
		case clear:
			c.CACertBundle = nil
		case bundle != nil:
			c.CACertBundle = bundle
		}
	}, nil
}

// setIf sets *dst to *v when v is not nil.
func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
