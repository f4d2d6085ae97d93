package testbed

import "testing"

func TestSumSeries(t *testing.T) {
	const exposition = `# HELP garrison_fencing_refusals_total Writes refused.
# TYPE garrison_fencing_refusals_total counter
garrison_fencing_refusals_total{claim_kind="pool"} 3
garrison_fencing_refusals_total{claim_kind="scaleset"} 2
garrison_fencing_refusals_totals 100
garrison_lease_takeovers_total 7
garrison_label_odd{x="a}b"} 1.5
`
	for _, tt := range []struct {
		name string
		want float64
	}{
		{"garrison_fencing_refusals_total", 5},
		{"garrison_lease_takeovers_total", 7},
		{"garrison_label_odd", 1.5},
		{"garrison_missing", 0},
	} {
		if got := SumSeries(exposition, tt.name); got != tt.want {
			t.Errorf("SumSeries(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func FuzzSumSeries(f *testing.F) {
	f.Add("a{b=\"c\"} 1\na 2\n", "a")
	f.Add("x}\n", "x")
	f.Fuzz(func(t *testing.T, exposition, name string) {
		_ = SumSeries(exposition, name) // must not panic
	})
}
