package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Writer classes of garrison_store_write_wait_seconds.
const (
	writerUrgent   = "urgent"   // webhook deliveries (store.Urgent)
	writerOrdinary = "ordinary" // the reconciler, the API and everything else
)

// newWriteWait is the histogram of how long write transactions waited for SQLite's single
// writer, by writer class.
func newWriteWait() *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Subsystem: "store", Name: "write_wait_seconds",
		Help: "Time a write transaction waited for its turn to write (SQLite's single writer), " +
			"by writer: urgent (webhook deliveries) or ordinary.",
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1},
	}, []string{"writer"})
}

// ObserveWriteWait records how long one write transaction waited for the single writer
// (the SQLite store's WriteWait).
func (m *Metrics) ObserveWriteWait(urgent bool, waited time.Duration) {
	writer := m.writeWaitOrdinary
	if urgent {
		writer = m.writeWaitUrgent
	}
	writer.Observe(waited.Seconds())
}
