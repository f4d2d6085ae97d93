package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/store/postgres"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// TestReplicasScenario runs the replicas scenario at a small scale on a PostgreSQL
// server (GARRISON_TEST_POSTGRES_DSN, with GARRISON_REPLICA_TEST=1: three server
// processes for about a minute) and checks that it served every job and measured the
// takeover of a killed replica's pools. Nothing is timed.
func TestReplicasScenario(t *testing.T) {
	if testing.Short() || os.Getenv("GARRISON_REPLICA_TEST") != "1" {
		t.Skip("three server processes on PostgreSQL; set GARRISON_REPLICA_TEST=1")
	}
	dsn := os.Getenv("GARRISON_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Fatal("GARRISON_REPLICA_TEST=1 needs GARRISON_TEST_POSTGRES_DSN")
	}
	if err := testbed.CheckHost(); err != nil {
		t.Skip(err)
	}
	o := Options{Scenario: replicasScenario, Scale: 0.05, Duration: 2 * time.Second, BaseDir: t.TempDir(),
		JSONFile: filepath.Join(t.TempDir(), "r.json"), Server: testbed.Command{Argv: []string{built(t, garrisonProgram)}},
		Tools: helperTools(t),
		NewDatabase: func(ctx context.Context) (string, func(context.Context) error, error) {
			return postgres.CreateScratchDatabase(ctx, dsn, "garrison_bench_test_")
		}}
	var out bytes.Buffer
	if _, err := Run(t.Context(), o, &out); err != nil {
		t.Fatalf("bench: %v\n%s", err, out.String())
	}
	checkBenchSane(t, o.JSONFile)
	b, _ := os.ReadFile(o.JSONFile)
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	switch {
	case r.QueuedToStarted == nil || r.APICallsPerJob == nil:
		t.Errorf("no burst figures:\n%s", b)
	case r.TakeoverPools == nil || *r.TakeoverPools == 0:
		t.Errorf("the killed replica held no pool:\n%s", b)
	case r.TakeoverClaimMS == nil || r.TakeoverServedMS == nil || *r.TakeoverClaimMS <= 0 || *r.TakeoverServedMS <= 0:
		t.Errorf("takeover not measured:\n%s", b)
	}
}
