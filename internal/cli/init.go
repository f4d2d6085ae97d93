package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// initCmd: POST /first-run, POST /auth/login (both with an empty bearer
// token), then PUT /controller with the controller URLs.
func (a *app) initCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Initialize a new server: create the admin user, log in and set the controller URLs",
		Args:  cobra.NoArgs,
	}
	f := cmd.Flags()
	f.String("name", "", "name of the profile to create")
	f.String("url", "", "URL of the server, for example https://garrison.example.com:9997")
	f.String("username", "", "admin user name")
	f.String("email", "", "admin email address")
	f.String("full-name", "", "admin full name")
	f.String("password", "", "admin password (default: $"+EnvPassword+" or a prompt)")
	f.String("metadata-url", "", "metadata URL (default <url>/api/v1/metadata)")
	f.String("callback-url", "", "callback URL (default <url>/api/v1/callbacks)")
	f.String("webhook-url", "", "webhook base URL (default <url>/webhooks)")
	f.String("agent-url", "", "agent URL (default <url>/agent)")
	f.String("ca-bundle", "", "path to a PEM CA bundle for the controller")
	for _, n := range []string{"name", "url", "username", "email"} {
		_ = cmd.MarkFlagRequired(n)
	}
	cmd.RunE = run(func(ctx context.Context, cmd *cobra.Command, _ []string) error {
		f := cmd.Flags()
		name, _ := f.GetString("name")
		url, _ := f.GetString("url")
		url = strings.TrimRight(url, "/")
		if err := validName(name); err != nil {
			return err
		}
		store, err := a.store()
		if err != nil {
			return err
		}
		if store.index(name) >= 0 {
			return fmt.Errorf("profile %q already exists", name)
		}
		pw, err := a.newPassword(cmd)
		if err != nil {
			return err
		}
		var caBundle []byte
		if path, _ := f.GetString("ca-bundle"); path != "" {
			if caBundle, err = os.ReadFile(path); err != nil {
				return fmt.Errorf("read --ca-bundle: %w", err)
			}
		}
		c, err := a.newClient(cmd, url, "")
		if err != nil {
			return err
		}
		user := apiv1.NewUserParams{Password: pw}
		user.Username, _ = f.GetString("username")
		user.Email, _ = f.GetString("email")
		user.FullName, _ = f.GetString("full-name")
		if _, err := c.FirstRun(ctx, user); err != nil {
			return err
		}
		token, err := c.Login(ctx, apiv1.PasswordLoginParams{Username: user.Username, Password: pw})
		if err != nil {
			return err
		}
		store.put(Profile{Name: name, URL: url, Username: user.Username, Token: token})
		store.data.Active = name
		if err := store.save(); err != nil {
			return err
		}
		c.SetToken(token)

		urls := apiv1.UpdateControllerParams{CACertBundle: caBundle}
		urls.MetadataURL = flagOr(cmd, "metadata-url", url+apiclient.APIPrefix+"/metadata")
		urls.CallbackURL = flagOr(cmd, "callback-url", url+apiclient.APIPrefix+"/callbacks")
		urls.WebhookURL = flagOr(cmd, "webhook-url", url+"/webhooks")
		urls.AgentURL = flagOr(cmd, "agent-url", url+"/agent")
		info, err := c.UpdateController(ctx, urls)
		if err != nil {
			return fmt.Errorf("profile %q saved, but setting the controller URLs failed: %w", name, err)
		}
		w := a.stdout(cmd)
		fmt.Fprintf(w, "Admin user %s created; profile %q saved and active.\n\n", user.Username, name)
		writeFields(w, controllerFields(info))
		return nil
	})
	return cmd
}

// flagOr returns a pointer to the value of the named string flag, or to def
// when the flag is empty.
func flagOr(cmd *cobra.Command, name, def string) *string {
	v, _ := cmd.Flags().GetString(name)
	if v == "" {
		v = def
	}
	return &v
}
