package metrics

import (
	"strings"
	"testing"
)

// claimCounts is a ClaimCounts with fixed numbers.
type claimCounts struct{ refused, taken map[string]uint64 }

func (c claimCounts) FencingRefusals() map[string]uint64 { return c.refused }
func (c claimCounts) ClaimTakeovers() map[string]uint64  { return c.taken }

func TestClaimCounters(t *testing.T) {
	cases := []struct {
		name   string
		counts claimCounts
		want   []string
	}{
		{"nothing counted yet: every kind at 0", claimCounts{}, []string{
			`garrison_fencing_refusals_total{claim_kind="pool"} 0`,
			`garrison_fencing_refusals_total{claim_kind="sweep"} 0`,
			`garrison_fencing_refusals_total{claim_kind="scaleset"} 0`,
			`garrison_lease_takeovers_total{kind="pool"} 0`,
		}},
		{"counts by kind, an unknown kind too", claimCounts{
			refused: map[string]uint64{"pool": 3, "scaleset": 1},
			taken:   map[string]uint64{"pool": 2, "sweep": 5, "other": 1},
		}, []string{
			`garrison_fencing_refusals_total{claim_kind="pool"} 3`,
			`garrison_fencing_refusals_total{claim_kind="scaleset"} 1`,
			`garrison_fencing_refusals_total{claim_kind="sweep"} 0`,
			`garrison_lease_takeovers_total{kind="pool"} 2`,
			`garrison_lease_takeovers_total{kind="sweep"} 5`,
			`garrison_lease_takeovers_total{kind="other"} 1`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := New()
			if err := m.AddClaimCounts(tc.counts); err != nil {
				t.Fatal(err)
			}
			wantLines(t, scrape(t, m), tc.want...)
		})
	}
}

func TestLeasesHeld(t *testing.T) {
	cases := []struct {
		name   string
		held   map[string]int
		want   []string
		absent string
	}{
		{"some held", map[string]int{"pool": 4, "scaleset": 1}, []string{
			`garrison_leases_held{kind="pool"} 4`, `garrison_leases_held{kind="scaleset"} 1`, `garrison_leases_held{kind="sweep"} 0`,
		}, ""},
		{"cannot tell: no series", nil, nil, "garrison_leases_held{"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := New()
			if err := m.AddLeasesHeld(func() map[string]int { return tc.held }); err != nil {
				t.Fatal(err)
			}
			body := scrape(t, m)
			wantLines(t, body, tc.want...)
			if tc.absent != "" && strings.Contains(body, tc.absent) {
				t.Errorf("metrics output has %q", tc.absent)
			}
		})
	}
}

func TestReplicaBusCounters(t *testing.T) {
	m := New()
	if err := m.AddReplicaBus(func() BusStats { return BusStats{Sent: 5, Received: 7, Dropped: 1, Reconnects: 2} }); err != nil {
		t.Fatal(err)
	}
	wantLines(t, scrape(t, m),
		`garrison_replica_notifications_total{direction="sent"} 5`,
		`garrison_replica_notifications_total{direction="received"} 7`,
		`garrison_replica_notifications_total{direction="dropped"} 1`,
		`garrison_replica_notify_reconnects_total 2`,
	)
}
