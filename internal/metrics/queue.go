package metrics

import (
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/prometheus/client_golang/prometheus"
)

// Queue-time stages of garrison_job_queue_seconds: each is the time from the job's first
// record as queued (its ledger CreatedAt) until that stage.
const (
	StageAssigned  = "assigned"  // a runner was bound to it (or the forge named its runner)
	StageStarted   = "started"   // the forge reported it in progress
	StageCompleted = "completed" // the forge reported it completed, after it ran
)

// queueBuckets are the bucket bounds (seconds) of garrison_job_queue_seconds.
var queueBuckets = []float64{1, 2, 5, 10, 20, 30, 45, 60, 90, 120, 180, 300, 600, 1200, 1800, 3600}

func newQueueHistogram() *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Subsystem: "job", Name: "queue_seconds",
		Help:    "Seconds from a job's first record as queued until a stage: assigned (runner bound), started (in progress), completed (after running).",
		Buckets: queueBuckets,
	}, []string{"forge", "entity_type", "entity_id", "pool_id", "stage"})
}

// JobPlace labels a job's queue-time observations: where it waits and runs.
type JobPlace struct {
	Forge  garrison.ForgeType
	PoolID string // the pool of the runner bound to it; "" when none of ours
}

// Stages returns the stages a job reached in going from before to after, one write of the
// ledger; existed says whether before was in the ledger. Each stage is reached once per
// job: assigned when it first gets a runner (bound by garrison or named by the forge),
// started when it first reaches in_progress, completed when it completes having run (a job
// cancelled while queued has no runner name and is not observed).
func Stages(before garrison.Job, existed bool, after garrison.Job) []string {
	var out []string
	ran := after.RunnerName != "" || after.LockedBy != ""
	hadRunner := existed && (before.LockedBy != "" || before.RunnerName != "")
	if !hadRunner && ran {
		out = append(out, StageAssigned)
	}
	rank := 0
	if existed {
		rank = before.Action.Rank()
	}
	started := after.Action == garrison.JobInProgress || (after.Action == garrison.JobCompleted && after.RunnerName != "")
	if rank < garrison.JobInProgress.Rank() && started {
		out = append(out, StageStarted)
	}
	if rank < garrison.JobCompleted.Rank() && after.Action == garrison.JobCompleted && after.RunnerName != "" {
		out = append(out, StageCompleted)
	}
	return out
}

// ObserveJobStages records the queue time of each stage a job reached at now.
func (m *Metrics) ObserveJobStages(j garrison.Job, place JobPlace, stages []string, now time.Time) {
	if j.CreatedAt.IsZero() {
		return
	}
	d := now.Sub(j.CreatedAt).Seconds()
	if d < 0 {
		d = 0
	}
	for _, s := range stages {
		m.queue.WithLabelValues(string(place.Forge), string(j.EntityType), j.EntityID, place.PoolID, s).Observe(d)
	}
}
