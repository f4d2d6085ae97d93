package testbed_test

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

// TestE2EUserInstallTemplate boots runners through a user runner install template: a
// copy of the system github_linux template that reports one extra status message naming
// the runner. The simulation provider runs the bootstrap wrapper, which fetches the
// install script garrison renders from the pool's template; the message shows the
// runner ran that script, and a job served by the runner shows it still works.
func TestE2EUserInstallTemplate(t *testing.T) {
	e := newE2E(t, 200*time.Millisecond)
	ctx := t.Context()
	var sys []apiv1.Template
	if err := e.API.Do(ctx, http.MethodGet, "/templates", map[string][]string{"partialName": {"github_linux"}}, nil, &sys); err != nil || len(sys) != 1 {
		t.Fatalf("finding the system template: %v %v", sys, err)
	}
	var full apiv1.Template
	if err := e.API.Do(ctx, http.MethodGet, fmt.Sprintf("/templates/%d", sys[0].ID), nil, nil, &full); err != nil {
		t.Fatal(err)
	}
	const hook = `call_home installing "installing runner"`
	if !bytes.Contains(full.Data, []byte(hook)) {
		t.Fatalf("the system template has no %q line to extend", hook)
	}
	custom := bytes.Replace(full.Data, []byte(hook),
		[]byte(hook+"\ncall_home installing \"custom template ran for {{ .RunnerName }}\""), 1)
	var mine apiv1.Template
	err := e.API.Do(ctx, http.MethodPost, "/templates", nil, apiv1.CreateTemplateParams{Name: "e2e-custom",
		Data: custom, OSType: "linux", ForgeType: "github"}, &mine)
	if err != nil {
		t.Fatal(err)
	}
	tags := []string{"self-hosted", "linux", "custom"}
	pool := e.addPool(t, tags, 1, 1, func(p *apiv1.CreatePoolParams) { p.TemplateID = &mine.ID })
	if pool.TemplateID != mine.ID {
		t.Fatalf("pool template %d, want %d", pool.TemplateID, mine.ID)
	}
	var runner string
	eventually(t, "an idle runner that ran the custom template", func() (bool, string) {
		insts := e.poolInstances(t, pool.ID)
		for _, in := range insts {
			full, err := e.API.GetInstance(ctx, in.Name)
			if err == nil && len(idleNames([]apiv1.Instance{full})) == 1 && hasMessage(full, "custom template ran for "+in.Name) {
				runner = in.Name
				return true, ""
			}
		}
		return false, describe(insts)
	})
	ids := e.queueJobs(t, 1, 200*time.Millisecond, tags...)
	eventually(t, "the job ran", func() (bool, string) {
		return e.CompletedJobs(ids) == 1, describe(e.poolInstances(t, pool.ID))
	})
	if ran := e.jobRunners(t, ids); ran[runner] != ids[0] {
		t.Fatalf("job ran on %v, want %s", ran, runner)
	}
	if err := e.ScaleDown(ctx); err != nil {
		t.Fatal(err)
	}
	e.expectNoLeaks(t)
}
