package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

// Output formats.
const (
	formatTable = "table"
	formatJSON  = "json"
)

// addFormat adds --format to a listing or show command.
func addFormat(cmd *cobra.Command) *cobra.Command {
	cmd.Flags().String("format", formatTable, "output format: table or json")
	return cmd
}

// outputFormat returns the validated --format value.
func outputFormat(cmd *cobra.Command) (string, error) {
	f, err := cmd.Flags().GetString("format")
	if err != nil {
		return formatTable, nil // command without --format
	}
	switch f {
	case formatTable, formatJSON:
		return f, nil
	}
	return "", fmt.Errorf("invalid --format %q: want table or json", f)
}

// render writes v as indented JSON with --format json, else calls table.
func (a *app) render(cmd *cobra.Command, v any, table func(w io.Writer)) error {
	format, err := outputFormat(cmd)
	if err != nil {
		return err
	}
	w := a.stdout(cmd)
	if format == formatJSON {
		return writeJSON(w, v)
	}
	table(w)
	return nil
}

// writeJSON writes v indented.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeTable writes a header row and rows as aligned columns.
func writeTable(w io.Writer, header []string, rows [][]string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(clean(r), "\t"))
	}
	tw.Flush()
}

// field is one row of a show table.
type field struct{ key, value string }

// writeFields writes a two-column FIELD/VALUE table; a value with several
// lines continues on rows with an empty key.
func writeFields(w io.Writer, fields []field) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FIELD\tVALUE")
	for _, f := range fields {
		for i, line := range strings.Split(f.value, "\n") {
			key := f.key
			if i > 0 {
				key = ""
			}
			fmt.Fprintf(tw, "%s\t%s\n", key, clean([]string{line})[0])
		}
	}
	tw.Flush()
}

// clean replaces tabs and line breaks, which would break the columns.
func clean(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(c)
	}
	return out
}

func yesNo(b bool) string { return strconv.FormatBool(b) }

func uintStr[T ~uint | ~uint64 | ~int | ~int64](v T) string { return fmt.Sprint(v) }

// timeStr formats t, or "" for the zero time.
func timeStr(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}
