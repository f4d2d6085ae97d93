package testbed_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/apiclient"
)

// streamLog collects the frames of one stream in the background.
type streamLog struct {
	mu     sync.Mutex // guards frames
	frames [][]byte
}

func collect(t *testing.T, s *apiclient.Stream) *streamLog {
	l := &streamLog{}
	go func() {
		for {
			b, err := s.Next()
			if err != nil {
				return
			}
			l.mu.Lock()
			l.frames = append(l.frames, b)
			l.mu.Unlock()
		}
	}()
	t.Cleanup(func() { s.Close() })
	return l
}

func (l *streamLog) snapshot() [][]byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.frames)
}

// TestE2EStreams: while a job runs through the whole system (forge simulator, reconciler,
// simulation provider, stand-in runner), the event stream reports the pool, the job and
// the runner instance as they are created, updated and deleted, in order per object,
// and the log stream carries the server's log records as JSON.
//
// It takes about 30 s, so it runs with GARRISON_E2E_SLOW=1 only; the websocket tests of
// internal/httpapi cover the same protocol in the default run.
func TestE2EStreams(t *testing.T) {
	if os.Getenv(e2eSlowEnv) != "1" {
		t.Skipf("set %s=1 to run a job through the whole system with both streams open", e2eSlowEnv)
	}
	e := newE2E(t, 200*time.Millisecond)
	ctx := t.Context()
	evs, err := e.API.Stream(ctx, apiclient.EventsStream)
	if err != nil {
		t.Fatal(err)
	}
	if err := evs.Send([]byte(`{"filters":[{"entity-type":"pool"},{"entity-type":"instance"},{"entity-type":"job"}]}`)); err != nil {
		t.Fatal(err)
	}
	logs, err := e.API.Stream(ctx, apiclient.LogsStream)
	if err != nil {
		t.Fatal(err)
	}
	events, records := collect(t, evs), collect(t, logs)
	if err := evs.Sync(ctx); err != nil { // the subscription is in force from here on
		t.Fatal(err)
	}
	pool := e.addPool(t, e2eTags, 0, 1, nil)
	ids := e.queueJobs(t, 1, 200*time.Millisecond, e2eTags...)

	type ev struct {
		Type    string         `json:"entity-type"`
		Op      string         `json:"operation"`
		Payload map[string]any `json:"payload"`
	}
	// ops lists, per object, the operations seen in order.
	ops := func() (map[string][]string, map[string]bool) {
		seen, jobDone := map[string][]string{}, map[string]bool{}
		for _, b := range events.snapshot() {
			var v ev
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatalf("event %s: %v", b, err)
			}
			key := fmt.Sprintf("%s %v", v.Type, v.Payload["id"])
			if v.Type == "job" {
				key = fmt.Sprintf("job %v", v.Payload["workflow_job_id"])
				if v.Payload["status"] == "completed" {
					jobDone[key] = true
				}
			}
			if last := seen[key]; len(last) == 0 || last[len(last)-1] != v.Op {
				seen[key] = append(seen[key], v.Op)
			}
		}
		return seen, jobDone
	}
	jobKey := fmt.Sprintf("job %d", ids[0])
	eventually(t, "the job's events up to completed and a runner created and deleted", func() (bool, string) {
		seen, jobDone := ops()
		instances := 0
		for k, o := range seen {
			if strings.HasPrefix(k, "instance ") && o[0] == "create" && o[len(o)-1] == "delete" {
				instances++
			}
		}
		return jobDone[jobKey] && instances >= 1 && len(seen["pool "+pool.ID]) > 0, fmt.Sprint(seen)
	})
	seen, _ := ops()
	if o := seen["pool "+pool.ID]; o[0] != "create" {
		t.Errorf("pool events %v, want a create first", o)
	}
	if o := seen[jobKey]; o[0] != "create" || slices.Contains(o[1:], "create") {
		t.Errorf("job events %v, want one create first", o)
	}
	for k, o := range seen {
		if strings.HasPrefix(k, "instance ") && (o[0] != "create" || slices.Index(o, "delete") != -1 && slices.Index(o, "delete") != len(o)-1) {
			t.Errorf("%s events %v, want create first and delete last", k, o)
		}
	}

	eventually(t, "log records on the log stream", func() (bool, string) {
		for _, b := range records.snapshot() {
			var rec map[string]any
			if err := json.Unmarshal(b, &rec); err != nil {
				t.Fatalf("log frame %q: %v", b, err)
			}
			if rec["msg"] != nil && rec["level"] != nil && rec["time"] != nil {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d frames", len(records.snapshot()))
	})
}
