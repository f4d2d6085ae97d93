package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// forgeInstanceView is what the tables show of a forge instance: an entity named after
// its endpoint.
func forgeInstanceView(fi apiv1.ForgeInstance) entityView {
	return orgView(apiv1.Organization{ID: fi.ID, Name: fi.Endpoint.Name, Pools: fi.Pools,
		CredentialsName: fi.CredentialsName, Credentials: fi.Credentials, Endpoint: fi.Endpoint,
		PoolManagerStatus: fi.PoolManagerStatus, PoolBalancerType: fi.PoolBalancerType, AgentMode: fi.AgentMode,
		Events: fi.Events, CreatedAt: fi.CreatedAt, UpdatedAt: fi.UpdatedAt})
}

// forgeInstanceCmd manages forge instances: whole Gitea servers (rest-api-2 §4.6).
func (a *app) forgeInstanceCmd() *cobra.Command {
	const k = apiclient.ForgeInstances
	const argUse = "<id|endpoint-name>"
	show := func(cmd *cobra.Command, fi apiv1.ForgeInstance) error {
		return a.render(cmd, fi, func(w io.Writer) { writeFields(w, entityFields(forgeInstanceView(fi), false)) })
	}

	add := addFormat(&cobra.Command{Use: "add", Aliases: []string{"create"}, Short: "Add a forge instance (a whole Gitea server)", Args: cobra.NoArgs})
	fl := add.Flags()
	fl.String("endpoint", "", "name of the Gitea endpoint")
	fl.String("credentials", "", "name of the Gitea credentials (their token needs write:admin)")
	fl.String("webhook-secret", "", "secret of the system webhook")
	fl.Bool("random-webhook-secret", false, "generate a random webhook secret")
	fl.String("forge-type", "gitea", "forge type (only gitea has forge instances)")
	fl.String("pool-balancer-type", "roundrobin", "pool balancer: roundrobin or pack")
	fl.Bool("agent-mode", false, agentFlagUsage("run the runners in agent mode"))
	fl.Bool("install-webhook", false, "install the controller's system webhook on the server")
	_ = add.MarkFlagRequired("endpoint")
	_ = add.MarkFlagRequired("credentials")
	add.MarkFlagsMutuallyExclusive("webhook-secret", "random-webhook-secret")
	add.MarkFlagsOneRequired("webhook-secret", "random-webhook-secret")
	add.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		secret, err := webhookSecret(cmd)
		if err != nil {
			return err
		}
		fl := cmd.Flags()
		p := apiv1.CreateForgeInstanceParams{WebhookSecret: secret}
		p.EndpointName, _ = fl.GetString("endpoint")
		p.CredentialsName, _ = fl.GetString("credentials")
		p.ForgeType, _ = fl.GetString("forge-type")
		p.PoolBalancerType, _ = fl.GetString("pool-balancer-type")
		p.AgentMode, _ = fl.GetBool("agent-mode")
		fi, err := c.CreateForgeInstance(ctx, p)
		if err != nil {
			return err
		}
		if install, _ := fl.GetBool("install-webhook"); install {
			if _, err := c.InstallWebhook(ctx, k, fi.ID, apiv1.InstallWebhookParams{WebhookEndpointType: "direct"}); err != nil {
				return fmt.Errorf("forge instance %s added, but installing its webhook failed: %w", fi.ID, err)
			}
		}
		if fi, err = c.GetForgeInstance(ctx, fi.ID); err != nil {
			return err
		}
		return show(cmd, fi)
	})

	list := addFormat(&cobra.Command{Use: "list", Aliases: []string{"ls"}, Short: "List forge instances", Args: cobra.NoArgs})
	list.Flags().String("endpoint", "", "only the forge instance of this endpoint")
	list.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		endpoint, _ := cmd.Flags().GetString("endpoint")
		fis, err := c.ListForgeInstances(ctx, endpoint)
		if err != nil {
			return err
		}
		return a.render(cmd, fis, func(w io.Writer) {
			views := make([]entityView, 0, len(fis))
			for _, fi := range fis {
				views = append(views, forgeInstanceView(fi))
			}
			entityTable(w, views, false)
		})
	})

	get := addFormat(&cobra.Command{Use: "show " + argUse, Aliases: []string{"get"}, Short: "Show a forge instance", Args: cobra.ExactArgs(1)})
	get.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		id, err := resolveEntity(ctx, c, k, args[0], "")
		if err != nil {
			return err
		}
		fi, err := c.GetForgeInstance(ctx, id)
		if err != nil {
			return err
		}
		return show(cmd, fi)
	})

	update := addFormat(&cobra.Command{Use: "update " + argUse, Short: "Update a forge instance (only the given flags are changed)", Args: cobra.ExactArgs(1)})
	updateEntityFlags(update)
	update.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		id, err := resolveEntity(ctx, c, k, args[0], "")
		if err != nil {
			return err
		}
		fi, err := c.UpdateForgeInstance(ctx, id, updateEntityParams(cmd))
		if err != nil {
			return err
		}
		return show(cmd, fi)
	})

	return group("forge-instance", "Manage forge instances (whole Gitea servers)", []string{"forge-instances", "fi"},
		add, list, get, update, a.entityDeleteCmd(k, argUse), a.webhookCmd(k))
}
