package scaleset

import "github.com/prometheus/client_golang/prometheus"

// Metrics are the listeners' metrics. A nil *Metrics records nothing.
type Metrics struct {
	sessions  prometheus.Gauge
	conflicts prometheus.Counter
	refusals  prometheus.Counter
	polls     prometheus.Gauge
	messages  *prometheus.CounterVec
	desired   *prometheus.GaugeVec
	actual    *prometheus.GaugeVec
}

// NewMetrics registers the listeners' metrics with reg:
//   - garrison_scaleset_sessions: message sessions this replica holds;
//   - garrison_scaleset_session_conflicts_total: sessions refused because another was open;
//   - garrison_scaleset_queue_token_refusals_total: queue calls refused for an expired token
//     (renewal ahead of expiry keeps it at zero in steady state);
//   - garrison_scaleset_polls_in_flight: long polls running off the work queue;
//   - garrison_scaleset_messages_total{scaleset}: messages received;
//   - garrison_scaleset_desired_runners{scaleset}: the target, min(min idle + assigned jobs, max);
//   - garrison_scaleset_runners{scaleset}: runners not on their way out.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		sessions: prometheus.NewGauge(prometheus.GaugeOpts{Name: "garrison_scaleset_sessions",
			Help: "Message sessions this replica holds."}),
		conflicts: prometheus.NewCounter(prometheus.CounterOpts{Name: "garrison_scaleset_session_conflicts_total",
			Help: "Sessions the Actions service refused because another was open."}),
		refusals: prometheus.NewCounter(prometheus.CounterOpts{Name: "garrison_scaleset_queue_token_refusals_total",
			Help: "Message queue calls refused because the queue token had expired."}),
		polls: prometheus.NewGauge(prometheus.GaugeOpts{Name: "garrison_scaleset_polls_in_flight",
			Help: "Message long polls running off the work queue."}),
		messages: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "garrison_scaleset_messages_total",
			Help: "Messages received from the Actions service."}, []string{"scaleset"}),
		desired: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "garrison_scaleset_desired_runners",
			Help: "Runners the scale set should have: min(min idle + assigned jobs, max)."}, []string{"scaleset"}),
		actual: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "garrison_scaleset_runners",
			Help: "Runners of the scale set not on their way out."}, []string{"scaleset"}),
	}
	reg.MustRegister(m.sessions, m.conflicts, m.refusals, m.polls, m.messages, m.desired, m.actual)
	return m
}

func (m *Metrics) sessionOpened() {
	if m != nil {
		m.sessions.Inc()
	}
}

func (m *Metrics) sessionClosed() {
	if m != nil {
		m.sessions.Dec()
	}
}

func (m *Metrics) conflict() {
	if m != nil {
		m.conflicts.Inc()
	}
}

func (m *Metrics) pollRunning(d float64) {
	if m != nil {
		m.polls.Add(d)
	}
}

func (m *Metrics) tokenRefused() {
	if m != nil {
		m.refusals.Inc()
	}
}

func (m *Metrics) message(name string) {
	if m != nil {
		m.messages.WithLabelValues(name).Inc()
	}
}

func (m *Metrics) runners(name string, desired, actual int) {
	if m != nil {
		m.desired.WithLabelValues(name).Set(float64(desired))
		m.actual.WithLabelValues(name).Set(float64(actual))
	}
}
