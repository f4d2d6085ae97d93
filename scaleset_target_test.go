package garrison

import "testing"

func TestScaleSetTarget(t *testing.T) {
	tests := []struct {
		name                   string
		minIdle, max, assigned int
		want                   int
	}{
		{"nothing to do", 0, 10, 0, 0},
		{"idle floor only", 2, 10, 0, 2},
		{"jobs on top of the floor", 2, 10, 3, 5},
		{"capped at max", 2, 10, 50, 10},
		{"exactly max", 0, 4, 4, 4},
		{"max zero stops all", 3, 0, 7, 0},
		{"max below min caps", 5, 3, 0, 3},
		{"negative assigned counts as zero", 1, 10, -4, 1},
		{"negative min counts as zero", -2, 10, 3, 3},
		{"negative max counts as zero", 1, -1, 3, 0},
		{"large burst", 0, 1000, 1_000_000, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ScaleSetTarget(tt.minIdle, tt.max, tt.assigned); got != tt.want {
				t.Errorf("ScaleSetTarget(%d, %d, %d) = %d, want %d", tt.minIdle, tt.max, tt.assigned, got, tt.want)
			}
		})
	}
}
