package workqueue

import (
	"math/rand/v2"
	"time"
)

// Backoff computes jittered exponential delays: attempt n (from 1) waits a random
// duration in [d/2, d] where d = Base·2^(n-1), capped at Max.
type Backoff struct {
	Base time.Duration
	Max  time.Duration
	// Rand returns a number in [0, 1); nil uses math/rand/v2.
	Rand func() float64
}

// Delay returns the delay before retry number attempt (1 for the first retry).
func (b Backoff) Delay(attempt int) time.Duration {
	d := b.Base
	for i := 1; i < attempt && d < b.Max; i++ {
		d *= 2
	}
	d = min(d, b.Max)
	r := b.Rand
	if r == nil {
		r = rand.Float64
	}
	return d/2 + time.Duration(r()*float64(d/2))
}
