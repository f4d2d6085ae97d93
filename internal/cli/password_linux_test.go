package cli

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestPasswordPrompt types passwords on a real terminal: init asks twice and refuses a
// mismatch before sending anything; profile add and login ask once.
func TestPasswordPrompt(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		typed   string
		prompts []string // on stderr, in order
		wantErr error
		calls   int    // requests sent
		sent    string // password sent to the server, when calls > 0
	}{
		{name: "init confirmed", args: []string{"init", "--name", "n", "--username", "admin", "--email", "a@b.c"},
			typed: "s3cret-pw\ns3cret-pw\n", prompts: []string{"Password: ", "Confirm password: "}, calls: 3, sent: "s3cret-pw"},
		{name: "init mismatch", args: []string{"init", "--name", "n", "--username", "admin", "--email", "a@b.c"},
			typed: "s3cret-pw\ns3cret-pq\n", prompts: []string{"Password: ", "Confirm password: "}, wantErr: ErrPasswordMismatch},
		{name: "profile add asks once", args: []string{"profile", "add", "--name", "n", "--username", "admin"},
			typed: "s3cret-pw\n", prompts: []string{"Password: "}, calls: 1, sent: "s3cret-pw"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, authReplies())
			master, tty := openPTY(t)
			e := newEnv(t)
			e.hc, e.stdin = srv.srv.Client(), tty
			if _, err := io.WriteString(master, tt.typed); err != nil {
				t.Fatal(err)
			}
			_, stderr, err := e.run(t, append(tt.args, "--url", srv.srv.URL)...)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v; stderr %q", err, tt.wantErr, stderr)
			}
			if got := strings.Count(stderr, "assword: "); got != len(tt.prompts) {
				t.Errorf("%d prompts, want %d; stderr %q", got, len(tt.prompts), stderr)
			}
			for _, p := range tt.prompts {
				if !strings.Contains(stderr, p) {
					t.Errorf("stderr %q lacks the prompt %q", stderr, p)
				}
			}
			if strings.Contains(stderr, "s3cret") {
				t.Errorf("the password was echoed: %q", stderr)
			}
			calls := srv.recorded()
			if len(calls) != tt.calls {
				t.Fatalf("%d requests, want %d", len(calls), tt.calls)
			}
			if tt.calls > 0 && string(calls[0].Body["password"]) != `"`+tt.sent+`"` {
				t.Errorf("password sent = %s, want %q", calls[0].Body["password"], tt.sent)
			}
		})
	}
}
