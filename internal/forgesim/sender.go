package forgesim

import (
	"context"
	"sync"
	"time"
)

// sender delivers webhooks from one goroutine, in queue order, except for delayed
// deliveries (each on its own timer) and reordered ones (held back behind the next).
type sender struct {
	sim    *Sim
	ctx    context.Context // cancelled by close; aborts delays and requests
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex // guards queue, held, busy and closed
	cond   *sync.Cond
	queue  []*outgoing
	held   *outgoing
	busy   int
	closed bool
}

func newSender(s *Sim) *sender {
	ctx, cancel := context.WithCancel(context.Background())
	sd := &sender{sim: s, ctx: ctx, cancel: cancel}
	sd.cond = sync.NewCond(&sd.mu)
	sd.wg.Add(1)
	go sd.loop()
	return sd
}

func (sd *sender) enqueue(o *outgoing, reorderWindow time.Duration) {
	sd.mu.Lock()
	defer sd.mu.Unlock()
	if sd.closed {
		return
	}
	switch {
	case sd.held != nil:
		sd.queue = append(sd.queue, o, sd.held)
		sd.held = nil
	case o.reorder:
		sd.held = o
		time.AfterFunc(reorderWindow, func() { sd.release(o) })
	default:
		sd.queue = append(sd.queue, o)
	}
	sd.cond.Signal()
}

// release queues a held-back delivery whose successor did not come in time.
func (sd *sender) release(o *outgoing) {
	sd.mu.Lock()
	defer sd.mu.Unlock()
	if sd.held == o {
		sd.held = nil
		sd.queue = append(sd.queue, o)
		sd.cond.Signal()
	}
}

func (sd *sender) next() (*outgoing, bool) {
	sd.mu.Lock()
	defer sd.mu.Unlock()
	for len(sd.queue) == 0 && !sd.closed {
		sd.cond.Wait()
	}
	if sd.closed {
		return nil, false
	}
	o := sd.queue[0]
	sd.queue = sd.queue[1:]
	sd.busy++
	return o, true
}

func (sd *sender) loop() {
	defer sd.wg.Done()
	for {
		o, ok := sd.next()
		if !ok {
			return
		}
		if o.delay > 0 {
			sd.wg.Add(1)
			go func() {
				defer sd.wg.Done()
				select {
				case <-time.After(o.delay):
					sd.send(o)
				case <-sd.ctx.Done():
					sd.done()
				}
			}()
			continue
		}
		sd.send(o)
	}
}

func (sd *sender) send(o *outgoing) {
	defer sd.done()
	sd.sim.deliver(sd.ctx, o)
	if o.dup {
		sd.sim.deliver(sd.ctx, o)
	}
}

func (sd *sender) done() {
	sd.mu.Lock()
	defer sd.mu.Unlock()
	sd.busy--
}

func (sd *sender) idle() bool {
	sd.mu.Lock()
	defer sd.mu.Unlock()
	return len(sd.queue) == 0 && sd.held == nil && sd.busy == 0
}

func (sd *sender) close() {
	sd.mu.Lock()
	if sd.closed {
		sd.mu.Unlock()
		return
	}
	sd.closed = true
	sd.queue, sd.held = nil, nil
	sd.cond.Broadcast()
	sd.mu.Unlock()
	sd.cancel()
	sd.wg.Wait()
}
