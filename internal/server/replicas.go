package server

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/config"
	"github.com/garrison-ci/garrison/internal/metrics"
	"github.com/garrison-ci/garrison/internal/pgnotify"
)

// newReplicaID names this process among the replicas sharing a database: its host name,
// its process id and a random suffix, so that no two processes (not even a restarted
// one and a paused predecessor) share a name, and so their claims and fencing tokens
// stay apart.
func newReplicaID() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	return sanitizeID(host) + "-" + strconv.Itoa(os.Getpid()) + "-" + randomSuffix()
}

// sanitizeID keeps a replica id to printable ASCII without spaces or commas.
func sanitizeID(s string) string {
	return strings.Map(func(r rune) rune {
		if r <= ' ' || r > '~' || r == ',' {
			return '_'
		}
		return r
	}, s)
}

// wireNotifications connects the replicas sharing a PostgreSQL database: work this
// replica is told about (a webhook, an API write, an instance callback) is announced to
// the others on a channel of the installation, and what they announce is enqueued here
// when this replica holds the pool. A SQLite server is the only replica: nothing to wire.
func (a *Server) wireNotifications(ctrl garrison.Controller) error {
	if a.cfg.Database.Backend != config.BackendPostgres {
		return nil
	}
	bus, err := pgnotify.New(pgnotify.Options{
		DSN:       a.cfg.Database.Postgres.DSN,
		Channel:   notifyChannel(ctrl.ID),
		Replica:   a.replicaID,
		Deliver:   a.deliver,
		OnConnect: a.notificationsConnected,
		Logger:    a.logger,
	})
	if err != nil {
		return fmt.Errorf("replica notifications: %w", err)
	}
	a.bus = bus
	return a.metrics.AddReplicaBus(func() metrics.BusStats {
		s := bus.Stats()
		return metrics.BusStats{Sent: s.Sent, Received: s.Received, Dropped: s.Dropped, Reconnects: s.Reconnects}
	})
}

// notifyChannel is the LISTEN/NOTIFY channel of an installation: channels are global to
// the database server, and two installations (schemas) must not wake each other.
func notifyChannel(controllerID string) string {
	return "garrison_" + strings.ReplaceAll(controllerID, "-", "")
}

// deliver enqueues the work another replica announced.
func (a *Server) deliver(m pgnotify.Message) {
	switch m.Kind {
	case pgnotify.KindPool:
		a.pools.NotifyHeld(m.Keys...)
	case pgnotify.KindScaleSet:
		for _, k := range m.Keys {
			if id, err := strconv.ParseUint(k, 10, 32); err == nil {
				a.scaleSets.Notify(uint(id))
			}
		}
	default:
		a.logger.Debug("replica notification of an unknown kind", slog.String("kind", m.Kind), slog.String("from", m.From))
	}
}

// notificationsConnected resyncs every pool after the notification channel was down:
// what other replicas announced meanwhile is found now rather than at the next resync.
func (a *Server) notificationsConnected(reconnected bool) {
	if reconnected {
		a.pools.Resync()
	}
}

// runNotifications runs the notification bus, if any, until ctx is done.
func (a *Server) runNotifications(ctx context.Context) {
	if a.bus != nil {
		_ = a.bus.Run(ctx)
	}
}

// notifyPools enqueues pool keys for reconciliation and announces them to the other
// replicas; it never blocks.
func (a *Server) notifyPools(poolIDs ...string) {
	a.pools.Notify(poolIDs...)
	if a.bus != nil {
		a.bus.Publish(pgnotify.KindPool, poolIDs...)
	}
}

// notifyScaleSet wakes a scale set's listener here and on the other replicas (the one
// holding its session acts).
func (a *Server) notifyScaleSet(id uint) {
	a.scaleSets.Notify(id)
	if a.bus != nil {
		a.bus.Publish(pgnotify.KindScaleSet, strconv.FormatUint(uint64(id), 10))
	}
}
