package main

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/forgesim"
	"github.com/garrison-ci/garrison/internal/standin"
)

// newForgesimCmd serves the GitHub/Gitea simulator for manual use.
func newForgesimCmd() *cobra.Command {
	var listen, runner string
	var tokens, orgs, repos []string
	var scaleSets forgesim.ScaleSetOptions
	cmd := &cobra.Command{
		Use:   "forgesim",
		Short: "Serve the GitHub/Gitea simulator (github.com paths, GHES /api/v3, Gitea /api/v1)",
		Long: `Serve the stateful GitHub/Gitea simulator that garrison's tests use in place of the real
forges. Point a GitHub endpoint's base URL and API base URL at the printed URL (GHES form:
<url>/api/v3/), or a Gitea endpoint's API base URL at <url>/api/v1. Simulator controls live
under <url>/_sim/ (see the package documentation of internal/forgesim); POST <url>/_sim/jobs
{"repo": "owner/name", "labels": [...]} queues a job and sends its webhooks. The Actions
service of runner scale sets answers under <url>/_actions/ (GET <url>/_sim/scalesets shows
their sessions and statistics).

With --runner, runners download the stand-in runner (cmd/garrison-standin-runner) from the
simulator, so that instances booted by the simulation provider register and take jobs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logger := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
			sim := forgesim.New(forgesim.Options{Logger: logger, ScaleSets: scaleSets})
			if err := serveRunner(sim, runner); err != nil {
				return err
			}
			for _, t := range tokens {
				sim.AddToken(t)
			}
			for _, o := range orgs {
				sim.AddOrg(o)
			}
			for _, r := range repos {
				if err := sim.AddRepo(r); err != nil {
					return err
				}
			}
			url, err := sim.Start(listen)
			if err != nil {
				return err
			}
			defer sim.Close()
			fmt.Fprintf(cmd.OutOrStdout(), "forge simulator listening on %s\n", url)
			<-cmd.Context().Done()
			return nil
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:9998", "address to listen on (loopback only)")
	cmd.Flags().StringSliceVar(&tokens, "token", []string{"sim-token"}, "personal access tokens to accept")
	cmd.Flags().StringSliceVar(&orgs, "org", nil, "organizations to create")
	cmd.Flags().StringSliceVar(&repos, "repo", nil, "repositories to create, as owner/name")
	cmd.Flags().DurationVar(&scaleSets.Hold, "scaleset-hold", 50*time.Second, "how long a runner scale set message poll is held before 202")
	cmd.Flags().BoolVar(&scaleSets.Available, "scaleset-available", false, "runner scale sets get jobs as JobAvailable and acquire them (GHES flow) instead of JobAssigned")
	cmd.Flags().StringVar(&runner, "runner", "", "stand-in runner binary to serve as the runner download (GitHub: in a runner archive; Gitea: as is)")
	return cmd
}

// serveRunner makes the simulator serve the stand-in runner at path (nothing when empty) as
// every runner download.
func serveRunner(sim *forgesim.Sim, path string) error {
	if path == "" {
		return nil
	}
	tarball, err := standin.Tarball(path)
	if err != nil {
		return err
	}
	bin, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading --runner: %w", err)
	}
	sim.SetRunnerTarball(tarball)
	sim.SetRunnerBinary(bin)
	return nil
}
