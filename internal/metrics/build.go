package metrics

import (
	"runtime"

	"github.com/garrison-ci/garrison/internal/buildinfo"
	"github.com/prometheus/client_golang/prometheus"
)

// newBuildInfo is garrison_build_info: always 1, labelled with the version, the commit the
// binary was built from and the Go version.
func newBuildInfo() prometheus.Collector {
	bi := buildinfo.Read()
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: namespace, Name: "build_info",
		Help:        "Which garrison this is: always 1, labelled with its version, commit and Go version.",
		ConstLabels: prometheus.Labels{"version": bi.String(), "revision": bi.Revision, "go_version": runtime.Version()},
	})
	g.Set(1)
	return g
}
