package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// scaleSetCmd manages GitHub runner scale sets, as garm-cli's `scaleset` does.
func (a *app) scaleSetCmd() *cobra.Command {
	return group("scaleset", "Manage GitHub runner scale sets", []string{"scalesets", "ss"},
		a.scaleSetAddCmd(), a.scaleSetListCmd(), a.scaleSetShowCmd(), a.scaleSetUpdateCmd(), a.scaleSetDeleteCmd(),
		group("runner", "Manage the runners of a scale set", nil, a.scaleSetRunnerListCmd(), a.scaleSetRotateCmd()))
}

// scaleSetArg parses a scale set id.
func scaleSetArg(s string) (uint, error) {
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("invalid scale set id %q: want a number", s)
	}
	return uint(n), nil
}

// addScaleSetSpecFlags adds the flags `scaleset add` and `scaleset update` share.
func addScaleSetSpecFlags(cmd *cobra.Command, defaults bool) {
	addPoolSpecFlags(cmd, defaults)
	fl := cmd.Flags()
	_ = fl.MarkHidden("tags")
	_ = fl.MarkHidden("priority")
	fl.String("name", "", "scale set name: the label workflows target")
}

// scaleSetAddCmd: resolve the owner, template and proxy; POST /{kind}/{id}/scalesets.
func (a *app) scaleSetAddCmd() *cobra.Command {
	cmd := addFormat(&cobra.Command{Use: "add", Aliases: []string{"create"}, Short: "Add a scale set to a repository, organization or enterprise", Args: cobra.NoArgs})
	addOwnerFlags(cmd)
	cmd.MarkFlagsOneRequired("repo", "org", "enterprise")
	addScaleSetSpecFlags(cmd, true)
	cmd.Flags().String("provider-name", "", "provider that creates the runners")
	cmd.Flags().StringSlice("labels", nil, "extra GitHub labels, after the name (comma separated; creation only)")
	for _, n := range []string{"provider-name", "image", "flavor", "name"} {
		_ = cmd.MarkFlagRequired(n)
	}
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		specs, err := extraSpecs(cmd)
		if err != nil {
			return err
		}
		k, id, _, err := ownerFlag(ctx, cmd, c)
		if err != nil {
			return err
		}
		fl := cmd.Flags()
		p := apiv1.CreateScaleSetParams{ExtraSpecs: specs}
		p.Name, _ = fl.GetString("name")
		p.ProviderName, _ = fl.GetString("provider-name")
		p.MaxRunners, _ = fl.GetUint("max-runners")
		p.MinIdleRunners, _ = fl.GetUint("min-idle-runners")
		p.Image, _ = fl.GetString("image")
		p.Flavor, _ = fl.GetString("flavor")
		p.OSType, _ = fl.GetString("os-type")
		p.OSArch, _ = fl.GetString("os-arch")
		p.Labels, _ = fl.GetStringSlice("labels")
		p.Enabled, _ = fl.GetBool("enabled")
		p.RunnerBootstrapTimeout, _ = fl.GetUint("runner-bootstrap-timeout")
		p.EnableShell, _ = fl.GetBool("enable-shell")
		p.RunnerPrefix, _ = fl.GetString("runner-prefix")
		p.GitHubRunnerGroup, _ = fl.GetString("runner-group")
		if p.MinIdleRunners > p.MaxRunners {
			return errors.New("min_idle_runners cannot be larger than max_runners")
		}
		if p.TemplateID, err = templateID(ctx, cmd, c); err != nil {
			return err
		}
		if p.ProxyID, err = proxyID(ctx, cmd, c); err != nil {
			return err
		}
		ss, err := c.CreateScaleSet(ctx, k, id, p)
		if err != nil {
			return err
		}
		return a.render(cmd, ss, func(w io.Writer) { writeFields(w, scaleSetFields(ss)) })
	})
	return cmd
}

// scaleSetListCmd: GET /{kind}/{id}/scalesets, or GET /scalesets.
func (a *app) scaleSetListCmd() *cobra.Command {
	cmd := addFormat(&cobra.Command{Use: "list", Aliases: []string{"ls"}, Short: "List scale sets (all, or those of one entity)", Args: cobra.NoArgs})
	addOwnerFlags(cmd)
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		k, id, ok, err := ownerFlag(ctx, cmd, c)
		if err != nil {
			return err
		}
		var sets []apiv1.ScaleSet
		if ok {
			sets, err = c.ListEntityScaleSets(ctx, k, id)
		} else {
			sets, err = c.ListScaleSets(ctx)
		}
		if err != nil {
			return err
		}
		return a.render(cmd, sets, func(w io.Writer) { scaleSetTable(w, sets) })
	})
	return cmd
}

// scaleSetShowCmd: GET /scalesets/{id}.
func (a *app) scaleSetShowCmd() *cobra.Command {
	cmd := addFormat(&cobra.Command{Use: "show <scale-set-id>", Aliases: []string{"get"}, Short: "Show a scale set and its runners", Args: cobra.ExactArgs(1)})
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		id, err := scaleSetArg(args[0])
		if err != nil {
			return err
		}
		ss, err := c.GetScaleSet(ctx, id)
		if err != nil {
			return err
		}
		return a.render(cmd, ss, func(w io.Writer) { writeFields(w, scaleSetFields(ss)) })
	})
	return cmd
}

// scaleSetUpdateCmd: PUT /scalesets/{id} with the changed flags only; enable_shell, state
// and extended_state always present (null unless set), as garm-cli sends them.
func (a *app) scaleSetUpdateCmd() *cobra.Command {
	cmd := addFormat(&cobra.Command{Use: "update <scale-set-id>", Short: "Update a scale set (only the given flags are changed)", Args: cobra.ExactArgs(1)})
	addScaleSetSpecFlags(cmd, false)
	cmd.Flags().Bool("clear-proxy", false, "stop using a proxy")
	cmd.MarkFlagsMutuallyExclusive("proxy", "clear-proxy")
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		id, err := scaleSetArg(args[0])
		if err != nil {
			return err
		}
		if !anyChanged(cmd) {
			return errors.New("nothing to update: give at least one flag")
		}
		p, err := scaleSetUpdateParams(ctx, cmd, c)
		if err != nil {
			return err
		}
		ss, err := c.UpdateScaleSet(ctx, id, p)
		if err != nil {
			return err
		}
		return a.render(cmd, ss, func(w io.Writer) { writeFields(w, scaleSetFields(ss)) })
	})
	return cmd
}

func scaleSetUpdateParams(ctx context.Context, cmd *cobra.Command, c *apiclient.Client) (apiv1.UpdateScaleSetParams, error) {
	fl := cmd.Flags()
	var p apiv1.UpdateScaleSetParams
	var err error
	if p.ExtraSpecs, err = extraSpecs(cmd); err != nil {
		return p, err
	}
	p.Name, _ = fl.GetString("name")
	p.RunnerPrefix, _ = fl.GetString("runner-prefix")
	p.Image, _ = fl.GetString("image")
	p.Flavor, _ = fl.GetString("flavor")
	p.OSType, _ = fl.GetString("os-type")
	p.OSArch, _ = fl.GetString("os-arch")
	p.Enabled = changedBool(cmd, "enabled")
	p.EnableShell = changedBool(cmd, "enable-shell")
	p.MaxRunners = changedUint(cmd, "max-runners")
	p.MinIdleRunners = changedUint(cmd, "min-idle-runners")
	p.RunnerBootstrapTimeout = changedUint(cmd, "runner-bootstrap-timeout")
	p.RunnerGroup = changedString(cmd, "runner-group")
	if p.TemplateID, err = templateID(ctx, cmd, c); err != nil {
		return p, err
	}
	if p.ProxyID, err = proxyID(ctx, cmd, c); err != nil {
		return p, err
	}
	if clear, _ := fl.GetBool("clear-proxy"); clear {
		zero := uint(0)
		p.ProxyID = &zero
	}
	return p, nil
}

// scaleSetDeleteCmd: DELETE /scalesets/{id}.
func (a *app) scaleSetDeleteCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "delete <scale-set-id>", Aliases: []string{"remove", "rm", "del"},
		Short: "Delete a scale set (disable it and remove its runners first)", Args: cobra.ExactArgs(1)}
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		id, err := scaleSetArg(args[0])
		if err != nil {
			return err
		}
		return c.DeleteScaleSet(ctx, id)
	})
	return cmd
}

// scaleSetRunnerListCmd: GET /scalesets/{id}/instances[?outdatedOnly=true].
func (a *app) scaleSetRunnerListCmd() *cobra.Command {
	cmd := addFormat(&cobra.Command{Use: "list <scale-set-id>", Aliases: []string{"ls"}, Short: "List the runners of a scale set", Args: cobra.ExactArgs(1)})
	outdated := cmd.Flags().Bool("outdated", false, "only runners made from an older scale set definition")
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		id, err := scaleSetArg(args[0])
		if err != nil {
			return err
		}
		runners, err := c.ListScaleSetRunners(ctx, id, *outdated)
		if err != nil {
			return err
		}
		return a.render(cmd, runners, func(w io.Writer) { runnerTable(w, runners) })
	})
	return cmd
}

// scaleSetRotateCmd removes a scale set's idle runners, as garm-cli does on the client
// side: list them, keep those running and idle, and delete each; the scale set makes new
// ones from its current definition.
func (a *app) scaleSetRotateCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "rotate <scale-set-id>", Short: "Replace the idle runners of a scale set", Args: cobra.ExactArgs(1)}
	fl := cmd.Flags()
	outdated := fl.Bool("outdated", false, "only runners made from an older scale set definition")
	dryRun := fl.Bool("dry-run", false, "print the runners that would be removed")
	force := fl.BoolP("force-remove-runner", "f", false, "remove the runners even if the provider fails")
	bypass := fl.BoolP("bypass-github-unauthorized", "b", false, "remove the runners even if GitHub refuses the credentials")
	yes := fl.Bool("yes-i-really-mean-it", false, "confirm the removal")
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		id, err := scaleSetArg(args[0])
		if err != nil {
			return err
		}
		runners, err := c.ListScaleSetRunners(ctx, id, *outdated)
		if err != nil {
			return err
		}
		idle := idleRunners(runners)
		out := a.stdout(cmd)
		if *dryRun || !*yes {
			for _, r := range idle {
				fmt.Fprintln(out, r.Name)
			}
			if !*dryRun {
				return fmt.Errorf("%d runner(s) would be removed: add --yes-i-really-mean-it", len(idle))
			}
			return nil
		}
		for _, r := range idle {
			if err := c.DeleteInstance(ctx, r.Name, *force, *bypass); err != nil {
				return fmt.Errorf("removing runner %s: %w", r.Name, err)
			}
		}
		fmt.Fprintf(out, "%d runner(s) removed\n", len(idle))
		return nil
	})
	return cmd
}

// idleRunners keeps the runners that are running and idle: the ones a rotation may remove.
func idleRunners(runners []apiv1.Instance) []apiv1.Instance {
	var out []apiv1.Instance
	for _, r := range runners {
		if r.Status == "running" && r.RunnerStatus == "idle" {
			out = append(out, r)
		}
	}
	return out
}

// scaleSetOwner returns the level and name of the scale set's owner.
func scaleSetOwner(s apiv1.ScaleSet) (level, name string) {
	switch {
	case s.RepoID != "":
		return "repo", firstNonEmpty(s.RepoName, s.RepoID)
	case s.OrgID != "":
		return "org", firstNonEmpty(s.OrgName, s.OrgID)
	case s.EnterpriseID != "":
		return "enterprise", firstNonEmpty(s.EnterpriseName, s.EnterpriseID)
	}
	return "", ""
}

func scaleSetTable(w io.Writer, sets []apiv1.ScaleSet) {
	rows := make([][]string, 0, len(sets))
	for _, s := range sets {
		level, owner := scaleSetOwner(s)
		rows = append(rows, []string{
			uintStr(s.ID), s.Name, s.Image, s.Flavor, owner, level, s.Endpoint.Name, yesNo(s.Enabled), s.State,
			uintStr(s.MaxRunners), uintStr(s.MinIdleRunners), strconv.Itoa(s.DesiredRunnerCount),
		})
	}
	writeTable(w, []string{"ID", "NAME", "IMAGE", "FLAVOR", "BELONGS TO", "LEVEL", "ENDPOINT", "ENABLED", "STATE", "MAX", "MIN IDLE", "DESIRED"}, rows)
}

func scaleSetFields(s apiv1.ScaleSet) []field {
	level, owner := scaleSetOwner(s)
	var instances []string
	for _, i := range s.Instances {
		instances = append(instances, i.Name+" ("+i.Status+"/"+i.RunnerStatus+")")
	}
	return []field{
		{"ID", uintStr(s.ID)},
		{"Scale set ID", strconv.Itoa(s.ScaleSetID)},
		{"Name", s.Name},
		{"State", strings.TrimSpace(s.State + " " + s.ExtendedState)},
		{"Provider", s.ProviderName},
		{"Image", s.Image},
		{"Flavor", s.Flavor},
		{"OS type", s.OSType},
		{"OS arch", s.OSArch},
		{"Labels", tagNames(s.Tags)},
		{"Belongs to", owner},
		{"Level", level},
		{"Endpoint", s.Endpoint.Name},
		{"Enabled", yesNo(s.Enabled)},
		{"Disable update", yesNo(s.DisableUpdate)},
		{"Runner prefix", s.RunnerPrefix},
		{"Max runners", uintStr(s.MaxRunners)},
		{"Min idle runners", uintStr(s.MinIdleRunners)},
		{"Desired runner count", strconv.Itoa(s.DesiredRunnerCount)},
		{"Runner bootstrap timeout", uintStr(s.RunnerBootstrapTimeout)},
		{"Runner group", s.GitHubRunnerGroup},
		{"Generation", uintStr(s.Generation)},
		{"Extra specs", string(s.ExtraSpecs)},
		{"Instances", strings.Join(instances, "\n")},
		{"Created at", timeStr(s.CreatedAt)},
		{"Updated at", timeStr(s.UpdatedAt)},
	}
}
