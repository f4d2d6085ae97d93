package garrison

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestRateLimitError(t *testing.T) {
	until := time.Date(2030, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	tests := []struct {
		name string
		err  *RateLimitError
		msg  string
	}{
		{"unnamed credentials", &RateLimitError{Until: until}, "forge API rate limit reached until 2030-01-02T02:04:05Z"},
		{"named credentials", &RateLimitError{Until: until, Credentials: "ci"},
			`forge API rate limit of credentials "ci" reached until 2030-01-02T02:04:05Z`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := fmt.Errorf("github: list runners: %w", tt.err)
			var rl *RateLimitError
			if !errors.As(err, &rl) || !rl.Until.Equal(until) {
				t.Fatalf("errors.As(%v) = %v", err, rl)
			}
			if !errors.Is(err, ErrUnavailable) || CodeOf(err) != EUnavailable || MessageOf(err) != tt.msg {
				t.Fatalf("code %s message %q, want %s %q", CodeOf(err), MessageOf(err), EUnavailable, tt.msg)
			}
		})
	}
}

func TestErrJITUnsupported(t *testing.T) {
	err := fmt.Errorf("forge: %w", ErrJITUnsupported)
	if !errors.Is(err, ErrJITUnsupported) || CodeOf(err) != EInvalid {
		t.Fatalf("%v: not ErrJITUnsupported / EInvalid", err)
	}
	if errors.Is(Errorf(EInvalid, "another invalid request"), ErrJITUnsupported) {
		t.Fatal("any EInvalid error matches ErrJITUnsupported")
	}
}

func TestIdentityOf(t *testing.T) {
	in := Instance{ID: "iid", Name: "garm-x", PoolID: "p1", CreateAttempt: 3}
	tests := []struct {
		e    Entity
		want InstanceIdentity
	}{
		{Entity{Type: Repository, Owner: "o", Name: "r", ForgeType: GitHub},
			InstanceIdentity{ID: "iid", Name: "garm-x", PoolID: "p1", Scope: Repository, Entity: "o/r", CreateAttempt: 3, ForgeType: GitHub}},
		{Entity{Type: Organization, Name: "acme", ForgeType: Gitea},
			InstanceIdentity{ID: "iid", Name: "garm-x", PoolID: "p1", Scope: Organization, Entity: "acme", CreateAttempt: 3, ForgeType: Gitea}},
	}
	for _, tt := range tests {
		if got := IdentityOf(in, tt.e); got != tt.want {
			t.Errorf("IdentityOf(%s) = %+v, want %+v", tt.e.FullName(), got, tt.want)
		}
	}
}
