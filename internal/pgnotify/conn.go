package pgnotify

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// connect opens a connection to the database.
func (b *Bus) connect(ctx context.Context) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return pgx.ConnectConfig(ctx, b.cfg.Copy())
}

// closeConn closes c without waiting long for a database that went away.
func closeConn(c *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = c.Close(ctx)
}

// listen keeps a connection that LISTENs on the channel and delivers what arrives.
func (b *Bus) listen(ctx context.Context) {
	failures, connected := 0, false
	for ctx.Err() == nil {
		err := b.listenOnce(ctx, connected, func() { failures, connected = 0, true })
		if ctx.Err() != nil {
			return
		}
		b.o.Logger.Warn("pgnotify: listening connection lost; reconnecting", slog.Any("err", err),
			slog.Int("failures", failures+1))
		if !sleep(ctx, b.backoff(failures)) {
			return
		}
		failures++
	}
}

// listenOnce connects, LISTENs and delivers notifications until the connection fails.
// up is called once the connection listens.
func (b *Bus) listenOnce(ctx context.Context, reconnect bool, up func()) error {
	c, err := b.connect(ctx)
	if err != nil {
		return err
	}
	defer closeConn(c)
	if _, err := c.Exec(ctx, "LISTEN "+pgx.Identifier{b.o.Channel}.Sanitize()); err != nil {
		return err
	}
	up()
	if reconnect {
		b.count(func(s *Stats) { s.Reconnects++ })
		b.o.Logger.Info("pgnotify: listening again")
	}
	if b.o.OnConnect != nil {
		b.o.OnConnect(reconnect)
	}
	for {
		n, err := c.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		m, err := Decode(n.Payload)
		if err != nil {
			b.count(func(s *Stats) { s.Dropped++ })
			b.o.Logger.Warn("pgnotify: ignoring a malformed notification", slog.Any("err", err))
			continue
		}
		if m.From == b.o.Replica {
			continue
		}
		b.count(func(s *Stats) { s.Received++ })
		b.o.Deliver(m)
	}
}

// send keeps a connection that NOTIFYs the keys Publish collects. A batch that could
// not be sent goes back to the pending keys and is tried again after a backoff.
func (b *Bus) send(ctx context.Context) {
	var c *pgx.Conn
	defer func() {
		if c != nil {
			closeConn(c)
		}
	}()
	failures := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.wake:
		}
		batch := b.take()
		if len(batch) == 0 {
			continue
		}
		var err error
		if c == nil {
			c, err = b.connect(ctx)
		}
		if err == nil {
			err = b.notify(ctx, c, batch)
		}
		if err == nil {
			failures = 0
			continue
		}
		if c != nil {
			closeConn(c)
			c = nil
		}
		if ctx.Err() != nil {
			return
		}
		b.o.Logger.Warn("pgnotify: notifying the other replicas failed; retrying", slog.Any("err", err))
		for kind, keys := range batch {
			b.Publish(kind, keys...) // wakes the next round
		}
		if !sleep(ctx, b.backoff(failures)) {
			return
		}
		failures++
	}
}

// notify sends a batch: one pg_notify per payload.
func (b *Bus) notify(ctx context.Context, c *pgx.Conn, batch map[string][]string) error {
	for kind, keys := range batch {
		for _, p := range Encode(Message{From: b.o.Replica, Kind: kind, Keys: keys}) {
			if _, err := c.Exec(ctx, "SELECT pg_notify($1, $2)", b.o.Channel, p); err != nil {
				return err
			}
			b.count(func(s *Stats) { s.Sent++ })
		}
	}
	return nil
}
