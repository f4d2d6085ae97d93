package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// loadWriters is how many goroutines keep the store busy with instance writes while a
// job write is timed: about what a reconciler creating runners in a burst does.
const loadWriters = 16

// benchJobUnderLoad times the webhook's ledger write (UpsertJob) while loadWriters
// goroutines update instances and add status messages as fast as they can, and reports
// the p50 and p99 latency of the job writes. urgent marks the job writes store.Urgent.
func benchJobUnderLoad(b *testing.B, s store.Store, urgent bool) {
	seedInstances(b, s, loadWriters)
	ctx, stop := context.WithCancel(b.Context())
	var wg sync.WaitGroup
	for w := range loadWriters {
		name := fmt.Sprintf("runner-%06d", w)
		wg.Go(func() { loadInstance(ctx, s, name) })
	}
	jobCtx := b.Context()
	if urgent {
		jobCtx = store.Urgent(jobCtx)
	}
	var lat []time.Duration
	id := int64(0)
	for b.Loop() {
		id++
		start := time.Now()
		_, err := s.UpsertJob(jobCtx, id, func(j *garrison.Job, _ bool) error {
			j.Action, j.Labels, j.Name = garrison.JobQueued, []string{"linux"}, "build"
			return nil
		})
		lat = append(lat, time.Since(start))
		benchMust(b, err)
	}
	b.StopTimer()
	stop()
	wg.Wait()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// loadInstance writes to one instance until ctx ends.
func loadInstance(ctx context.Context, s store.Store, name string) {
	for ctx.Err() == nil {
		_, _ = s.UpdateInstance(ctx, name, func(i *garrison.Instance) error {
			i.Heartbeat = time.Now()
			return nil
		})
		_ = s.AddInstanceEvent(ctx, name, garrison.Event{Type: garrison.EventStatus, Level: garrison.LevelInfo, Message: "load"})
	}
}
