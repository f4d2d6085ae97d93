package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// registerProxies registers the proxy routes (rest-api-2 §6.1).
func (s *Server) registerProxies(m *http.ServeMux) {
	p := apiPrefix + "/proxies"
	s.route(m, "GET "+p, s.handleListProxies)
	s.route(m, "POST "+p, s.handleCreateProxy)
	s.route(m, "GET "+p+"/{proxyID}", s.handleGetProxy)
	s.route(m, "PUT "+p+"/{proxyID}", s.handleUpdateProxy)
	s.route(m, "DELETE "+p+"/{proxyID}", s.handleDeleteProxy)
}

func proxyView(p garrison.Proxy) apiv1.Proxy {
	return apiv1.Proxy{ID: p.ID, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, Name: p.Name, Description: p.Description,
		HTTPProxy: p.HTTPProxy, HTTPSProxy: p.HTTPSProxy, NoProxy: p.NoProxy, Username: p.Username}
}

// prefixed puts GARM's prefix before the message of a client error (400, 404, 409);
// other errors pass unchanged.
func prefixed(prefix string, err error) error {
	switch c := garrison.CodeOf(err); c {
	case garrison.EInvalid, garrison.ENotFound, garrison.EConflict:
		return garrison.Errorf(c, "%s%s", prefix, garrison.MessageOf(err))
	}
	return err
}

// proxyID parses the path's {proxyID} (C-4).
func proxyID(r *http.Request) (uint, error) {
	v := r.PathValue("proxyID")
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, invalid("invalid value for %q: %q", "proxyID", v)
	}
	return uint(n), nil
}

func (s *Server) handleListProxies(w http.ResponseWriter, r *http.Request) error {
	ps, err := s.store.ListProxies(r.Context())
	if err != nil {
		return err
	}
	out := make([]apiv1.Proxy, len(ps))
	for i, p := range ps {
		out[i] = proxyView(p)
	}
	writeOK(w, out)
	return nil
}

func (s *Server) handleCreateProxy(w http.ResponseWriter, r *http.Request) error {
	var p apiv1.CreateProxyParams
	if err := decode(w, r, &p); err != nil {
		return err
	}
	px := garrison.Proxy{Name: p.Name, Description: p.Description, HTTPProxy: p.HTTPProxy, HTTPSProxy: p.HTTPSProxy,
		NoProxy: p.NoProxy, Username: p.Username, Password: p.Password}
	if err := px.Validate(); err != nil {
		return prefixed("failed to validate create params: ", err)
	}
	px, err := s.store.CreateProxy(r.Context(), px)
	if err != nil {
		return prefixed("failed to create proxy: ", err)
	}
	writeOK(w, proxyView(px))
	return nil
}

func (s *Server) handleGetProxy(w http.ResponseWriter, r *http.Request) error {
	id, err := proxyID(r)
	if err != nil {
		return err
	}
	px, err := s.store.Proxy(r.Context(), id)
	if err != nil {
		return prefixed("failed to get proxy: failed to get proxy: ", err)
	}
	writeOK(w, proxyView(px))
	return nil
}

// handleUpdateProxy serves PUT /proxies/{proxyID}: the given keys are checked on their
// own first, the result as a whole inside the update.
func (s *Server) handleUpdateProxy(w http.ResponseWriter, r *http.Request) error {
	id, err := proxyID(r)
	if err != nil {
		return err
	}
	var p apiv1.UpdateProxyParams
	if err := decode(w, r, &p); err != nil {
		return err
	}
	if err := checkProxyUpdate(p); err != nil {
		return prefixed("failed to validate update params: ", err)
	}
	px, err := s.store.UpdateProxy(r.Context(), id, func(x *garrison.Proxy) error {
		setIf(&x.Name, p.Name)
		setIf(&x.Description, p.Description)
		setIf(&x.HTTPProxy, p.HTTPProxy)
		setIf(&x.HTTPSProxy, p.HTTPSProxy)
		setIf(&x.NoProxy, p.NoProxy)
		if p.Username != nil {
			x.Username = *p.Username
			if *p.Username == "" {
				x.Password = "" // clearing the user clears the credentials
			}
		}
		setIf(&x.Password, p.Password)
		return nil
	})
	if garrison.CodeOf(err) == garrison.ENotFound {
		return prefixed("failed to get proxy: failed to get proxy: ", err)
	}
	if err != nil {
		return prefixed("failed to update proxy: ", err)
	}
	writeOK(w, proxyView(px))
	return nil
}

// checkProxyUpdate checks the given keys on their own.
func checkProxyUpdate(p apiv1.UpdateProxyParams) error {
	if p.Name != nil && *p.Name == "" {
		return invalid("name cannot be empty")
	}
	for _, u := range []*string{p.HTTPProxy, p.HTTPSProxy} {
		if u != nil {
			if err := garrison.ValidateProxyURL(*u); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Server) handleDeleteProxy(w http.ResponseWriter, r *http.Request) error {
	id, err := proxyID(r)
	if err != nil {
		return err
	}
	if err := s.store.DeleteProxy(r.Context(), id); err != nil {
		return prefixed("failed to delete proxy: ", err)
	}
	writeEmpty(w)
	return nil
}

// checkPoolProxy checks that a pool's requested proxy exists (0 or absent: none; PX-1).
func (s *Server) checkPoolProxy(ctx context.Context, id *uint) error {
	if id == nil || *id == 0 {
		return nil
	}
	if _, err := s.store.Proxy(ctx, *id); err != nil {
		if garrison.CodeOf(err) == garrison.ENotFound {
			return invalid("proxy with ID %d does not exist", *id)
		}
		return err
	}
	return nil
}

// proxyName returns the name of proxy id for detailed pool views; "" when none or gone.
func (s *Server) proxyName(ctx context.Context, id uint) string {
	if id == 0 {
		return ""
	}
	p, err := s.store.Proxy(ctx, id)
	if err != nil {
		return ""
	}
	return p.Name
}
