package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
)

// logsCmd is `logs`: the server's log records (GET /api/v1/ws/logs, on when the server
// has [logging] enable_log_streamer), filtered here as garm-cli debug-log does; that name
// is an alias.
func (a *app) logsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "logs",
		Aliases: []string{"debug-log"},
		Short:   "Stream the server's log until interrupted",
		Long: "Streams the server's log records from now on (the server needs [logging]\n" +
			"enable_log_streamer = true). Each is shown as\n" +
			"  2026-11-24 12:21:13.804 [INFO] message key=value ...\n" +
			"--filter key=value keeps records with that attribute (msg=text: the message contains\n" +
			"text); with several filters, --filter-mode all keeps records matching every one, any\n" +
			"records matching one. --raw prints the JSON records unchanged.",
		Args: cobra.NoArgs,
	}
	cmd.Flags().String("log-level", "", "lowest level shown: debug, info, warn or error")
	cmd.Flags().StringArray("filter", nil, "key=value an attribute must have (repeatable)")
	cmd.Flags().String("filter-mode", "all", "with several filters: all or any")
	cmd.Flags().Bool("raw", false, "print the JSON records as received")
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		f, err := logFilterFromFlags(cmd)
		if err != nil {
			return err
		}
		s, err := c.Stream(ctx, apiclient.LogsStream)
		if err != nil {
			return fmt.Errorf("failed to stream logs: %w", err)
		}
		defer s.Close()
		raw, _ := cmd.Flags().GetBool("raw")
		return a.copyFrames(ctx, s, a.stdout(cmd), func(w io.Writer, b []byte) error {
			line, ok := f.format(b, raw)
			if ok {
				_, err := io.WriteString(w, line)
				return err
			}
			return nil
		})
	})
	return cmd
}

// logLevels orders the levels; unknown levels are never filtered out (LS-5).
var logLevels = map[string]int{"DEBUG": 0, "INFO": 1, "WARN": 2, "ERROR": 3}

// logFilter is what logs shows.
type logFilter struct {
	minLevel int // -1: all
	pairs    [][2]string
	any      bool
}

func logFilterFromFlags(cmd *cobra.Command) (logFilter, error) {
	level, _ := cmd.Flags().GetString("log-level")
	pairs, _ := cmd.Flags().GetStringArray("filter")
	mode, _ := cmd.Flags().GetString("filter-mode")
	return newLogFilter(level, pairs, mode)
}

func newLogFilter(level string, pairs []string, mode string) (logFilter, error) {
	f := logFilter{minLevel: -1}
	if level != "" {
		l, ok := logLevels[strings.ToUpper(level)]
		if !ok {
			return f, fmt.Errorf("invalid --log-level %q: want debug, info, warn or error", level)
		}
		f.minLevel = l
	}
	switch mode {
	case "all":
	case "any":
		f.any = true
	default:
		return f, fmt.Errorf("invalid --filter-mode %q: want all or any", mode)
	}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return f, fmt.Errorf("invalid --filter %q: want key=value", p)
		}
		f.pairs = append(f.pairs, [2]string{k, v})
	}
	return f, nil
}

// format returns the line to print for a frame and whether to print it. A frame that
// is not a JSON object is printed as it came (LS-5).
func (f logFilter) format(frame []byte, raw bool) (string, bool) {
	var rec map[string]any
	if err := json.Unmarshal(frame, &rec); err != nil || rec == nil {
		return strings.TrimRight(string(frame), "\n") + "\n", true
	}
	if !f.keeps(rec) {
		return "", false
	}
	if raw {
		return strings.TrimRight(string(frame), "\n") + "\n", true
	}
	return formatRecord(rec), true
}

func (f logFilter) keeps(rec map[string]any) bool {
	level, _ := rec["level"].(string)
	if l, known := logLevels[level]; known && l < f.minLevel {
		return false
	}
	if len(f.pairs) == 0 {
		return true
	}
	match := func(p [2]string) bool {
		if p[0] == "msg" {
			msg, _ := rec["msg"].(string)
			return strings.Contains(msg, p[1])
		}
		v, ok := rec[p[0]]
		return ok && valueText(v) == p[1]
	}
	if f.any {
		return slices.ContainsFunc(f.pairs, match)
	}
	return !slices.ContainsFunc(f.pairs, func(p [2]string) bool { return !match(p) })
}

// formatRecord renders a record as "2006-01-02 15:04:05.000 [LEVEL] msg k=v ...", the
// other keys in name order.
func formatRecord(rec map[string]any) string {
	var b bytes.Buffer
	ts, _ := rec["time"].(string)
	if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		b.WriteString(t.Local().Format("2006-01-02 15:04:05.000") + " ")
	}
	level, _ := rec["level"].(string)
	msg, _ := rec["msg"].(string)
	fmt.Fprintf(&b, "[%s] %s", level, msg)
	keys := make([]string, 0, len(rec))
	for k := range rec {
		if k != "time" && k != "level" && k != "msg" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%s", k, quoteIfNeeded(valueText(rec[k])))
	}
	b.WriteByte('\n')
	return b.String()
}

// valueText is a JSON value as a filter compares it: strings as they are, the rest as
// compact JSON.
func valueText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func quoteIfNeeded(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\n\"=") {
		return fmt.Sprintf("%q", s)
	}
	return s
}
