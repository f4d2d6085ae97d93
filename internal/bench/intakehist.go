package bench

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/garrison-ci/garrison/internal/testbed"
)

// intakeFamily is the server's histogram of how long it took to answer each webhook
// delivery, from the request's arrival to its answer (internal/intake).
const intakeFamily = "garrison_webhook_intake_duration_seconds"

// writeWaitFamily is the server's histogram of how long write transactions waited for
// SQLite's single writer; urgentWriter selects the webhook deliveries' writes.
const (
	writeWaitFamily = "garrison_store_write_wait_seconds"
	urgentWriter    = `writer="urgent"`
)

// histogram is a Prometheus histogram summed over its label sets: the cumulative count
// of observations at or under each upper bound, the last bound +Inf.
type histogram struct {
	bounds []float64
	counts []float64
}

// parseHistogram reads the buckets of family from a Prometheus text exposition, summed
// over every label set but le that contains the label where (`name="value"`; "": every
// label set).
func parseHistogram(r io.Reader, family, where string) (histogram, error) {
	byBound := map[float64]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	prefix := family + "_bucket{"
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		labels, value, ok := strings.Cut(line[len(prefix):], "} ")
		if !ok {
			continue
		}
		if where != "" && !strings.Contains(labels, where) {
			continue
		}
		bound, okb := leLabel(labels)
		n, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if !okb || err != nil {
			continue
		}
		byBound[bound] += n
	}
	var h histogram
	for b := range byBound {
		h.bounds = append(h.bounds, b)
	}
	slices.Sort(h.bounds)
	for _, b := range h.bounds {
		h.counts = append(h.counts, byBound[b])
	}
	return h, sc.Err()
}

// leLabel returns the value of the le label among labels (`a="x",le="0.5"`).
func leLabel(labels string) (float64, bool) {
	for l := range strings.SplitSeq(labels, ",") {
		v, ok := strings.CutPrefix(l, `le="`)
		if !ok {
			continue
		}
		b, err := strconv.ParseFloat(strings.TrimSuffix(v, `"`), 64) // "+Inf" parses as +Inf
		return b, err == nil
	}
	return 0, false
}

// since returns what h counted after earlier, a scrape of the same histogram taken
// before it (bounds of earlier that h lacks are taken as zero).
func (h histogram) since(earlier histogram) histogram {
	out := histogram{bounds: h.bounds, counts: slices.Clone(h.counts)}
	for i, b := range h.bounds {
		if j := slices.Index(earlier.bounds, b); j >= 0 {
			out.counts[i] -= earlier.counts[j]
		}
	}
	return out
}

// total is the number of observations.
func (h histogram) total() float64 {
	if len(h.counts) == 0 {
		return 0
	}
	return h.counts[len(h.counts)-1]
}

// atOrUnder is the share (0-1) of observations at or under bound, which must be one of
// the histogram's bounds (else NaN).
func (h histogram) atOrUnder(bound float64) float64 {
	i := slices.Index(h.bounds, bound)
	if i < 0 || h.total() == 0 {
		return math.NaN()
	}
	return h.counts[i] / h.total()
}

// quantile estimates the q-quantile (0 < q < 1) as Prometheus's histogram_quantile does:
// linear within the bucket it falls in, from 0 for the first bucket; in the +Inf bucket
// it is the largest finite bound. NaN without observations.
func (h histogram) quantile(q float64) float64 {
	total := h.total()
	if total == 0 {
		return math.NaN()
	}
	rank := q * total
	for i, c := range h.counts {
		if c < rank {
			continue
		}
		if math.IsInf(h.bounds[i], 1) {
			return h.bounds[max(i-1, 0)]
		}
		lo, below := 0.0, 0.0
		if i > 0 {
			lo, below = h.bounds[i-1], h.counts[i-1]
		}
		if c == below {
			return h.bounds[i]
		}
		return lo + (h.bounds[i]-lo)*(rank-below)/(c-below)
	}
	return h.bounds[len(h.bounds)-1]
}

// intakeHistograms is what the server's histograms say of webhook deliveries: how long
// it took to answer them, and how long their writes waited for the writer (SQLite only;
// empty on PostgreSQL).
type intakeHistograms struct {
	answer, writerWait histogram
}

// scrapeIntake scrapes the server's histograms of webhook deliveries.
func (e *env) scrapeIntake(ctx context.Context) (intakeHistograms, error) {
	var h intakeHistograms
	err := e.scrapeMetrics(ctx, "?name[]="+intakeFamily+"&name[]="+writeWaitFamily, func(r io.Reader) error {
		b, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		if h.answer, err = parseHistogram(bytes.NewReader(b), intakeFamily, ""); err != nil {
			return err
		}
		h.writerWait, err = parseHistogram(bytes.NewReader(b), writeWaitFamily, urgentWriter)
		return err
	})
	return h, err
}

// setServerIntake fills in the server's own answer time of the deliveries it counted
// between the two scrapes (percentiles estimated from its histogram, and the exact share
// answered within 10 ms), and how long their writes waited for the writer.
func (r *Result) setServerIntake(before, after intakeHistograms) {
	if h := after.answer.since(before.answer); h.total() > 0 {
		r.WebhookServer = percentilesMS(h)
		if share := h.atOrUnder(0.01); !math.IsNaN(share) {
			r.WebhookServerUnder10ms = ptr(round2(share * 100))
		}
	}
	if h := after.writerWait.since(before.writerWait); h.total() > 0 {
		r.WebhookWriterWait = percentilesMS(h)
	}
}

// percentilesMS estimates p50, p95 and p99 of a histogram in seconds, in ms.
func percentilesMS(h histogram) *testbed.Percentiles {
	ms := func(q float64) float64 { return round2(h.quantile(q) * 1000) }
	return &testbed.Percentiles{P50: ms(0.5), P95: ms(0.95), P99: ms(0.99)}
}
