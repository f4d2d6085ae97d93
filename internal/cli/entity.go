package cli

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// isUUID reports whether s looks like a UUID (an entity or pool id).
func isUUID(s string) bool { return uuidRE.MatchString(s) }

// resolveEntity turns an entity argument into an id: a UUID is used as is;
// otherwise the entities are listed with filters (repositories by
// owner/name, organizations and enterprises by name, each narrowed by
// endpoint when given) and exactly one must match.
func resolveEntity(ctx context.Context, c *apiclient.Client, k apiclient.EntityKind, arg, endpoint string) (string, error) {
	if isUUID(arg) {
		return arg, nil
	}
	var ids []string
	switch k {
	case apiclient.Repositories:
		owner, name, ok := strings.Cut(arg, "/")
		if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
			return "", fmt.Errorf("invalid repository %q: want an id or owner/name", arg)
		}
		repos, err := c.ListRepositories(ctx, apiclient.RepoFilter{Owner: owner, Name: name, Endpoint: endpoint})
		if err != nil {
			return "", err
		}
		for _, r := range repos {
			ids = append(ids, r.ID)
		}
	case apiclient.Organizations, apiclient.Enterprises:
		filter := apiclient.EntityFilter{Name: arg, Endpoint: endpoint}
		var list []apiv1.Organization
		var err error
		if k == apiclient.Organizations {
			list, err = c.ListOrganizations(ctx, filter)
		} else {
			list, err = c.ListEnterprises(ctx, filter)
		}
		if err != nil {
			return "", err
		}
		for _, o := range list {
			ids = append(ids, o.ID)
		}
	case apiclient.ForgeInstances: // named by their endpoint
		list, err := c.ListForgeInstances(ctx, arg)
		if err != nil {
			return "", err
		}
		for _, fi := range list {
			ids = append(ids, fi.ID)
		}
	default:
		return "", fmt.Errorf("unknown entity kind %q", k)
	}
	noun := kindNoun(k)
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("%s %s not found", noun, arg)
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("%d %ss match %s; give --endpoint or the id", len(ids), noun, arg)
}

func kindNoun(k apiclient.EntityKind) string {
	switch k {
	case apiclient.Repositories:
		return "repository"
	case apiclient.Organizations:
		return "organization"
	case apiclient.ForgeInstances:
		return "forge instance"
	}
	return "enterprise"
}

// randomSecret returns n random alphanumeric characters.
func randomSecret(n int) (string, error) {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	out := make([]byte, 0, n)
	buf := make([]byte, 2*n)
	for len(out) < n {
		if _, err := rand.Read(buf); err != nil {
			return "", fmt.Errorf("generate webhook secret: %w", err)
		}
		for _, b := range buf {
			// 62*4 = 248: reject the top bytes to keep the choice uniform.
			if b < 248 && len(out) < n {
				out = append(out, alphabet[int(b)%len(alphabet)])
			}
		}
	}
	return string(out), nil
}

// webhookSecret returns --webhook-secret, or a random 32-character secret
// with --random-webhook-secret.
func webhookSecret(cmd *cobra.Command) (string, error) {
	if random, _ := cmd.Flags().GetBool("random-webhook-secret"); random {
		return randomSecret(32)
	}
	s, _ := cmd.Flags().GetString("webhook-secret")
	return s, nil
}

// entityView is what the tables show of a repository, organization or
// enterprise.
type entityView struct {
	ID, Owner, Name      string
	Endpoint, Forge      string
	Credentials          string
	Balancer             string
	Running              bool
	FailureReason        string
	AgentMode            bool
	Pools                []apiv1.Pool
	Events               []apiv1.EntityEvent
	CreatedAt, UpdatedAt string
}

func repoView(r apiv1.Repository) entityView {
	v := orgView(apiv1.Organization{
		ID: r.ID, Name: r.Name, Pools: r.Pools, CredentialsName: r.CredentialsName, Credentials: r.Credentials,
		Endpoint: r.Endpoint, PoolManagerStatus: r.PoolManagerStatus, PoolBalancerType: r.PoolBalancerType,
		AgentMode: r.AgentMode, Events: r.Events, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	})
	v.Owner = r.Owner
	return v
}

func orgView(o apiv1.Organization) entityView {
	creds := o.CredentialsName
	if creds == "" {
		creds = o.Credentials.Name
	}
	forge := o.Endpoint.EndpointType
	if forge == "" {
		forge = o.Credentials.ForgeType
	}
	return entityView{
		ID: o.ID, Name: o.Name, Endpoint: o.Endpoint.Name, Forge: forge, Credentials: creds,
		Balancer: o.PoolBalancerType, Running: o.PoolManagerStatus.IsRunning,
		FailureReason: o.PoolManagerStatus.FailureReason, AgentMode: o.AgentMode,
		Pools: o.Pools, Events: o.Events,
		CreatedAt: timeStr(o.CreatedAt), UpdatedAt: timeStr(o.UpdatedAt),
	}
}

// entityTable lists entities; withOwner adds the OWNER column (repositories).
func entityTable(w io.Writer, views []entityView, withOwner bool) {
	header := []string{"ID", "NAME", "ENDPOINT", "FORGE TYPE", "CREDENTIALS", "POOL BALANCER", "POOL MGR RUNNING", "AGENT MODE"}
	if withOwner {
		header = append([]string{"ID", "OWNER"}, header[1:]...)
	}
	rows := make([][]string, 0, len(views))
	for _, v := range views {
		row := []string{v.ID, v.Name, v.Endpoint, v.Forge, v.Credentials, v.Balancer, yesNo(v.Running), yesNo(v.AgentMode)}
		if withOwner {
			row = append([]string{v.ID, v.Owner}, row[1:]...)
		}
		rows = append(rows, row)
	}
	writeTable(w, header, rows)
}

// entityFields is the show table of one entity.
func entityFields(v entityView, withOwner bool) []field {
	fs := []field{{"ID", v.ID}}
	if withOwner {
		fs = append(fs, field{"Owner", v.Owner})
	}
	fs = append(fs,
		field{"Name", v.Name},
		field{"Endpoint", v.Endpoint},
		field{"Forge type", v.Forge},
		field{"Credentials", v.Credentials},
		field{"Pool balancer type", v.Balancer},
		field{"Agent mode", yesNo(v.AgentMode)},
		field{"Pool manager running", yesNo(v.Running)},
	)
	if v.FailureReason != "" {
		fs = append(fs, field{"Failure reason", v.FailureReason})
	}
	var pools []string
	for _, p := range v.Pools {
		pools = append(pools, p.ID)
	}
	fs = append(fs, field{"Pools", strings.Join(pools, "\n")})
	var events []string
	for _, e := range v.Events {
		events = append(events, fmt.Sprintf("%s %s %s: %s", timeStr(e.CreatedAt), e.EventLevel, e.EventType, e.Message))
	}
	return append(fs,
		field{"Events", strings.Join(events, "\n")},
		field{"Created at", v.CreatedAt},
		field{"Updated at", v.UpdatedAt},
	)
}

// webhookCmd is `repo webhook` / `org webhook`: install, show, uninstall.
func (a *app) webhookCmd(k apiclient.EntityKind) *cobra.Command {
	noun := kindNoun(k)
	argUse := "<id|name>"
	if k == apiclient.Repositories {
		argUse = "<id|owner/name>"
	}
	install := addFormat(&cobra.Command{Use: "install " + argUse, Short: "Install the controller's webhook on the " + noun, Args: cobra.ExactArgs(1)})
	install.Flags().Bool("insecure", false, "do not verify the TLS certificate of the webhook URL")
	show := addFormat(&cobra.Command{Use: "show " + argUse, Aliases: []string{"get"}, Short: "Show the webhook installed on the " + noun, Args: cobra.ExactArgs(1)})
	uninstall := &cobra.Command{Use: "uninstall " + argUse, Aliases: []string{"remove", "rm"}, Short: "Remove the controller's webhook from the " + noun, Args: cobra.ExactArgs(1)}
	for _, cmd := range []*cobra.Command{install, show, uninstall} {
		cmd.Flags().String("endpoint", "", "endpoint name, to tell apart entities with the same name")
	}
	install.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		endpoint, _ := cmd.Flags().GetString("endpoint")
		id, err := resolveEntity(ctx, c, k, args[0], endpoint)
		if err != nil {
			return err
		}
		insecure, _ := cmd.Flags().GetBool("insecure")
		hook, err := c.InstallWebhook(ctx, k, id, apiv1.InstallWebhookParams{WebhookEndpointType: "direct", InsecureSSL: insecure})
		if err != nil {
			return err
		}
		return a.render(cmd, hook, func(w io.Writer) { writeFields(w, hookFields(hook)) })
	})
	show.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		endpoint, _ := cmd.Flags().GetString("endpoint")
		id, err := resolveEntity(ctx, c, k, args[0], endpoint)
		if err != nil {
			return err
		}
		hook, err := c.GetWebhook(ctx, k, id)
		if err != nil {
			return err
		}
		return a.render(cmd, hook, func(w io.Writer) { writeFields(w, hookFields(hook)) })
	})
	uninstall.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		endpoint, _ := cmd.Flags().GetString("endpoint")
		id, err := resolveEntity(ctx, c, k, args[0], endpoint)
		if err != nil {
			return err
		}
		return c.UninstallWebhook(ctx, k, id)
	})
	return group("webhook", "Manage the "+noun+"'s webhook", nil, install, show, uninstall)
}

func hookFields(h apiv1.HookInfo) []field {
	return []field{
		{"ID", fmt.Sprint(h.ID)},
		{"URL", h.URL},
		{"Events", strings.Join(h.Events, ", ")},
		{"Active", yesNo(h.Active)},
		{"Insecure SSL", yesNo(h.InsecureSSL)},
	}
}

// entityDeleteCmd is `delete <id>` for any kind; repositories and
// organizations always send keepWebhook.
func (a *app) entityDeleteCmd(k apiclient.EntityKind, argUse string) *cobra.Command {
	cmd := &cobra.Command{Use: "delete " + argUse, Aliases: []string{"remove", "rm", "del"}, Short: "Delete the " + kindNoun(k), Args: cobra.ExactArgs(1)}
	cmd.Flags().String("endpoint", "", "endpoint name, to tell apart entities with the same name")
	if k != apiclient.Enterprises {
		cmd.Flags().Bool("keep-webhook", false, "leave the webhook installed on the forge")
	}
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		endpoint, _ := cmd.Flags().GetString("endpoint")
		id, err := resolveEntity(ctx, c, k, args[0], endpoint)
		if err != nil {
			return err
		}
		keep, _ := cmd.Flags().GetBool("keep-webhook")
		return c.DeleteEntity(ctx, k, id, keep)
	})
	return cmd
}

// updateEntityFlags adds the flags of `update` for any kind.
func updateEntityFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.String("endpoint", "", "endpoint name, to tell apart entities with the same name")
	fl.String("credentials", "", "name of the credentials to use (same endpoint)")
	fl.String("webhook-secret", "", "new webhook secret")
	fl.String("pool-balancer-type", "", "pool balancer: roundrobin or pack")
	fl.Bool("agent-mode", false, agentFlagUsage("run the runners in agent mode"))
}

// updateEntityParams reads the flags added by updateEntityFlags.
func updateEntityParams(cmd *cobra.Command) apiv1.UpdateEntityParams {
	var p apiv1.UpdateEntityParams
	p.CredentialsName, _ = cmd.Flags().GetString("credentials")
	p.WebhookSecret, _ = cmd.Flags().GetString("webhook-secret")
	p.PoolBalancerType, _ = cmd.Flags().GetString("pool-balancer-type")
	p.AgentMode = changedBool(cmd, "agent-mode")
	return p
}
