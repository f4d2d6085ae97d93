package garrison_test

import (
	"testing"

	"github.com/garrison-ci/garrison"
)

func TestScaleSetTargetRunners(t *testing.T) {
	for _, tc := range []struct {
		min, max uint
		desired  int
		want     int
	}{
		{0, 5, 0, 0}, {1, 5, 0, 1}, {1, 5, 3, 4}, {1, 5, 12, 5}, {0, 0, 9, 0}, {2, 5, -1, 2},
	} {
		ss := garrison.ScaleSet{MinIdleRunners: tc.min, MaxRunners: tc.max, DesiredRunnerCount: tc.desired}
		if got := ss.TargetRunners(); got != tc.want {
			t.Errorf("min %d max %d desired %d: target %d, want %d", tc.min, tc.max, tc.desired, got, tc.want)
		}
	}
}

func TestScaleSetAsPool(t *testing.T) {
	ss := garrison.ScaleSet{Name: "set", EntityID: "e1", EntityType: garrison.Organization, ProviderName: "sim",
		Image: "i", Flavor: "f", OSType: "linux", OSArch: "amd64", MaxRunners: 3, Enabled: true,
		Tags: garrison.TagsFromNames([]string{"gpu", "SET"}), RunnerGroup: "g", Generation: 4}
	p := ss.AsPool()
	if p.ID != "set-e1" || p.EntityID != "e1" || p.RunnerGroupFor(garrison.Organization) != "g" || p.Generation != 4 {
		t.Fatalf("pool %+v", p)
	}
	if got := p.TagNames(); len(got) != 2 || got[0] != "set" || got[1] != "gpu" {
		t.Fatalf("labels %v, want the name then the extra labels, deduplicated", got)
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("the pool view does not validate: %v", err)
	}
}

func TestScaleSetValidate(t *testing.T) {
	ok := garrison.ScaleSet{Name: "s", ProviderName: "p", Image: "i", Flavor: "f", OSType: "linux", OSArch: "amd64",
		MaxRunners: 1, State: garrison.ScaleSetCreated}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := ok
	bad.State = "bogus"
	if err := bad.Validate(); err == nil {
		t.Fatal("a bad state validated")
	}
}
