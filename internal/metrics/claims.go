package metrics

import (
	"slices"

	"github.com/prometheus/client_golang/prometheus"
)

// ClaimCounts is what the store counts of its claims since it opened (sqlstore.Store):
// writes refused by a stale fencing token, and claims taken over from a holder whose
// claim expired, by claim kind.
type ClaimCounts interface {
	FencingRefusals() map[string]uint64
	ClaimTakeovers() map[string]uint64
}

// ClaimKinds are the claim kinds whose series exist from the start (at 0).
var ClaimKinds = []string{"pool", "sweep", "scaleset"}

var (
	fencingRefusalsDesc = prometheus.NewDesc(namespace+"_fencing_refusals_total",
		"Writes refused because another replica took over the claim they were made under, by claim kind.",
		[]string{"claim_kind"}, nil)
	leaseTakeoversDesc = prometheus.NewDesc(namespace+"_lease_takeovers_total",
		"Claims this replica took over from a replica whose claim had expired, by kind.",
		[]string{"kind"}, nil)
)

// claimCollector reads the store's claim counters when scraped.
type claimCollector struct{ src ClaimCounts }

// AddClaimCounts registers garrison_fencing_refusals_total and
// garrison_lease_takeovers_total, read from src when scraped.
func (m *Metrics) AddClaimCounts(src ClaimCounts) error {
	return m.Registry.Register(claimCollector{src: src})
}

func (c claimCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- fencingRefusalsDesc
	ch <- leaseTakeoversDesc
}

func (c claimCollector) Collect(ch chan<- prometheus.Metric) {
	emitByKind(ch, fencingRefusalsDesc, c.src.FencingRefusals())
	emitByKind(ch, leaseTakeoversDesc, c.src.ClaimTakeovers())
}

// emitByKind sends one counter per claim kind.
func emitByKind(ch chan<- prometheus.Metric, d *prometheus.Desc, counts map[string]uint64) {
	for _, k := range kindsOf(counts) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(counts[k]), k)
	}
}

var leasesHeldDesc = prometheus.NewDesc(namespace+"_leases_held",
	"Claims this replica holds now, by kind (pool, sweep, scaleset).", []string{"kind"}, nil)

// heldCollector asks for the claims this replica holds when scraped.
type heldCollector struct{ held func() map[string]int }

// AddLeasesHeld registers garrison_leases_held, read from held when scraped; held
// returns nil when it cannot tell (the series are then left out of that scrape).
func (m *Metrics) AddLeasesHeld(held func() map[string]int) error {
	return m.Registry.Register(heldCollector{held: held})
}

func (c heldCollector) Describe(ch chan<- *prometheus.Desc) { ch <- leasesHeldDesc }

func (c heldCollector) Collect(ch chan<- prometheus.Metric) {
	held := c.held()
	if held == nil {
		return
	}
	counts := make(map[string]uint64, len(held))
	for k, n := range held {
		counts[k] = uint64(n)
	}
	for _, k := range kindsOf(counts) {
		ch <- prometheus.MustNewConstMetric(leasesHeldDesc, prometheus.GaugeValue, float64(counts[k]), k)
	}
}

// kindsOf returns the known claim kinds, always, then the others counted.
func kindsOf(counts map[string]uint64) []string {
	kinds := slices.Clone(ClaimKinds)
	for k := range counts {
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	return kinds
}

// BusStats count the notifications between replicas (internal/pgnotify) since the start.
type BusStats struct {
	Sent, Received, Dropped, Reconnects uint64
}

var (
	notificationsDesc = prometheus.NewDesc(namespace+"_replica_notifications_total",
		"Notifications between replicas: sent, received from the others, and dropped as malformed.",
		[]string{"direction"}, nil)
	notifyReconnectsDesc = prometheus.NewDesc(namespace+"_replica_notify_reconnects_total",
		"Times the listening connection for replica notifications was re-established after a loss.", nil, nil)
)

// busCollector reads the notification counters when scraped.
type busCollector struct{ stats func() BusStats }

// AddReplicaBus registers garrison_replica_notifications_total and
// garrison_replica_notify_reconnects_total, read from stats when scraped.
func (m *Metrics) AddReplicaBus(stats func() BusStats) error {
	return m.Registry.Register(busCollector{stats: stats})
}

func (c busCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- notificationsDesc
	ch <- notifyReconnectsDesc
}

func (c busCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	for _, d := range []struct {
		direction string
		n         uint64
	}{{"sent", s.Sent}, {"received", s.Received}, {"dropped", s.Dropped}} {
		ch <- prometheus.MustNewConstMetric(notificationsDesc, prometheus.CounterValue, float64(d.n), d.direction)
	}
	ch <- prometheus.MustNewConstMetric(notifyReconnectsDesc, prometheus.CounterValue, float64(s.Reconnects))
}
