package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/garrison-ci/garrison/internal/buildinfo"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// Result holds the figures of one run; a nil field was not measured by the
// scenario and is left out of the JSON. docs/performance.md defines each.
type Result struct {
	Scenario    string  `json:"scenario"`
	Scale       float64 `json:"scale"`
	Commit      string  `json:"commit,omitempty"` // the commit garrison was built from, when stamped
	DurationS   float64 `json:"duration_s"`
	WallSeconds float64 `json:"wall_seconds"`

	WebhookToCreate *testbed.Percentiles `json:"webhook_to_create_ms,omitempty"`
	// WebhookPost is the round trip of the simulator's webhook POSTs to the server, as it
	// sent them during the run: how long recording a delivery keeps the forge waiting.
	WebhookPost *testbed.Percentiles `json:"webhook_post_ms,omitempty"`
	// WebhookServer is the server's own answer time of the same deliveries, from its
	// histogram (estimated within its buckets); WebhookServerUnder10ms the exact share of
	// them answered within 10 ms, in percent.
	WebhookServer          *testbed.Percentiles `json:"webhook_server_ms,omitempty"`
	WebhookServerUnder10ms *float64             `json:"webhook_server_under_10ms_percent,omitempty"`
	// WebhookWriterWait is how long the deliveries' write transactions waited for
	// SQLite's single writer (the server's histogram of its urgent writers, estimated
	// within its buckets): what recording a delivery waited on other writes.
	WebhookWriterWait *testbed.Percentiles `json:"webhook_writer_wait_ms,omitempty"`
	QueuedToIdle      *testbed.Percentiles `json:"queued_to_idle_ms,omitempty"`
	QueuedToStarted   *testbed.Percentiles `json:"queued_to_started_ms,omitempty"`
	BootDelayMS       *int64               `json:"boot_delay_ms,omitempty"`

	APICallsPerJob     *float64       `json:"api_calls_per_job,omitempty"`
	APICallsByEndpoint map[string]int `json:"api_calls_by_endpoint,omitempty"`

	IntakePerSecond  *float64 `json:"intake_per_second,omitempty"`
	IntakeP99MS      *float64 `json:"intake_p99_ms,omitempty"`
	CPUMsPerDelivery *float64 `json:"cpu_ms_per_delivery,omitempty"`

	CPUSeconds         *float64 `json:"cpu_seconds,omitempty"`
	CPUPercentOfCore   *float64 `json:"cpu_percent_of_core,omitempty"`
	ChildrenCPUSeconds *float64 `json:"provider_cpu_seconds,omitempty"`
	PeakRSSMB          *float64 `json:"peak_rss_mb,omitempty"`
	// MachineBusyPercent and MachineStealPercent are the share of every CPU's time the
	// whole machine spent busy (the bench, the server, its providers and anything else)
	// and stolen by the hypervisor over the window: a busy or stolen machine slows every
	// figure, so runs are compared only at like figures.
	MachineBusyPercent  *float64 `json:"machine_busy_percent,omitempty"`
	MachineStealPercent *float64 `json:"machine_steal_percent,omitempty"`
	LogBytesPerMinute   *float64 `json:"log_bytes_per_minute,omitempty"`

	FullReconcileMS    *float64 `json:"full_reconcile_ms,omitempty"`
	FullRepairMS       *float64 `json:"full_repair_ms,omitempty"`
	RestartReconciledS *float64 `json:"restart_reconciled_s,omitempty"`
	RestartRepairedS   *float64 `json:"restart_repaired_s,omitempty"`

	IdleAPICallsPerRepoHour *float64 `json:"idle_api_calls_per_repo_hour,omitempty"`

	// TakeoverClaimMS is, in the replicas scenario, the time from a replica's SIGKILL to
	// every pool it held being held by another replica; TakeoverServedMS to a job queued
	// on each of them at the kill having started; TakeoverPools how many pools it held.
	TakeoverClaimMS  *float64 `json:"takeover_claim_ms,omitempty"`
	TakeoverServedMS *float64 `json:"takeover_served_ms,omitempty"`
	TakeoverPools    *int     `json:"takeover_pools,omitempty"`
	Replicas         *int     `json:"replicas,omitempty"`

	Repos           *int           `json:"repos,omitempty"`
	Pools           *int           `json:"pools,omitempty"`
	Instances       *int           `json:"instances,omitempty"`
	JobsTotal       *int           `json:"jobs_total,omitempty"`
	JobsCompleted   *int           `json:"jobs_completed,omitempty"`
	InstancesLeaked *int           `json:"instances_leaked,omitempty"`
	ProviderCalls   map[string]int `json:"provider_calls,omitempty"`
	Notes           []string       `json:"notes,omitempty"`
	chart           []benchPoint
	chartTitle      string
}

func newResult(o Options) Result {
	return Result{Scenario: o.Scenario, Scale: o.Scale, DurationS: o.Duration.Seconds(), Commit: buildinfo.Read().ShortRevision()}
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

// round1 and round2 round to one and two decimals.
func round1(v float64) float64 { return math.Round(v*10) / 10 }
func round2(v float64) float64 { return math.Round(v*100) / 100 }

// pct returns the percentiles of values, nil when there are none.
func pct(values []float64) *testbed.Percentiles {
	if len(values) == 0 {
		return nil
	}
	p := testbed.PercentilesOf(values)
	return &p
}

// note adds a remark printed under the table and kept in the JSON.
func (r *Result) note(format string, args ...any) {
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}

// setProc records the server's CPU time over a window of length window (from the
// stats before to after) and its peak RSS.
func (r *Result) setProc(before, after procStats, window time.Duration) {
	cpu := (after.cpu - before.cpu).Seconds()
	r.CPUSeconds = ptr(round2(cpu))
	if window > 0 {
		r.CPUPercentOfCore = ptr(round2(100 * cpu / window.Seconds()))
	}
	r.ChildrenCPUSeconds = ptr(round2((after.childrenCPU - before.childrenCPU).Seconds()))
	r.PeakRSSMB = ptr(round1(float64(after.hwmKB) / 1024))
}

// print writes the figures as a table: one row per JSON key, in key order.
func (r Result) print(out io.Writer) {
	b, _ := json.Marshal(r)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != "notes" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%s results\n", r.Scenario)
	for _, k := range keys {
		fmt.Fprintf(&sb, "  %-30s %s\n", k, tableValue(m[k]))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&sb, "  note: %s\n", n)
	}
	fmt.Fprint(out, sb.String())
}

// tableValue shows one JSON value on one line.
func tableValue(v any) string {
	switch x := v.(type) {
	case map[string]any:
		if p50, ok := x["p50"]; ok {
			return fmt.Sprintf("p50 %v  p95 %v  p99 %v", p50, x["p95"], x["p99"])
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s=%v", k, x[k]))
		}
		return strings.Join(parts, " ")
	default:
		return fmt.Sprint(v)
	}
}

// writeFiles writes the --json and --svg files, if asked for.
func (r Result) writeFiles(o Options) error {
	if o.JSONFile != "" {
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(o.JSONFile, append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("writing the figures: %w", err)
		}
	}
	if o.SVGFile != "" {
		c := chart{title: r.chartTitle, scenario: r.Scenario, scale: r.Scale, commit: r.Commit, pts: r.chart}
		if err := os.WriteFile(o.SVGFile, []byte(c.svg()), 0o644); err != nil {
			return fmt.Errorf("writing the chart: %w", err)
		}
	}
	return nil
}
