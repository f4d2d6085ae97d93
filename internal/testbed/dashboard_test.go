package testbed_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
)

// dashboardFile is the Grafana dashboard shipped in the repository.
var dashboardFile = filepath.Join("..", "..", "contrib", "grafana", "garrison.json")

// dashboardExprs returns every PromQL expression of a Grafana dashboard: panel targets
// (rows' nested panels too) and query variables.
func dashboardExprs(t *testing.T, raw []byte) []string {
	t.Helper()
	type target struct {
		Expr string `json:"expr"`
	}
	type panel struct {
		Title   string   `json:"title"`
		Type    string   `json:"type"`
		Targets []target `json:"targets"`
		Panels  []panel  `json:"panels"`
	}
	var d struct {
		Panels     []panel `json:"panels"`
		Templating struct {
			List []struct {
				Type  string          `json:"type"`
				Query json.RawMessage `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("dashboard is not JSON: %v", err)
	}
	var out []string
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			if p.Type != "row" && len(p.Targets) == 0 {
				t.Errorf("panel %q has no query", p.Title)
			}
			for _, tg := range p.Targets {
				out = append(out, tg.Expr)
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(v.Query, &q); err != nil {
			t.Errorf("variable query: %v", err)
		}
		// label_values(metric, label) names a metric like an expression does.
		metric, _, _ := strings.Cut(strings.TrimPrefix(q.Query, "label_values("), ",")
		out = append(out, metric)
	}
	return out
}

// promqlKeywords are the words of PromQL that are not metric names: keywords and the
// aggregation operators, which may be followed by a by/without clause before their
// parenthesis.
var promqlKeywords = []string{"by", "without", "on", "ignoring", "group_left", "group_right", "bool",
	"offset", "and", "or", "unless", "inf", "nan", "sum", "min", "max", "avg", "count", "group", "stddev",
	"stdvar", "topk", "bottomk", "quantile", "count_values", "limitk", "limit_ratio"}

// metricNames returns the metric names an expression selects: identifiers outside strings,
// label matchers, ranges and grouping lists, that do not call a function.
func metricNames(expr string) []string {
	var names []string
	depthBrace, inRange := 0, false
	groupParen := -1 // paren depth at which a by/on/... label list opened
	depth := 0
	lastWord := ""
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			end := strings.IndexByte(expr[i+1:], c)
			if end < 0 {
				return names
			}
			i += end + 2
			continue
		case c == '{':
			depthBrace++
		case c == '}':
			depthBrace--
		case c == '[':
			inRange = true
		case c == ']':
			inRange = false
		case c == '(':
			depth++
			if slices.Contains([]string{"by", "without", "on", "ignoring", "group_left", "group_right"}, lastWord) {
				groupParen = depth
			}
		case c == ')':
			if depth == groupParen {
				groupParen = -1
			}
			depth--
		case isIdentStart(c):
			j := i
			for j < len(expr) && isIdentChar(expr[j]) {
				j++
			}
			word := expr[i:j]
			lastWord = word
			k := j
			for k < len(expr) && expr[k] == ' ' {
				k++
			}
			call := k < len(expr) && expr[k] == '('
			if depthBrace == 0 && !inRange && groupParen < 0 && !call && !slices.Contains(promqlKeywords, strings.ToLower(word)) &&
				(i == 0 || expr[i-1] != '$') {
				names = append(names, word)
			}
			i = j
			continue
		}
		if c != ' ' && c != '(' {
			lastWord = "" // a word counts for the parenthesis right after it only
		}
		i++
	}
	return names
}

func isIdentStart(c byte) bool {
	return c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

func TestMetricNames(t *testing.T) {
	tests := []struct {
		expr string
		want []string
	}{
		{`garm_health`, []string{"garm_health"}},
		{`sum by (status) (garm_runner_status{runner_status="active"})`, []string{"garm_runner_status"}},
		{`histogram_quantile(0.9, sum by (le, stage) (rate(garrison_job_queue_seconds_bucket{pool_id=~"$pool"}[$__rate_interval])))`,
			[]string{"garrison_job_queue_seconds_bucket"}},
		{`sum by (pool_id) (a) / on (pool_id) group_left label_replace(b, "pool_id", "$1", "id", "(.*)")`, []string{"a", "b"}},
		{`count(garm_job_status{status="queued"}) or vector(0)`, []string{"garm_job_status"}},
		{`min by (credential_name) (x / y) * 60`, []string{"x", "y"}},
	}
	for _, tt := range tests {
		if got := metricNames(tt.expr); !slices.Equal(got, tt.want) {
			t.Errorf("metricNames(%q) = %v, want %v", tt.expr, got, tt.want)
		}
	}
}

// checkDashboard checks that every metric the dashboard queries is in the scrape.
func checkDashboard(t *testing.T, families map[string]*dto.MetricFamily) {
	t.Helper()
	raw, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	exprs := dashboardExprs(t, raw)
	if len(exprs) < 10 {
		t.Fatalf("only %d queries in the dashboard", len(exprs))
	}
	for _, e := range exprs {
		names := metricNames(e)
		if len(names) == 0 {
			t.Errorf("query %q names no metric", e)
		}
		for _, n := range names {
			if !scraped(families, n) {
				t.Errorf("dashboard query %q uses %s, which the scrape lacks", e, n)
			}
		}
	}
}

// scraped reports whether a metric name is a family of the scrape with series, or a
// histogram's _bucket, _sum or _count series.
func scraped(families map[string]*dto.MetricFamily, name string) bool {
	if mf := families[name]; mf != nil && len(mf.GetMetric()) > 0 {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		base, ok := strings.CutSuffix(name, suffix)
		if mf := families[base]; ok && mf != nil && mf.GetType() == dto.MetricType_HISTOGRAM && len(mf.GetMetric()) > 0 {
			return true
		}
	}
	return false
}
