package auth

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestLimiterBurstAndRefill(t *testing.T) {
	c := &stepClock{t: epoch}
	l := NewLimiter(LimiterConfig{Burst: 3, Every: 10 * time.Second}, c.now)
	for i := range 3 {
		if ok, _ := l.Take("1.2.3.4"); !ok {
			t.Fatalf("attempt %d refused", i)
		}
	}
	ok, wait := l.Take("1.2.3.4")
	if ok || wait != 10*time.Second {
		t.Fatalf("after burst: ok=%v wait=%v", ok, wait)
	}
	if ok, _ := l.Take("5.6.7.8"); !ok {
		t.Fatal("another client refused")
	}
	c.t = c.t.Add(10 * time.Second)
	if ok, _ := l.Take("1.2.3.4"); !ok {
		t.Fatal("refill did not give an attempt back")
	}
	if ok, _ := l.Take("1.2.3.4"); ok {
		t.Fatal("second attempt after one refill allowed")
	}
	l.Succeed("1.2.3.4")
	if ok, _ := l.Take("1.2.3.4"); !ok {
		t.Fatal("success did not reset the client")
	}
}

func TestLimiterRefund(t *testing.T) {
	c := &stepClock{t: epoch}
	l := NewLimiter(LimiterConfig{Burst: 2, Every: time.Hour}, c.now)
	l.Take("a")
	l.Take("a")
	l.Refund("a")
	if ok, _ := l.Take("a"); !ok {
		t.Fatal("refunded attempt not given back")
	}
	if ok, _ := l.Take("a"); ok {
		t.Fatal("more attempts than the burst")
	}
	l.Refund("unknown") // nothing to give back to
	if l.Len() != 1 {
		t.Fatalf("Len = %d, want 1 (a refund remembers no new client)", l.Len())
	}
	for range 3 {
		l.Refund("a")
	}
	if l.Len() != 0 {
		t.Fatalf("Len = %d, want 0 (refunds fill a's bucket, which is then forgotten)", l.Len())
	}
	for range 2 {
		if ok, _ := l.Take("a"); !ok {
			t.Fatal("refunds lost")
		}
	}
	if ok, _ := l.Take("a"); ok {
		t.Fatal("refunds raised the bucket above the burst")
	}
}

// TestLimiterParallelAttempts is the bypass of issue #12: attempts that start together must
// not all see a full bucket.
func TestLimiterParallelAttempts(t *testing.T) {
	l := NewLimiter(LimiterConfig{Burst: 10, Every: time.Hour}, (&stepClock{t: epoch}).now)
	var allowed atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 60 {
		wg.Go(func() {
			<-start
			if ok, _ := l.Take("10.0.0.1"); ok {
				allowed.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	if n := allowed.Load(); n != 10 {
		t.Fatalf("%d of 60 parallel attempts allowed, want 10", n)
	}
}

func TestLimiterForgetsFullBuckets(t *testing.T) {
	c := &stepClock{t: epoch}
	l := NewLimiter(LimiterConfig{Burst: 2, Every: time.Second}, c.now)
	l.Take("a")
	c.t = c.t.Add(time.Hour)
	l.Refund("a")
	if l.Len() != 0 {
		t.Fatalf("Len = %d, want 0", l.Len())
	}
}

func TestLimiterBoundedMemory(t *testing.T) {
	c := &stepClock{t: epoch}
	l := NewLimiter(LimiterConfig{Burst: 1, Every: time.Hour, MaxClients: 100}, c.now)
	for i := range 1000 {
		l.Take(fmt.Sprintf("10.0.%d.%d", i/256, i%256))
	}
	if l.Len() != 100 {
		t.Fatalf("Len = %d, want 100", l.Len())
	}
	// The most recent clients are the ones kept.
	if ok, _ := l.Take("10.0.3.231"); ok {
		t.Error("most recent client forgotten")
	}
	if ok, _ := l.Take("10.0.0.0"); !ok {
		t.Error("oldest client still limited")
	}
}

func TestLimiterDefaults(t *testing.T) {
	l := NewLimiter(LimiterConfig{}, nil)
	for range DefaultLimiterBurst {
		l.Take("x")
	}
	if ok, wait := l.Take("x"); ok || wait <= 0 {
		t.Fatalf("ok=%v wait=%v", ok, wait)
	}
}
