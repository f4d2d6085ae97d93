package github_test

import (
	"sync"

	"github.com/garrison-ci/garrison"
)

type observer struct {
	mu sync.Mutex // guards n
	n  int
}

func (o *observer) ObserveRateLimit(_, _ string, _ garrison.RateLimit) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.n++
}

func (o *observer) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.n
}
