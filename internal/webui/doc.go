// Package webui serves garrison's web UI: plain HTML, CSS and JavaScript modules embedded
// in the binary (no build step), under /ui/.
//
// The UI is a single-page application that talks to the REST API v1 with the admin token
// (shared/spec/streams-metrics.md §3.2: cookie garm_token, sent as a Bearer header) and
// takes live updates from /api/v1/ws/events when the server has it, else by polling.
//
// The handler answers only GET and HEAD. A path that names an embedded file gets that
// file; a path whose last segment has no dot is a page of the application and gets
// index.html; anything else is 404. Every answer carries a Content-Security-Policy that
// allows scripts, styles and connections from the server's own origin only (no inline
// script, no third-party assets), and an ETag: the browser revalidates every file on each
// load (Cache-Control: no-cache) and gets 304 while the binary is the same, so an upgrade
// never mixes old and new modules.
package webui
