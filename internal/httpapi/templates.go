package httpapi

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/bootstrap"
	"github.com/garrison-ci/garrison/internal/store"
)

// registerTemplates registers the runner install template routes (rest-api-2.md §3).
func (s *Server) registerTemplates(m *http.ServeMux) {
	p := apiPrefix + "/templates"
	s.route(m, "GET "+p, s.handleListTemplates)
	s.route(m, "POST "+p, s.handleCreateTemplate)
	s.route(m, "POST "+p+"/restore", s.handleRestoreTemplates)
	s.route(m, "GET "+p+"/{templateID}", s.handleGetTemplate)
	s.route(m, "PUT "+p+"/{templateID}", s.handleUpdateTemplate)
	s.route(m, "DELETE "+p+"/{templateID}", s.handleDeleteTemplate)
}

// maxTemplateBody bounds a template request body: the largest template, base64, and room
// for the other keys.
const maxTemplateBody = garrison.MaxTemplateBytes/3*4 + 64<<10

// templateView is the API shape of t; lists leave the data out.
func templateView(t garrison.Template, withData bool) apiv1.Template {
	v := apiv1.Template{ID: t.ID, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, Name: t.Name,
		Description: t.Description, OSType: t.OSType, ForgeType: string(t.ForgeType), Owner: t.Owner}
	if withData {
		v.Data = t.Data
	}
	return v
}

// templateID parses the path's {templateID} (C-4).
func templateID(r *http.Request) (uint, error) {
	raw := r.PathValue("templateID")
	n, err := strconv.ParseUint(raw, 10, 64)
	if err != nil {
		return 0, invalid("invalid value for %q: %q", "templateID", raw)
	}
	return uint(n), nil
}

// decodeTemplateData decodes a template's base64 data strictly (standard alphabet,
// padded, no stray characters); an absent or null value is nil.
func decodeTemplateData(raw *string) ([]byte, error) {
	if raw == nil {
		return nil, nil
	}
	b, err := base64.StdEncoding.Strict().DecodeString(*raw)
	if err != nil {
		return nil, invalid("invalid request: data is not valid base64: %s", err.Error())
	}
	return b, nil
}

// validateTemplateData refuses a template that garrison could not render (§3.3).
func validateTemplateData(data []byte) error {
	var te *bootstrap.TemplateError
	if err := bootstrap.ValidateTemplate(data); errors.As(err, &te) {
		return invalid("failed to validate template: %s", te.Error())
	} else if err != nil {
		return err
	}
	return nil
}

// handleListTemplates serves GET /templates[?partialName=&osType=&forgeType=].
func (s *Server) handleListTemplates(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	ts, err := s.store.ListTemplates(r.Context(), store.TemplateFilter{PartialName: q.Get("partialName"),
		OSType: q.Get("osType"), ForgeType: garrison.ForgeType(q.Get("forgeType"))})
	if err != nil {
		return err
	}
	out := make([]apiv1.Template, len(ts))
	for i, t := range ts {
		out[i] = templateView(t, false)
	}
	writeOK(w, out)
	return nil
}

// handleGetTemplate serves GET /templates/{templateID}.
func (s *Server) handleGetTemplate(w http.ResponseWriter, r *http.Request) error {
	id, err := templateID(r)
	if err != nil {
		return err
	}
	t, err := s.store.Template(r.Context(), id)
	if errors.Is(err, garrison.ErrNotFound) {
		return notFound("failed to get template: failed to get template: not found")
	}
	if err != nil {
		return err
	}
	writeOK(w, templateView(t, true))
	return nil
}

// createTemplateBody is CreateTemplateParams with the data still base64, so that bad
// base64 gets a clear message.
type createTemplateBody struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Data        *string `json:"data"`
	OSType      string  `json:"os_type"`
	ForgeType   string  `json:"forge_type"`
}

// handleCreateTemplate serves POST /templates: a user template owned by the caller.
func (s *Server) handleCreateTemplate(w http.ResponseWriter, r *http.Request) error {
	var b createTemplateBody
	if err := decodeLimited(w, r, &b, maxTemplateBody); err != nil {
		return err
	}
	data, err := decodeTemplateData(b.Data)
	if err != nil {
		return err
	}
	t := garrison.Template{Name: b.Name, Description: b.Description, Data: data, OSType: b.OSType,
		ForgeType: garrison.ForgeType(b.ForgeType), Owner: callerName(r)}
	if err := t.Validate(); err != nil {
		return invalid("invalid create params %q", garrison.MessageOf(err))
	}
	if err := validateTemplateData(data); err != nil {
		return err
	}
	t, err = s.store.CreateTemplate(r.Context(), t)
	if errors.Is(err, garrison.ErrConflict) {
		return garrison.Errorf(garrison.EConflict, "failed to create template: %s", garrison.MessageOf(err))
	}
	if err != nil {
		return err
	}
	writeOK(w, templateView(t, true))
	return nil
}

// callerName is the username of the authenticated caller, the owner of what it creates.
func callerName(r *http.Request) string {
	if u, ok := r.Context().Value(userKey).(garrison.User); ok && u.Username != "" {
		return u.Username
	}
	return "admin"
}

// updateTemplateBody is UpdateTemplateParams with the data still base64.
type updateTemplateBody struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
	Data        *string `json:"data"`
}

// handleUpdateTemplate serves PUT /templates/{templateID}. System templates may be edited
// too (as GARM allows); they stay system templates.
func (s *Server) handleUpdateTemplate(w http.ResponseWriter, r *http.Request) error {
	id, err := templateID(r)
	if err != nil {
		return err
	}
	var b updateTemplateBody
	if err := decodeLimited(w, r, &b, maxTemplateBody); err != nil {
		return err
	}
	if b.Name != nil && *b.Name == "" {
		return invalid("invalid update params: %q", "name cannot be empty")
	}
	data, err := decodeTemplateData(b.Data)
	if err != nil {
		return err
	}
	if len(data) > 0 {
		if err := validateTemplateData(data); err != nil {
			return err
		}
	}
	t, err := s.store.UpdateTemplate(r.Context(), id, func(t *garrison.Template) error {
		setIf(&t.Name, b.Name)
		setIf(&t.Description, b.Description)
		if len(data) > 0 {
			t.Data = data
		}
		return nil
	})
	switch {
	case errors.Is(err, garrison.ErrNotFound):
		return notFound("failed to update template: template %d not found", id)
	case errors.Is(err, garrison.ErrConflict):
		return garrison.Errorf(garrison.EConflict, "failed to update template: %s", garrison.MessageOf(err))
	case errors.Is(err, garrison.ErrInvalid):
		return invalid("invalid update params: %q", garrison.MessageOf(err))
	case err != nil:
		return err
	}
	writeOK(w, templateView(t, true))
	return nil
}

// handleDeleteTemplate serves DELETE /templates/{templateID}: 400 while pools use it,
// 200 for an unknown id.
func (s *Server) handleDeleteTemplate(w http.ResponseWriter, r *http.Request) error {
	id, err := templateID(r)
	if err != nil {
		return err
	}
	err = s.store.DeleteTemplate(r.Context(), id)
	if errors.Is(err, garrison.ErrInvalid) {
		return invalid("failed to delete template: %s", garrison.MessageOf(err))
	}
	if err != nil {
		return err
	}
	writeEmpty(w)
	return nil
}

// handleRestoreTemplates serves POST /templates/restore: garrison's built-in content goes
// back into the system template of each asked (forge, OS) pair, created if missing.
func (s *Server) handleRestoreTemplates(w http.ResponseWriter, r *http.Request) error {
	var b apiv1.RestoreTemplateRequest
	if err := decode(w, r, &b); err != nil {
		return err
	}
	var sts []bootstrap.SystemTemplate
	if b.RestoreAll {
		sts = bootstrap.SystemTemplates()
	} else {
		st, err := bootstrap.SystemTemplateFor(b.Forge, b.OSType)
		if err != nil {
			return notFound("failed to get template content for %s/%s: %s", b.Forge, b.OSType, err.Error())
		}
		sts = append(sts, st)
	}
	for _, st := range sts {
		if err := restoreSystemTemplate(r.Context(), s.store, st); err != nil {
			return err
		}
	}
	writeEmpty(w)
	return nil
}

// systemTemplate is st as a store row owned by the system.
func systemTemplate(st bootstrap.SystemTemplate) garrison.Template {
	return garrison.Template{Name: st.Name, Description: st.Description, OSType: st.OSType,
		ForgeType: garrison.ForgeType(st.ForgeType), Data: st.Data, Owner: garrison.SystemOwner}
}

// SeedTemplates stores garrison's four system templates if the store has no template at
// all (rest-api-2 T-1), and reports whether it did. It is safe to call at every start.
func SeedTemplates(ctx context.Context, st store.Templates) (bool, error) {
	var ts []garrison.Template
	for _, s := range bootstrap.SystemTemplates() {
		ts = append(ts, systemTemplate(s))
	}
	return st.SeedTemplates(ctx, ts)
}

// restoreSystemTemplate writes st's built-in content and name into the existing system
// template of its forge and OS, or creates it.
func restoreSystemTemplate(ctx context.Context, st store.Templates, sys bootstrap.SystemTemplate) error {
	cur, err := st.ListTemplates(ctx, store.TemplateFilter{Owner: garrison.SystemOwner,
		ForgeType: garrison.ForgeType(sys.ForgeType), OSType: sys.OSType})
	if err != nil {
		return err
	}
	if len(cur) == 0 {
		_, err = st.CreateTemplate(ctx, systemTemplate(sys))
	} else {
		_, err = st.UpdateTemplate(ctx, cur[0].ID, func(t *garrison.Template) error {
			t.Name, t.Data = sys.Name, sys.Data
			return nil
		})
	}
	if errors.Is(err, garrison.ErrConflict) {
		return garrison.Errorf(garrison.EConflict, "failed to restore template %s: another template has that name", sys.Name)
	}
	return err
}
