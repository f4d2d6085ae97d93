package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// topCmd is `top`: the live snapshot of GET /api/v1/ws/metrics (what garm-cli top reads),
// redrawn on each frame (every 5 s) until interrupted.
func (a *app) topCmd() *cobra.Command {
	cmd := addFormat(&cobra.Command{
		Use:   "top",
		Short: "Show entities and pools with their runners by state, live",
		Long: "Shows every entity and pool with its runners by state, redrawn whenever the server\n" +
			"sends a new snapshot (every 5 s), until interrupted. --once prints one snapshot and\n" +
			"exits (with --format json: the snapshot as the server sent it).",
		Args: cobra.NoArgs,
	})
	cmd.Flags().Bool("once", false, "print one snapshot and exit")
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		s, err := c.Stream(ctx, apiclient.MetricsStream)
		if err != nil {
			return fmt.Errorf("failed to stream metrics: %w", err)
		}
		defer s.Close()
		once, _ := cmd.Flags().GetBool("once")
		w := a.stdout(cmd)
		clear := !once && isTerminal(w)
		if once {
			b, err := s.Next()
			if err != nil {
				return fmt.Errorf("reading the snapshot: %w", err)
			}
			return a.showSnapshot(cmd, w, b, false)
		}
		return a.copyFrames(ctx, s, w, func(w io.Writer, b []byte) error { return a.showSnapshot(cmd, w, b, clear) })
	})
	return cmd
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// showSnapshot prints one snapshot frame, after clearing the screen when clear.
func (a *app) showSnapshot(cmd *cobra.Command, w io.Writer, frame []byte, clear bool) error {
	var snap apiv1.MetricsSnapshot
	if err := json.Unmarshal(frame, &snap); err != nil {
		return fmt.Errorf("the server sent a snapshot that is not one: %w", err)
	}
	if f, _ := outputFormat(cmd); f == formatJSON {
		return writeJSON(w, snap)
	}
	if clear {
		io.WriteString(w, "\x1b[H\x1b[2J")
	}
	writeSnapshot(w, snap)
	return nil
}

// writeSnapshot prints the entities and then the pools, each pool with its runner counts.
func writeSnapshot(w io.Writer, snap apiv1.MetricsSnapshot) {
	rows := make([][]string, 0, len(snap.Entities))
	for _, e := range snap.Entities {
		health := "healthy"
		if !e.Healthy {
			health = "stopped"
		}
		rows = append(rows, []string{e.Type, e.Name, e.Endpoint, strconv.Itoa(e.PoolCount), health, e.ID})
	}
	writeTable(w, []string{"TYPE", "NAME", "ENDPOINT", "POOLS", "POOL MANAGER", "ID"}, rows)
	fmt.Fprintln(w)
	rows = rows[:0]
	for _, p := range snap.Pools {
		owner := p.RepoName + p.OrgName + p.EnterpriseName
		total := 0
		for _, n := range p.RunnerCounts {
			total += n
		}
		rows = append(rows, []string{p.ID, owner, p.ProviderName, strconv.FormatBool(p.Enabled),
			fmt.Sprintf("%d/%d", total, p.MaxRunners), counts(p.RunnerCounts), counts(p.RunnerStatusCounts)})
	}
	writeTable(w, []string{"POOL", "OWNER", "PROVIDER", "ENABLED", "RUNNERS", "BY STATUS", "BY RUNNER STATUS"}, rows)
}

// counts renders a count map as "idle=2 running=1", keys in order, "-" when empty.
func counts(m map[string]int) string {
	if len(m) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}
