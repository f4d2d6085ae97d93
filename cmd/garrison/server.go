package main

import (
	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/server"
)

func newServerCmd() *cobra.Command {
	var f server.Flags
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Run the garrison server",
		Long: `Run the garrison server.

With no flags it listens on 127.0.0.1:9997, keeps its data in $XDG_DATA_HOME/garrison
(or ~/.local/share/garrison) in an SQLite database, and on first start generates a database
passphrase and a JWT secret into a 0600 file there.

One server uses a data directory at a time: it locks <data dir>/garrison.lock, and a
second server on the same directory refuses to start. SIGHUP (systemctl reload) rotates
the log file ([logging] log_file) and the server keeps running; SIGINT or SIGTERM stop it
gracefully.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := server.LoadConfig(f)
			if err != nil {
				return err
			}
			return server.Run(cmd.Context(), cfg, cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&f.DataDir, "data-dir", "", "directory for the database and generated secrets (default $XDG_DATA_HOME/garrison)")
	cmd.Flags().StringVar(&f.Listen, "listen", "", "address to listen on, ADDR:PORT (default 127.0.0.1:9997)")
	cmd.Flags().StringVar(&f.ConfigFile, "config", "", "GARM-compatible config.toml (default: none, embedded defaults)")
	return cmd
}
