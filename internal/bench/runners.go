package bench

import (
	"context"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/garrison-ci/garrison/internal/forgesim"
)

// benchRunnerTick is how often the bench's runners look for work.
const benchRunnerTick = 50 * time.Millisecond

// benchRunners play, in this process, the runners of instances the simulation provider
// created as records: once an instance's record exists (CreateInstance returned), its
// forge runner (registered by garrison's just-in-time config) polls for a job, starts
// it at once and completes it after jobDuration. No process boots, so scenarios with
// thousands of jobs fit on a small machine; the runner's callbacks to garrison
// (installing, idle) are not made.
type benchRunners struct {
	e           *env
	jobDuration time.Duration

	mu        sync.Mutex     // guards the fields below
	pending   map[string]int // label → queued jobs not yet taken
	idleAt    map[string]time.Time
	busy      map[string]bool
	startedAt map[int64]time.Time
	runnerOf  map[int64]string
	timers    []*time.Timer
}

func newBenchRunners(e *env, jobDuration time.Duration) *benchRunners {
	return &benchRunners{e: e, jobDuration: jobDuration, pending: map[string]int{}, idleAt: map[string]time.Time{},
		busy: map[string]bool{}, startedAt: map[int64]time.Time{}, runnerOf: map[int64]string{}}
}

// queued tells the runners one more job with this pool label waits.
func (b *benchRunners) queued(label string) {
	b.mu.Lock()
	b.pending[label]++
	b.mu.Unlock()
}

// run polls until ctx ends, then stops the pending completions.
func (b *benchRunners) run(ctx context.Context) {
	t := time.NewTicker(benchRunnerTick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			b.mu.Lock()
			for _, tm := range b.timers {
				tm.Stop()
			}
			b.mu.Unlock()
			return
		case <-t.C:
			for _, rn := range b.e.Sim.Runners() {
				b.poll(rn)
			}
		}
	}
}

// poll lets one runner look for a job when its instance exists and a job may match.
func (b *benchRunners) poll(rn forgesim.Runner) {
	label := poolLabel(rn.Labels)
	b.mu.Lock()
	if b.busy[rn.Name] {
		b.mu.Unlock()
		return
	}
	_, seen := b.idleAt[rn.Name]
	want := b.pending[label] > 0
	b.mu.Unlock()
	if !seen {
		if _, err := os.Stat(b.e.instanceFile(rn.Name)); err != nil {
			return // CreateInstance has not returned yet
		}
		b.mu.Lock()
		b.idleAt[rn.Name] = time.Now()
		b.mu.Unlock()
	}
	if !want {
		return
	}
	j, err := b.e.Sim.Acquire(rn.Name, rn.Secret)
	if err != nil || j == nil {
		return
	}
	now := time.Now()
	if _, err := b.e.Sim.StartJob(j.ID, rn.Secret); err != nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending[label]--
	b.busy[rn.Name], b.startedAt[j.ID], b.runnerOf[j.ID] = true, now, rn.Name
	id, secret := j.ID, rn.Secret
	b.timers = append(b.timers, time.AfterFunc(b.jobDuration, func() {
		_, _ = b.e.Sim.CompleteJob(id, secret, "success")
	}))
}

// poolLabel is the bench pool label (pNNNN) among a runner's labels.
func poolLabel(labels []string) string {
	for _, l := range labels {
		if len(l) == 5 && strings.HasPrefix(l, "p") {
			return l
		}
	}
	return ""
}

// times returns when job id started and when the runner that took it was first ready.
func (b *benchRunners) times(id int64) (started, idle time.Time, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	started, ok = b.startedAt[id]
	if ok {
		idle = b.idleAt[b.runnerOf[id]]
	}
	return started, idle, ok
}
