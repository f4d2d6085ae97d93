package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// orgCmd manages organizations.
func (a *app) orgCmd() *cobra.Command {
	return a.orgLikeCmd(apiclient.Organizations)
}

// enterpriseCmd manages enterprises: like organizations without forge type
// and webhooks, and `add` prints the POST answer without a GET.
func (a *app) enterpriseCmd() *cobra.Command {
	return a.orgLikeCmd(apiclient.Enterprises)
}

// orgLikeCmd builds the organization or enterprise command group.
func (a *app) orgLikeCmd(k apiclient.EntityKind) *cobra.Command {
	const argUse = "<id|name>"
	noun := kindNoun(k)
	isOrg := k == apiclient.Organizations

	add := addFormat(&cobra.Command{Use: "add", Aliases: []string{"create"}, Short: "Add an " + noun, Args: cobra.NoArgs})
	addEntityFlags(add, isOrg)
	add.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		secret, err := webhookSecret(cmd)
		if err != nil {
			return err
		}
		fl := cmd.Flags()
		p := apiv1.CreateOrgParams{WebhookSecret: secret}
		p.Name, _ = fl.GetString("name")
		p.CredentialsName, _ = fl.GetString("credentials")
		p.PoolBalancerType, _ = fl.GetString("pool-balancer-type")
		p.AgentMode, _ = fl.GetBool("agent-mode")
		var o apiv1.Organization
		if isOrg {
			p.ForgeType, _ = fl.GetString("forge-type")
			if o, err = c.CreateOrganization(ctx, p); err != nil {
				return err
			}
			if install, _ := fl.GetBool("install-webhook"); install {
				if _, err := c.InstallWebhook(ctx, k, o.ID, apiv1.InstallWebhookParams{WebhookEndpointType: "direct"}); err != nil {
					return fmt.Errorf("organization %s added, but installing its webhook failed: %w", o.ID, err)
				}
			}
			if o, err = c.GetOrganization(ctx, o.ID); err != nil {
				return err
			}
		} else if o, err = c.CreateEnterprise(ctx, p); err != nil {
			return err
		}
		return a.render(cmd, o, func(w io.Writer) { writeFields(w, entityFields(orgView(o), false)) })
	})

	list := addFormat(&cobra.Command{Use: "list", Aliases: []string{"ls"}, Short: "List " + noun + "s", Args: cobra.NoArgs})
	list.Flags().String("name", "", "only "+noun+"s with this name")
	list.Flags().String("endpoint", "", "only "+noun+"s on this endpoint")
	list.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		var f apiclient.EntityFilter
		f.Name, _ = cmd.Flags().GetString("name")
		f.Endpoint, _ = cmd.Flags().GetString("endpoint")
		var orgs []apiv1.Organization
		var err error
		if isOrg {
			orgs, err = c.ListOrganizations(ctx, f)
		} else {
			orgs, err = c.ListEnterprises(ctx, f)
		}
		if err != nil {
			return err
		}
		return a.render(cmd, orgs, func(w io.Writer) {
			views := make([]entityView, 0, len(orgs))
			for _, o := range orgs {
				views = append(views, orgView(o))
			}
			entityTable(w, views, false)
		})
	})

	show := addFormat(&cobra.Command{Use: "show " + argUse, Aliases: []string{"get"}, Short: "Show an " + noun, Args: cobra.ExactArgs(1)})
	show.Flags().String("endpoint", "", "endpoint name, to tell apart "+noun+"s with the same name")
	show.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		endpoint, _ := cmd.Flags().GetString("endpoint")
		id, err := resolveEntity(ctx, c, k, args[0], endpoint)
		if err != nil {
			return err
		}
		var o apiv1.Organization
		if isOrg {
			o, err = c.GetOrganization(ctx, id)
		} else {
			o, err = c.GetEnterprise(ctx, id)
		}
		if err != nil {
			return err
		}
		return a.render(cmd, o, func(w io.Writer) { writeFields(w, entityFields(orgView(o), false)) })
	})

	update := addFormat(&cobra.Command{Use: "update " + argUse, Short: "Update an " + noun + " (only the given flags are changed)", Args: cobra.ExactArgs(1)})
	updateEntityFlags(update)
	update.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		endpoint, _ := cmd.Flags().GetString("endpoint")
		id, err := resolveEntity(ctx, c, k, args[0], endpoint)
		if err != nil {
			return err
		}
		var o apiv1.Organization
		if isOrg {
			o, err = c.UpdateOrganization(ctx, id, updateEntityParams(cmd))
		} else {
			o, err = c.UpdateEnterprise(ctx, id, updateEntityParams(cmd))
		}
		if err != nil {
			return err
		}
		return a.render(cmd, o, func(w io.Writer) { writeFields(w, entityFields(orgView(o), false)) })
	})

	subs := []*cobra.Command{add, list, show, update, a.entityDeleteCmd(k, argUse)}
	if isOrg {
		subs = append(subs, a.webhookCmd(k))
		return group("organization", "Manage organizations", []string{"org", "organizations", "orgs"}, subs...)
	}
	return group("enterprise", "Manage enterprises", []string{"ent", "enterprises"}, subs...)
}
