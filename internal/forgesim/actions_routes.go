package forgesim

import (
	"net/http"
	"strconv"
	"strings"
)

const (
	actionsPrefix = "/_actions/{tenant}/"
	setsPath      = "_apis/runtime/runnerscalesets"
	agentsPath    = "_apis/distributedtask/pools/0/agents"
)

// caller is who called an Actions-service route.
type caller struct {
	scope   scope  // the tenant
	setID   int64  // queue token calls: the scale set of the token
	session string // queue token calls: the session of the token
	base    string
}

type actionsHandler func(r *http.Request, c caller) reply

// tokenKind says which token a route takes.
type tokenKind int

const (
	adminAuth tokenKind = iota
	queueAuth
)

func (s *Sim) actionsRoutes() {
	for _, p := range []string{"POST /actions/runner-registration", "POST /api/v3/actions/runner-registration"} {
		s.mux.HandleFunc(p, s.runnerRegistration)
	}
	s.actionsRoute("GET "+"_apis/runtime/runnergroups/", adminAuth, s.asGroups)
	s.actionsRoute("GET "+"_apis/runtime/runnergroups", adminAuth, s.asGroups)
	s.actionsRoute("GET "+setsPath, adminAuth, s.asListSets)
	s.actionsRoute("POST "+setsPath, adminAuth, s.asCreateSet)
	s.actionsRoute("GET "+setsPath+"/{id}", adminAuth, s.asGetSet)
	s.actionsRoute("PATCH "+setsPath+"/{id}", adminAuth, s.asUpdateSet)
	s.actionsRoute("DELETE "+setsPath+"/{id}", adminAuth, s.asDeleteSet)
	s.actionsRoute("POST "+setsPath+"/{id}/generatejitconfig", adminAuth, s.asJITConfig)
	s.actionsRoute("POST "+setsPath+"/{id}/sessions", adminAuth, s.asCreateSession)
	s.actionsRoute("PATCH "+setsPath+"/{id}/sessions/{sid}", adminAuth, s.asRefreshSession)
	s.actionsRoute("DELETE "+setsPath+"/{id}/sessions/{sid}", adminAuth, s.asDeleteSession)
	s.actionsRoute("POST "+setsPath+"/{id}/acquirejobs", queueAuth, s.asAcquireJobs)
	s.actionsRoute("GET "+setsPath+"/{id}/messages", queueAuth, s.asGetMessage)
	s.actionsRoute("DELETE "+setsPath+"/{id}/messages/{mid}", queueAuth, s.asDeleteMessage)
	s.actionsRoute("GET "+agentsPath, adminAuth, s.asFindAgents)
	s.actionsRoute("GET "+agentsPath+"/{id}", adminAuth, s.asGetAgent)
	s.actionsRoute("DELETE "+agentsPath+"/{id}", adminAuth, s.asDeleteAgent)
}

// actionsRoute registers a route of the Actions service: it counts the call, applies
// the 5xx fault, checks the token and renders the reply (with a BOM when asked).
func (s *Sim) actionsRoute(pattern string, kind tokenKind, h actionsHandler) {
	method, path, _ := strings.Cut(pattern, " ")
	route := method + " /_actions/" + path
	s.mux.HandleFunc(method+" "+actionsPrefix+path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ActivityId", newGUID())
		c, fail := s.actionsAuth(r, kind, route)
		if fail != nil {
			s.writeActions(w, *fail)
			return
		}
		c.base = s.baseFor(r)
		s.writeActions(w, h(r, c))
	})
}

// actionsAuth counts the call, draws the 5xx fault and checks the token.
func (s *Sim) actionsAuth(r *http.Request, kind tokenKind, route string) (caller, *reply) {
	tok := bearer(r)
	tenant, _ := strconv.ParseInt(r.PathValue("tenant"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	a := &s.st.actions
	cred := "actions-admin"
	if kind == queueAuth {
		cred = "actions-queue"
	}
	s.st.calls[CallKey{route, cred}]++
	if a.faults.failN > 0 {
		a.faults.failN--
		rp := exception(a.faults.failStatus, "ServiceUnavailableException", "forgesim: injected failure")
		return caller{}, &rp
	}
	unauthorized := exception(http.StatusUnauthorized, "VssUnauthorizedException", "The token is not valid or has expired.")
	switch kind {
	case adminAuth:
		at := a.adminTokens[tok]
		if at == nil || !s.now().Before(at.expires) || s.st.scopeIDLocked(at.scope) != tenant {
			return caller{}, &unauthorized
		}
		return caller{scope: at.scope}, nil
	default:
		qt := a.queueTokens[tok]
		set := a.sets[pathID(r, "id")]
		if qt == nil || !s.now().Before(qt.expires) || set == nil || qt.setID != set.id ||
			set.session == nil || set.session.id != qt.session || s.st.scopeIDLocked(set.scope) != tenant {
			return caller{}, &unauthorized
		}
		return caller{scope: set.scope, setID: set.id, session: qt.session}, nil
	}
}

// exception is the service's error body.
func exception(status int, typeName, msg string) reply {
	return ok(status, map[string]string{"typeName": typeName, "message": msg})
}

func (s *Sim) writeActions(w http.ResponseWriter, rp reply) {
	s.mu.Lock()
	bom := s.st.actions.opts.BOM
	s.mu.Unlock()
	if bom && rp.body != nil {
		b, err := rp.encode()
		if err == nil {
			rp.raw, rp.body = append([]byte("\xef\xbb\xbf"), b...), nil
			if rp.header == nil {
				rp.header = http.Header{}
			}
			rp.header.Set("Content-Type", "application/json; charset=utf-8")
		}
	}
	s.write(w, rp)
}
