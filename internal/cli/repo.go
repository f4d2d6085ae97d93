package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// repoCmd manages repositories.
func (a *app) repoCmd() *cobra.Command {
	const k = apiclient.Repositories
	const argUse = "<id|owner/name>"

	add := addFormat(&cobra.Command{Use: "add", Aliases: []string{"create"}, Short: "Add a repository", Args: cobra.NoArgs})
	addEntityFlags(add, true)
	add.Flags().String("owner", "", "owner (user or organization) of the repository")
	_ = add.MarkFlagRequired("owner")
	add.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		secret, err := webhookSecret(cmd)
		if err != nil {
			return err
		}
		fl := cmd.Flags()
		p := apiv1.CreateRepoParams{WebhookSecret: secret}
		p.Owner, _ = fl.GetString("owner")
		p.Name, _ = fl.GetString("name")
		p.CredentialsName, _ = fl.GetString("credentials")
		p.ForgeType, _ = fl.GetString("forge-type")
		p.PoolBalancerType, _ = fl.GetString("pool-balancer-type")
		p.AgentMode, _ = fl.GetBool("agent-mode")
		repo, err := c.CreateRepository(ctx, p)
		if err != nil {
			return err
		}
		if install, _ := fl.GetBool("install-webhook"); install {
			if _, err := c.InstallWebhook(ctx, k, repo.ID, apiv1.InstallWebhookParams{WebhookEndpointType: "direct"}); err != nil {
				return fmt.Errorf("repository %s added, but installing its webhook failed: %w", repo.ID, err)
			}
		}
		if repo, err = c.GetRepository(ctx, repo.ID); err != nil {
			return err
		}
		return a.render(cmd, repo, func(w io.Writer) { writeFields(w, entityFields(repoView(repo), true)) })
	})

	list := addFormat(&cobra.Command{Use: "list", Aliases: []string{"ls"}, Short: "List repositories", Args: cobra.NoArgs})
	list.Flags().String("owner", "", "only repositories of this owner")
	list.Flags().String("name", "", "only repositories with this name")
	list.Flags().String("endpoint", "", "only repositories on this endpoint")
	list.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		var f apiclient.RepoFilter
		f.Owner, _ = cmd.Flags().GetString("owner")
		f.Name, _ = cmd.Flags().GetString("name")
		f.Endpoint, _ = cmd.Flags().GetString("endpoint")
		repos, err := c.ListRepositories(ctx, f)
		if err != nil {
			return err
		}
		return a.render(cmd, repos, func(w io.Writer) {
			views := make([]entityView, 0, len(repos))
			for _, r := range repos {
				views = append(views, repoView(r))
			}
			entityTable(w, views, true)
		})
	})

	show := addFormat(&cobra.Command{Use: "show " + argUse, Aliases: []string{"get"}, Short: "Show a repository", Args: cobra.ExactArgs(1)})
	show.Flags().String("endpoint", "", "endpoint name, to tell apart repositories with the same name")
	show.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		endpoint, _ := cmd.Flags().GetString("endpoint")
		id, err := resolveEntity(ctx, c, k, args[0], endpoint)
		if err != nil {
			return err
		}
		repo, err := c.GetRepository(ctx, id)
		if err != nil {
			return err
		}
		return a.render(cmd, repo, func(w io.Writer) { writeFields(w, entityFields(repoView(repo), true)) })
	})

	update := addFormat(&cobra.Command{Use: "update " + argUse, Short: "Update a repository (only the given flags are changed)", Args: cobra.ExactArgs(1)})
	updateEntityFlags(update)
	update.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		endpoint, _ := cmd.Flags().GetString("endpoint")
		id, err := resolveEntity(ctx, c, k, args[0], endpoint)
		if err != nil {
			return err
		}
		repo, err := c.UpdateRepository(ctx, id, updateEntityParams(cmd))
		if err != nil {
			return err
		}
		return a.render(cmd, repo, func(w io.Writer) { writeFields(w, entityFields(repoView(repo), true)) })
	})

	return group("repository", "Manage repositories", []string{"repo", "repositories", "repos"},
		add, list, show, update, a.entityDeleteCmd(k, argUse), a.webhookCmd(k))
}

// addEntityFlags adds the flags `repo add` and `org add` share; withForge
// adds --forge-type and --install-webhook (not for enterprises).
func addEntityFlags(cmd *cobra.Command, withForge bool) {
	fl := cmd.Flags()
	fl.String("name", "", "name")
	fl.String("credentials", "", "name of the credentials to use")
	fl.String("webhook-secret", "", "secret of the webhook the forge sends")
	fl.String("pool-balancer-type", "roundrobin", "pool balancer: roundrobin or pack")
	fl.Bool("agent-mode", false, agentFlagUsage("run the runners in agent mode"))
	_ = cmd.MarkFlagRequired("name")
	_ = cmd.MarkFlagRequired("credentials")
	if withForge {
		fl.Bool("random-webhook-secret", false, "generate a random webhook secret")
		fl.String("forge-type", "", "forge type: github or gitea (default: from the credentials)")
		fl.Bool("install-webhook", false, "install the controller's webhook on the forge")
		cmd.MarkFlagsMutuallyExclusive("webhook-secret", "random-webhook-secret")
		cmd.MarkFlagsOneRequired("webhook-secret", "random-webhook-secret")
	} else {
		_ = cmd.MarkFlagRequired("webhook-secret")
	}
}
