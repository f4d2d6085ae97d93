package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

// profileCmd manages the local profiles.
func (a *app) profileCmd() *cobra.Command {
	return group("profile", "Manage server profiles", []string{"profiles"},
		a.profileAddCmd(), a.profileListCmd(), a.profileSwitchCmd(), a.profileDeleteCmd(), a.profileLoginCmd())
}

// profileAddCmd: POST /auth/login, then save the profile as the active one.
func (a *app) profileAddCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "add",
		Aliases: []string{"create"},
		Short:   "Log in to an initialized server and save it as the active profile",
		Args:    cobra.NoArgs,
	}
	f := cmd.Flags()
	f.String("name", "", "name of the profile")
	f.String("url", "", "URL of the server")
	f.String("username", "", "user name")
	f.String("password", "", "password (default: $"+EnvPassword+" or a prompt)")
	for _, n := range []string{"name", "url", "username"} {
		_ = cmd.MarkFlagRequired(n)
	}
	cmd.RunE = run(func(ctx context.Context, cmd *cobra.Command, _ []string) error {
		name, _ := cmd.Flags().GetString("name")
		url, _ := cmd.Flags().GetString("url")
		url = strings.TrimRight(url, "/")
		user, _ := cmd.Flags().GetString("username")
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
		pw, err := a.password(cmd)
		if err != nil {
			return err
		}
		c, err := a.newClient(cmd, url, "")
		if err != nil {
			return err
		}
		token, err := c.Login(ctx, apiv1.PasswordLoginParams{Username: user, Password: pw})
		if err != nil {
			return err
		}
		store.put(Profile{Name: name, URL: url, Username: user, Token: token})
		store.data.Active = name
		if err := store.save(); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout(cmd), "Profile %q added and active.\n", name)
		return nil
	})
	return cmd
}

// profileLoginCmd: POST /auth/login with the old token still sent; stores
// the new token.
func (a *app) profileLoginCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Log in again with the selected profile and store the new token",
		Args:  cobra.NoArgs,
	}
	cmd.Flags().String("username", "", "user name (default: the profile's)")
	cmd.Flags().String("password", "", "password (default: $"+EnvPassword+" or a prompt)")
	cmd.RunE = run(func(ctx context.Context, cmd *cobra.Command, _ []string) error {
		store, err := a.store()
		if err != nil {
			return err
		}
		name, _ := cmd.Flags().GetString("profile")
		p, err := store.profile(name)
		if err != nil {
			return err
		}
		if u, _ := cmd.Flags().GetString("username"); u != "" {
			p.Username = u
		}
		pw, err := a.password(cmd)
		if err != nil {
			return err
		}
		c, err := a.newClient(cmd, p.URL, p.Token)
		if err != nil {
			return err
		}
		token, err := c.Login(ctx, apiv1.PasswordLoginParams{Username: p.Username, Password: pw})
		if err != nil {
			return err
		}
		p.Token = token
		store.put(p)
		if err := store.save(); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout(cmd), "Logged in; token of profile %q updated.\n", p.Name)
		return nil
	})
	return cmd
}

// profileView is a profile as listed: never the token.
type profileView struct {
	Name     string `json:"name"`
	URL      string `json:"url"`
	Username string `json:"username"`
	Active   bool   `json:"active"`
}

func (a *app) profileListCmd() *cobra.Command {
	cmd := addFormat(&cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the profiles",
		Args:    cobra.NoArgs,
	})
	cmd.RunE = run(func(_ context.Context, cmd *cobra.Command, _ []string) error {
		store, err := a.store()
		if err != nil {
			return err
		}
		views := make([]profileView, 0, len(store.data.Profiles))
		for _, p := range store.data.Profiles {
			views = append(views, profileView{p.Name, p.URL, p.Username, p.Name == store.data.Active})
		}
		return a.render(cmd, views, func(w io.Writer) {
			rows := make([][]string, 0, len(views))
			for _, v := range views {
				rows = append(rows, []string{v.Name, v.URL, v.Username, yesNo(v.Active)})
			}
			writeTable(w, []string{"NAME", "URL", "USERNAME", "ACTIVE"}, rows)
		})
	})
	return cmd
}

func (a *app) profileSwitchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "switch <name>",
		Short: "Make a profile the active one",
		Args:  cobra.ExactArgs(1),
	}
	cmd.RunE = run(func(_ context.Context, cmd *cobra.Command, args []string) error {
		store, err := a.store()
		if err != nil {
			return err
		}
		if _, err := store.profile(args[0]); err != nil {
			return err
		}
		store.data.Active = args[0]
		if err := store.save(); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout(cmd), "Profile %q is now active.\n", args[0])
		return nil
	})
	return cmd
}

func (a *app) profileDeleteCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "delete <name>",
		Aliases: []string{"remove", "rm", "del"},
		Short:   "Delete a profile",
		Args:    cobra.ExactArgs(1),
	}
	cmd.RunE = run(func(_ context.Context, cmd *cobra.Command, args []string) error {
		store, err := a.store()
		if err != nil {
			return err
		}
		if err := store.remove(args[0]); err != nil {
			return err
		}
		if err := store.save(); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout(cmd), "Profile %q deleted.\n", args[0])
		return nil
	})
	return cmd
}
