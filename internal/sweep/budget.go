package sweep

import (
	"sync"
	"time"
)

// budgets tracks, per credential, what the sweeps spent in the current rate-limit window.
type budgets struct {
	share, low float64

	mu      sync.Mutex // guards windows
	windows map[uint]*window
}

type window struct {
	reset time.Time // identifies the window
	spent int
}

func newBudgets(share, low float64) *budgets {
	return &budgets{share: share, low: low, windows: map[uint]*window{}}
}

// allow says whether a sweep with credential cred may run now, and returns the remaining
// budget to charge the sweep against.
func (b *budgets) allow(cred uint, f Forge) (int, bool) {
	rem, limit, reset := f.Budget()
	if limit <= 0 {
		return rem, true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	w := b.windowLocked(cred, reset)
	if float64(rem) < b.low*float64(limit) || float64(w.spent) >= b.share*float64(limit) {
		return rem, false
	}
	return rem, true
}

// charge records the budget a sweep used: the drop of the remaining budget since before.
func (b *budgets) charge(cred uint, f Forge, before int) {
	rem, limit, reset := f.Budget()
	if limit <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	w := b.windowLocked(cred, reset)
	if used := before - rem; used > 0 && used <= limit {
		w.spent += used
	}
}

// windowLocked returns the credential's window, starting a new one when reset changed.
func (b *budgets) windowLocked(cred uint, reset time.Time) *window {
	w := b.windows[cred]
	if w == nil || !w.reset.Equal(reset) {
		w = &window{reset: reset}
		b.windows[cred] = w
	}
	return w
}
