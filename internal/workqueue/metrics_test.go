package workqueue

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// gathered returns the value of each series of reg as "family{label=value,...}".
func gathered(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			key := f.GetName() + "{"
			for i, l := range m.GetLabel() {
				if i > 0 {
					key += ","
				}
				key += l.GetName() + "=" + l.GetValue()
			}
			out[key+"}"] = value(m)
		}
	}
	return out
}

func value(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Histogram != nil:
		return float64(m.Histogram.GetSampleCount())
	}
	return 0
}

func TestMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewRegistry()
		m, err := NewMetrics(reg)
		if err != nil {
			t.Fatal(err)
		}
		release := make(chan struct{})
		r := newRecorder(func(_ context.Context, key string, n int) (Result, error) {
			switch key {
			case "later":
				return Result{RequeueAfter: time.Hour}, nil
			case "failing":
				if n == 1 {
					return Result{}, errors.New("boom")
				}
			case "panicking":
				panic("boom")
			case "stuck":
				<-release
			}
			return Result{}, nil
		})
		q := New(r.handle, Options{Name: "things", Workers: 3, Metrics: m,
			Backoff: Backoff{Base: 10 * time.Second, Max: 10 * time.Second, Rand: func() float64 { return 0 }}})
		stop := start(t, q)
		defer stop()
		for _, k := range []string{"ok", "later", "failing", "panicking"} {
			q.Add(k)
		}
		time.Sleep(6 * time.Second) // failing is retried after 5s and succeeds; panicking fails again
		q.Add("stuck")
		time.Sleep(time.Second)
		synctest.Wait()
		got := gathered(t, reg)
		want := map[string]float64{
			"workqueue_adds_total{name=things}":                                          7, // 5 adds, 2 retries
			"workqueue_retries_total{name=things}":                                       3, // the third still waits
			"controller_runtime_reconcile_total{controller=things,result=success}":       2,
			"controller_runtime_reconcile_total{controller=things,result=requeue_after}": 1,
			"controller_runtime_reconcile_total{controller=things,result=error}":         3,
			"controller_runtime_reconcile_total{controller=things,result=requeue}":       0,
			"controller_runtime_reconcile_errors_total{controller=things}":               3,
			"controller_runtime_reconcile_panics_total{controller=things}":               2,
			"controller_runtime_reconcile_time_seconds{controller=things}":               6,
			"workqueue_work_duration_seconds{name=things}":                               6,
			"workqueue_queue_duration_seconds{name=things}":                              7,
			"workqueue_depth{name=things}":                                               0,
			"controller_runtime_active_workers{controller=things}":                       1,
			"controller_runtime_max_concurrent_reconciles{controller=things}":            3,
			"workqueue_unfinished_work_seconds{name=things}":                             1,
			"workqueue_longest_running_processor_seconds{name=things}":                   1,
			"garrison_reconcile_total{kind=things,outcome=ok}":                           2,
			"garrison_reconcile_total{kind=things,outcome=requeued}":                     1,
			"garrison_reconcile_total{kind=things,outcome=error}":                        3,
			"garrison_reconcile_duration_seconds{kind=things}":                           6,
			"garrison_reconcile_queue_depth{kind=things}":                                0,
		}
		for k, w := range want {
			if g, ok := got[k]; !ok || g != w {
				t.Errorf("%s = %v (present %v), want %v", k, g, ok, w)
			}
		}
		close(release)
	})
}
