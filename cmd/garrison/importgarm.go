package main

import (
	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/server"
)

func newImportGARMCmd() *cobra.Command {
	var f server.ImportFlags
	cmd := &cobra.Command{
		Use:   "import-garm --garm-config /etc/garm/config.toml",
		Short: "Bring a stopped GARM installation into garrison",
		Long: `Bring a stopped GARM installation into garrison: controller id and URLs (existing
webhooks keep working), the admin user (same password), endpoints, credentials, repositories,
organizations and enterprises with their webhook secrets, pools, live runners (adopted, not
recreated) and open jobs. Secrets are re-sealed with garrison's key.

It writes into the database ` + "`garrison server`" + ` would use with the same --data-dir and
--config, in one transaction, and never writes to GARM's database. --dry-run prints what would
be imported and what cannot be. What garrison cannot hold yet (forge instances, runner install
templates, proxies, the object store, scale sets) blocks the import while in use, unless
--skip-unsupported.

Exit status: 0 done (or a clean dry run), 1 blocking problems, 2 configuration error,
3 garrison's database is not empty (--force merges), 4 GARM's database unreadable or the
passphrase wrong.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			code, err := server.ImportGARM(cmd.Context(), f, cmd.OutOrStdout(), cmd.ErrOrStderr())
			if err != nil {
				return exitError{code: code} // the error is printed already
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.GARMConfig, "garm-config", "", "GARM's config.toml (its [database] and [jwt_auth] are read)")
	fl.StringVar(&f.GARMDBFile, "garm-db-file", "", "GARM's SQLite database, instead of the config's db_file (e.g. a copy)")
	fl.StringVar(&f.Server.DataDir, "data-dir", "", "garrison's data directory, as for garrison server")
	fl.StringVar(&f.Server.ConfigFile, "config", "", "garrison's config.toml, as for garrison server")
	fl.BoolVar(&f.DryRun, "dry-run", false, "read and plan everything, print the report, write nothing")
	fl.BoolVar(&f.Force, "force", false, "import into a garrison database that already holds data")
	fl.BoolVar(&f.SkipUnsupported, "skip-unsupported", false, "import what garrison can hold and list the rest")
	fl.StringVar(&f.Jobs, "jobs", server.DefaultImportJobs, "jobs to import: open (queued, in progress), all or none")
	fl.BoolVar(&f.NoHistory, "no-history", false, "leave entity events and runner status messages behind")
	fl.BoolVar(&f.KeepJWT, "keep-garrison-jwt-secret", false, "keep garrison's JWT secret instead of adopting GARM's")
	fl.BoolVar(&f.IgnoreListener, "ignore-listener", false, "skip the check that GARM no longer answers on its port")
	fl.StringVar(&f.ReportJSON, "report-json", "", "also write the report as JSON to this file")
	_ = cmd.MarkFlagRequired("garm-config")
	return cmd
}
