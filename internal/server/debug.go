package server

import (
	"net/http"
	"net/http/pprof"
)

// pprofHandler serves Go's profiling endpoints; the REST server puts it behind admin auth
// at /debug/pprof/. It is mounted only with [default] debug_server = true.
func pprofHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
