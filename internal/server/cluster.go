package server

import (
	"context"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/config"
)

// replicaPrune is how long a replica's row outlives its last heartbeat (at least): the
// operator sees a dead replica for a while, then it goes.
const replicaPrune = time.Hour

// cluster is the operator's view of the replicas sharing the database and their claims
// (httpapi.Cluster), and this replica's heartbeat.
type cluster struct {
	a       *Server
	started time.Time

	mu      sync.Mutex // guards address
	address string     // where this replica's API listens, once it serves
}

func newCluster(a *Server) *cluster { return &cluster{a: a, started: time.Now()} }

// shared reports whether replicas share the database (PostgreSQL): a SQLite server is
// the only one, keeps no heartbeat row and answers for itself.
func (c *cluster) shared() bool { return c.a.cfg.Database.Backend == config.BackendPostgres }

// self is this replica as of now.
func (c *cluster) self() garrison.Replica {
	c.mu.Lock()
	defer c.mu.Unlock()
	return garrison.Replica{ID: c.a.replicaID, Address: c.address, Version: Version(), StartedAt: c.started,
		HeartbeatAt: time.Now()}
}

// Replicas lists the replicas: the store's heartbeat rows, or this one alone on SQLite.
func (c *cluster) Replicas(ctx context.Context) ([]garrison.Replica, string, error) {
	if !c.shared() {
		return []garrison.Replica{c.self()}, c.a.replicaID, nil
	}
	reps, err := c.a.store.ListReplicas(ctx)
	return reps, c.a.replicaID, err
}

// Claims lists every claim.
func (c *cluster) Claims(ctx context.Context) ([]garrison.Claim, error) {
	return c.a.store.ListClaims(ctx)
}

// LeaseTTL is how long claims last.
func (c *cluster) LeaseTTL() time.Duration { return c.a.cfg.Server.LeaseTTL }

// listening records the address the API listens on: the listener's, with the host name
// instead of an unspecified IP.
func (c *cluster) listening(addr net.Addr) {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		if h, err := os.Hostname(); err == nil && h != "" {
			host = h
		}
	}
	c.mu.Lock()
	c.address = net.JoinHostPort(host, port)
	c.mu.Unlock()
}

// heartbeat writes this replica's heartbeat every third of the lease time until ctx is
// done, pruning replicas long dead, and removes its row at the end (PostgreSQL only).
func (c *cluster) heartbeat(ctx context.Context) {
	if !c.shared() {
		return
	}
	every := max(c.LeaseTTL()/3, 100*time.Millisecond)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		c.beat(ctx)
		select {
		case <-ctx.Done():
			end, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := c.a.store.RemoveReplica(end, c.a.replicaID); err != nil {
				c.a.logger.Warn("replica: removing the heartbeat row", slog.Any("err", err))
			}
			return
		case <-t.C:
		}
	}
}

func (c *cluster) beat(ctx context.Context) {
	if _, err := c.a.store.Heartbeat(ctx, c.self()); err != nil {
		if ctx.Err() == nil {
			c.a.logger.Warn("replica: heartbeat", slog.Any("err", err))
		}
		return
	}
	prune := max(replicaPrune, 10*c.LeaseTTL())
	if n, err := c.a.store.PruneReplicas(ctx, time.Now().Add(-prune)); err == nil && n > 0 {
		c.a.logger.Info("replica: forgot replicas silent for long", slog.Int("replicas", n), slog.Duration("silent_for", prune))
	}
}
