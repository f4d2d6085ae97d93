package workqueue

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Reconcile results: the values of the result label of controller_runtime_reconcile_total.
const (
	ResultSuccess      = "success"       // the handler succeeded and asked for nothing
	ResultError        = "error"         // the handler failed (panics and terminal errors too)
	ResultRequeue      = "requeue"       // kept for controller-runtime's set; never counted here
	ResultRequeueAfter = "requeue_after" // the handler succeeded and asked for a later visit
)

// Metrics are the queue and reconcile metrics of controller-runtime, for every queue
// created with them, labelled with the queue's Name (name for the workqueue_ families,
// controller for the controller_runtime_ ones). Create one per registry with NewMetrics.
type Metrics struct {
	adds, retries              *prometheus.CounterVec
	queueDuration, workSeconds *prometheus.HistogramVec
	reconciles                 *prometheus.CounterVec
	errors, panics             *prometheus.CounterVec
	reconcileTime              *prometheus.HistogramVec
	// garrison's own names for the same facts (streams-metrics.md §2.6), labelled kind.
	passes    *prometheus.CounterVec   // garrison_reconcile_total{kind, outcome}
	passTimes *prometheus.HistogramVec // garrison_reconcile_duration_seconds{kind}

	mu     sync.Mutex // guards queues
	queues map[string]*Queue
}

// NewMetrics creates the metric families and registers them with reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	durations := prometheus.ExponentialBuckets(10e-9, 10, 12)
	m := &Metrics{
		adds: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "workqueue_adds_total",
			Help: "Total number of adds handled by workqueue"}, []string{"name"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "workqueue_retries_total",
			Help: "Total number of retries handled by workqueue"}, []string{"name"}),
		queueDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "workqueue_queue_duration_seconds",
			Help: "How long in seconds an item stays in workqueue before being requested", Buckets: durations}, []string{"name"}),
		workSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "workqueue_work_duration_seconds",
			Help: "How long in seconds processing an item from workqueue takes.", Buckets: durations}, []string{"name"}),
		reconciles: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_reconcile_total",
			Help: "Total number of reconciliations per controller"}, []string{"controller", "result"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_reconcile_errors_total",
			Help: "Total number of reconciliation errors per controller"}, []string{"controller"}),
		panics: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_reconcile_panics_total",
			Help: "Total number of reconciliation panics per controller"}, []string{"controller"}),
		reconcileTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "controller_runtime_reconcile_time_seconds",
			Help: "Length of time per reconciliation per controller",
			Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
				1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60}}, []string{"controller"}),
		passes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "garrison_reconcile_total",
			Help: "Reconcile passes by queue kind and outcome (ok, error, requeued)."}, []string{"kind", "outcome"}),
		passTimes: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "garrison_reconcile_duration_seconds",
			Help:    "Wall time of one reconcile pass, by queue kind.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}}, []string{"kind"}),
		queues: map[string]*Queue{},
	}
	for _, c := range []prometheus.Collector{m.adds, m.retries, m.queueDuration, m.workSeconds, m.reconciles,
		m.errors, m.panics, m.reconcileTime, m.passes, m.passTimes, stateCollector{m}} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// register adds a queue to the gauges and returns its resolved counters. A later queue
// of the same name replaces an earlier one in the gauges.
func (m *Metrics) register(q *Queue) *queueMetrics {
	name := q.opts.Name
	m.mu.Lock()
	m.queues[name] = q
	m.mu.Unlock()
	qm := &queueMetrics{
		adds: m.adds.WithLabelValues(name), retries: m.retries.WithLabelValues(name),
		queueDuration: m.queueDuration.WithLabelValues(name), workSeconds: m.workSeconds.WithLabelValues(name),
		errors: m.errors.WithLabelValues(name), panics: m.panics.WithLabelValues(name),
		reconcileTime: m.reconcileTime.WithLabelValues(name), results: map[string]prometheus.Counter{},
	}
	for _, r := range []string{ResultSuccess, ResultError, ResultRequeue, ResultRequeueAfter} {
		qm.results[r] = m.reconciles.WithLabelValues(name, r)
	}
	qm.passTime = m.passTimes.WithLabelValues(name)
	qm.outcomes = map[string]prometheus.Counter{}
	for _, o := range []string{outcomeOK, outcomeError, outcomeRequeued} {
		qm.outcomes[o] = m.passes.WithLabelValues(name, o)
	}
	return qm
}

// queueMetrics are one queue's counters; the methods of a nil *queueMetrics do nothing.
type queueMetrics struct {
	adds, retries              prometheus.Counter
	queueDuration, workSeconds prometheus.Observer
	errors, panics             prometheus.Counter
	reconcileTime              prometheus.Observer
	results                    map[string]prometheus.Counter
	passTime                   prometheus.Observer
	outcomes                   map[string]prometheus.Counter
}

// Outcomes: the values of the outcome label of garrison_reconcile_total.
const (
	outcomeOK       = "ok"
	outcomeError    = "error"
	outcomeRequeued = "requeued" // succeeded and asked for a later visit
)

func (m *queueMetrics) added() {
	if m != nil {
		m.adds.Inc()
	}
}

func (m *queueMetrics) retried() {
	if m != nil {
		m.retries.Inc()
	}
}

func (m *queueMetrics) panicked() {
	if m != nil {
		m.panics.Inc()
	}
}

func (m *queueMetrics) waited(d time.Duration) {
	if m != nil {
		m.queueDuration.Observe(d.Seconds())
	}
}

// handled records one handler call.
func (m *queueMetrics) handled(res Result, err error, took time.Duration) {
	if m == nil {
		return
	}
	m.workSeconds.Observe(took.Seconds())
	m.reconcileTime.Observe(took.Seconds())
	m.passTime.Observe(took.Seconds())
	switch {
	case err != nil:
		m.errors.Inc()
		m.results[ResultError].Inc()
		m.outcomes[outcomeError].Inc()
	case res.RequeueAfter > 0:
		m.results[ResultRequeueAfter].Inc()
		m.outcomes[outcomeRequeued].Inc()
	default:
		m.results[ResultSuccess].Inc()
		m.outcomes[outcomeOK].Inc()
	}
}

// stateCollector reports the queues' current state at each scrape: depth, unfinished
// work, the longest-running call, and active and maximum workers.
type stateCollector struct{ m *Metrics }

var (
	depthDesc = prometheus.NewDesc("workqueue_depth", "Current depth of workqueue", []string{"name"}, nil)
	kindDepth = prometheus.NewDesc("garrison_reconcile_queue_depth", "Items waiting in a reconcile work queue, by kind.", []string{"kind"}, nil)
	unfinDesc = prometheus.NewDesc("workqueue_unfinished_work_seconds",
		"How many seconds of work has been done that is in progress and hasn't been observed by work_duration. "+
			"Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
		[]string{"name"}, nil)
	longestDesc = prometheus.NewDesc("workqueue_longest_running_processor_seconds",
		"How many seconds has the longest running processor for workqueue been running.", []string{"name"}, nil)
	activeDesc = prometheus.NewDesc("controller_runtime_active_workers",
		"Number of currently used workers per controller", []string{"controller"}, nil)
	maxDesc = prometheus.NewDesc("controller_runtime_max_concurrent_reconciles",
		"Maximum number of concurrent reconciles per controller", []string{"controller"}, nil)
)

func (c stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{depthDesc, kindDepth, unfinDesc, longestDesc, activeDesc, maxDesc} {
		ch <- d
	}
}

func (c stateCollector) Collect(ch chan<- prometheus.Metric) {
	c.m.mu.Lock()
	queues := make(map[string]*Queue, len(c.m.queues))
	for name, q := range c.m.queues {
		queues[name] = q
	}
	c.m.mu.Unlock()
	for name, q := range queues {
		s := q.stats()
		ch <- prometheus.MustNewConstMetric(depthDesc, prometheus.GaugeValue, float64(s.depth), name)
		ch <- prometheus.MustNewConstMetric(kindDepth, prometheus.GaugeValue, float64(s.depth), name)
		ch <- prometheus.MustNewConstMetric(unfinDesc, prometheus.GaugeValue, s.unfinished.Seconds(), name)
		ch <- prometheus.MustNewConstMetric(longestDesc, prometheus.GaugeValue, s.longest.Seconds(), name)
		ch <- prometheus.MustNewConstMetric(activeDesc, prometheus.GaugeValue, float64(s.active), name)
		ch <- prometheus.MustNewConstMetric(maxDesc, prometheus.GaugeValue, float64(s.maxActive), name)
	}
}
