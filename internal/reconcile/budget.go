package reconcile

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Budget kinds: what a budget bounds the concurrent calls to.
const (
	budgetProvider    = "provider"    // one provider (by name)
	budgetCredentials = "credentials" // one forge credential (by id)
)

// budgetID names one budget.
type budgetID struct {
	kind string
	key  string // the provider name, the credentials id
}

// waiter is a controller key waiting for a slot: wake hands it back to its queue.
type waiter struct {
	id   string // queue name and key, unique across the controllers
	wake func()
}

// budget is a counting semaphore with a FIFO of waiting keys.
type budget struct {
	name    string // for the metrics: the provider's or the credentials' name
	limit   int
	inUse   int
	waiting []waiter
}

// budgets isolates providers and forge credentials from each other: each gets a few
// concurrent calls, and a step that finds its budget full does not wait for it: its key
// is registered as a waiter and the step returns at once, holding no worker. A released
// slot hands one waiter back to its queue.
type budgets struct {
	limits map[string]int // by kind

	mu      sync.Mutex // guards all and waiting
	all     map[budgetID]*budget
	waiting map[string]int // waiter id -> budgets it waits for
}

func newBudgets(providerLimit, credentialsLimit int) *budgets {
	return &budgets{limits: map[string]int{budgetProvider: providerLimit, budgetCredentials: credentialsLimit},
		all: map[budgetID]*budget{}, waiting: map[string]int{}}
}

// take takes a slot of budget id for w. When the budget is full it registers w as a
// waiter (once; not a waiter with no id) and returns false. limit is the budget's size;
// 0 gives its kind's default.
func (b *budgets) take(id budgetID, name string, limit int, w waiter) (release func(), ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if limit <= 0 {
		limit = b.limits[id.kind]
	}
	bg := b.all[id]
	if bg == nil {
		bg = &budget{name: name, limit: limit}
		b.all[id] = bg
	}
	bg.limit = limit // a provider reconfigured on reload
	if bg.inUse >= bg.limit {
		if w.id == "" {
			return nil, false
		}
		for _, o := range bg.waiting {
			if o.id == w.id {
				return nil, false
			}
		}
		bg.waiting = append(bg.waiting, w)
		b.waiting[w.id]++
		return nil, false
	}
	bg.inUse++
	var once sync.Once
	return func() { once.Do(func() { b.release(id) }) }, true
}

// release frees a slot of budget id and wakes its oldest waiter.
func (b *budgets) release(id budgetID) {
	b.mu.Lock()
	bg := b.all[id]
	bg.inUse--
	next := b.wakeLocked(id, bg)
	b.mu.Unlock()
	if next != nil {
		next.wake()
	}
}

// rewake is how long a slot handed to a woken waiter stays its own: a waiter that does
// not take it by then (it had nothing left to do, or must wait out a backoff) passes it
// to the next.
const rewake = time.Second

// wakeLocked takes the oldest waiter of a budget with a free slot off its list and
// returns it (nil when there is none), and makes sure the slot is offered again if that
// waiter does not take it. It drops a budget that is idle.
func (b *budgets) wakeLocked(id budgetID, bg *budget) *waiter {
	if bg.inUse >= bg.limit || len(bg.waiting) == 0 {
		if bg.inUse == 0 && len(bg.waiting) == 0 {
			delete(b.all, id) // budgets of providers and credentials gone leave no trace
		}
		return nil
	}
	w := bg.waiting[0]
	bg.waiting = bg.waiting[1:]
	if b.waiting[w.id]--; b.waiting[w.id] == 0 {
		delete(b.waiting, w.id)
	}
	time.AfterFunc(rewake, func() { b.rewake(id) })
	return &w
}

// rewake wakes the next waiter of a budget whose slot is still free.
func (b *budgets) rewake(id budgetID) {
	b.mu.Lock()
	var next *waiter
	if bg := b.all[id]; bg != nil {
		next = b.wakeLocked(id, bg)
	}
	b.mu.Unlock()
	if next != nil {
		next.wake()
	}
}

// isWaiting reports whether the waiter waits for a slot of any budget.
func (b *budgets) isWaiting(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.waiting[id] > 0
}

// budgetCollector reports the budgets at each scrape: garrison_budget_in_use and
// garrison_budget_waiting by kind and name.
type budgetCollector struct{ b *budgets }

var (
	budgetInUseDesc = prometheus.NewDesc("garrison_budget_in_use",
		"Calls running against a provider's or a forge credential's concurrency budget.", []string{"kind", "name"}, nil)
	budgetWaitingDesc = prometheus.NewDesc("garrison_budget_waiting",
		"Controller keys waiting for a slot of a provider's or a forge credential's concurrency budget.", []string{"kind", "name"}, nil)
)

func (c budgetCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- budgetInUseDesc
	ch <- budgetWaitingDesc
}

func (c budgetCollector) Collect(ch chan<- prometheus.Metric) {
	type row struct {
		kind, name     string
		inUse, waiting int
	}
	c.b.mu.Lock()
	rows := make([]row, 0, len(c.b.all))
	for id, bg := range c.b.all {
		rows = append(rows, row{id.kind, bg.name, bg.inUse, len(bg.waiting)})
	}
	c.b.mu.Unlock()
	seen := map[[2]string]bool{}
	for _, r := range rows {
		if seen[[2]string{r.kind, r.name}] {
			continue // two credentials of one name: the first is reported
		}
		seen[[2]string{r.kind, r.name}] = true
		ch <- prometheus.MustNewConstMetric(budgetInUseDesc, prometheus.GaugeValue, float64(r.inUse), r.kind, r.name)
		ch <- prometheus.MustNewConstMetric(budgetWaitingDesc, prometheus.GaugeValue, float64(r.waiting), r.kind, r.name)
	}
}
