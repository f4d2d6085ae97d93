package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/cli"
	"github.com/garrison-ci/garrison/internal/server"
)

func newAdminCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "admin",
		Short: "Administer the server's database directly (run on the server host)",
	}
	cmd.AddCommand(newPasswordResetCmd())
	return cmd
}

// newPasswordResetCmd resets the admin password in the database and bumps the user's
// token generation, which revokes every token issued before.
func newPasswordResetCmd() *cobra.Command {
	var f server.Flags
	var username, password string
	cmd := &cobra.Command{
		Use:   "password-reset",
		Short: "Set a new admin password and revoke every token issued so far",
		Long: `Set a new admin password and revoke every token issued so far.

It opens the server's database directly, so run it on the server host with the same
--data-dir and --config as the server. The password comes from --password or the
GARRISON_PASSWORD environment variable.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if password == "" {
				password = os.Getenv(cli.EnvPassword)
			}
			if password == "" {
				return errors.New("a new password is required: use --password or GARRISON_PASSWORD")
			}
			cfg, err := server.LoadConfig(f)
			if err != nil {
				return err
			}
			name, err := server.ResetPassword(cmd.Context(), cfg, username, password)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "password of %s reset; every earlier token is revoked\n", name)
			return nil
		},
	}
	cmd.Flags().StringVar(&f.DataDir, "data-dir", "", "the server's data directory (default $XDG_DATA_HOME/garrison)")
	cmd.Flags().StringVar(&f.ConfigFile, "config", "", "the server's config.toml, if it uses one")
	cmd.Flags().StringVar(&username, "username", "admin", "the admin user name")
	cmd.Flags().StringVar(&password, "password", "", "the new password (or GARRISON_PASSWORD)")
	return cmd
}
