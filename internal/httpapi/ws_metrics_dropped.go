package httpapi

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// registerDropped exports garrison_events_dropped_total{stream} (streams-metrics.md
// §2.6): frames the event and log streams dropped for slow clients. The metrics stream
// drops nothing (each snapshot is written directly). A family registered already (by
// the metrics package) is left as it is.
func (s *Server) registerDropped(reg prometheus.Registerer) error {
	streams := map[string]func() uint64{}
	if s.opts.Events != nil {
		streams["events"] = s.opts.Events.Dropped
	}
	if s.opts.Logs != nil {
		streams["logs"] = s.opts.Logs.Dropped
	}
	for stream, dropped := range streams {
		c := prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name:        "garrison_events_dropped_total",
			Help:        "Frames dropped for slow websocket clients of the event and log streams.",
			ConstLabels: prometheus.Labels{"stream": stream},
		}, func() float64 { return float64(dropped()) })
		var dup prometheus.AlreadyRegisteredError
		if err := reg.Register(c); err != nil && !errors.As(err, &dup) {
			return err
		}
	}
	return nil
}
