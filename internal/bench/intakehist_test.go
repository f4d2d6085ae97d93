package bench

import (
	"math"
	"strings"
	"testing"
)

// twoResults is an exposition of the intake histogram with two label sets, as the
// server writes it (with other families around it).
const twoResults = `# HELP garrison_webhook_intake_duration_seconds How long a delivery took.
# TYPE garrison_webhook_intake_duration_seconds histogram
garrison_webhook_intake_duration_seconds_bucket{result="ok",le="0.005"} 60
garrison_webhook_intake_duration_seconds_bucket{result="ok",le="0.01"} 90
garrison_webhook_intake_duration_seconds_bucket{result="ok",le="0.025"} 95
garrison_webhook_intake_duration_seconds_bucket{result="ok",le="+Inf"} 96
garrison_webhook_intake_duration_seconds_sum{result="ok"} 0.7
garrison_webhook_intake_duration_seconds_count{result="ok"} 96
garrison_webhook_intake_duration_seconds_bucket{result="not_recorded",le="0.005"} 4
garrison_webhook_intake_duration_seconds_bucket{result="not_recorded",le="0.01"} 4
garrison_webhook_intake_duration_seconds_bucket{result="not_recorded",le="0.025"} 4
garrison_webhook_intake_duration_seconds_bucket{result="not_recorded",le="+Inf"} 4
garrison_webhook_deliveries_total{result="ok"} 96
`

func TestParseHistogram(t *testing.T) {
	h, err := parseHistogram(strings.NewReader(twoResults), intakeFamily, "")
	if err != nil {
		t.Fatal(err)
	}
	wantBounds := []float64{0.005, 0.01, 0.025, math.Inf(1)}
	wantCounts := []float64{64, 94, 99, 100}
	if len(h.bounds) != len(wantBounds) {
		t.Fatalf("bounds %v, want %v", h.bounds, wantBounds)
	}
	for i := range wantBounds {
		if h.bounds[i] != wantBounds[i] || h.counts[i] != wantCounts[i] {
			t.Fatalf("histogram %v %v, want %v %v", h.bounds, h.counts, wantBounds, wantCounts)
		}
	}
	if got := h.atOrUnder(0.01); got != 0.94 {
		t.Errorf("share within 10 ms %v, want 0.94", got)
	}
	if got := h.atOrUnder(0.02); !math.IsNaN(got) {
		t.Errorf("share within a bound the histogram lacks: %v, want NaN", got)
	}
}

func TestHistogramQuantile(t *testing.T) {
	h := histogram{bounds: []float64{0.005, 0.01, 0.025, math.Inf(1)}, counts: []float64{64, 94, 99, 100}}
	for _, tt := range []struct {
		q, want float64
	}{
		{0.32, 0.0025},                // half way into the first bucket, from 0
		{0.79, 0.0075},                // half way into the second
		{0.99, 0.025},                 // the top of the third
		{0.995, 0.025},                // in +Inf: the largest finite bound
		{0.964, 0.01 + 0.015*2.4/5.0}, // into the third
	} {
		if got := h.quantile(tt.q); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("quantile(%v) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if got := (histogram{}).quantile(0.5); !math.IsNaN(got) {
		t.Errorf("quantile of nothing = %v, want NaN", got)
	}
}

func TestHistogramSince(t *testing.T) {
	before := histogram{bounds: []float64{0.005, 0.01, math.Inf(1)}, counts: []float64{10, 10, 12}}
	after := histogram{bounds: []float64{0.005, 0.01, math.Inf(1)}, counts: []float64{60, 99, 112}}
	var r Result
	r.setServerIntake(intakeHistograms{answer: before}, intakeHistograms{answer: after})
	if r.WebhookServerUnder10ms == nil || *r.WebhookServerUnder10ms != 89 {
		t.Fatalf("share within 10 ms %v, want 89", r.WebhookServerUnder10ms)
	}
	if r.WebhookServer == nil || !(r.WebhookServer.P50 > 0 && r.WebhookServer.P50 <= r.WebhookServer.P95 && r.WebhookServer.P95 <= r.WebhookServer.P99) {
		t.Fatalf("percentiles %+v, want positive and ordered", r.WebhookServer)
	}
	if r.WebhookWriterWait != nil {
		t.Fatalf("writer waits %+v without a histogram of them", r.WebhookWriterWait)
	}
	var none Result
	none.setServerIntake(intakeHistograms{answer: after}, intakeHistograms{answer: after})
	if none.WebhookServer != nil || none.WebhookServerUnder10ms != nil {
		t.Fatalf("no deliveries between the scrapes, yet %+v %v", none.WebhookServer, none.WebhookServerUnder10ms)
	}
}

// writeWaits is an exposition of the writer-wait histogram with its two writer classes.
const writeWaits = `# TYPE garrison_store_write_wait_seconds histogram
garrison_store_write_wait_seconds_bucket{writer="ordinary",le="0.001"} 5
garrison_store_write_wait_seconds_bucket{writer="ordinary",le="0.01"} 50
garrison_store_write_wait_seconds_bucket{writer="ordinary",le="+Inf"} 70
garrison_store_write_wait_seconds_bucket{writer="urgent",le="0.001"} 90
garrison_store_write_wait_seconds_bucket{writer="urgent",le="0.01"} 99
garrison_store_write_wait_seconds_bucket{writer="urgent",le="+Inf"} 100
`

// TestWriterWait: the deliveries' writer waits are the urgent writers' histogram alone,
// between two scrapes.
func TestWriterWait(t *testing.T) {
	after, err := parseHistogram(strings.NewReader(twoResults+writeWaits), writeWaitFamily, urgentWriter)
	if err != nil {
		t.Fatal(err)
	}
	if after.total() != 100 || after.counts[0] != 90 {
		t.Fatalf("urgent writers %v %v, want 90 of 100 within 1 ms", after.bounds, after.counts)
	}
	before := histogram{bounds: after.bounds, counts: []float64{40, 49, 50}}
	var r Result
	r.setServerIntake(intakeHistograms{writerWait: before}, intakeHistograms{writerWait: after})
	// 50 writes between the scrapes: 50 within 1 ms, none later.
	if w := r.WebhookWriterWait; w == nil || w.P50 != 0.5 || w.P99 != 0.99 {
		t.Fatalf("writer wait %+v, want p50 0.5 and p99 0.99 ms", w)
	}
	if r.WebhookServer != nil {
		t.Fatalf("answer times %+v without a histogram of them", r.WebhookServer)
	}
}
