package instanceapi

import (
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// Mount points of the two route groups; the handler receives full paths under them.
const (
	MetadataPrefix = "/api/v1/metadata"
	CallbackPrefix = "/api/v1/callbacks"
)

// maxBodyBytes caps callback request bodies.
const maxBodyBytes = 1 << 20

// Handler serves the instance metadata and callback endpoints.
type Handler struct {
	store  Store
	forge  Forge
	tokens TokenVerifier
	notify func(poolIDs ...string)
	proxy  ProxyFunc
	log    *slog.Logger
	now    func() time.Time
	mux    *http.ServeMux
}

// New returns a Handler for opts.
func New(opts Options) (*Handler, error) {
	if opts.Store == nil || opts.Forge == nil || opts.Tokens == nil {
		return nil, errMissingOption
	}
	h := &Handler{
		store: opts.Store, forge: opts.Forge, tokens: opts.Tokens,
		notify: opts.Notify, proxy: opts.Proxy, log: opts.Log, now: opts.Now,
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	if h.now == nil {
		h.now = time.Now
	}
	h.mux = h.routes()
	return h, nil
}

// routes registers every endpoint (paths without a trailing slash; ServeHTTP strips it).
func (h *Handler) routes() *http.ServeMux {
	m := http.NewServeMux()
	md, cb := MetadataPrefix, CallbackPrefix
	m.HandleFunc("GET "+md+"/runner-metadata", h.handleRunnerMetadata)
	m.HandleFunc("GET "+md+"/runner-registration-token", h.handleRegistrationToken)
	m.HandleFunc("GET "+md+"/credentials/{fileName}", h.handleCredentials)
	m.HandleFunc("GET "+md+"/system/service-name", h.handleServiceName)
	m.HandleFunc("GET "+md+"/systemd/unit-file", h.handleUnitFile)
	m.HandleFunc("GET "+md+"/system/cert-bundle", h.handleCertBundle)
	m.HandleFunc("GET "+md+"/install-script", h.handleInstallScript)
	m.HandleFunc("GET "+md+"/tools/garm-agent", h.handleAgentTools)
	m.HandleFunc("GET "+md+"/tools/garm-agent/{objectID}", h.handleAgentTool)
	m.HandleFunc("GET "+md+"/tools/garm-agent/{objectID}/download", h.handleAgentTool)
	m.HandleFunc("POST "+cb+"/status", h.handleStatus)
	m.HandleFunc("POST "+cb+"/system-info", h.handleSystemInfo)
	m.HandleFunc("OPTIONS "+md+"/", handleOptions("GET, OPTIONS"))
	m.HandleFunc("OPTIONS "+cb+"/", handleOptions("POST, OPTIONS"))
	m.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusNotFound, errorBody{Error: "Not found", Details: "Resource not found"})
	})
	return m
}

// ServeHTTP authenticates the instance (§2) and routes the request. Every path is served
// with and without a trailing slash.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, MetadataPrefix+"/") && !strings.HasPrefix(r.URL.Path, CallbackPrefix+"/") {
		writeJSON(w, http.StatusNotFound, errorBody{Error: "Not found", Details: "Resource not found"})
		return
	}
	req, ok := h.authenticate(w, r)
	if !ok {
		return
	}
	if p := req.URL.Path; len(p) > 1 && strings.HasSuffix(p, "/") {
		u := *req.URL
		u.Path = strings.TrimRight(p, "/")
		u.RawPath = ""
		req.URL = &u
	}
	h.mux.ServeHTTP(w, req)
}

// handleOptions answers OPTIONS with the allowed methods.
func handleOptions(allow string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Allow", allow)
		w.WriteHeader(http.StatusOK)
	}
}
