package intake

import (
	"net/http"
	"testing"
	"time"
)

// BenchmarkIntake measures signed deliveries through the receiver into a real SQLite
// ledger, as the server runs it (routing data cached for DefaultCacheTTL on the real
// clock): each iteration is one new queued job (signature check, routing from the cache,
// one ledger write, notify).
func BenchmarkIntake(b *testing.B) {
	benchIntake(b, newEnv(b, realClock))
}

// BenchmarkIntakeUncached is BenchmarkIntake with the cache off: every delivery reads the
// controller id, the endpoints, the entity (unsealing its secret) and its pools.
func BenchmarkIntakeUncached(b *testing.B) {
	benchIntake(b, newEnv(b, realClock, withCacheTTL(0)))
}

func realClock(o *Options) { o.Now = time.Now }

func benchIntake(b *testing.B, e *env) {
	ds := make([]delivery, 0, 1024)
	for i := range cap(ds) {
		ds = append(ds, gh(queued(int64(i+1), stdLabels...), "bench-"+itoa(int64(i))))
	}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		d := ds[n%len(ds)]
		if n >= len(ds) { // later rounds are duplicates by job id but new delivery ids
			d.header = d.header.Clone()
			d.header.Set("X-GitHub-Delivery", "bench-"+itoa(int64(n)))
		}
		if w := e.send(d); w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "deliveries/s")
}

// BenchmarkIntakeDuplicate measures redelivered duplicates: signature check and routing,
// answered from the delivery memory without touching the ledger.
func BenchmarkIntakeDuplicate(b *testing.B) {
	e := newEnv(b, realClock)
	d := gh(queued(1, stdLabels...), "dup")
	if w := e.send(d); w.Code != http.StatusOK {
		b.Fatalf("status %d", w.Code)
	}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		if w := e.send(d); w.Code != http.StatusOK {
			b.Fatalf("status %d", w.Code)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "deliveries/s")
}

// BenchmarkIntakeHostedJobs measures the deliveries of jobs no pool can serve (an
// organization's GitHub-hosted jobs): each iteration is one job's queued, in_progress and
// completed deliveries, all answered 422.
func BenchmarkIntakeHostedJobs(b *testing.B) {
	e := newEnv(b, realClock)
	hosted := []string{"ubuntu-latest"}
	b.ReportAllocs()
	b.ResetTimer()
	n := int64(0)
	for b.Loop() {
		n++
		for i, action := range []string{"queued", "in_progress", "completed"} {
			j := job{action: action, id: n, labels: hosted}
			if action != "queued" {
				j.runner = "GitHub Actions " + itoa(n)
			}
			if w := e.send(gh(j, "hosted-"+itoa(n*3+int64(i)))); w.Code != http.StatusUnprocessableEntity {
				b.Fatalf("%s: status %d: %s", action, w.Code, w.Body)
			}
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "jobs/s")
}
