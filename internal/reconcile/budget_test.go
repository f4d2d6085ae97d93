package reconcile

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// TestBudgets: a budget hands out its slots, queues the keys that find it full once
// each, in order, and wakes one per released slot; budgets are independent.
func TestBudgets(t *testing.T) {
	b := newBudgets(2, 1)
	var woken []string
	w := func(id string) waiter { return waiter{id: id, wake: func() { woken = append(woken, id) }} }
	prov := budgetID{budgetProvider, "sim"}
	cred := budgetID{budgetCredentials, "7"}

	r1, ok1 := b.take(prov, "sim", 0, w("a"))
	r2, ok2 := b.take(prov, "sim", 0, w("b"))
	if !ok1 || !ok2 {
		t.Fatal("the two slots of the provider were not handed out")
	}
	for _, id := range []string{"c", "d", "c"} {
		if _, ok := b.take(prov, "sim", 0, w(id)); ok {
			t.Fatalf("%s took a slot of a full budget", id)
		}
	}
	if _, ok := b.take(prov, "sim", 0, waiter{}); ok {
		t.Fatal("a try took a slot of a full budget")
	}
	if !b.isWaiting("c") || !b.isWaiting("d") || b.isWaiting("a") {
		t.Fatal("waiters wrong")
	}
	if _, ok := b.take(cred, "ci", 0, w("e")); !ok {
		t.Fatal("a full provider budget blocked the credentials' budget")
	}
	r1()
	r1() // a second release of the same slot does nothing
	if !slices.Equal(woken, []string{"c"}) {
		t.Fatalf("woken after one release = %v, want [c]", woken)
	}
	r2()
	if !slices.Equal(woken, []string{"c", "d"}) || b.isWaiting("c") || b.isWaiting("d") {
		t.Fatalf("woken after two releases = %v, want [c d] and no one waiting", woken)
	}
	if _, ok := b.take(prov, "sim", 0, w("f")); !ok {
		t.Fatal("a freed slot was not handed out")
	}
}

// TestBudgetSlotPassedOn: a woken waiter that does not take its slot (it had nothing
// left to do) does not keep the others waiting: the slot is offered to the next.
func TestBudgetSlotPassedOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBudgets(1, 1)
		var mu sync.Mutex
		var woken []string
		w := func(id string) waiter {
			return waiter{id: id, wake: func() { mu.Lock(); woken = append(woken, id); mu.Unlock() }}
		}
		id := budgetID{budgetProvider, "sim"}
		release, _ := b.take(id, "sim", 0, w("a"))
		b.take(id, "sim", 0, w("b"))
		b.take(id, "sim", 0, w("c"))
		release() // b is woken, and never comes back
		time.Sleep(2 * rewake)
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		if !slices.Equal(woken, []string{"b", "c"}) {
			t.Fatalf("woken = %v, want b, then c when b left the slot alone", woken)
		}
	})
}

func TestBudgetMetrics(t *testing.T) {
	b := newBudgets(1, 1)
	reg := prometheus.NewRegistry()
	reg.MustRegister(budgetCollector{b})
	nop := func(id string) waiter { return waiter{id: id, wake: func() {}} }
	b.take(budgetID{budgetProvider, "lxd"}, "lxd", 0, nop("a"))
	b.take(budgetID{budgetProvider, "lxd"}, "lxd", 0, nop("b"))
	b.take(budgetID{budgetProvider, "lxd"}, "lxd", 0, nop("c"))
	b.take(budgetID{budgetCredentials, "3"}, "ci", 0, nop("d"))
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			got[f.GetName()+"{"+strings.Join(labels, ",")+"}"] = m.GetGauge().GetValue()
		}
	}
	want := map[string]float64{
		"garrison_budget_in_use{kind=provider,name=lxd}":    1,
		"garrison_budget_waiting{kind=provider,name=lxd}":   2,
		"garrison_budget_in_use{kind=credentials,name=ci}":  1,
		"garrison_budget_waiting{kind=credentials,name=ci}": 0,
	}
	if len(got) != len(want) {
		t.Errorf("series = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}

// state is how many slots of budget id are in use and how many keys wait for one.
func (b *budgets) state(id budgetID) (inUse, waiting int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if bg := b.all[id]; bg != nil {
		return bg.inUse, len(bg.waiting)
	}
	return 0, 0
}

// TestBudgetLimitPerProvider: a provider's own concurrency (max_concurrency) sizes its
// budget; 0 gives the kind's default; a changed limit applies to the next take.
func TestBudgetLimitPerProvider(t *testing.T) {
	b := newBudgets(2, 1)
	take := func(id budgetID, limit int) int {
		n := 0
		for {
			if _, ok := b.take(id, id.key, limit, waiter{}); !ok {
				return n
			}
			n++
		}
	}
	for _, tc := range []struct {
		name  string
		id    budgetID
		limit int
		want  int
	}{
		{"provider default", budgetID{budgetProvider, "a"}, 0, 2},
		{"provider max_concurrency", budgetID{budgetProvider, "b"}, 10, 10},
		{"credentials default", budgetID{budgetCredentials, "1"}, 0, 1},
	} {
		if got := take(tc.id, tc.limit); got != tc.want {
			t.Errorf("%s: %d slots, want %d", tc.name, got, tc.want)
		}
	}
	if got := take(budgetID{budgetProvider, "b"}, 12); got != 2 {
		t.Errorf("provider b raised to 12 with 10 in use: %d more slots, want 2", got)
	}
}
