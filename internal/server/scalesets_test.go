package server

import (
	"strings"
	"testing"
)

// A restarted server must own the claims its predecessor held (pool leases, scale-set
// sessions), or its pools and scale sets go without a holder until the claims lapse; two
// replicas must not share a name.
func TestReplicaIDStableAcrossRestarts(t *testing.T) {
	const ctrl = "0a1b2c3d-0000-4000-8000-000000000001"
	tests := []struct {
		name     string
		a, b     string // listen addresses
		wantSame bool
	}{
		{"the same server restarted", "127.0.0.1:9997", "127.0.0.1:9997", true},
		{"another listen address", "127.0.0.1:9997", "127.0.0.1:9998", false},
		{"another interface", "127.0.0.1:9997", "[::1]:9997", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := newReplicaID(tt.a), newReplicaID(tt.b)
			if (a == b) != tt.wantSame {
				t.Errorf("replica ids %q and %q: same = %v, want %v", a, b, a == b, tt.wantSame)
			}
			if strings.ContainsAny(a, " ,") {
				t.Errorf("replica id %q has a space or a comma", a)
			}
			if owner := scaleSetOwner(ctrl, a); !strings.HasPrefix(owner, "garm-"+ctrl+"-") {
				t.Errorf("scale-set owner %q", owner)
			}
		})
	}
}
