package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
)

// addCompletions attaches the completion functions to the command tree cmds.
func (a *app) addCompletions(cmds []*cobra.Command) {
	both := []apiclient.Forge{apiclient.GitHub, apiclient.Gitea}
	args := map[string]cobra.CompletionFunc{
		"pool show":                      a.fromServer(listPools),
		"pool update":                    a.fromServer(listPools),
		"pool delete":                    a.fromServer(listPools),
		"pool runner rotate":             a.fromServer(listPools),
		"runner list":                    a.fromServer(listPools),
		"runner show":                    a.fromServer(listRunners),
		"runner delete":                  a.fromServer(listRunners),
		"repository show":                a.fromServer(listRepos),
		"repository update":              a.fromServer(listRepos),
		"repository delete":              a.fromServer(listRepos),
		"repository webhook install":     a.fromServer(listRepos),
		"repository webhook show":        a.fromServer(listRepos),
		"repository webhook uninstall":   a.fromServer(listRepos),
		"organization show":              a.fromServer(listOrgs),
		"organization update":            a.fromServer(listOrgs),
		"organization delete":            a.fromServer(listOrgs),
		"organization webhook install":   a.fromServer(listOrgs),
		"organization webhook show":      a.fromServer(listOrgs),
		"organization webhook uninstall": a.fromServer(listOrgs),
		"enterprise show":                a.fromServer(listEnterprises),
		"enterprise update":              a.fromServer(listEnterprises),
		"enterprise delete":              a.fromServer(listEnterprises),
		"profile switch":                 a.profileNames,
		"profile delete":                 a.profileNames,
	}
	for _, f := range both {
		for _, verb := range []string{"show", "update", "delete"} {
			args[string(f)+" credentials "+verb] = a.fromServer(credentialsOf(f))
			args[string(f)+" endpoint "+verb] = a.fromServer(endpointsOf(f))
		}
	}
	for path, fn := range args {
		if cmd := findPath(cmds, path); cmd != nil {
			cmd.ValidArgsFunction = firstArg(fn)
		}
	}
	flags := map[string]cobra.CompletionFunc{
		"repo":               a.fromServer(listRepos),
		"org":                a.fromServer(listOrgs),
		"enterprise":         a.fromServer(listEnterprises),
		"endpoint":           a.fromServer(endpointsOf(both...)),
		"credentials":        a.fromServer(credentialsOf(both...)),
		"provider-name":      a.fromServer(listProviders),
		"os-type":            fixed("linux", "windows"),
		"os-arch":            fixed("amd64", "arm", "arm64"),
		"format":             fixed(formatTable, formatJSON),
		"pool-balancer-type": fixed("roundrobin", "pack"),
		"forge-type":         fixed("github", "gitea"),
		"auth-type":          fixed("pat", "app"),
	}
	for _, root := range cmds {
		_ = root.RegisterFlagCompletionFunc("profile", a.profileNames)
		walk(root, func(cmd *cobra.Command) {
			for name, fn := range flags {
				if cmd.LocalNonPersistentFlags().Lookup(name) != nil {
					_ = cmd.RegisterFlagCompletionFunc(name, fn)
				}
			}
		})
	}
}

// profileNames completes with the names of the saved profiles.
func (a *app) profileNames(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	s, err := a.store()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
	}
	var names []string
	for _, p := range s.data.Profiles {
		names = append(names, candidate(p.Name, p.URL))
	}
	return withPrefix(names, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// findPath finds a command by its space-separated path of names.
func findPath(cmds []*cobra.Command, path string) *cobra.Command {
	return Find(cmds, strings.Fields(path)...)
}

// walk calls fn for cmd and every command below it.
func walk(cmd *cobra.Command, fn func(*cobra.Command)) {
	fn(cmd)
	for _, c := range cmd.Commands() {
		walk(c, fn)
	}
}
