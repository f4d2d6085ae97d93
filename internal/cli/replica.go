package cli

import (
	"context"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
)

// replicaCmd shows the replicas sharing the server's database (garrison's own).
func (a *app) replicaCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "replica", Aliases: []string{"replicas"}, Short: "Show the garrison replicas sharing the database"}
	list := addFormat(&cobra.Command{Use: "list", Aliases: []string{"ls"},
		Short: "List the replicas: id, address, version, last heartbeat (* marks the one answering)", Args: cobra.NoArgs})
	list.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		reps, err := c.ListReplicas(ctx)
		if err != nil {
			return err
		}
		return a.render(cmd, reps, func(w io.Writer) {
			rows := make([][]string, 0, len(reps))
			for _, r := range reps {
				id := r.ID
				if r.Self {
					id += " *"
				}
				rows = append(rows, []string{id, r.Address, r.Version, timeStr(r.StartedAt), timeStr(r.HeartbeatAt), yesNo(r.Alive)})
			}
			writeTable(w, []string{"ID", "ADDRESS", "VERSION", "STARTED", "LAST HEARTBEAT", "ALIVE"}, rows)
		})
	})
	cmd.AddCommand(list)
	return cmd
}

// claimCmd shows what each replica holds (garrison's own).
func (a *app) claimCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "claim", Aliases: []string{"claims"}, Short: "Show which replica holds which pool, sweep and scale-set session"}
	list := addFormat(&cobra.Command{Use: "list", Aliases: []string{"ls"},
		Short: "List the claims: kind, key, holder, fencing token, expiry", Args: cobra.NoArgs})
	list.Flags().Bool("held", false, "only the claims held now")
	list.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		claims, err := c.ListClaims(ctx)
		if err != nil {
			return err
		}
		if held, _ := cmd.Flags().GetBool("held"); held {
			kept := claims[:0]
			for _, cl := range claims {
				if cl.Held {
					kept = append(kept, cl)
				}
			}
			claims = kept
		}
		return a.render(cmd, claims, func(w io.Writer) {
			rows := make([][]string, 0, len(claims))
			for _, cl := range claims {
				rows = append(rows, []string{cl.Kind, cl.Key, cl.Holder, strconv.FormatInt(cl.Token, 10), timeStr(cl.ExpiresAt), yesNo(cl.Held)})
			}
			writeTable(w, []string{"KIND", "KEY", "HOLDER", "TOKEN", "EXPIRES", "HELD"}, rows)
		})
	})
	cmd.AddCommand(list)
	return cmd
}
