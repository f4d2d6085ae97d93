package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// controllerCmd shows and updates the controller settings.
func (a *app) controllerCmd() *cobra.Command {
	return group("controller", "Show or update the controller settings", []string{"controller-info"},
		a.controllerShowCmd(), a.controllerUpdateCmd())
}

// controllerShowCmd: GET /controller-info.
func (a *app) controllerShowCmd() *cobra.Command {
	cmd := addFormat(&cobra.Command{
		Use:     "show",
		Aliases: []string{"get"},
		Short:   "Show the controller information",
		Args:    cobra.NoArgs,
	})
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		info, err := c.GetControllerInfo(ctx)
		if err != nil {
			return err
		}
		return a.render(cmd, info, func(w io.Writer) { writeFields(w, controllerFields(info)) })
	})
	return cmd
}

// controllerUpdateCmd: PUT /controller with only the changed settings.
func (a *app) controllerUpdateCmd() *cobra.Command {
	cmd := addFormat(&cobra.Command{
		Use:   "update",
		Short: "Update the controller settings (only the given flags are changed)",
		Args:  cobra.NoArgs,
	})
	f := cmd.Flags()
	f.String("metadata-url", "", "URL instances fetch their metadata from")
	f.String("callback-url", "", "URL instances report their status to")
	f.String("webhook-url", "", "base URL forges send webhooks to")
	f.String("agent-url", "", "URL garm agents connect to")
	f.String("garm-agent-releases-url", "", agentFlagUsage("URL of the garm-agent releases"))
	f.String("garm-agent-version", "", agentFlagUsage("garm-agent version to use (vX.Y.Z, or latest)"))
	f.Bool("enable-agent-tools-sync", false, agentFlagUsage("synchronize the garm-agent tools"))
	f.Bool("allow-insecure-garm-agent", false, agentFlagUsage("allow garm agents to skip TLS verification"))
	f.String("ca-bundle", "", "path to a PEM CA bundle to add to the controller")
	f.Bool("clear-ca-bundle", false, "remove the controller CA bundle")
	f.Uint("minimum-job-age-backoff", 0, "seconds a queued job waits before a runner is created for it")
	cmd.MarkFlagsMutuallyExclusive("ca-bundle", "clear-ca-bundle")
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		var p apiv1.UpdateControllerParams
		p.MetadataURL = changedString(cmd, "metadata-url")
		p.CallbackURL = changedString(cmd, "callback-url")
		p.WebhookURL = changedString(cmd, "webhook-url")
		p.AgentURL = changedString(cmd, "agent-url")
		p.GARMAgentReleasesURL = changedString(cmd, "garm-agent-releases-url")
		p.GARMAgentVersion = changedString(cmd, "garm-agent-version")
		p.EnableAgentToolsSync = changedBool(cmd, "enable-agent-tools-sync")
		p.AllowInsecureAgent = changedBool(cmd, "allow-insecure-garm-agent")
		p.ClearCACertBundle = changedBool(cmd, "clear-ca-bundle")
		p.MinimumJobAgeBackoff = changedUint(cmd, "minimum-job-age-backoff")
		if path, _ := cmd.Flags().GetString("ca-bundle"); path != "" {
			data, err := os.ReadFile(path)
			if err != nil {
				return fmt.Errorf("read --ca-bundle: %w", err)
			}
			p.CACertBundle = data
		}
		if !anyChanged(cmd) {
			return fmt.Errorf("nothing to update: give at least one flag")
		}
		info, err := c.UpdateController(ctx, p)
		if err != nil {
			return err
		}
		return a.render(cmd, info, func(w io.Writer) { writeFields(w, controllerFields(info)) })
	})
	return cmd
}

// controllerFields lists every ControllerInfo key.
func controllerFields(i apiv1.ControllerInfo) []field {
	fetched := ""
	if i.CachedAgentReleaseFetch != nil {
		fetched = timeStr(*i.CachedAgentReleaseFetch)
	}
	return []field{
		{"Controller ID", i.ControllerID},
		{"Hostname", i.Hostname},
		{"Metadata URL", i.MetadataURL},
		{"Callback URL", i.CallbackURL},
		{"Webhook base URL", i.WebhookURL},
		{"Controller webhook URL", i.ControllerWebhookURL},
		{"Agent URL", i.AgentURL},
		{"GARM agent releases URL", i.GARMAgentReleasesURL},
		{"Enable agent tools sync", yesNo(i.EnableAgentToolsSync)},
		{"GARM agent version", i.GARMAgentVersion},
		{"Allow insecure GARM agent", yesNo(i.AllowInsecureGARMAgent)},
		{"Minimum job age backoff", uintStr(i.MinimumJobAgeBackoff)},
		{"Version", i.Version},
		{"CA certificate bundle", caSummary(i.CACertBundle)},
		{"Agent release fetched at", fetched},
	}
}

// caSummary says whether a CA bundle is set and how many certificates it
// holds, without printing it.
func caSummary(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	n := strings.Count(string(b), "-----BEGIN CERTIFICATE-----")
	return fmt.Sprintf("%d certificate(s), %d bytes", n, len(b))
}

// changedString returns the flag's value when it was given, else nil.
func changedString(cmd *cobra.Command, name string) *string {
	if !cmd.Flags().Changed(name) {
		return nil
	}
	v, _ := cmd.Flags().GetString(name)
	return &v
}

// changedBool returns the flag's value when it was given, else nil.
func changedBool(cmd *cobra.Command, name string) *bool {
	if !cmd.Flags().Changed(name) {
		return nil
	}
	v, _ := cmd.Flags().GetBool(name)
	return &v
}

// changedUint returns the flag's value when it was given, else nil.
func changedUint(cmd *cobra.Command, name string) *uint {
	if !cmd.Flags().Changed(name) {
		return nil
	}
	v, _ := cmd.Flags().GetUint(name)
	return &v
}

// anyChanged reports whether any local flag other than --format was given.
func anyChanged(cmd *cobra.Command) bool {
	changed := false
	cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if f.Changed && f.Name != "format" {
			changed = true
		}
	})
	return changed
}
