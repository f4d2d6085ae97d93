package instanceapi

import (
	"net/http"
	"strconv"
)

// agentToolsPage is the paginated garm-agent tool list (§7). garrison ships no agent
// tools, so it is always empty.
type agentToolsPage struct {
	TotalCount  int   `json:"total_count"`
	Pages       int   `json:"pages"`
	CurrentPage int   `json:"current_page"`
	Results     []any `json:"results"`
}

// handleAgentTools serves GET tools/garm-agent: an empty list (§7 allows it when agent
// mode is unsupported; runner-metadata then reports agent_mode:false).
func (h *Handler) handleAgentTools(w http.ResponseWriter, r *http.Request) {
	page := 0
	if s := r.URL.Query().Get("page"); s != "" {
		p, err := strconv.ParseUint(s, 10, 31)
		if err != nil {
			h.writeErr(w, r, invalid("invalid page"))
			return
		}
		page = int(p)
	}
	writeJSON(w, http.StatusOK, agentToolsPage{CurrentPage: page, Results: []any{}})
}

// handleAgentTool serves GET tools/garm-agent/{objectID}[/download]: 400 for an id that
// is not a number, 404 for any number, as no tool exists.
func (h *Handler) handleAgentTool(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("objectID")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		h.writeErr(w, r, invalid("invalid tool id %q", id))
		return
	}
	h.writeErr(w, r, notFound("garm-agent tool %s not found", id))
}
