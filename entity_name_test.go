package garrison_test

import (
	"testing"

	"github.com/garrison-ci/garrison"
)

func TestEntityFullName(t *testing.T) {
	tests := []struct {
		name string
		e    garrison.Entity
		want string
	}{
		{"repository", garrison.Entity{Type: garrison.Repository, Owner: "octo-org", Name: "octo-repo"}, "octo-org/octo-repo"},
		{"organization", garrison.Entity{Type: garrison.Organization, Name: "octo-org"}, "octo-org"},
		{"enterprise", garrison.Entity{Type: garrison.Enterprise, Name: "acme"}, "acme"},
		{"an organization ignores a stray owner", garrison.Entity{Type: garrison.Organization, Owner: "x", Name: "octo-org"}, "octo-org"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.e.FullName(); got != tt.want {
				t.Fatalf("FullName = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEntitySameName(t *testing.T) {
	repo := garrison.Entity{Type: garrison.Repository, Owner: "Octo-Org", Name: "Octo-Repo"}
	org := garrison.Entity{Type: garrison.Organization, Name: "octo-org"}
	tests := []struct {
		name        string
		e           garrison.Entity
		owner, repo string
		want        bool
	}{
		{"same repository", repo, "Octo-Org", "Octo-Repo", true},
		{"case-insensitive", repo, "octo-org", "OCTO-REPO", true},
		{"other owner", repo, "octo-org2", "Octo-Repo", false},
		{"other name", repo, "Octo-Org", "Octo-Repo2", false},
		{"owner and name swapped", repo, "Octo-Repo", "Octo-Org", false},
		{"organization by login", org, "", "Octo-Org", true},
		{"organization named with an owner", org, "someone", "octo-org", false},
		{"repository named without its owner", repo, "", "Octo-Repo", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.e.SameName(tt.owner, tt.repo); got != tt.want {
				t.Fatalf("SameName(%q, %q) = %v, want %v", tt.owner, tt.repo, got, tt.want)
			}
		})
	}
}

func TestEntityTypeValid(t *testing.T) {
	for typ, want := range map[garrison.EntityType]bool{
		"repository": true, "organization": true, "enterprise": true, "": false, "Repository": false, "repo": false,
	} {
		t.Run(string(typ), func(t *testing.T) {
			if got := typ.Valid(); got != want {
				t.Fatalf("EntityType(%q).Valid() = %v, want %v", typ, got, want)
			}
		})
	}
}

func TestParseBalancer(t *testing.T) {
	tests := []struct {
		in   string
		want garrison.Balancer
		ok   bool
	}{
		{"", garrison.RoundRobin, true},
		{"roundrobin", garrison.RoundRobin, true},
		{"pack", garrison.Pack, true},
		{"Pack", "", false},
		{"round-robin", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := garrison.ParseBalancer(tt.in)
			if got != tt.want || (err == nil) != tt.ok {
				t.Fatalf("ParseBalancer(%q) = %q, %v; want %q, ok %v", tt.in, got, err, tt.want, tt.ok)
			}
			if err != nil && garrison.CodeOf(err) != garrison.EInvalid {
				t.Fatalf("ParseBalancer(%q) error code %s, want invalid", tt.in, garrison.CodeOf(err))
			}
		})
	}
}
