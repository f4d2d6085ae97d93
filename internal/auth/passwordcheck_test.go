package auth

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestPasswordCheckerBoundsConcurrency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := NewPasswordChecker(2)
		var mu sync.Mutex // guards running and peak
		running, peak := 0, 0
		p.compare = func(hash, pw string) bool {
			mu.Lock()
			running++
			peak = max(peak, running)
			mu.Unlock()
			time.Sleep(time.Second) // a slow hash
			mu.Lock()
			running--
			mu.Unlock()
			return hash == pw
		}
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				if ok, err := p.Check(t.Context(), "h", "h"); !ok || err != nil {
					t.Errorf("Check = %v, %v", ok, err)
				}
			})
		}
		wg.Wait()
		if peak != 2 {
			t.Fatalf("peak concurrent comparisons = %d, want 2", peak)
		}
	})
}

func TestPasswordCheckerGivesUpWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := NewPasswordChecker(1)
		release := make(chan struct{})
		p.compare = func(string, string) bool { <-release; return true }
		go p.Check(context.Background(), "h", "h") // holds the only slot
		synctest.Wait()
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		ok, err := p.Check(ctx, "h", "h")
		if ok || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Check with no free slot = %v, %v; want deadline exceeded", ok, err)
		}
		close(release)
	})
}

func TestPasswordCheckerDefaults(t *testing.T) {
	p := NewPasswordChecker(0)
	if cap(p.slots) != DefaultPasswordChecks() || DefaultPasswordChecks() < 1 {
		t.Fatalf("slots = %d, default %d", cap(p.slots), DefaultPasswordChecks())
	}
	h, err := HashPassword("correct-Horse-battery-staple-97")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		hash, pw string
		want     bool
	}{{h, "correct-Horse-battery-staple-97", true}, {h, "wrong", false}, {"", "anything", false}} {
		if ok, err := p.Check(t.Context(), tt.hash, tt.pw); ok != tt.want || err != nil {
			t.Errorf("Check(%q) = %v, %v; want %v", tt.pw, ok, err, tt.want)
		}
	}
}
