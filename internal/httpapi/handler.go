package httpapi

import "net/http"

// apiHandler serves a request and returns its failure instead of answering it: handle
// turns a non-nil error into the answer of the one domain-error mapping (httperr) and
// logs it. A handler returns an error only before it has written anything; an answer
// that is not an error (a 204, a 429 with Retry-After) it writes itself, returning nil.
type apiHandler func(w http.ResponseWriter, r *http.Request) error

// handle adapts h to an http.HandlerFunc that answers h's error with writeErr.
func (s *Server) handle(h apiHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeErr(w, r, err)
		}
	}
}

// route registers h for pattern on m.
func (s *Server) route(m *http.ServeMux, pattern string, h apiHandler) {
	m.HandleFunc(pattern, s.handle(h))
}
