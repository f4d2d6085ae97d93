package garrison

import "testing"

func TestUnservedReason(t *testing.T) {
	pool := func(enabled bool, tags ...string) Pool {
		return Pool{Enabled: enabled, Tags: TagsFromNames(tags)}
	}
	tests := []struct {
		name   string
		pools  []Pool
		labels []string
		want   string
	}{
		{"an enabled pool has them all", []Pool{pool(false, "linux", "gpu"), pool(true, "Linux", "GPU", "x64")},
			[]string{"linux", "gpu"}, ""},
		{"only disabled pools have them", []Pool{pool(false, "linux", "gpu"), pool(true, "linux")},
			[]string{"linux", "gpu"}, "every pool matching labels [linux gpu] is disabled"},
		{"no pool has them all", []Pool{pool(true, "linux"), pool(true, "gpu")},
			[]string{"linux", "gpu"}, "no pool has all of the labels [linux gpu]"},
		{"no pools", nil, []string{"ubuntu-latest"}, "no pool has all of the labels [ubuntu-latest]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := UnservedReason(tt.pools, tt.labels); got != tt.want {
				t.Fatalf("UnservedReason = %q, want %q", got, tt.want)
			}
		})
	}
}
