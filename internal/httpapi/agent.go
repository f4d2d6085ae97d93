package httpapi

import (
	"net/http"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

// garrison ships no garm-agent, so every request that would turn on agent mode, a remote
// shell or the agent tools is refused with a 400 that names the feature (rest-api-2 §9.2),
// instead of being stored and silently ignored as GARM does without an agent binary.
var (
	// errAgentMode refuses agent_mode: true on an entity (AM-1).
	errAgentMode = invalid("agent mode is not supported by this server (garm-agent is not available)")
	// errEnableShell refuses enable_shell: true on a pool (AM-2).
	errEnableShell = invalid("enable_shell requires garm-agent, which this server does not support")
	// errAgentTools answers every garm-agent tools route (AM-4).
	errAgentTools = invalid("garm-agent tools are not supported by this server")
	// errAgentConn answers the agent websocket and the remote shell (AM-5).
	errAgentConn = invalid("garm-agent connections and remote shells are not supported by this server (garm-agent is not available)")
)

// checkAgentMode refuses an entity create or update that turns agent mode on.
func checkAgentMode(on bool) error {
	if on {
		return errAgentMode
	}
	return nil
}

// checkEnableShell refuses a pool create or update that turns the remote shell on.
func checkEnableShell(on bool) error {
	if on {
		return errEnableShell
	}
	return nil
}

// checkControllerAgent refuses the controller's garm-agent settings unless they are
// neutral (AM-3): tools sync and insecure agents off, the latest version, the default
// releases URL. agent_url is not an agent setting here: it is stored like the other URLs.
func checkControllerAgent(p apiv1.UpdateControllerParams) error {
	const unsupported = "%s requires garm-agent, which this server does not support"
	switch {
	case p.EnableAgentToolsSync != nil && *p.EnableAgentToolsSync:
		return invalid(unsupported, "enable_agent_tools_sync")
	case p.AllowInsecureAgent != nil && *p.AllowInsecureAgent:
		return invalid(unsupported, "allow_insecure_garm_agent")
	case p.GARMAgentVersion != nil && *p.GARMAgentVersion != "" && *p.GARMAgentVersion != "latest":
		return invalid(unsupported, "garm_agent_version")
	case p.GARMAgentReleasesURL != nil && *p.GARMAgentReleasesURL != "":
		return invalid(unsupported, "garm_agent_releases_url")
	}
	return nil
}

// registerAgentRoutes registers the garm-agent routes, each refusing with a 400 (AM-4,
// AM-5), so that clients read why instead of a bare 404.
func (s *Server) registerAgentRoutes() {
	c, m, p := s.ctrlAPI, s.api, apiPrefix
	s.route(c, "POST "+p+"/controller/tools/sync", refuse(errAgentTools))
	s.route(m, "GET "+p+"/tools/garm-agent", refuse(errAgentTools))
	s.route(m, "POST "+p+"/tools/garm-agent", refuse(errAgentTools))
	s.route(m, "GET "+p+"/tools/garm-agent/releases", refuse(errAgentTools))
	s.route(m, "GET "+p+"/tools/garm-agent/{objectID}/download", refuse(errAgentTools))
	s.route(m, "GET "+p+"/ws/agent/{agentName}/shell", refuse(errAgentConn))
}

// handleAgentConn serves GET /agent, the websocket garm-agent dials: a JSON 400 before any
// upgrade (AM-5). Nothing is disclosed, so no token is required.
func (s *Server) handleAgentConn(http.ResponseWriter, *http.Request) error {
	return errAgentConn
}

// refuse returns a handler that answers err.
func refuse(err error) apiHandler {
	return func(http.ResponseWriter, *http.Request) error { return err }
}
