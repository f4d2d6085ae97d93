package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/provider/providertest"
)

// errProviderCheckFailed is returned when a conformance step fails.
var errProviderCheckFailed = errors.New("provider does not conform")

// newProviderCmd groups the provider tools: `garrison-dev provider check`.
func newProviderCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "provider",
		Short: "Tools for provider executables",
	}
	cmd.AddCommand(newProviderCheckCmd())
	return cmd
}

// newProviderCheckCmd returns `garrison-dev provider check`, which runs the
// conformance kit against a provider executable and prints the report.
func newProviderCheckCmd() *cobra.Command {
	var opts providertest.Options
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Check a provider executable against the GARM provider contract",
		Long: "Runs the provider through create, get, list, stop, start, delete, delete-again and\n" +
			"remove-all with fresh controller and pool ids, checks every answer against the\n" +
			"contract and prints a table. Exits non-zero if any step fails. The instances it\n" +
			"creates are real: point it at a test account or project.",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, p := range []*string{&opts.Executable, &opts.ConfigFile} {
				if abs, err := filepath.Abs(*p); err == nil && *p != "" {
					*p = abs
				}
			}
			rep := providertest.Check(cmd.Context(), opts)
			if err := rep.WriteTable(cmd.OutOrStdout()); err != nil {
				return err
			}
			if !rep.Passed() {
				return fmt.Errorf("%w: %d of %d steps failed", errProviderCheckFailed, len(rep.Failures()), len(rep.Results))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Executable, "executable", "", "path of the provider executable (required)")
	f.StringVar(&opts.ConfigFile, "config", "", "provider config file, sent as GARM_PROVIDER_CONFIG_FILE (required)")
	f.StringVar(&opts.InterfaceVersion, "interface-version", "v0.1.1", "interface version: v0.1.0 or v0.1.1")
	f.StringVar(&opts.Image, "image", "", "image of the test instances")
	f.StringVar(&opts.Flavor, "flavor", "", "flavor of the test instances")
	f.StringVar(&opts.OSType, "os-type", "linux", "os_type of the test instances")
	f.StringVar(&opts.OSArch, "arch", "amd64", "arch of the test instances")
	f.StringSliceVar(&opts.EnvPrefixes, "env-prefix", nil, "pass variables with this name prefix to the provider (repeatable)")
	f.DurationVar(&opts.CallTimeout, "timeout", 5*time.Minute, "time limit of each provider call")
	_ = cmd.MarkFlagRequired("executable")
	_ = cmd.MarkFlagRequired("config")
	return cmd
}
