package server

import (
	"strings"
	"testing"
)

// A restarted server must own the session claims its predecessor held, or its scale sets
// go without a listener until the claims lapse; two replicas must not share an owner.
func TestSessionOwner(t *testing.T) {
	const ctrl = "0a1b2c3d-0000-4000-8000-000000000001"
	tests := []struct {
		name     string
		a, b     string // lease holders
		wantSame bool
	}{
		{"the same server restarted", "host-1/127.0.0.1:9997", "host-1/127.0.0.1:9997", true},
		{"another host", "host-1/127.0.0.1:9997", "host-2/127.0.0.1:9997", false},
		{"another listen address", "host-1/127.0.0.1:9997", "host-1/127.0.0.1:9998", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := sessionOwner(ctrl, tt.a), sessionOwner(ctrl, tt.b)
			if (a == b) != tt.wantSame {
				t.Errorf("owners %q and %q: same = %v, want %v", a, b, a == b, tt.wantSame)
			}
			if !strings.HasPrefix(a, "garm-"+ctrl+"-") || len(a) != len("garm-"+ctrl+"-")+8 {
				t.Errorf("owner %q is not garm-<controller id>-<8 hex digits>", a)
			}
		})
	}
}
