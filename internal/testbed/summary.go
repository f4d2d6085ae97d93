package testbed

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"
)

// DemoSummary is the outcome of a demo run; --json writes it.
type DemoSummary struct {
	JobsTotal       int         `json:"jobs_total"`
	JobsCompleted   int         `json:"jobs_completed"`
	InstancesLeaked int         `json:"instances_leaked"`
	QueuedToStarted Percentiles `json:"queued_to_started_ms"`
	// APICallsPerJob is APICalls / JobsTotal.
	APICallsPerJob float64 `json:"api_calls_per_job"`

	// APICalls counts the forge REST calls (the simulator's GitHub routes, any
	// credential) from the first queued job until scale-down finished. Runner traffic
	// (the simulator's /_sim/ routes: registration, job acquire/start/complete,
	// downloads) is not a forge API call and is not counted.
	APICalls           int            `json:"api_calls"`
	APICallsByRoute    map[string]int `json:"api_calls_by_route"`
	InstancesRemaining int            `json:"instances_remaining"`
	ProcessesLeaked    int            `json:"processes_leaked"`
	BootDelayMS        int64          `json:"boot_delay_ms"`
	JobDurationMS      int64          `json:"job_duration_ms"`
	WallSeconds        float64        `json:"wall_seconds"`
}

// Percentiles of a distribution, in milliseconds.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
}

// summarize gathers the numbers of the run.
func (d *demo) summarize(ctx context.Context, wall time.Duration) (DemoSummary, error) {
	s := DemoSummary{
		JobsTotal: d.o.Jobs, BootDelayMS: d.o.BootDelay.Milliseconds(),
		JobDurationMS: d.o.JobDuration.Milliseconds(), WallSeconds: math.Round(wall.Seconds()*10) / 10,
		APICallsByRoute: map[string]int{},
	}
	var waits []float64
	for _, j := range d.Sim.Jobs() {
		queued, ours := d.Queued[j.ID]
		if !ours {
			continue
		}
		if j.Status == "completed" && j.Conclusion == "success" {
			s.JobsCompleted++
		}
		if started, ok := d.Starts.StartedAt(j.ID); ok {
			waits = append(waits, float64(started.Sub(queued).Milliseconds()))
		}
	}
	s.QueuedToStarted = PercentilesOf(waits)
	for k, n := range d.Sim.Calls() {
		s.APICalls += n
		s.APICallsByRoute[k.Route] += n
	}
	s.APICallsPerJob = math.Round(float64(s.APICalls)/float64(s.JobsTotal)*100) / 100
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), CleanupTimeout)
	defer cancel()
	l, err := d.CountLeaks(ctx)
	if err != nil {
		return s, fmt.Errorf("counting what was left behind: %w", err)
	}
	s.InstancesLeaked, s.InstancesRemaining, s.ProcessesLeaked = l.Instances(), l.Remaining, l.Processes
	return s, nil
}

// PercentilesOf returns the nearest-rank p50, p95 and p99 of values (zeros when empty).
func PercentilesOf(values []float64) Percentiles {
	if len(values) == 0 {
		return Percentiles{}
	}
	v := slices.Clone(values)
	slices.Sort(v)
	rank := func(p float64) float64 {
		i := int(math.Ceil(p/100*float64(len(v)))) - 1
		return v[max(0, min(i, len(v)-1))]
	}
	return Percentiles{P50: rank(50), P95: rank(95), P99: rank(99)}
}

// printSummary writes the summary table.
func (d *demo) printSummary(s DemoSummary) {
	q := s.QueuedToStarted
	rows := [][2]string{
		{"jobs run", fmt.Sprintf("%d of %d completed", s.JobsCompleted, s.JobsTotal)},
		{"queue → start p50/p95/p99", fmt.Sprintf("%s / %s / %s", msString(q.P50), msString(q.P95), msString(q.P99))},
		{"forge API calls per job", fmt.Sprintf("%.2f (%d calls)", s.APICallsPerJob, s.APICalls)},
		{"instances leaked", fmt.Sprintf("%d (%d processes)", s.InstancesLeaked, s.ProcessesLeaked)},
		{"wall time", fmt.Sprintf("%.1fs", s.WallSeconds)},
	}
	var b strings.Builder
	b.WriteString("\nsummary\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "  %-26s %s\n", r[0], r[1])
	}
	fmt.Fprint(d.out, b.String())
}

// msString shows milliseconds as seconds.
func msString(ms float64) string { return fmt.Sprintf("%.2fs", ms/1000) }

// writeJSON writes the summary to the --json file, if any.
func (d *demo) writeJSON(s DemoSummary) error {
	if d.o.JSONFile == "" {
		return nil
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(d.o.JSONFile, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing the summary: %w", err)
	}
	return nil
}
