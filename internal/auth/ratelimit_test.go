package auth

import (
	"fmt"
	"testing"
	"time"
)

func TestLimiterBurstAndRefill(t *testing.T) {
	c := &stepClock{t: epoch}
	l := NewLimiter(LimiterConfig{Burst: 3, Every: 10 * time.Second}, c.now)
	for i := range 3 {
		if ok, _ := l.Allow("1.2.3.4"); !ok {
			t.Fatalf("attempt %d refused", i)
		}
		l.Fail("1.2.3.4")
	}
	ok, wait := l.Allow("1.2.3.4")
	if ok || wait != 10*time.Second {
		t.Fatalf("after burst: ok=%v wait=%v", ok, wait)
	}
	if ok, _ := l.Allow("5.6.7.8"); !ok {
		t.Fatal("another client refused")
	}
	c.t = c.t.Add(10 * time.Second)
	if ok, _ := l.Allow("1.2.3.4"); !ok {
		t.Fatal("refill did not give an attempt back")
	}
	l.Fail("1.2.3.4")
	if ok, _ := l.Allow("1.2.3.4"); ok {
		t.Fatal("second attempt after one refill allowed")
	}
	l.Succeed("1.2.3.4")
	if ok, _ := l.Allow("1.2.3.4"); !ok || l.Len() != 0 {
		t.Fatal("success did not reset the client")
	}
}

func TestLimiterForgetsFullBuckets(t *testing.T) {
	c := &stepClock{t: epoch}
	l := NewLimiter(LimiterConfig{Burst: 2, Every: time.Second}, c.now)
	l.Fail("a")
	c.t = c.t.Add(time.Hour)
	l.Allow("a")
	if l.Len() != 0 {
		t.Fatalf("Len = %d, want 0", l.Len())
	}
}

func TestLimiterBoundedMemory(t *testing.T) {
	c := &stepClock{t: epoch}
	l := NewLimiter(LimiterConfig{Burst: 1, Every: time.Hour, MaxClients: 100}, c.now)
	for i := range 1000 {
		l.Fail(fmt.Sprintf("10.0.%d.%d", i/256, i%256))
	}
	if l.Len() != 100 {
		t.Fatalf("Len = %d, want 100", l.Len())
	}
	// The most recent clients are the ones kept.
	if ok, _ := l.Allow("10.0.3.231"); ok {
		t.Error("most recent client forgotten")
	}
	if ok, _ := l.Allow("10.0.0.0"); !ok {
		t.Error("oldest client still limited")
	}
}

func TestLimiterDefaults(t *testing.T) {
	l := NewLimiter(LimiterConfig{}, nil)
	for range DefaultLimiterBurst {
		l.Fail("x")
	}
	if ok, wait := l.Allow("x"); ok || wait <= 0 {
		t.Fatalf("ok=%v wait=%v", ok, wait)
	}
}
