package httpapi_test

import (
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// TestScaleSetAPIClient drives a scale set through its whole life with garrison's own API
// client (what `garrison scaleset ...` uses) against the real server, the way garm-cli's
// scaleset commands do: add, list (all, per entity), show, update, runner list, delete.
func TestScaleSetAPIClient(t *testing.T) {
	sf := newScaleSetFixture(t)
	ctx := t.Context()
	c, err := apiclient.New(sf.h.srv.URL, sf.tok)
	if err != nil {
		t.Fatal(err)
	}
	created, err := c.CreateScaleSet(ctx, apiclient.Repositories, sf.repoID, apiv1.CreateScaleSetParams{
		Name: "set-a", ProviderName: "lxd", MaxRunners: 4, MinIdleRunners: 1, Image: "ubuntu", Flavor: "small",
		OSType: "linux", OSArch: "amd64", Labels: []string{"gpu"}, Enabled: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	enabled, four, zero := false, uint(4), uint(0)
	steps := []struct {
		name  string
		run   func() (any, error)
		check func(v any) bool
		code  garrison.ErrorCode // expected failure ("" = success)
	}{
		{"list all", func() (any, error) { return c.ListScaleSets(ctx) },
			func(v any) bool { l := v.([]apiv1.ScaleSet); return len(l) == 1 && l[0].ID == created.ID }, ""},
		{"list repo", func() (any, error) { return c.ListEntityScaleSets(ctx, apiclient.Repositories, sf.repoID) },
			func(v any) bool { return len(v.([]apiv1.ScaleSet)) == 1 }, ""},
		{"list unknown org", func() (any, error) {
			return c.ListEntityScaleSets(ctx, apiclient.Organizations, "00000000-0000-0000-0000-000000000000")
		}, nil, garrison.ENotFound},
		{"show", func() (any, error) { return c.GetScaleSet(ctx, created.ID) },
			func(v any) bool { s := v.(apiv1.ScaleSet); return s.Name == "set-a" && s.Tags[0].Name == "gpu" }, ""},
		{"show unknown", func() (any, error) { return c.GetScaleSet(ctx, 4242) }, nil, garrison.ENotFound},
		{"update", func() (any, error) {
			return c.UpdateScaleSet(ctx, created.ID, apiv1.UpdateScaleSetParams{MaxRunners: &four, Image: "ubuntu:26.04"})
		}, func(v any) bool {
			s := v.(apiv1.ScaleSet)
			return s.MaxRunners == 4 && s.Generation == created.Generation+1
		}, ""},
		{"update refused", func() (any, error) {
			return c.UpdateScaleSet(ctx, created.ID, apiv1.UpdateScaleSetParams{RunnerBootstrapTimeout: &zero})
		}, nil, garrison.EInvalid},
		{"runners", func() (any, error) { return c.ListScaleSetRunners(ctx, created.ID, false) },
			func(v any) bool { return len(v.([]apiv1.Instance)) == 0 }, ""},
		{"outdated runners", func() (any, error) { return c.ListScaleSetRunners(ctx, created.ID, true) },
			func(v any) bool { return len(v.([]apiv1.Instance)) == 0 }, ""},
		{"delete while enabled", func() (any, error) { return nil, c.DeleteScaleSet(ctx, created.ID) }, nil, garrison.EInvalid},
		{"disable", func() (any, error) {
			return c.UpdateScaleSet(ctx, created.ID, apiv1.UpdateScaleSetParams{Enabled: &enabled})
		}, func(v any) bool { return !v.(apiv1.ScaleSet).Enabled }, ""},
		{"delete", func() (any, error) { return nil, c.DeleteScaleSet(ctx, created.ID) }, nil, ""},
		{"delete again", func() (any, error) { return nil, c.DeleteScaleSet(ctx, created.ID) }, nil, ""},
		{"gone", func() (any, error) { return c.GetScaleSet(ctx, created.ID) }, nil, garrison.ENotFound},
	}
	for _, st := range steps {
		v, err := st.run()
		switch {
		case st.code == "" && err != nil:
			t.Fatalf("%s: %v", st.name, err)
		case st.code != "" && !isCode(err, st.code):
			t.Fatalf("%s: error %v, want %s", st.name, err, st.code)
		case st.check != nil && !st.check(v):
			t.Fatalf("%s: unexpected result %+v", st.name, v)
		}
	}
}

func isCode(err error, code garrison.ErrorCode) bool {
	switch code {
	case garrison.ENotFound:
		return apiclient.IsNotFound(err)
	case garrison.EInvalid:
		return apiclient.StatusCode(err) == 400
	}
	return false
}
