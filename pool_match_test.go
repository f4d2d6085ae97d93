package garrison_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/garrison-ci/garrison"
)

func TestPoolHasLabels(t *testing.T) {
	p := garrison.Pool{Tags: garrison.TagsFromNames([]string{"self-hosted", "Linux", "x64"})}
	tests := []struct {
		name   string
		pool   garrison.Pool
		labels []string
		want   bool
	}{
		{"every label a tag", p, []string{"self-hosted", "linux"}, true},
		{"all tags", p, []string{"x64", "LINUX", "Self-Hosted"}, true},
		{"no labels", p, nil, true}, // MatchingPools refuses label-less jobs itself
		{"one label missing", p, []string{"linux", "arm64"}, false},
		{"a tag's prefix is not the tag", p, []string{"self"}, false},
		{"a pool without tags", garrison.Pool{}, []string{"linux"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.pool.HasLabels(tt.labels); got != tt.want {
				t.Fatalf("HasLabels(%q) = %v, want %v", tt.labels, got, tt.want)
			}
		})
	}
}

func TestPoolRunnerGroupFor(t *testing.T) {
	tests := []struct {
		name  string
		group string
		typ   garrison.EntityType
		want  string
	}{
		{"repository ignores the pool's group", "builders", garrison.Repository, ""},
		{"organization uses it", "builders", garrison.Organization, "builders"},
		{"enterprise uses it", "builders", garrison.Enterprise, "builders"},
		{"organization without a group", "", garrison.Organization, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (garrison.Pool{RunnerGroup: tt.group}).RunnerGroupFor(tt.typ); got != tt.want {
				t.Fatalf("RunnerGroupFor(%s) = %q, want %q", tt.typ, got, tt.want)
			}
		})
	}
}

func TestNormalizeTags(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"nil", nil, []string{}},
		{"kept in order", []string{"b", "a"}, []string{"b", "a"}},
		{"trimmed", []string{" linux\t"}, []string{"linux"}},
		{"empty dropped", []string{"", "  ", "x"}, []string{"x"}},
		{"case-insensitive duplicates: the first spelling stays", []string{"Linux", "linux", " LINUX "}, []string{"Linux"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := garrison.NormalizeTags(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("NormalizeTags(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if got := (garrison.Pool{Tags: garrison.TagsFromNames(tt.in)}).TagNames(); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("TagsFromNames(%q) names = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestPoolValidate(t *testing.T) {
	valid := garrison.Pool{ProviderName: "lxd", MaxRunners: 2, MinIdleRunners: 1, Image: "ubuntu", Flavor: "small",
		OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64, Tags: garrison.TagsFromNames([]string{"linux"})}
	tests := []struct {
		name  string
		edit  func(*garrison.Pool)
		valid bool
	}{
		{"valid", func(*garrison.Pool) {}, true},
		{"min idle equal to max", func(p *garrison.Pool) { p.MinIdleRunners = 2 }, true},
		{"windows arm64", func(p *garrison.Pool) { p.OSType, p.OSArch = garrison.OSWindows, garrison.ArchARM64 }, true},
		{"valid extra specs", func(p *garrison.Pool) { p.ExtraSpecs = []byte(`{"a":1}`) }, true},
		{"no provider", func(p *garrison.Pool) { p.ProviderName = "" }, false},
		{"max runners 0", func(p *garrison.Pool) { p.MaxRunners, p.MinIdleRunners = 0, 0 }, false},
		{"min idle above max", func(p *garrison.Pool) { p.MinIdleRunners = 3 }, false},
		{"no tags", func(p *garrison.Pool) { p.Tags = nil }, false},
		{"a blank tag", func(p *garrison.Pool) { p.Tags = []garrison.Tag{{Name: " "}} }, false},
		{"no flavor", func(p *garrison.Pool) { p.Flavor = "" }, false},
		{"no image", func(p *garrison.Pool) { p.Image = "" }, false},
		{"unknown OS type", func(p *garrison.Pool) { p.OSType = "plan9" }, false},
		{"OS types are lower case", func(p *garrison.Pool) { p.OSType = "Linux" }, false},
		{"unknown architecture", func(p *garrison.Pool) { p.OSArch = "386" }, false},
		{"extra specs not JSON", func(p *garrison.Pool) { p.ExtraSpecs = []byte(`{"a":`) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := valid
			tt.edit(&p)
			err := p.Validate()
			switch {
			case tt.valid && err != nil:
				t.Fatalf("Validate = %v, want nil", err)
			case !tt.valid && !errors.Is(err, garrison.ErrInvalid):
				t.Fatalf("Validate = %v, want an EInvalid error", err)
			}
		})
	}
}

func TestPoolBootstrapTimeout(t *testing.T) {
	if got := (garrison.Pool{}).BootstrapTimeout(); got != garrison.DefaultRunnerBootstrapTimeout {
		t.Errorf("unset: %d, want the default %d", got, garrison.DefaultRunnerBootstrapTimeout)
	}
	if got := (garrison.Pool{RunnerBootstrapTimeout: 5}).BootstrapTimeout(); got != 5 {
		t.Errorf("set to 5: %d", got)
	}
}
