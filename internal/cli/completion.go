package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
)

// Shell completion: arguments and flags that name server objects complete with the
// objects of the selected profile's server (pool ids, runner names, entity names,
// credentials, endpoints, providers), each with a short description; flags with a fixed
// set of values complete with those values. `garrison completion bash|zsh|fish|powershell`
// prints the shell script.

// completionTimeout bounds the API calls of one completion: a shell must not hang.
const completionTimeout = 5 * time.Second

// lister returns candidates as "value\tdescription" (the description may be empty).
type lister func(ctx context.Context, c *apiclient.Client) ([]string, error)

// fromServer completes with what list returns from the profile's server; an unreachable
// server or a missing profile completes with nothing, and never with file names.
func (a *app) fromServer(list lister) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		c, _, err := a.client(cmd)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
		}
		ctx := cmd.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		ctx, cancel := context.WithTimeout(ctx, completionTimeout)
		defer cancel()
		vals, err := list(ctx, c)
		if err != nil {
			cobra.CompDebugln(fmt.Sprintf("completion: %v", err), true)
			return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
		}
		return withPrefix(vals, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// firstArg completes the first positional argument only.
func firstArg(f cobra.CompletionFunc) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return f(cmd, args, toComplete)
	}
}

// fixed completes with a fixed set of values.
func fixed(values ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return withPrefix(values, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// withPrefix keeps the candidates whose value starts with prefix.
func withPrefix(vals []string, prefix string) []cobra.Completion {
	var out []cobra.Completion
	for _, v := range vals {
		value, _, _ := strings.Cut(v, "\t")
		if strings.HasPrefix(value, prefix) {
			out = append(out, v)
		}
	}
	return out
}

// candidate formats one candidate with its description.
func candidate(value string, desc ...string) string {
	d := strings.Join(nonEmpty(desc), ", ")
	if d == "" {
		return value
	}
	return value + "\t" + d
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
