package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// runnerCmd lists, shows and deletes runner instances.
func (a *app) runnerCmd() *cobra.Command {
	list := addFormat(&cobra.Command{
		Use:     "list [<pool-id> | <scale-set-id>]",
		Aliases: []string{"ls"},
		Short:   "List runners (all, of a pool, of a scale set, or of an entity)",
		Args:    cobra.MaximumNArgs(1),
	})
	addOwnerFlags(list)
	list.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		var runners []apiv1.Instance
		var err error
		switch {
		case len(args) == 1 && isUUID(args[0]):
			runners, err = c.ListPoolInstances(ctx, args[0], false)
		case len(args) == 1:
			id, perr := strconv.ParseUint(args[0], 10, 0)
			if perr != nil {
				return fmt.Errorf("invalid argument %q: want a pool id (UUID) or a scale set id (number)", args[0])
			}
			runners, err = c.ListScaleSetInstances(ctx, uint(id))
		default:
			k, id, ok, oerr := ownerFlag(ctx, cmd, c)
			switch {
			case oerr != nil:
				return oerr
			case ok:
				runners, err = c.ListEntityInstances(ctx, k, id)
			default:
				runners, err = c.ListInstances(ctx)
			}
		}
		if err != nil {
			return err
		}
		return a.render(cmd, runners, func(w io.Writer) { runnerTable(w, runners) })
	})

	show := addFormat(&cobra.Command{Use: "show <name>", Aliases: []string{"get"}, Short: "Show a runner", Args: cobra.ExactArgs(1)})
	show.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		r, err := c.GetInstance(ctx, args[0])
		if err != nil {
			return err
		}
		return a.render(cmd, r, func(w io.Writer) { writeFields(w, runnerFields(r)) })
	})

	del := &cobra.Command{Use: "delete <name>", Aliases: []string{"remove", "rm", "del"}, Short: "Remove a runner", Args: cobra.ExactArgs(1)}
	del.Flags().Bool("force-remove-runner", false, "ignore provider errors while removing the runner")
	del.Flags().Bool("bypass-github-unauthorized", false, "go on when the forge answers 401 while removing the runner")
	del.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		force, _ := cmd.Flags().GetBool("force-remove-runner")
		bypass, _ := cmd.Flags().GetBool("bypass-github-unauthorized")
		return c.DeleteInstance(ctx, args[0], force, bypass)
	})
	return group("runner", "List and remove runners", []string{"runners", "instance", "instances"}, list, show, del)
}

// runnerParent returns the pool id or "scaleset <id>".
func runnerParent(r apiv1.Instance) string {
	if r.PoolID != "" {
		return r.PoolID
	}
	if r.ScaleSetID != 0 {
		return "scaleset " + uintStr(r.ScaleSetID)
	}
	return ""
}

func runnerTable(w io.Writer, runners []apiv1.Instance) {
	rows := make([][]string, 0, len(runners))
	for _, r := range runners {
		rows = append(rows, []string{r.Name, r.Status, r.RunnerStatus, runnerParent(r), r.ProviderID, r.OSType + "/" + r.OSArch})
	}
	writeTable(w, []string{"NAME", "STATUS", "RUNNER STATUS", "POOL / SCALE SET", "PROVIDER ID", "OS"}, rows)
}

func runnerFields(r apiv1.Instance) []field {
	var addrs []string
	for _, ad := range r.Addresses {
		addrs = append(addrs, ad.Address+" ("+ad.Type+")")
	}
	var msgs []string
	for _, m := range r.StatusMessages {
		msgs = append(msgs, fmt.Sprintf("%s %s: %s", timeStr(m.CreatedAt), m.EventLevel, m.Message))
	}
	fs := []field{
		{"ID", r.ID},
		{"Name", r.Name},
		{"Provider", r.ProviderName},
		{"Provider ID", r.ProviderID},
		{"Agent ID", fmt.Sprint(r.AgentID)},
		{"OS type", r.OSType},
		{"OS arch", r.OSArch},
		{"OS name", r.OSName},
		{"OS version", r.OSVersion},
		{"Status", r.Status},
		{"Runner status", r.RunnerStatus},
	}
	if r.ScaleSetID != 0 {
		fs = append(fs, field{"Scale set ID", uintStr(r.ScaleSetID)})
	} else {
		fs = append(fs, field{"Pool ID", r.PoolID})
	}
	fs = append(fs,
		field{"Runner group", r.GitHubRunnerGroup},
		field{"Addresses", strings.Join(addrs, "\n")},
		field{"Has shell", yesNo(r.Capabilities.HasShell)},
		field{"Generation", uintStr(r.Generation)},
		field{"Heartbeat", timeStr(r.Heartbeat)},
		field{"Created at", timeStr(r.CreatedAt)},
		field{"Updated at", timeStr(r.UpdatedAt)},
	)
	if r.Job != nil {
		fs = append(fs, field{"Job", fmt.Sprintf("%d %s (%s), workflow job %d", r.Job.ID, r.Job.Name, r.Job.Status, r.Job.WorkflowJobID)})
	}
	if len(r.ProviderFault) > 0 {
		fs = append(fs, field{"Provider fault", string(r.ProviderFault)})
	}
	return append(fs, field{"Status messages", strings.Join(msgs, "\n")})
}
