package bench

import (
	"bufio"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/garrison-ci/garrison/internal/forgesim"
)

// provCall is one provider execution as the bench's wrapper logged it.
type provCall struct {
	start, end time.Time
	rc         int
	command    string
	pool       string
}

// readProvCalls parses the provider wrapper's log; a missing log means no calls.
func readProvCalls(path string) ([]provCall, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []provCall
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 5 {
			continue
		}
		t0, err0 := strconv.ParseInt(fs[0], 10, 64)
		t1, err1 := strconv.ParseInt(fs[1], 10, 64)
		rc, err2 := strconv.Atoi(fs[2])
		if err0 != nil || err1 != nil || err2 != nil {
			continue
		}
		out = append(out, provCall{start: time.Unix(0, t0), end: time.Unix(0, t1), rc: rc, command: fs[3], pool: fs[4]})
	}
	slices.SortFunc(out, func(a, b provCall) int { return a.start.Compare(b.start) })
	return out, sc.Err()
}

// countCommands counts provider calls by command.
func countCommands(calls []provCall) map[string]int {
	out := map[string]int{}
	for _, c := range calls {
		out[c.command]++
	}
	return out
}

// queuedDeliveries returns, per job, when the simulator sent its first workflow_job
// "queued" delivery.
func queuedDeliveries(ds []forgesim.Delivery) map[int64]time.Time {
	out := map[int64]time.Time{}
	for _, d := range ds {
		if d.Event != "workflow_job" || d.Action != "queued" || d.JobID == 0 || d.Dropped {
			continue
		}
		if t, ok := out[d.JobID]; !ok || d.DeliveredAt.Before(t) {
			out[d.JobID] = d.DeliveredAt
		}
	}
	return out
}

// webhookPosts returns the round trip, in ms, of every webhook POST the simulator sent
// from t0 on and the server answered, and the number it did not answer (no response).
func webhookPosts(ds []forgesim.Delivery, t0 time.Time) (ms []float64, unanswered int) {
	for _, d := range ds {
		if d.Dropped || d.DeliveredAt.Before(t0) {
			continue
		}
		if d.StatusCode == 0 {
			unanswered++
			continue
		}
		ms = append(ms, msOf(d.Duration))
	}
	return ms, unanswered
}

// benchPoint is one sample of a chart: when (seconds into the run) and how long (ms).
type benchPoint struct{ at, ms float64 }

// webhookToCreate pairs, pool by pool, the k-th queued-job webhook (in send order) with
// the k-th CreateInstance started after it, and returns each pair's latency in ms, by
// webhook time relative to t0. Jobs left without a create are not counted.
func webhookToCreate(sent map[int64]time.Time, jobPool map[int64]string, calls []provCall, t0 time.Time) []benchPoint {
	hooks := map[string][]time.Time{}
	for id, at := range sent {
		if p, ok := jobPool[id]; ok {
			hooks[p] = append(hooks[p], at)
		}
	}
	creates := map[string][]time.Time{}
	for _, c := range calls {
		if c.command == "CreateInstance" {
			creates[c.pool] = append(creates[c.pool], c.start)
		}
	}
	var out []benchPoint
	for pool, hs := range hooks {
		slices.SortFunc(hs, func(a, b time.Time) int { return a.Compare(b) })
		cs := creates[pool] // sorted: calls are
		j := 0
		for _, h := range hs {
			for j < len(cs) && cs[j].Before(h) {
				j++ // a create started before this webhook served an earlier one
			}
			if j == len(cs) {
				break
			}
			out = append(out, benchPoint{at: h.Sub(t0).Seconds(), ms: msSince(h, cs[j])})
			j++
		}
	}
	return out
}

// msSince is b - a in milliseconds, to 0.1 ms.
func msSince(a, b time.Time) float64 { return float64(b.Sub(a).Microseconds()/100) / 10 }

// pointMS returns the ms of points.
func pointMS(ps []benchPoint) []float64 {
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = p.ms
	}
	return out
}
