package intake

import (
	"container/list"
	"sync"
)

// deliveries remembers the newest delivery ids processed successfully, so that a
// duplicate or redelivered delivery is answered without side effects. It is bounded and
// in memory only: a replay it forgets is still harmless, as the ledger only moves forward.
type deliveries struct {
	max int

	mu    sync.Mutex // guards order and index
	order *list.List // of string, most recent first
	index map[string]*list.Element
}

func newDeliveries(max int) *deliveries {
	return &deliveries{max: max, order: list.New(), index: make(map[string]*list.Element, max)}
}

// seen reports whether id was added, refreshing it.
func (d *deliveries) seen(id string) bool {
	if id == "" {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	e, ok := d.index[id]
	if ok {
		d.order.MoveToFront(e)
	}
	return ok
}

// add remembers id, forgetting the least recently seen one beyond the bound.
func (d *deliveries) add(id string) {
	if id == "" {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if e, ok := d.index[id]; ok {
		d.order.MoveToFront(e)
		return
	}
	d.index[id] = d.order.PushFront(id)
	for d.order.Len() > d.max {
		old := d.order.Back()
		d.order.Remove(old)
		delete(d.index, old.Value.(string))
	}
}
