package providertest

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// Outcome is the result of one step.
type Outcome string

// Step outcomes.
const (
	Pass Outcome = "PASS"
	Fail Outcome = "FAIL"
	Skip Outcome = "SKIP"
)

// Result is one checked step.
type Result struct {
	Step     string
	Outcome  Outcome
	Reason   string // why it failed or was skipped; notes for a pass
	Duration time.Duration
}

// Report is the outcome of a conformance run.
type Report struct {
	Executable string
	Results    []Result
}

// Passed reports whether no step failed.
func (r Report) Passed() bool { return len(r.Failures()) == 0 }

// Failures returns the failed steps.
func (r Report) Failures() []Result {
	var out []Result
	for _, res := range r.Results {
		if res.Outcome == Fail {
			out = append(out, res)
		}
	}
	return out
}

// Result returns the result of the named step, if it ran.
func (r Report) Result(step string) (Result, bool) {
	for _, res := range r.Results {
		if res.Step == step {
			return res, true
		}
	}
	return Result{}, false
}

// WriteTable prints the report as an aligned table with a summary line.
func (r Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tRESULT\tTIME\tREASON")
	for _, res := range r.Results {
		reason := strings.ReplaceAll(res.Reason, "\n", " ")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", res.Step, res.Outcome, res.Duration.Round(time.Millisecond), reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	verdict := "PASS"
	if !r.Passed() {
		verdict = fmt.Sprintf("FAIL (%d of %d steps failed)", len(r.Failures()), len(r.Results))
	}
	_, err := fmt.Fprintf(w, "%s: %s\n", r.Executable, verdict)
	return err
}

// String renders the table.
func (r Report) String() string {
	var b strings.Builder
	_ = r.WriteTable(&b)
	return b.String()
}
