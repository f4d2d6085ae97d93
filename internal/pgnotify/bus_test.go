package pgnotify

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

const dsnEnv = "GARRISON_TEST_POSTGRES_DSN"

func testDSN(t *testing.T) string {
	dsn := os.Getenv(dsnEnv)
	if dsn == "" {
		t.Skip("set " + dsnEnv + "=postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable to run")
	}
	return dsn
}

// replica is a running Bus and what it was given.
type replica struct {
	bus       *Bus
	got       chan Message
	connected chan bool
}

func startReplica(t *testing.T, dsn, channel, id string) *replica {
	t.Helper()
	r := &replica{got: make(chan Message, 100), connected: make(chan bool, 10)}
	var err error
	r.bus, err = New(Options{DSN: dsn, Channel: channel, Replica: id,
		Deliver:    func(m Message) { r.got <- m },
		OnConnect:  func(re bool) { r.connected <- re },
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = r.bus.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	if re := <-r.connected; re {
		t.Fatal("first connection reported as a reconnection")
	}
	return r
}

// receive waits for the next message (bounded by the test's deadline).
func (r *replica) receive(t *testing.T) Message {
	t.Helper()
	select {
	case m := <-r.got:
		return m
	case <-t.Context().Done():
		t.Fatal("no message")
		return Message{}
	}
}

func channelName() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "garrison_test_" + hex.EncodeToString(b)
}

func TestReplicasNotifyEachOther(t *testing.T) {
	dsn, ch := testDSN(t), channelName()
	a, b := startReplica(t, dsn, ch, "replica-a"), startReplica(t, dsn, ch, "replica-b")
	a.bus.Publish(KindPool, "p1", "p2", "p1")
	m := b.receive(t)
	if m.From != "replica-a" || m.Kind != KindPool || !slices.Equal(m.Keys, []string{"p1", "p2"}) {
		t.Fatalf("b got %+v", m)
	}
	b.bus.Publish(KindScaleSet, "7")
	if m := a.receive(t); m.From != "replica-b" || m.Kind != KindScaleSet || !slices.Equal(m.Keys, []string{"7"}) {
		t.Fatalf("a got %+v", m)
	}
	// Neither got its own message back.
	select {
	case m := <-a.got:
		t.Fatalf("a got %+v", m)
	case m := <-b.got:
		t.Fatalf("b got %+v", m)
	default:
	}
	if s := a.bus.Stats(); s.Received != 1 {
		t.Fatalf("a's stats %+v", s)
	}
}

func TestMalformedNotificationsAreDropped(t *testing.T) {
	dsn, ch := testDSN(t), channelName()
	a := startReplica(t, dsn, ch, "replica-a")
	c, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	for _, p := range []string{"hello", "v1 x pool a,,b", "v1 x pool ok"} {
		if _, err := c.Exec(t.Context(), "SELECT pg_notify($1, $2)", ch, p); err != nil {
			t.Fatal(err)
		}
	}
	if m := a.receive(t); !slices.Equal(m.Keys, []string{"ok"}) {
		t.Fatalf("got %+v", m)
	}
	if s := a.bus.Stats(); s.Dropped != 2 {
		t.Fatalf("dropped %d, want 2", s.Dropped)
	}
}

func TestListenerReconnects(t *testing.T) {
	dsn, ch := testDSN(t), channelName()
	a, b := startReplica(t, dsn, ch, "replica-a"), startReplica(t, dsn, ch, "replica-b")
	admin, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	// Cut every connection of b's bus, as a database restart or a network cut would.
	var n int
	err = admin.QueryRow(t.Context(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1`, "garrison-notify replica-b").Scan(&n)
	if err != nil || n == 0 {
		t.Fatalf("terminated %d connections: %v", n, err)
	}
	select {
	case re := <-b.connected:
		if !re {
			t.Fatal("reconnection reported as the first connection")
		}
	case <-t.Context().Done():
		t.Fatal("b did not reconnect")
	}
	a.bus.Publish(KindPool, "after")
	if m := b.receive(t); !slices.Equal(m.Keys, []string{"after"}) {
		t.Fatalf("b got %+v", m)
	}
	// b's sending connection was cut too: its next send reconnects.
	b.bus.Publish(KindPool, "from-b")
	if m := a.receive(t); !slices.Equal(m.Keys, []string{"from-b"}) {
		t.Fatalf("a got %+v", m)
	}
	if s := b.bus.Stats(); s.Reconnects != 1 {
		t.Fatalf("b's reconnects %d, want 1", s.Reconnects)
	}
}

func TestNewRefuses(t *testing.T) {
	deliver := func(Message) {}
	for _, o := range []Options{
		{Replica: "r", Deliver: deliver},
		{DSN: "postgres://x@127.0.0.1/db", Deliver: deliver},
		{DSN: "postgres://x@127.0.0.1/db", Replica: "r"},
		{DSN: "postgres://x@127.0.0.1/db", Replica: "has space", Deliver: deliver},
		{DSN: "::not a dsn", Replica: "r", Deliver: deliver},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}
