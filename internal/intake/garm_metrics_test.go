package intake

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// garmSeries returns garm_webhook_received's series as "valid,reason" → value.
func garmSeries(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != "garm_webhook_received" {
			continue
		}
		for _, m := range mf.GetMetric() {
			lv := map[string]string{}
			for _, l := range m.GetLabel() {
				lv[l.GetName()] = l.GetValue()
			}
			out[lv["valid"]+","+lv["reason"]] = m.GetCounter().GetValue()
		}
	}
	return out
}

// TestGarmWebhookReceived: GARM's garm_webhook_received counts workflow_job deliveries
// for this controller by validity and reason, and leaves pings, other events and other
// controllers' deliveries out.
func TestGarmWebhookReceived(t *testing.T) {
	want := map[Result][2]string{
		ResultOK: {"true", ""}, ResultDuplicate: {"true", ""}, ResultIgnored: {"true", ""},
		ResultNotRecorded: {"true", ""}, ResultForeignRunner: {"true", ""}, ResultForeignJob: {"true", ""},
		ResultOwnerUnknown: {"false", "owner_unknown"}, ResultEntityUnknown: {"false", "owner_unknown"},
		ResultBadSignature: {"false", "signature_invalid"}, ResultMalformed: {"false", "unknown"},
		ResultTooLarge: {"false", "unknown"}, ResultRejected: {"false", "unknown"}, ResultError: {"false", "unknown"},
	}
	for _, r := range allResults {
		reg := prometheus.NewRegistry()
		m, err := newMetrics(reg)
		if err != nil {
			t.Fatal(err)
		}
		m.observe(r, 0)
		w, counted := want[r]
		got := garmSeries(t, reg)
		switch {
		case !counted && len(got) != 0:
			t.Errorf("%s: counted in garm_webhook_received (%v), GARM does not count it", r, got)
		case counted && (len(got) != 1 || got[w[0]+","+w[1]] != 1):
			t.Errorf("%s: garm_webhook_received = %v, want {valid=%q,reason=%q} 1", r, got, w[0], w[1])
		}
	}
}
