package workqueue

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// TestPaceSpacesABusyKey: a key added again while its slow handler runs waits Pace times
// the call's duration before its next call; other keys and a quiet key are not delayed.
func TestPaceSpacesABusyKey(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pace    float64
		maxPace time.Duration
		wantGap time.Duration // between the end of call 1 and the start of call 2
	}{
		{"off", 0, 0, 0},
		{"twice the call", 2, 0, 200 * time.Millisecond},
		{"capped", 20, 500 * time.Millisecond, 500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRecorder(func(_ context.Context, key string, _ int) (Result, error) {
					if key == "slow" {
						time.Sleep(100 * time.Millisecond)
					}
					return Result{}, nil
				})
				q := New(r.handle, Options{Workers: 2, Pace: tc.pace, MaxPace: tc.maxPace})
				stop := start(t, q)
				defer stop()
				q.Add("slow")
				synctest.Wait()
				q.Add("slow") // while running: comes back after the pause
				time.Sleep(100 * time.Millisecond)
				synctest.Wait()
				endFirst := r.times["slow"][0].Add(100 * time.Millisecond)
				q.Add("other") // another key is not paused
				synctest.Wait()
				if r.count("other") != 1 {
					t.Fatal("another key waited for the slow one's pause")
				}
				time.Sleep(time.Second)
				synctest.Wait()
				if got := r.count("slow"); got != 2 {
					t.Fatalf("calls = %d, want 2", got)
				}
				if gap := r.times["slow"][1].Sub(endFirst); gap != tc.wantGap {
					t.Fatalf("second call %v after the first ended, want %v", gap, tc.wantGap)
				}
				time.Sleep(2 * time.Second)
				q.Add("slow") // long after the pause: at once
				synctest.Wait()
				if got := r.count("slow"); got != 3 || !r.times["slow"][2].Equal(time.Now()) {
					t.Fatalf("a quiet key was delayed: %d calls", got)
				}
			})
		})
	}
}
