package reconcile

import (
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/garrison-ci/garrison"
)

// passStep is what a pool's first pass after the start has done.
type passStep int

const (
	stepPlanned  passStep = iota // reconciled against the store: counted, creates issued
	stepRepaired                 // three-way repair against the provider and forge done
)

// firstPass follows the pools that existed at the start until each was planned once and
// repaired once, and logs when all were: how long a restarted server takes to act on
// every pool ("every pool reconciled") and to check every pool's instances against its
// provider ("every pool repaired"). It sets garrison_reconcile_first_pass_seconds{step}
// then too.
type firstPass struct {
	log   *slog.Logger
	gauge *prometheus.GaugeVec // the seconds by step name
	at    *prometheus.GaugeVec // when each step completed (Unix seconds), by step name

	mu      sync.Mutex // guards the fields below
	started time.Time
	pending [2]map[string]bool // by passStep
}

func newFirstPass(log *slog.Logger) *firstPass {
	return &firstPass{log: log, gauge: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "garrison_reconcile_first_pass_seconds",
		Help: "Seconds from the start until every pool present then was planned (step planned) and repaired (step repaired); set once.",
	}, []string{"step"}), at: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "garrison_reconcile_first_pass_completed_timestamp_seconds",
		Help: "When every pool present at the start had been planned (step planned) and repaired (step repaired), in Unix seconds; set once.",
	}, []string{"step"})}
}

// collectors are the first pass's metrics.
func (f *firstPass) collectors() []prometheus.Collector { return []prometheus.Collector{f.gauge, f.at} }

// completeLocked records that a step completed for every pool, secs after the start.
func (f *firstPass) completeLocked(s passStep, secs float64) {
	f.gauge.WithLabelValues(stepNames[s]).Set(secs)
	f.at.WithLabelValues(stepNames[s]).Set(float64(time.Now().UnixNano()) / 1e9)
}

// start records the pools present at the start, which was at began.
func (f *firstPass) start(began time.Time, pools []garrison.Pool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.started = began
	for i := range f.pending {
		f.pending[i] = make(map[string]bool, len(pools))
		for _, p := range pools {
			f.pending[i][p.ID] = true
		}
	}
	if len(pools) == 0 { // nothing to wait for
		f.pending = [2]map[string]bool{}
		for s := range stepNames {
			f.completeLocked(passStep(s), time.Since(began).Seconds())
		}
	}
}

// done records steps of a pool and logs a step completed for every pool.
func (f *firstPass) done(poolID string, steps ...passStep) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range steps {
		m := f.pending[s]
		if !m[poolID] {
			continue
		}
		delete(m, poolID)
		if len(m) == 0 {
			f.pending[s] = nil
			secs := time.Since(f.started).Seconds()
			f.completeLocked(s, secs)
			f.log.Info(stepMessages[s], slog.Float64("seconds", secs))
		}
	}
}

// stepNames are the step label values of garrison_reconcile_first_pass_seconds.
var stepNames = [2]string{stepPlanned: "planned", stepRepaired: "repaired"}

// stepMessages are the log messages of completed steps.
var stepMessages = [2]string{
	stepPlanned:  "reconcile: every pool reconciled since the start",
	stepRepaired: "reconcile: every pool repaired since the start",
}
