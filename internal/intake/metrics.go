package intake

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Result classifies a delivery: the value of the result label of
// garrison_webhook_deliveries_total.
type Result string

// Results.
const (
	ResultOK              Result = "ok"               // job recorded or updated
	ResultDuplicate       Result = "duplicate"        // delivery id already processed
	ResultPing            Result = "ping"             // ping event
	ResultIgnoredEvent    Result = "ignored_event"    // another event than workflow_job
	ResultWrongController Result = "wrong_controller" // path names another controller
	ResultTooLarge        Result = "too_large"        // body over the limit (413)
	ResultMalformed       Result = "malformed"        // unreadable or unroutable payload (400)
	ResultOwnerUnknown    Result = "owner_unknown"    // no endpoint for html_url (200)
	ResultEntityUnknown   Result = "entity_unknown"   // entity not managed (200)
	ResultBadSignature    Result = "bad_signature"    // missing, malformed or wrong signature
	ResultIgnored         Result = "ignored"          // no labels, or an action garrison skips
	ResultRejected        Result = "rejected"         // owner mismatch, status going backwards (400)
	ResultNotRecorded     Result = "not_recorded"     // job no pool can serve (422; a queued one is recorded with its reason)
	ResultForeignRunner   Result = "foreign_runner"   // names a runner of another entity's pool (200)
	ResultForeignJob      Result = "foreign_job"      // a job of another entity, with no runner of ours (200)
	ResultError           Result = "error"            // store failure (500)
)

var allResults = []Result{
	ResultOK, ResultDuplicate, ResultPing, ResultIgnoredEvent, ResultWrongController, ResultTooLarge,
	ResultMalformed, ResultOwnerUnknown, ResultEntityUnknown, ResultBadSignature, ResultIgnored,
	ResultRejected, ResultNotRecorded, ResultForeignRunner, ResultForeignJob, ResultError,
}

// metrics are the receiver's collectors; nil collectors when no registerer is given.
type metrics struct {
	deliveries *prometheus.CounterVec
	byResult   map[Result]prometheus.Counter // the children of deliveries, resolved once
	latency    prometheus.Histogram
	garm       *prometheus.CounterVec // GARM's garm_webhook_received{valid, reason}
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "garrison", Subsystem: "webhook", Name: "deliveries_total",
			Help: "Webhook deliveries received, by result.",
		}, []string{"result"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "garrison", Subsystem: "webhook", Name: "intake_duration_seconds",
			Help:    "Time to handle one webhook delivery.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}),
	}
	m.garm = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "garm_webhook_received", Help: "The total number of workflow_job webhooks received, by validity and reason.",
	}, []string{"valid", "reason"})
	m.byResult = make(map[Result]prometheus.Counter, len(allResults))
	for _, r := range allResults {
		m.byResult[r] = m.deliveries.WithLabelValues(string(r))
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.deliveries, m.latency, m.garm} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return nil, err
			}
		}
	}
	return m, nil
}

func (m *metrics) observe(r Result, d time.Duration) {
	c, ok := m.byResult[r]
	if !ok {
		c = m.deliveries.WithLabelValues(string(r))
	}
	c.Inc()
	m.latency.Observe(d.Seconds())
	if valid, reason, counted := garmWebhook(r); counted {
		m.garm.WithLabelValues(valid, reason).Inc()
	}
}

// garmWebhook maps a result to GARM's garm_webhook_received labels. GARM counts
// workflow_job deliveries for this controller only: pings, other events and deliveries
// for another controller are not counted. A delivery is valid when it was authentic and
// routed to an entity, whatever the ledger then made of it.
func garmWebhook(r Result) (valid, reason string, counted bool) {
	switch r {
	case ResultPing, ResultIgnoredEvent, ResultWrongController:
		return "", "", false
	case ResultOK, ResultDuplicate, ResultIgnored, ResultNotRecorded, ResultForeignRunner, ResultForeignJob:
		return "true", "", true
	case ResultOwnerUnknown, ResultEntityUnknown:
		return "false", "owner_unknown", true
	case ResultBadSignature:
		return "false", "signature_invalid", true
	}
	return "false", "unknown", true
}
