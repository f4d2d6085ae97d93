package forgesim

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"sort"
	"strings"
	"time"
)

// CallKey identifies a counted call: the route pattern (without the /api/v3 prefix for
// GitHub routes) and the credential ("anonymous" when none was accepted).
type CallKey struct {
	Route      string
	Credential string
}

// Calls returns the number of calls per route and credential since the start or the last
// ResetCalls. Every request to a forge route counts, including rejected ones.
func (s *Sim) Calls() map[CallKey]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[CallKey]int, len(s.st.calls))
	for k, v := range s.st.calls {
		out[k] = v
	}
	return out
}

// Call is one call the simulator received, at the time of its clock (Options.Now), with
// its URL's query (to tell apart calls of one route, such as listings by status).
type Call struct {
	At    time.Time
	Query string
	CallKey
}

// maxCallLog bounds the call log; later calls are counted but not logged.
const maxCallLog = 100_000

// CallLog returns the calls received since the start or the last ResetCalls, oldest
// first (the first 100,000), to count requests over time.
func (s *Sim) CallLog() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.st.callLog...)
}

// ResetCalls zeroes the call counts and empties the call log.
func (s *Sim) ResetCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.calls = map[CallKey]int{}
	s.st.callLog = nil
}

func (s *Sim) count(route, cred, query string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := CallKey{route, cred}
	s.st.calls[k]++
	if len(s.st.callLog) < maxCallLog {
		s.st.callLog = append(s.st.callLog, Call{At: s.now(), Query: query, CallKey: k})
	}
}

type handler func(r *http.Request, p principal) reply

// github registers a GitHub route on both the github.com form (root) and the GHES form
// (/api/v3). pattern is "METHOD /path".
func (s *Sim) github(pattern string, h handler) {
	method, path, _ := strings.Cut(pattern, " ")
	serve := func(w http.ResponseWriter, r *http.Request) { s.serveGitHub(w, r, pattern, h) }
	s.mux.HandleFunc(method+" "+path, serve)
	s.mux.HandleFunc(method+" /api/v3"+path, serve)
}

func (s *Sim) serveGitHub(w http.ResponseWriter, r *http.Request, route string, h handler) {
	w.Header().Set("X-GitHub-Request-Id", strings.ToUpper(randomHex(8)))
	p, fail := s.authenticate(r)
	s.count(route, p.cred, r.URL.RawQuery)
	if f := s.applyAPIFault(r); f != nil {
		s.write(w, *f)
		return
	}
	if fail != nil {
		s.write(w, *fail)
		return
	}
	if route == "GET /rate_limit" {
		s.write(w, h(r, p))
		return
	}
	resource := s.resourceOf(route)
	if limited := s.charge(w.Header(), p.cred, resource); limited != nil {
		s.write(w, *limited)
		return
	}
	if s.unreachable(r) {
		s.write(w, ghError(http.StatusNotFound, "Not Found"))
		return
	}
	rp := h(r, p)
	if r.Method == http.MethodGet && rp.status == http.StatusOK && rp.body != nil {
		body, _ := rp.encode()
		sum := sha256.Sum256(body)
		etag := `W/"` + hex.EncodeToString(sum[:12]) + `"`
		w.Header().Set("ETag", etag)
		if etagMatch(r.Header.Get("If-None-Match"), etag) {
			s.refund(w.Header(), p.cred, resource)
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	s.write(w, rp)
}

// etagMatch compares an If-None-Match list with an ETag, weakly.
func etagMatch(inm, etag string) bool {
	norm := func(t string) string { return strings.TrimPrefix(strings.TrimSpace(t), "W/") }
	for _, t := range strings.Split(inm, ",") {
		if t = strings.TrimSpace(t); t == "*" || (t != "" && norm(t) == norm(etag)) {
			return true
		}
	}
	return false
}

// gitea registers a Gitea route, which takes a PAT and has no rate limits.
func (s *Sim) gitea(pattern string, h handler) {
	method, path, _ := strings.Cut(pattern, " ")
	s.mux.HandleFunc(method+" /api/v1"+path, func(w http.ResponseWriter, r *http.Request) {
		route := method + " /api/v1" + path
		p, fail := s.authenticate(r)
		s.count(route, p.cred, r.URL.RawQuery)
		if fail != nil || p.app != 0 || p.installation != 0 {
			s.write(w, giteaError(http.StatusUnauthorized, "token is required"))
			return
		}
		if s.unreachable(r) {
			s.write(w, giteaError(http.StatusNotFound, "The target couldn't be found."))
			return
		}
		s.write(w, h(r, p))
	})
}

// unreachable reports whether the request's scope was made unreachable (SetUnreachable).
func (s *Sim) unreachable(r *http.Request) bool {
	sc := scopeOf(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.unreachableLocked(sc)
}

func (s *Sim) write(w http.ResponseWriter, rp reply) {
	for k, vs := range rp.header {
		w.Header()[k] = vs
	}
	body, err := rp.encode()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if rp.body != nil {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
	}
	w.WriteHeader(rp.status)
	_, _ = w.Write(body)
}

// sortedIDs returns the keys of a map in ascending order.
func sortedIDs[T any](m map[int64]T) []int64 {
	ids := make([]int64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}
