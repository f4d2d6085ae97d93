package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// credentialsCmd manages the credentials of one forge.
func (a *app) credentialsCmd(f apiclient.Forge) *cobra.Command {
	title := forgeTitle(f)
	list := a.credentialsListCmd("List "+title+" credentials", func(ctx context.Context, c *apiclient.Client) ([]apiv1.ForgeCredentials, error) {
		return c.ListCredentials(ctx, f)
	})

	show := addFormat(&cobra.Command{Use: "show <id|name>", Aliases: []string{"get"}, Short: "Show " + title + " credentials and what uses them", Args: cobra.ExactArgs(1)})
	show.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		id, err := resolveCredentials(ctx, c, f, args[0])
		if err != nil {
			return err
		}
		cr, err := c.GetCredentials(ctx, f, id)
		if err != nil {
			return err
		}
		return a.render(cmd, cr, func(w io.Writer) { writeFields(w, credentialsFields(cr)) })
	})

	del := &cobra.Command{Use: "delete <id|name>", Aliases: []string{"remove", "rm"}, Short: "Delete " + title + " credentials", Args: cobra.ExactArgs(1)}
	del.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		id, err := resolveCredentials(ctx, c, f, args[0])
		if err != nil {
			return err
		}
		return c.DeleteCredentials(ctx, f, id)
	})

	add := addFormat(&cobra.Command{Use: "add", Aliases: []string{"create"}, Short: "Add " + title + " credentials", Args: cobra.NoArgs})
	update := addFormat(&cobra.Command{Use: "update <id|name>", Short: "Update " + title + " credentials (only the given flags are changed)", Args: cobra.ExactArgs(1)})
	add.Flags().String("endpoint", "", "name of the "+title+" endpoint the credentials belong to")
	authHelp := "authentication type: pat"
	if f == apiclient.GitHub {
		authHelp += " or app"
	}
	add.Flags().String("auth-type", "pat", authHelp)
	for _, cmd := range []*cobra.Command{add, update} {
		fl := cmd.Flags()
		fl.String("name", "", "name of the credentials")
		fl.String("description", "", "description")
		fl.String("pat-oauth-token", "", "personal access token")
		if f == apiclient.GitHub {
			fl.Int64("app-id", 0, "GitHub App id")
			fl.Int64("app-installation-id", 0, "GitHub App installation id")
			fl.String("private-key-path", "", "path to the GitHub App private key (PEM)")
			cmd.MarkFlagsMutuallyExclusive("pat-oauth-token", "app-id")
			cmd.MarkFlagsMutuallyExclusive("pat-oauth-token", "app-installation-id")
			cmd.MarkFlagsMutuallyExclusive("pat-oauth-token", "private-key-path")
		}
	}
	for _, n := range []string{"name", "description", "endpoint"} {
		_ = add.MarkFlagRequired(n)
	}
	add.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		fl := cmd.Flags()
		p := apiv1.CreateCredentialsParams{}
		p.Name, _ = fl.GetString("name")
		p.Description, _ = fl.GetString("description")
		p.Endpoint, _ = fl.GetString("endpoint")
		p.AuthType, _ = fl.GetString("auth-type")
		switch p.AuthType {
		case "pat":
			p.PAT.OAuth2Token, _ = fl.GetString("pat-oauth-token")
			if p.PAT.OAuth2Token == "" {
				return fmt.Errorf("--pat-oauth-token is required with --auth-type pat")
			}
		case "app":
			if f != apiclient.GitHub {
				return fmt.Errorf("invalid --auth-type %q: Gitea supports only pat", p.AuthType)
			}
			app, err := appFlags(cmd)
			if err != nil {
				return err
			}
			if app.AppID == 0 || app.InstallationID == 0 || len(app.PrivateKeyBytes) == 0 {
				return fmt.Errorf("--app-id, --app-installation-id and --private-key-path are required with --auth-type app")
			}
			p.App = app
		default:
			return fmt.Errorf("invalid --auth-type %q: want pat or app", p.AuthType)
		}
		cr, err := c.CreateCredentials(ctx, f, p)
		if err != nil {
			return err
		}
		return a.render(cmd, cr, func(w io.Writer) { writeFields(w, credentialsFields(cr)) })
	})
	update.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		if !anyChanged(cmd) {
			return fmt.Errorf("nothing to update: give at least one flag")
		}
		id, err := resolveCredentials(ctx, c, f, args[0])
		if err != nil {
			return err
		}
		p := apiv1.UpdateCredentialsParams{
			Name:        changedString(cmd, "name"),
			Description: changedString(cmd, "description"),
		}
		if tok := changedString(cmd, "pat-oauth-token"); tok != nil {
			p.PAT = &apiv1.GithubPAT{OAuth2Token: *tok}
		}
		if f == apiclient.GitHub && (cmd.Flags().Changed("app-id") || cmd.Flags().Changed("app-installation-id") || cmd.Flags().Changed("private-key-path")) {
			app, err := appFlags(cmd)
			if err != nil {
				return err
			}
			p.App = &app
		}
		cr, err := c.UpdateCredentials(ctx, f, id, p)
		if err != nil {
			return err
		}
		return a.render(cmd, cr, func(w io.Writer) { writeFields(w, credentialsFields(cr)) })
	})
	return group("credentials", "Manage "+title+" credentials", []string{"creds"}, add, list, show, update, del)
}

// legacyCredentialsCmd is `credentials list`: GET /credentials.
func (a *app) legacyCredentialsCmd() *cobra.Command {
	list := a.credentialsListCmd("List GitHub credentials (legacy route)", func(ctx context.Context, c *apiclient.Client) ([]apiv1.ForgeCredentials, error) {
		return c.ListLegacyCredentials(ctx)
	})
	return group("credentials", "List GitHub credentials (legacy; see `github credentials`)", []string{"creds"}, list)
}

func (a *app) credentialsListCmd(short string, list func(context.Context, *apiclient.Client) ([]apiv1.ForgeCredentials, error)) *cobra.Command {
	cmd := addFormat(&cobra.Command{Use: "list", Aliases: []string{"ls"}, Short: short, Args: cobra.NoArgs})
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		creds, err := list(ctx, c)
		if err != nil {
			return err
		}
		return a.render(cmd, creds, func(w io.Writer) {
			rows := make([][]string, 0, len(creds))
			for _, cr := range creds {
				rows = append(rows, []string{uintStr(cr.ID), cr.Name, cr.Description, cr.BaseURL, cr.APIBaseURL, cr.UploadBaseURL, cr.AuthType, cr.Endpoint.Name})
			}
			writeTable(w, []string{"ID", "NAME", "DESCRIPTION", "BASE URL", "API URL", "UPLOAD URL", "TYPE", "ENDPOINT"}, rows)
		})
	})
	return cmd
}

// appFlags reads the GitHub App flags that were given.
func appFlags(cmd *cobra.Command) (apiv1.GithubApp, error) {
	var app apiv1.GithubApp
	app.AppID, _ = cmd.Flags().GetInt64("app-id")
	app.InstallationID, _ = cmd.Flags().GetInt64("app-installation-id")
	key, err := readOptionalFile(cmd, "private-key-path")
	if err != nil {
		return app, err
	}
	app.PrivateKeyBytes = key
	return app, nil
}

// resolveCredentials turns a numeric id or a credentials name into an id.
func resolveCredentials(ctx context.Context, c *apiclient.Client, f apiclient.Forge, arg string) (uint, error) {
	if id, err := strconv.ParseUint(arg, 10, 0); err == nil {
		return uint(id), nil
	}
	creds, err := c.ListCredentials(ctx, f)
	if err != nil {
		return 0, err
	}
	var found []apiv1.ForgeCredentials
	for _, cr := range creds {
		if strings.EqualFold(cr.Name, arg) {
			found = append(found, cr)
		}
	}
	switch len(found) {
	case 0:
		return 0, fmt.Errorf("credentials %q not found", arg)
	case 1:
		return found[0].ID, nil
	}
	return 0, fmt.Errorf("several credentials are named %q; use the id", arg)
}

func credentialsFields(cr apiv1.ForgeCredentials) []field {
	fs := []field{
		{"ID", uintStr(cr.ID)},
		{"Name", cr.Name},
		{"Description", cr.Description},
		{"Forge type", cr.ForgeType},
		{"Auth type", cr.AuthType},
		{"Endpoint", cr.Endpoint.Name},
		{"Base URL", cr.BaseURL},
		{"API URL", cr.APIBaseURL},
		{"Upload URL", cr.UploadBaseURL},
		{"CA bundle", caSummary(cr.CABundle)},
	}
	if rl := cr.RateLimit; rl != nil {
		fs = append(fs, field{"Rate limit", fmt.Sprintf("%d/%d used, %d remaining, resets at %d", rl.Used, rl.Limit, rl.Remaining, rl.Reset)})
	}
	var names []string
	for _, r := range cr.Repositories {
		names = append(names, r.Owner+"/"+r.Name)
	}
	fs = append(fs, field{"Repositories", strings.Join(names, "\n")})
	names = names[:0]
	for _, o := range cr.Organizations {
		names = append(names, o.Name)
	}
	fs = append(fs, field{"Organizations", strings.Join(names, "\n")})
	names = names[:0]
	for _, e := range cr.Enterprises {
		names = append(names, e.Name)
	}
	return append(fs,
		field{"Enterprises", strings.Join(names, "\n")},
		field{"Created at", timeStr(cr.CreatedAt)},
		field{"Updated at", timeStr(cr.UpdatedAt)},
	)
}
