package metrics

import (
	"testing"
	"time"
)

func TestWriteWaitByWriter(t *testing.T) {
	m := New()
	m.ObserveWriteWait(true, 0)
	m.ObserveWriteWait(true, 3*time.Millisecond)
	m.ObserveWriteWait(false, 40*time.Millisecond)
	wantLines(t, scrape(t, m),
		`garrison_store_write_wait_seconds_bucket{writer="urgent",le="0.0001"} 1`,
		`garrison_store_write_wait_seconds_bucket{writer="urgent",le="0.005"} 2`,
		`garrison_store_write_wait_seconds_count{writer="urgent"} 2`,
		`garrison_store_write_wait_seconds_bucket{writer="ordinary",le="0.025"} 0`,
		`garrison_store_write_wait_seconds_bucket{writer="ordinary",le="0.05"} 1`,
		`garrison_store_write_wait_seconds_count{writer="ordinary"} 1`,
	)
}
