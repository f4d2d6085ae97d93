package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// poolCmd manages pools.
func (a *app) poolCmd() *cobra.Command {
	return group("pool", "Manage pools of runners", []string{"pools"},
		a.poolAddCmd(), a.poolListCmd(), a.poolShowCmd(), a.poolHealthCmd(), a.poolUpdateCmd(), a.poolDeleteCmd(),
		group("runner", "Manage the runners of a pool", nil, a.poolRotateCmd()))
}

// addOwnerFlags adds --repo, --org, --enterprise, --forge-instance and --endpoint.
func addOwnerFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.String("repo", "", "repository (id or owner/name)")
	fl.String("org", "", "organization (id or name)")
	fl.String("enterprise", "", "enterprise (id or name)")
	fl.String("forge-instance", "", "forge instance (id or endpoint name)")
	fl.String("endpoint", "", "endpoint name, to tell apart entities with the same name")
	cmd.MarkFlagsMutuallyExclusive("repo", "org", "enterprise", "forge-instance")
}

// ownerFlag returns the kind and resolved id selected by --repo, --org,
// --enterprise or --forge-instance; ok is false when none was given.
func ownerFlag(ctx context.Context, cmd *cobra.Command, c *apiclient.Client) (k apiclient.EntityKind, id string, ok bool, err error) {
	endpoint, _ := cmd.Flags().GetString("endpoint")
	for _, o := range []struct {
		flag string
		kind apiclient.EntityKind
	}{{"repo", apiclient.Repositories}, {"org", apiclient.Organizations}, {"enterprise", apiclient.Enterprises},
		{"forge-instance", apiclient.ForgeInstances}} {
		v, _ := cmd.Flags().GetString(o.flag)
		if v == "" {
			continue
		}
		id, err := resolveEntity(ctx, c, o.kind, v, endpoint)
		return o.kind, id, true, err
	}
	return "", "", false, nil
}

// addPoolSpecFlags adds the flags `pool add` and `pool update` share.
func addPoolSpecFlags(cmd *cobra.Command, defaults bool) {
	def := func(s string, n uint) (string, uint) {
		if defaults {
			return s, n
		}
		return "", 0
	}
	fl := cmd.Flags()
	fl.String("image", "", "provider image of the runners")
	fl.String("flavor", "", "provider flavor of the runners")
	fl.StringSlice("tags", nil, "labels of the runners (comma separated)")
	osType, maxRunners := def("linux", 5)
	fl.String("os-type", osType, "OS of the runners: linux or windows")
	osArch, minIdle := def("amd64", 1)
	fl.String("os-arch", osArch, "architecture of the runners: amd64, arm or arm64")
	fl.Uint("max-runners", maxRunners, "maximum number of runners")
	fl.Uint("min-idle-runners", minIdle, "number of idle runners to keep ready")
	_, timeout := def("", 20)
	fl.Uint("runner-bootstrap-timeout", timeout, "minutes a runner may take to come online")
	fl.String("runner-prefix", "", "prefix of runner names (server default: garm)")
	fl.String("runner-group", "", "GitHub runner group")
	fl.Uint("priority", 0, "pool priority (higher first)")
	fl.Bool("enabled", false, "enable the pool")
	fl.Bool("enable-shell", false, agentFlagUsage("allow shell access to the runners through the agent"))
	fl.String("extra-specs", "", "provider-specific settings as JSON")
	fl.String("extra-specs-file", "", "file holding the provider-specific settings as JSON")
	fl.String("runner-install-template", "", "runner install template (id or name)")
	fl.String("proxy", "", "proxy (id or name)")
	cmd.MarkFlagsMutuallyExclusive("extra-specs", "extra-specs-file")
}

// extraSpecs returns the JSON of --extra-specs or --extra-specs-file, or nil.
func extraSpecs(cmd *cobra.Command) (json.RawMessage, error) {
	raw, _ := cmd.Flags().GetString("extra-specs")
	src := "--extra-specs"
	if path, _ := cmd.Flags().GetString("extra-specs-file"); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read --extra-specs-file: %w", err)
		}
		raw, src = string(data), "--extra-specs-file"
	}
	if strings.TrimSpace(raw) == "" {
		return nil, nil
	}
	if !json.Valid([]byte(raw)) {
		return nil, fmt.Errorf("%s is not valid JSON", src)
	}
	return json.RawMessage(raw), nil
}

// resolveNamed turns --runner-install-template or --proxy into an id: a
// number is used as is (the server names it when it does not exist); a name
// is looked up with list. A server without the list route has none.
func resolveNamed(cmd *cobra.Command, flag, noun, plural string, list func(name string) ([]apiclient.NamedObject, error)) (*uint, error) {
	v, _ := cmd.Flags().GetString(flag)
	if v == "" {
		return nil, nil
	}
	if n, err := strconv.ParseUint(v, 10, 0); err == nil {
		id := uint(n)
		return &id, nil
	}
	objs, err := list(v)
	if apiclient.IsNotFound(err) {
		return nil, fmt.Errorf("%s %q not found: the server has no %s", noun, v, plural)
	}
	if err != nil {
		return nil, fmt.Errorf("looking up %s %q: %w", noun, v, err)
	}
	for _, o := range objs {
		if strings.EqualFold(o.Name, v) {
			id := o.ID
			return &id, nil
		}
	}
	return nil, fmt.Errorf("%s %q not found", noun, v)
}

func templateID(ctx context.Context, cmd *cobra.Command, c *apiclient.Client) (*uint, error) {
	return resolveNamed(cmd, "runner-install-template", "runner install template", "runner install templates", func(name string) ([]apiclient.NamedObject, error) {
		return c.ListTemplates(ctx, name)
	})
}

func proxyID(ctx context.Context, cmd *cobra.Command, c *apiclient.Client) (*uint, error) {
	return resolveNamed(cmd, "proxy", "proxy", "proxies", func(string) ([]apiclient.NamedObject, error) {
		return c.ListProxies(ctx)
	})
}

// poolAddCmd: resolve the owner; resolve template and proxy names; then
// POST /{kind}/{id}/pools.
func (a *app) poolAddCmd() *cobra.Command {
	cmd := addFormat(&cobra.Command{Use: "add", Aliases: []string{"create"}, Short: "Add a pool to a repository, organization, enterprise or forge instance", Args: cobra.NoArgs})
	addOwnerFlags(cmd)
	cmd.MarkFlagsOneRequired("repo", "org", "enterprise", "forge-instance")
	addPoolSpecFlags(cmd, true)
	cmd.Flags().String("provider-name", "", "provider that creates the runners")
	for _, n := range []string{"provider-name", "image", "flavor", "tags"} {
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
		p := apiv1.CreatePoolParams{ExtraSpecs: specs}
		p.ProviderName, _ = fl.GetString("provider-name")
		p.MaxRunners, _ = fl.GetUint("max-runners")
		p.MinIdleRunners, _ = fl.GetUint("min-idle-runners")
		p.Image, _ = fl.GetString("image")
		p.Flavor, _ = fl.GetString("flavor")
		p.OSType, _ = fl.GetString("os-type")
		p.OSArch, _ = fl.GetString("os-arch")
		p.Tags, _ = fl.GetStringSlice("tags")
		p.Enabled, _ = fl.GetBool("enabled")
		p.RunnerBootstrapTimeout, _ = fl.GetUint("runner-bootstrap-timeout")
		p.EnableShell, _ = fl.GetBool("enable-shell")
		p.RunnerPrefix, _ = fl.GetString("runner-prefix")
		p.GitHubRunnerGroup, _ = fl.GetString("runner-group")
		p.Priority, _ = fl.GetUint("priority")
		if p.TemplateID, err = templateID(ctx, cmd, c); err != nil {
			return err
		}
		if p.ProxyID, err = proxyID(ctx, cmd, c); err != nil {
			return err
		}
		pool, err := c.CreatePool(ctx, k, id, p)
		if err != nil {
			return err
		}
		return a.render(cmd, pool, func(w io.Writer) { writeFields(w, poolFields(pool)) })
	})
	return cmd
}

// poolListCmd: GET /{kind}/{id}/pools, or GET /pools.
func (a *app) poolListCmd() *cobra.Command {
	cmd := addFormat(&cobra.Command{Use: "list", Aliases: []string{"ls"}, Short: "List pools (all, or those of one entity)", Args: cobra.NoArgs})
	addOwnerFlags(cmd)
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		k, id, ok, err := ownerFlag(ctx, cmd, c)
		if err != nil {
			return err
		}
		var pools []apiv1.Pool
		if ok {
			pools, err = c.ListEntityPools(ctx, k, id)
		} else {
			pools, err = c.ListPools(ctx)
		}
		if err != nil {
			return err
		}
		return a.render(cmd, pools, func(w io.Writer) { poolTable(w, pools) })
	})
	return cmd
}

// poolShowCmd: GET /pools/{id}.
func (a *app) poolShowCmd() *cobra.Command {
	cmd := addFormat(&cobra.Command{Use: "show <pool-id>", Aliases: []string{"get"}, Short: "Show a pool and its runners", Args: cobra.ExactArgs(1)})
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		pool, err := c.GetPool(ctx, args[0])
		if err != nil {
			return err
		}
		return a.render(cmd, pool, func(w io.Writer) { writeFields(w, poolFields(pool)) })
	})
	return cmd
}

// poolHealthCmd: GET /pools/{id}/health.
func (a *app) poolHealthCmd() *cobra.Command {
	cmd := addFormat(&cobra.Command{Use: "health <pool-id>", Aliases: []string{"status"},
		Short: "Show whether a pool is healthy, degraded (and why) or stopped", Args: cobra.ExactArgs(1)})
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		h, err := c.PoolHealth(ctx, args[0])
		if err != nil {
			return err
		}
		return a.render(cmd, h, func(w io.Writer) {
			writeFields(w, []field{{"Pool ID", h.PoolID}, {"State", h.State}, {"Reason", h.Reason}})
		})
	})
	return cmd
}

// poolUpdateCmd: resolve template and proxy names; then PUT /pools/{id}
// with the changed flags only and always enable_shell (null when unchanged).
func (a *app) poolUpdateCmd() *cobra.Command {
	cmd := addFormat(&cobra.Command{Use: "update <pool-id>", Short: "Update a pool (only the given flags are changed)", Args: cobra.ExactArgs(1)})
	addPoolSpecFlags(cmd, false)
	cmd.Flags().Bool("clear-proxy", false, "stop using a proxy")
	cmd.MarkFlagsMutuallyExclusive("proxy", "clear-proxy")
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		if !anyChanged(cmd) {
			return errors.New("nothing to update: give at least one flag")
		}
		fl := cmd.Flags()
		var p apiv1.UpdatePoolParams
		var err error
		if p.ExtraSpecs, err = extraSpecs(cmd); err != nil {
			return err
		}
		p.RunnerPrefix, _ = fl.GetString("runner-prefix")
		p.Tags, _ = fl.GetStringSlice("tags")
		p.Image, _ = fl.GetString("image")
		p.Flavor, _ = fl.GetString("flavor")
		p.OSType, _ = fl.GetString("os-type")
		p.OSArch, _ = fl.GetString("os-arch")
		p.Enabled = changedBool(cmd, "enabled")
		p.EnableShell = changedBool(cmd, "enable-shell")
		p.MaxRunners = changedUint(cmd, "max-runners")
		p.MinIdleRunners = changedUint(cmd, "min-idle-runners")
		p.RunnerBootstrapTimeout = changedUint(cmd, "runner-bootstrap-timeout")
		p.Priority = changedUint(cmd, "priority")
		p.GitHubRunnerGroup = changedString(cmd, "runner-group")
		if p.TemplateID, err = templateID(ctx, cmd, c); err != nil {
			return err
		}
		if p.ProxyID, err = proxyID(ctx, cmd, c); err != nil {
			return err
		}
		if clear, _ := fl.GetBool("clear-proxy"); clear {
			zero := uint(0)
			p.ProxyID = &zero
		}
		pool, err := c.UpdatePool(ctx, args[0], p)
		if err != nil {
			return err
		}
		return a.render(cmd, pool, func(w io.Writer) { writeFields(w, poolFields(pool)) })
	})
	return cmd
}

// poolDeleteCmd: DELETE /pools/{id}.
func (a *app) poolDeleteCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "delete <pool-id>", Aliases: []string{"remove", "rm", "del"}, Short: "Delete a pool (it must have no runners)", Args: cobra.ExactArgs(1)}
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		return c.DeletePool(ctx, args[0])
	})
	return cmd
}

// poolOwner returns the level ("repo", "org", "enterprise") and name of the
// pool's owner.
func poolOwner(p apiv1.Pool) (level, name string) {
	switch {
	case p.RepoID != "":
		return "repo", firstNonEmpty(p.RepoName, p.RepoID)
	case p.OrgID != "":
		return "org", firstNonEmpty(p.OrgName, p.OrgID)
	case p.EnterpriseID != "":
		return "enterprise", firstNonEmpty(p.EnterpriseName, p.EnterpriseID)
	case p.ForgeInstanceID != "":
		return "forge instance", p.ForgeInstanceID
	}
	return "", ""
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func tagNames(tags []apiv1.Tag) string {
	names := make([]string, 0, len(tags))
	for _, t := range tags {
		names = append(names, t.Name)
	}
	return strings.Join(names, ",")
}

func poolTable(w io.Writer, pools []apiv1.Pool) {
	rows := make([][]string, 0, len(pools))
	for _, p := range pools {
		level, owner := poolOwner(p)
		rows = append(rows, []string{
			p.ID, p.Image, p.Flavor, tagNames(p.Tags), owner, level, p.Endpoint.Name,
			yesNo(p.Enabled), p.RunnerPrefix, uintStr(p.MaxRunners), uintStr(p.MinIdleRunners),
			uintStr(p.RunnerBootstrapTimeout), uintStr(p.Priority),
		})
	}
	writeTable(w, []string{"ID", "IMAGE", "FLAVOR", "TAGS", "BELONGS TO", "LEVEL", "ENDPOINT", "ENABLED", "RUNNER PREFIX", "MAX", "MIN IDLE", "BOOTSTRAP TIMEOUT", "PRIORITY"}, rows)
}

func poolFields(p apiv1.Pool) []field {
	level, owner := poolOwner(p)
	var instances []string
	for _, i := range p.Instances {
		instances = append(instances, i.Name+" ("+i.Status+"/"+i.RunnerStatus+")")
	}
	template := p.TemplateName
	if template == "" && p.TemplateID != 0 {
		template = uintStr(p.TemplateID)
	}
	proxy := p.ProxyName
	if proxy == "" && p.ProxyID != 0 {
		proxy = uintStr(p.ProxyID)
	}
	return []field{
		{"ID", p.ID},
		{"Provider", p.ProviderName},
		{"Image", p.Image},
		{"Flavor", p.Flavor},
		{"OS type", p.OSType},
		{"OS arch", p.OSArch},
		{"Tags", tagNames(p.Tags)},
		{"Belongs to", owner},
		{"Level", level},
		{"Endpoint", p.Endpoint.Name},
		{"Enabled", yesNo(p.Enabled)},
		{"Enable shell", yesNo(p.EnableShell)},
		{"Runner prefix", p.RunnerPrefix},
		{"Max runners", uintStr(p.MaxRunners)},
		{"Min idle runners", uintStr(p.MinIdleRunners)},
		{"Runner bootstrap timeout", uintStr(p.RunnerBootstrapTimeout)},
		{"Priority", uintStr(p.Priority)},
		{"Runner group", p.GitHubRunnerGroup},
		{"Template", template},
		{"Proxy", proxy},
		{"Generation", uintStr(p.Generation)},
		{"Extra specs", string(p.ExtraSpecs)},
		{"Instances", strings.Join(instances, "\n")},
		{"Created at", timeStr(p.CreatedAt)},
		{"Updated at", timeStr(p.UpdatedAt)},
	}
}

// poolRotateCmd replaces a pool's idle runners made from an older pool definition.
func (a *app) poolRotateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rotate <pool-id> --outdated",
		Short: "Replace the pool's idle runners made from an older pool definition",
		Long: `Replace the pool's idle runners made from an older pool definition (image, flavor,
extra specs, ... changed since they were created). Busy runners finish their job first.`,
		Args: cobra.ExactArgs(1),
	}
	outdated := cmd.Flags().Bool("outdated", false, "rotate the runners of an older pool generation (required)")
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		if !*outdated {
			return errors.New("only --outdated rotation is supported: add --outdated")
		}
		n, err := c.RotateOutdatedRunners(ctx, args[0])
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout(cmd), "%d outdated runner(s) marked for replacement\n", n)
		return nil
	})
	return cmd
}
