package postgres_test

import (
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/store/postgres"
	"github.com/garrison-ci/garrison/internal/store/storetest"
)

// openWith opens a store on a fresh schema with the given options.
func openWith(t *testing.T, o postgres.Options) *postgres.Store {
	t.Helper()
	s, err := postgres.OpenWith(t.Context(), freshSchema(t), storetest.NewSealer(storetest.Passphrase), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// use runs a few store reads, each taking a connection from the pool and giving it back.
func use(t *testing.T, s *postgres.Store) {
	t.Helper()
	for range 3 {
		if _, err := s.Controller(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPoolOptions: each pool setting shapes the pool the store runs on.
func TestPoolOptions(t *testing.T) {
	baseDSN(t)
	t.Run("max open conns", func(t *testing.T) {
		for _, n := range []int{1, 7} {
			s := openWith(t, postgres.Options{MaxOpenConns: n, MaxIdleConns: 1})
			if got := s.PoolStats().MaxOpenConnections; got != n {
				t.Errorf("MaxOpenConnections = %d, want %d", got, n)
			}
		}
	})
	t.Run("max idle conns", func(t *testing.T) {
		keep := openWith(t, postgres.Options{MaxOpenConns: 4, MaxIdleConns: 2})
		use(t, keep)
		if n := keep.PoolStats().MaxIdleClosed; n != 0 {
			t.Errorf("with 2 idle connections allowed, %d were closed for the idle cap", n)
		}
		none := openWith(t, postgres.Options{MaxOpenConns: 4, MaxIdleConns: 0})
		use(t, none)
		if n := none.PoolStats().MaxIdleClosed; n == 0 {
			t.Error("with no idle connection allowed, none was closed for the idle cap")
		}
	})
	t.Run("conn max lifetime", func(t *testing.T) {
		forever := openWith(t, postgres.Options{MaxOpenConns: 4, MaxIdleConns: 2})
		use(t, forever)
		if n := forever.PoolStats().MaxLifetimeClosed; n != 0 {
			t.Errorf("without a lifetime, %d connections were closed for their age", n)
		}
		short := openWith(t, postgres.Options{MaxOpenConns: 4, MaxIdleConns: 2, ConnMaxLifetime: time.Nanosecond})
		use(t, short)
		if n := short.PoolStats().MaxLifetimeClosed; n == 0 {
			t.Error("with a 1ns lifetime, no connection was closed for its age")
		}
	})
	t.Run("conn max idle time", func(t *testing.T) {
		s := openWith(t, postgres.Options{MaxOpenConns: 4, MaxIdleConns: 2, ConnMaxIdleTime: time.Millisecond})
		use(t, s)
		// database/sql closes idle connections from a cleaner that runs at most once a
		// second: poll, with a generous deadline.
		deadline := time.Now().Add(30 * time.Second)
		for s.PoolStats().MaxIdleTimeClosed == 0 {
			if time.Now().After(deadline) {
				t.Fatal("with a 1ms idle time, no idle connection was closed")
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	t.Run("max open conns below 1", func(t *testing.T) {
		if _, err := postgres.OpenWith(t.Context(), freshSchema(t), storetest.NewSealer(storetest.Passphrase), postgres.Options{}); err == nil {
			t.Error("opened a store with MaxOpenConns 0")
		}
	})
}

// TestOpenDefaults: Open keeps MaxConns connections at most.
func TestOpenDefaults(t *testing.T) {
	s, err := postgres.Open(t.Context(), freshSchema(t), storetest.NewSealer(storetest.Passphrase))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.PoolStats().MaxOpenConnections; got != postgres.MaxConns {
		t.Errorf("MaxOpenConnections = %d, want %d", got, postgres.MaxConns)
	}
	if got := s.Options().MaxOpenConns; got != postgres.MaxConns {
		t.Errorf("Options().MaxOpenConns = %d, want %d", got, postgres.MaxConns)
	}
}
