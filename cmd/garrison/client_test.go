package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestUnknownSubcommands walks the whole command tree: every command that groups
// subcommands exits non-zero on a word that names none of them, suggests the subcommand a
// typo was meant to be, and still prints its help when called alone.
func TestUnknownSubcommands(t *testing.T) {
	root := newRootCmd(strings.NewReader(""), io.Discard, io.Discard)
	var groups []*cobra.Command
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.HasSubCommands() {
			groups = append(groups, c)
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	if len(groups) < 10 {
		t.Fatalf("found %d command groups; the walk is broken", len(groups))
	}
	for _, g := range groups {
		path := strings.Fields(g.CommandPath())[1:]
		t.Run(strings.Join(append([]string{"garrison"}, path...), " "), func(t *testing.T) {
			sub, typo := typoOf(g)
			if sub == "" {
				t.Skip("no subcommand name allows a typo that names no other")
			}
			cases := []struct {
				word    string
				suggest string // "" = no suggestion expected
			}{
				{typo, sub},
				{"zzqxv", ""},
			}
			for _, c := range cases {
				code, stdout, stderr := runArgs(t, append(append([]string{}, path...), c.word)...)
				if code == 0 {
					t.Errorf("%q: exit 0, want non-zero; stdout %q", c.word, stdout)
				}
				if want := `unknown command "` + c.word + `"`; !strings.Contains(stderr, want) {
					t.Errorf("%q: stderr %q lacks %q", c.word, stderr, want)
				}
				if c.suggest != "" && !strings.Contains(stderr, `did you mean "`+c.suggest+`"`) &&
					!strings.Contains(stderr, `"`+c.suggest+`" or`) && !strings.Contains(stderr, `, "`+c.suggest+`"`) {
					t.Errorf("%q: stderr %q does not suggest %q", c.word, stderr, c.suggest)
				}
			}
			if code, stdout, stderr := runArgs(t, path...); code != 0 || !strings.Contains(stdout, "Usage:") {
				t.Errorf("alone: exit %d, stdout %q, stderr %q; want its help and exit 0", code, stdout, stderr)
			}
		})
	}
}

// typoOf returns a subcommand of g and that name with its second letter dropped, when the
// result is no other subcommand's name or alias.
func typoOf(g *cobra.Command) (name, typo string) {
	for _, s := range g.Commands() {
		n := s.Name()
		if !s.IsAvailableCommand() || len(n) < 3 {
			continue
		}
		typo := n[:1] + n[2:]
		taken := false
		for _, o := range g.Commands() {
			taken = taken || o.Name() == typo || o.HasAlias(typo)
		}
		if !taken {
			return n, typo
		}
	}
	return "", ""
}

// runArgs runs one command line of the binary and returns its exit code and output.
func runArgs(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(t.Context(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}
