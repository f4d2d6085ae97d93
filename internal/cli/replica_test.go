package cli

import (
	"strings"
	"testing"
)

// TestClaimListHeld: --held keeps the claims held now and leaves out the given-up ones.
func TestClaimListHeld(t *testing.T) {
	for _, tt := range []struct {
		args       []string
		want, lack []string
	}{
		{[]string{"claim", "list"}, []string{poolID, repoID}, nil},
		{[]string{"claim", "list", "--held"}, []string{poolID}, []string{repoID}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			srv := newFakeServer(t, commonReplies)
			e := newEnv(t).withProfile(t, srv)
			stdout, stderr, err := e.run(t, tt.args...)
			if err != nil {
				t.Fatalf("failed: %v\n%s", err, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("output lacks %s:\n%s", w, stdout)
				}
			}
			for _, l := range tt.lack {
				if strings.Contains(stdout, l) {
					t.Errorf("output has %s:\n%s", l, stdout)
				}
			}
		})
	}
}
