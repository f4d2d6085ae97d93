package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/store"
)

// handleListCredentials serves GET /{forge}/credentials and the legacy GET /credentials.
func (s *Server) handleListCredentials(f garrison.ForgeType) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		cs, err := s.store.ListCredentials(ctx, store.CredentialsFilter{ForgeType: f})
		if err != nil {
			return err
		}
		l := s.newLoader()
		out := make([]apiv1.ForgeCredentials, 0, len(cs))
		for _, c := range cs {
			v, err := l.credentialsView(ctx, c)
			if err != nil {
				return err
			}
			out = append(out, v)
		}
		writeOK(w, out)
		return nil
	}
}

// credentialsOfType loads the credentials with the path's id, 404 unless of type f.
func (s *Server) credentialsOfType(r *http.Request, f garrison.ForgeType) (garrison.Credentials, error) {
	id, err := pathUint(r, "id")
	if err != nil {
		return garrison.Credentials{}, err
	}
	c, err := s.store.Credentials(r.Context(), id)
	if err == nil && c.ForgeType != f {
		err = notFound("credentials %d not found", id)
	}
	return c, err
}

// handleGetCredentials serves GET /{forge}/credentials/{id}, with the entities using them.
func (s *Server) handleGetCredentials(f garrison.ForgeType) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, err := s.credentialsOfType(r, f)
		if err != nil {
			return err
		}
		v, err := s.detailedCredentials(r.Context(), c)
		if err != nil {
			return err
		}
		writeOK(w, v)
		return nil
	}
}

// detailedCredentials renders c with the repositories, organizations and enterprises
// that use them.
func (s *Server) detailedCredentials(ctx context.Context, c garrison.Credentials) (apiv1.ForgeCredentials, error) {
	l := s.newLoader()
	v, err := l.credentialsView(ctx, c)
	if err != nil {
		return v, err
	}
	ents, err := s.store.ListEntities(ctx, store.EntityFilter{})
	if err != nil {
		return v, err
	}
	v.Repositories, v.Organizations, v.Enterprises = []apiv1.Repository{}, []apiv1.Organization{}, []apiv1.Enterprise{}
	for _, e := range ents {
		if e.CredentialsID != c.ID {
			continue
		}
		ev, err := l.entityView(ctx, e)
		if err != nil {
			return v, err
		}
		switch e.Type {
		case garrison.Repository:
			v.Repositories = append(v.Repositories, repoView(ev, e))
		case garrison.Organization:
			v.Organizations = append(v.Organizations, ev)
		case garrison.Enterprise:
			v.Enterprises = append(v.Enterprises, ev)
		}
	}
	return v, nil
}

// handleCreateCredentials serves POST /{forge}/credentials.
func (s *Server) handleCreateCredentials(f garrison.ForgeType) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var p apiv1.CreateCredentialsParams
		if err := decode(w, r, &p); err != nil {
			return err
		}
		c, err := newCredentials(f, p)
		if err == nil {
			c, err = s.createCredentials(r.Context(), c)
		}
		if err != nil {
			return err
		}
		v, err := s.newLoader().credentialsView(r.Context(), c)
		if err != nil {
			return err
		}
		writeOK(w, v)
		return nil
	}
}

// createCredentials checks the endpoint (404 if there is none of that forge type) and
// stores c.
func (s *Server) createCredentials(ctx context.Context, c garrison.Credentials) (garrison.Credentials, error) {
	ep, err := s.store.Endpoint(ctx, c.Endpoint)
	if err == nil && ep.Type != c.ForgeType {
		err = notFound("%s endpoint %s not found", c.ForgeType, c.Endpoint)
	}
	if errors.Is(err, garrison.ErrNotFound) {
		err = notFound("%s endpoint %s not found", c.ForgeType, c.Endpoint)
	}
	if err != nil {
		return c, err
	}
	c.Endpoint = ep.Name
	return s.store.CreateCredentials(ctx, c)
}

// newCredentials validates a create request for forge f.
func newCredentials(f garrison.ForgeType, p apiv1.CreateCredentialsParams) (garrison.Credentials, error) {
	c := garrison.Credentials{Name: p.Name, Description: p.Description, ForgeType: f,
		AuthType: garrison.AuthType(p.AuthType), Endpoint: p.Endpoint}
	if err := validateName(p.Name); err != nil {
		return c, err
	}
	if p.Endpoint == "" {
		return c, invalid("missing endpoint")
	}
	switch {
	case c.AuthType == garrison.AuthPAT:
		if p.PAT.OAuth2Token == "" {
			return c, invalid("missing OAuth2 token (pat.oauth2_token)")
		}
		c.PAT = p.PAT.OAuth2Token
	case c.AuthType == garrison.AuthApp && f == garrison.GitHub:
		if err := checkApp(p.App); err != nil {
			return c, err
		}
		c.AppID, c.InstallationID, c.PrivateKey = p.App.AppID, p.App.InstallationID, p.App.PrivateKeyBytes
	case p.AuthType == "":
		return c, invalid("missing auth_type")
	default:
		return c, invalid("invalid auth_type: %s", p.AuthType)
	}
	return c, nil
}

// checkApp validates GitHub App credentials.
func checkApp(a apiv1.GithubApp) error {
	switch {
	case a.AppID == 0:
		return invalid("missing app_id")
	case a.InstallationID == 0:
		return invalid("missing installation_id")
	case len(a.PrivateKeyBytes) == 0:
		return invalid("missing private_key_bytes")
	}
	return checkAppKey(a.PrivateKeyBytes)
}

// handleUpdateCredentials serves PUT /{forge}/credentials/{id}.
func (s *Server) handleUpdateCredentials(f garrison.ForgeType) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := pathUint(r, "id")
		if err != nil {
			return err
		}
		var p apiv1.UpdateCredentialsParams
		if err := decode(w, r, &p); err != nil {
			return err
		}
		apply, err := credentialsUpdate(f, p)
		if err != nil {
			return err
		}
		c, err := s.store.UpdateCredentials(r.Context(), id, func(c *garrison.Credentials) error {
			if c.ForgeType != f {
				return notFound("credentials %d not found", id)
			}
			return apply(c)
		})
		if err != nil {
			return err
		}
		v, err := s.newLoader().credentialsView(r.Context(), c)
		if err != nil {
			return err
		}
		s.notifyCredentials(r.Context(), c.ID)
		writeOK(w, v)
		return nil
	}
}

// credentialsUpdate validates an update request and returns the change it makes. Empty
// pat/app objects count as absent; the auth type cannot change.
func credentialsUpdate(f garrison.ForgeType, p apiv1.UpdateCredentialsParams) (func(*garrison.Credentials) error, error) {
	pat := p.PAT != nil && p.PAT.OAuth2Token != ""
	app := f == garrison.GitHub && p.App != nil &&
		(p.App.AppID != 0 || p.App.InstallationID != 0 || len(p.App.PrivateKeyBytes) > 0)
	if p.Name != nil {
		if err := validateName(*p.Name); err != nil {
			return nil, err
		}
	}
	if pat && app {
		return nil, invalid("cannot update both pat and app credentials")
	}
	if app {
		if err := checkApp(*p.App); err != nil {
			return nil, err
		}
	}
	return func(c *garrison.Credentials) error {
		switch {
		case pat && c.AuthType != garrison.AuthPAT:
			return invalid("cannot update pat on credentials of auth type %s", c.AuthType)
		case app && c.AuthType != garrison.AuthApp:
			return invalid("cannot update app on credentials of auth type %s", c.AuthType)
		}
		setIf(&c.Name, p.Name)
		setIf(&c.Description, p.Description)
		if pat {
			c.PAT = p.PAT.OAuth2Token
		}
		if app {
			c.AppID, c.InstallationID, c.PrivateKey = p.App.AppID, p.App.InstallationID, p.App.PrivateKeyBytes
		}
		return nil
	}, nil
}

// handleDeleteCredentials serves DELETE /{forge}/credentials/{id}: 204, also when missing.
func (s *Server) handleDeleteCredentials(f garrison.ForgeType) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, err := s.credentialsOfType(r, f)
		switch {
		case errors.Is(err, garrison.ErrNotFound):
			writeNoContent(w)
			return nil
		case err != nil:
			return err
		}
		if err := s.refuseForgeInstanceCredentials(r.Context(), c); err != nil {
			return err
		}
		if err := s.store.DeleteCredentials(r.Context(), c.ID); err != nil {
			return err
		}
		writeNoContent(w)
		return nil
	}
}

// notifyCredentials notifies the pools of every entity using the credentials.
func (s *Server) notifyCredentials(ctx context.Context, credentialsID uint) {
	if s.opts.Notify == nil {
		return
	}
	ents, err := s.store.ListEntities(ctx, store.EntityFilter{})
	if err != nil {
		s.log.WarnContext(ctx, "listing entities to notify", "err", err)
		return
	}
	for _, e := range ents {
		if e.CredentialsID == credentialsID {
			s.notifyEntity(ctx, e.ID)
		}
	}
}
