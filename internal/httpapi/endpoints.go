package httpapi

import (
	"errors"
	"net/http"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// handleListEndpoints serves GET /{forge}/endpoints.
func (s *Server) handleListEndpoints(f garrison.ForgeType) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		eps, err := s.store.ListEndpoints(r.Context(), f)
		if err != nil {
			return err
		}
		out := make([]apiv1.ForgeEndpoint, 0, len(eps))
		for _, e := range eps {
			out = append(out, endpointView(e))
		}
		writeOK(w, out)
		return nil
	}
}

// handleGetEndpoint serves GET /{forge}/endpoints/{name}.
func (s *Server) handleGetEndpoint(f garrison.ForgeType) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		e, err := s.endpointOfType(r, f)
		if err != nil {
			return err
		}
		writeOK(w, endpointView(e))
		return nil
	}
}

// endpointOfType loads the endpoint named in the path, 404 unless it is of type f.
func (s *Server) endpointOfType(r *http.Request, f garrison.ForgeType) (garrison.Endpoint, error) {
	name := r.PathValue("name")
	e, err := s.store.Endpoint(r.Context(), name)
	if err == nil && e.Type != f {
		err = notFound("endpoint %s not found", name)
	}
	return e, err
}

// handleCreateEndpoint serves POST /{forge}/endpoints.
func (s *Server) handleCreateEndpoint(f garrison.ForgeType) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var e garrison.Endpoint
		var err error
		if f == garrison.GitHub {
			var p apiv1.CreateGithubEndpointParams
			if err = decode(w, r, &p); err == nil {
				e, err = githubEndpoint(p)
			}
		} else {
			var p apiv1.CreateGiteaEndpointParams
			if err = decode(w, r, &p); err == nil {
				e, err = giteaEndpoint(p)
			}
		}
		if err == nil {
			e, err = s.store.CreateEndpoint(r.Context(), e)
		}
		if err != nil {
			return err
		}
		writeOK(w, endpointView(e))
		return nil
	}
}

// githubEndpoint validates a GitHub endpoint create request.
func githubEndpoint(p apiv1.CreateGithubEndpointParams) (garrison.Endpoint, error) {
	e := garrison.Endpoint{Name: p.Name, Description: p.Description, Type: garrison.GitHub,
		BaseURL: p.BaseURL, APIBaseURL: p.APIBaseURL, UploadBaseURL: p.UploadBaseURL}
	err := validateName(p.Name)
	for _, u := range [][2]string{{"base_url", p.BaseURL}, {"api_base_url", p.APIBaseURL}, {"upload_base_url", p.UploadBaseURL}} {
		err = cmpOr(err, checkURL(u[0], u[1]))
	}
	if err == nil && len(p.CACertBundle) > 0 {
		e.CACertBundle, err = parseCABundle("ca_cert_bundle", p.CACertBundle)
	}
	return e, err
}

// giteaEndpoint validates a Gitea endpoint create request.
func giteaEndpoint(p apiv1.CreateGiteaEndpointParams) (garrison.Endpoint, error) {
	e := garrison.Endpoint{Name: p.Name, Description: p.Description, Type: garrison.Gitea,
		BaseURL: p.BaseURL, APIBaseURL: p.APIBaseURL, ToolsMetadataURL: p.ToolsMetadataURL}
	if p.UseInternalToolsMetadata != nil {
		e.UseInternalToolsMetadata = *p.UseInternalToolsMetadata
	}
	err := cmpOr(validateName(p.Name), checkURL("base_url", p.BaseURL), checkURL("api_base_url", p.APIBaseURL))
	if err == nil && p.ToolsMetadataURL != "" {
		err = checkURL("tools_metadata_url", p.ToolsMetadataURL)
	}
	if e.ToolsMetadataURL == "" {
		e.ToolsMetadataURL = garrison.DefaultGiteaToolsURL
	}
	if err == nil && len(p.CACertBundle) > 0 {
		e.CACertBundle, err = parseCABundle("ca_cert_bundle", p.CACertBundle)
	}
	return e, err
}

// handleUpdateEndpoint serves PUT /{forge}/endpoints/{name}.
func (s *Server) handleUpdateEndpoint(f garrison.ForgeType) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var apply func(*garrison.Endpoint)
		var err error
		if f == garrison.GitHub {
			var p apiv1.UpdateGithubEndpointParams
			if err = decode(w, r, &p); err == nil {
				apply, err = githubEndpointUpdate(p)
			}
		} else {
			var p apiv1.UpdateGiteaEndpointParams
			if err = decode(w, r, &p); err == nil {
				apply, err = giteaEndpointUpdate(p)
			}
		}
		if err != nil {
			return err
		}
		name := r.PathValue("name")
		e, err := s.store.UpdateEndpoint(r.Context(), name, func(e *garrison.Endpoint) error {
			if e.Type != f {
				return notFound("endpoint %s not found", name)
			}
			apply(e)
			return nil
		})
		if err != nil {
			return err
		}
		writeOK(w, endpointView(e))
		return nil
	}
}

// urlField is an optional URL of an update request.
type urlField struct {
	key string
	val *string
}

// endpointURLs validates the URL fields of an endpoint update, in order.
func endpointURLs(urls ...urlField) error {
	for _, u := range urls {
		if u.val != nil {
			if err := checkURL(u.key, *u.val); err != nil {
				return err
			}
		}
	}
	return nil
}

func githubEndpointUpdate(p apiv1.UpdateGithubEndpointParams) (func(*garrison.Endpoint), error) {
	err := endpointURLs(urlField{"base_url", p.BaseURL}, urlField{"api_base_url", p.APIBaseURL},
		urlField{"upload_base_url", p.UploadBaseURL})
	var bundle []byte
	if err == nil && len(p.CACertBundle) > 0 {
		bundle, err = parseCABundle("ca_cert_bundle", p.CACertBundle)
	}
	if err != nil {
		return nil, err
	}
	return func(e *garrison.Endpoint) {
		setIf(&e.Description, p.Description)
		setIf(&e.BaseURL, p.BaseURL)
		setIf(&e.APIBaseURL, p.APIBaseURL)
		setIf(&e.UploadBaseURL, p.UploadBaseURL)
		if bundle != nil {
			e.CACertBundle = bundle
		}
	}, nil
}

func giteaEndpointUpdate(p apiv1.UpdateGiteaEndpointParams) (func(*garrison.Endpoint), error) {
	tools := p.ToolsMetadataURL
	if tools != nil && *tools == "" {
		tools = nil // non-empty to change
	}
	err := endpointURLs(urlField{"base_url", p.BaseURL}, urlField{"api_base_url", p.APIBaseURL},
		urlField{"tools_metadata_url", tools})
	var bundle []byte
	if err == nil && len(p.CACertBundle) > 0 {
		bundle, err = parseCABundle("ca_cert_bundle", p.CACertBundle)
	}
	if err != nil {
		return nil, err
	}
	return func(e *garrison.Endpoint) {
		setIf(&e.Description, p.Description)
		setIf(&e.BaseURL, p.BaseURL)
		setIf(&e.APIBaseURL, p.APIBaseURL)
		setIf(&e.ToolsMetadataURL, tools)
		setIf(&e.UseInternalToolsMetadata, p.UseInternalToolsMetadata)
		if bundle != nil {
			e.CACertBundle = bundle
		}
	}, nil
}

// handleDeleteEndpoint serves DELETE /{forge}/endpoints/{name}: 204, also when missing.
func (s *Server) handleDeleteEndpoint(f garrison.ForgeType) apiHandler {
	return func(w http.ResponseWriter, r *http.Request) error {
		e, err := s.endpointOfType(r, f)
		switch {
		case errors.Is(err, garrison.ErrNotFound):
			writeNoContent(w)
			return nil
		case err != nil:
			return err
		case strings.EqualFold(e.Name, garrison.GitHubComEndpoint):
			return invalid("the %s endpoint cannot be deleted", garrison.GitHubComEndpoint)
		}
		if err := s.store.DeleteEndpoint(r.Context(), e.Name); err != nil {
			return err
		}
		writeNoContent(w)
		return nil
	}
}
