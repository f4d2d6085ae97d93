package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// jobCmd is `job list`: GET /jobs.
func (a *app) jobCmd() *cobra.Command {
	list := addFormat(&cobra.Command{Use: "list", Aliases: []string{"ls"}, Short: "List the recorded jobs", Args: cobra.NoArgs})
	list.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		jobs, err := c.ListJobs(ctx)
		if err != nil {
			return err
		}
		return a.render(cmd, jobs, func(w io.Writer) {
			rows := make([][]string, 0, len(jobs))
			for _, j := range jobs {
				repo := ""
				if j.RepositoryName != "" {
					repo = j.RepositoryOwner + "/" + j.RepositoryName
				}
				rows = append(rows, []string{fmt.Sprint(j.ID), fmt.Sprint(j.WorkflowJobID), j.Name, j.Status, j.Conclusion, j.RunnerName, repo, strings.Join(j.Labels, ","), j.LockedBy, j.Reason})
			}
			writeTable(w, []string{"ID", "WORKFLOW JOB ID", "NAME", "STATUS", "CONCLUSION", "RUNNER NAME", "REPOSITORY", "LABELS", "LOCKED BY", "REASON"}, rows)
		})
	})
	return group("job", "Inspect jobs", []string{"jobs"}, list)
}

// providerCmd is `provider list`: GET /providers. cmd/garrison may attach
// more subcommands to it (see Find).
func (a *app) providerCmd() *cobra.Command {
	list := addFormat(&cobra.Command{Use: "list", Aliases: []string{"ls"}, Short: "List the configured providers", Args: cobra.NoArgs})
	list.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		providers, err := c.ListProviders(ctx)
		if err != nil {
			return err
		}
		return a.render(cmd, providers, func(w io.Writer) { providerTable(w, providers) })
	})
	return group("provider", "Inspect providers", []string{"providers"}, list)
}

func providerTable(w io.Writer, providers []apiv1.Provider) {
	rows := make([][]string, 0, len(providers))
	for _, p := range providers {
		rows = append(rows, []string{p.Name, p.Type, p.Description, p.Version})
	}
	writeTable(w, []string{"NAME", "TYPE", "DESCRIPTION", "VERSION"}, rows)
}

// metricsTokenCmd is `metrics-token create`: GET /metrics-token; prints the
// token.
func (a *app) metricsTokenCmd() *cobra.Command {
	create := &cobra.Command{Use: "create", Short: "Create a token for scraping /metrics", Args: cobra.NoArgs}
	create.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		tok, err := c.MetricsToken(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout(cmd), tok)
		return nil
	})
	return group("metrics-token", "Manage metrics tokens", nil, create)
}
