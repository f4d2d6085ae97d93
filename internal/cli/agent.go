package cli

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"
)

// agentFlag is a flag of a garm-agent feature. garrison has no garm-agent, so the flag is
// kept (scripts written for garm-cli still parse) but only its neutral values are
// accepted; anything else is refused before a request is sent.
type agentFlag struct {
	name    string
	feature string   // what the flag would turn on, for the error
	neutral []string // values that leave the feature off
}

var agentFlags = []agentFlag{
	{"agent-mode", "agent mode", []string{"false"}},
	{"enable-shell", "shell access to runners", []string{"false"}},
	{"enable-agent-tools-sync", "garm-agent tools sync", []string{"false"}},
	{"allow-insecure-garm-agent", "insecure garm-agent connections", []string{"false"}},
	{"garm-agent-version", "pinning a garm-agent version", []string{"", "latest"}},
	{"garm-agent-releases-url", "a garm-agent releases URL", []string{""}},
}

// agentFlagUsage is the help text of an agent flag.
func agentFlagUsage(what string) string {
	return what + " (not supported: needs garm-agent, which garrison does not have)"
}

// checkAgentFlags refuses a command line that gives an agent flag a value that would turn
// its feature on.
func checkAgentFlags(cmd *cobra.Command) error {
	for _, af := range agentFlags {
		f := cmd.Flags().Lookup(af.name)
		if f == nil || !f.Changed || slices.Contains(af.neutral, f.Value.String()) {
			continue
		}
		return fmt.Errorf("--%s=%s: %s is not supported: it needs garm-agent, which garrison does not have",
			af.name, f.Value.String(), af.feature)
	}
	return nil
}
