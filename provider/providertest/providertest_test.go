package providertest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBrokenProviderFails(t *testing.T) {
	exe := Build(t, "./testdata/broken")
	cfg := filepath.Join(t.TempDir(), "cfg")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		mode string
		want map[string]string // step -> substring of its failure reason
		skip []string
	}{
		{"badstatus", map[string]string{
			StepCreate: `status "creating" is not one of running, stopped, error, unknown`,
		}, []string{StepGet, StepList, StepDelete, StepGetDeleted}},
		{"sloppy", map[string]string{
			StepGet:        "failed to decode response",
			StepList:       "lists the instance 0 times",
			StepStop:       "failed to decode response",
			StepGetDeleted: "want exit 30 (not found)",
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			rep := Check(t.Context(), Options{
				Executable: exe, ConfigFile: cfg,
				EnvPrefixes: []string{"BROKEN_"},
				Environ:     func() []string { return []string{"BROKEN_MODE=" + tt.mode} },
			})
			table := rep.String()
			t.Logf("report:\n%s", table)
			if rep.Passed() || !strings.Contains(table, "FAIL (") {
				t.Fatal("broken provider passed")
			}
			for step, want := range tt.want {
				res, ok := rep.Result(step)
				if !ok || res.Outcome != Fail || !strings.Contains(res.Reason, want) {
					t.Errorf("step %s: %+v, want failure mentioning %q", step, res, want)
				}
			}
			for _, step := range tt.skip {
				if res, _ := rep.Result(step); res.Outcome != Skip {
					t.Errorf("step %s: %+v, want skipped", step, res)
				}
			}
			if res, _ := rep.Result(StepDeleteAgain); tt.mode == "sloppy" && res.Outcome != Pass {
				t.Errorf("delete again with ignored output should pass: %+v", res)
			}
		})
	}
}

func TestBadConfigFailsFirstStep(t *testing.T) {
	rep := Check(t.Context(), Options{Executable: "relative/path"})
	res, _ := rep.Result(StepConfig)
	if res.Outcome != Fail || !strings.Contains(res.Reason, "not an absolute path") {
		t.Fatalf("config step: %+v", res)
	}
	if res, _ := rep.Result(StepRemoveAll); res.Outcome != Skip {
		t.Fatalf("remove all: %+v", res)
	}
}
