package httpapi

// uiPrefix is where the web UI lives (streams-metrics.md §3.1); "/" redirects there.
const uiPrefix = "/ui"

// isUIPath reports whether p belongs to the web UI: the root, /ui and everything below.
// Nothing under /api/v1 does, so API paths keep their JSON 404 (G-9).
func isUIPath(p string) bool {
	return p == "/" || hasPathPrefix(p, uiPrefix)
}
