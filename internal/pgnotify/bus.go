// Package pgnotify tells the replicas sharing one PostgreSQL database about new work with
// LISTEN/NOTIFY (through pgx): a webhook stored by one replica wakes the replica that
// holds the pool at once, without any replica polling the database for it.
//
// Notifications are hints. One lost while a connection was down is covered by each
// replica's periodic resync; Options.OnConnect is told after every reconnection so the
// receiver may resync at once.
package pgnotify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultChannel is the channel garrison's replicas notify on.
const DefaultChannel = "garrison_work"

// Options configure a Bus. DSN, Replica and Deliver are required.
type Options struct {
	// DSN names the database (as the store's [database.postgres] dsn).
	DSN string
	// Channel is the LISTEN/NOTIFY channel (default DefaultChannel).
	Channel string
	// Replica is this replica's id: messages it sent are not delivered back to it.
	Replica string
	// Deliver is given each message another replica sent; it must not block.
	Deliver func(Message)
	// OnConnect, when set, is told after the listening connection is (re)established,
	// with whether it is a reconnection (notifications may have been lost meanwhile).
	OnConnect func(reconnected bool)
	// MinBackoff and MaxBackoff space reconnections (default 100 ms doubling to 10 s,
	// jittered).
	MinBackoff, MaxBackoff time.Duration
	Logger                 *slog.Logger
}

// Bus sends and receives notifications. Create it with New, start it with Run.
type Bus struct {
	o    Options
	cfg  *pgx.ConnConfig
	wake chan struct{} // a send is pending

	mu      sync.Mutex          // guards pending and the counters
	pending map[string][]string // kind -> keys to send
	stats   Stats
}

// Stats count what a Bus did since it started.
type Stats struct {
	Sent, Received, Dropped, Reconnects uint64
}

// New checks the options and returns a Bus.
func New(o Options) (*Bus, error) {
	if o.DSN == "" || o.Replica == "" || o.Deliver == nil {
		return nil, errors.New("pgnotify: DSN, Replica and Deliver are required")
	}
	if err := validWord(o.Replica); err != nil {
		return nil, fmt.Errorf("pgnotify: replica id %q: %w", o.Replica, err)
	}
	cfg, err := pgx.ParseConfig(o.DSN)
	if err != nil {
		return nil, fmt.Errorf("pgnotify: parse dsn: %w", err)
	}
	if o.Channel == "" {
		o.Channel = DefaultChannel
	}
	// Operators see the bus's connections as such in pg_stat_activity.
	cfg.RuntimeParams["application_name"] = "garrison-notify " + o.Replica
	if o.MinBackoff <= 0 {
		o.MinBackoff = 100 * time.Millisecond
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(10*time.Second, o.MinBackoff)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Bus{o: o, cfg: cfg, wake: make(chan struct{}, 1), pending: map[string][]string{}}, nil
}

// Publish asks for keys of a kind to be sent to the other replicas. It never blocks:
// keys published while a send is under way go with the next one, once each.
func (b *Bus) Publish(kind string, keys ...string) {
	if len(keys) == 0 {
		return
	}
	b.mu.Lock()
	b.pending[kind] = append(b.pending[kind], keys...)
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// Stats returns the counters.
func (b *Bus) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stats
}

// Run listens and sends until ctx is done, reconnecting after failures.
func (b *Bus) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Go(func() { b.listen(ctx) })
	wg.Go(func() { b.send(ctx) })
	wg.Wait()
	return nil
}

// take returns the pending keys by kind, each key once, and empties them.
func (b *Bus) take() map[string][]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string][]string, len(b.pending))
	for kind, keys := range b.pending {
		seen := make(map[string]bool, len(keys))
		for _, k := range keys {
			if !seen[k] {
				seen[k] = true
				out[kind] = append(out[kind], k)
			}
		}
	}
	clear(b.pending)
	return out
}

func (b *Bus) count(f func(*Stats)) {
	b.mu.Lock()
	f(&b.stats)
	b.mu.Unlock()
}

// backoff returns the wait before the attempt after n failures in a row.
func (b *Bus) backoff(n int) time.Duration {
	d := b.o.MinBackoff
	for range min(n, 30) {
		d *= 2
		if d >= b.o.MaxBackoff {
			d = b.o.MaxBackoff
			break
		}
	}
	return d/2 + rand.N(d/2+1)
}

// sleep waits d or until ctx is done, and reports whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
