package bench

import (
	"encoding/xml"
	"math"
	"strings"
	"testing"
)

// svgDoc is the part of the chart's SVG the tests read.
type svgDoc struct {
	Lines []struct {
		Class string  `xml:"class,attr"`
		Y1    float64 `xml:"y1,attr"`
		Y2    float64 `xml:"y2,attr"`
	} `xml:"line"`
	Circles []struct {
		CY float64 `xml:"cy,attr"`
	} `xml:"circle"`
	Texts []string `xml:"text"`
}

func parseSVG(t *testing.T, s string) svgDoc {
	t.Helper()
	var d svgDoc
	if err := xml.Unmarshal([]byte(s), &d); err != nil {
		t.Fatalf("chart is not well-formed SVG: %v\n%s", err, s)
	}
	return d
}

func (d svgDoc) line(class string) (float64, bool) {
	for _, l := range d.Lines {
		if l.Class == class {
			return l.Y1, l.Y1 == l.Y2
		}
	}
	return 0, false
}

func (d svgDoc) hasText(sub string) bool {
	for _, s := range d.Texts {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestChartSVG: points on a log scale (each decade the same height), p50 and p99 as
// horizontal lines at their values, and a caption with the scenario, scale and commit.
func TestChartSVG(t *testing.T) {
	var pts []benchPoint
	for i := range 100 {
		pts = append(pts, benchPoint{at: float64(i) / 10, ms: 10})
	}
	for i := 90; i < 100; i++ { // the slowest tenth: p50 10 ms, p99 1000 ms
		pts[i].ms = 1000
	}
	c := chart{title: "webhook → create <ms>", scenario: "jobs", scale: 2.5, commit: "0123456789ab", pts: pts}
	d := parseSVG(t, c.svg())

	for _, want := range []string{"webhook → create <ms>", "scenario jobs", "scale 2.5", "commit 0123456789ab", "100 samples",
		"log scale", "p50 10 ms", "p99 1e+03 ms"} {
		if !d.hasText(want) {
			t.Errorf("chart lacks the text %q; texts: %q", want, d.Texts)
		}
	}
	// The axis spans 10^1 to 10^3 ms: 10 ms at the bottom, 1000 ms at the top, 100 ms
	// halfway, and the decade labels are there.
	y := newLogAxis([]float64{10, 1000})
	if y.lo != 1 || y.hi != 3 {
		t.Fatalf("log axis %+v, want decades 1..3", y)
	}
	bottom, top := svgTop+svgPlotH, svgTop
	if got := y.pos(100); math.Abs(got-(bottom+top)/2) > 0.01 {
		t.Errorf("100 ms at y %v, want halfway %v", got, (bottom+top)/2)
	}
	for _, label := range []string{"10", "100", "1000"} {
		if !hasLabel(d.Texts, label) {
			t.Errorf("no decade label %s", label)
		}
	}
	p50, flat50 := d.line("p50")
	p99, flat99 := d.line("p99")
	if !flat50 || !flat99 || math.Abs(p50-bottom) > 0.1 || math.Abs(p99-top) > 0.1 {
		t.Errorf("p50 line at %v (flat %v), want %v; p99 at %v (flat %v), want %v", p50, flat50, bottom, p99, flat99, top)
	}
	if len(d.Circles) != 100 {
		t.Errorf("%d points drawn, want 100", len(d.Circles))
	}
}

func hasLabel(texts []string, s string) bool {
	for _, t := range texts {
		if strings.TrimSpace(t) == s {
			return true
		}
	}
	return false
}

// TestChartSVGEdges: no samples, one value, zero and sub-millisecond values, and an
// unknown commit still give a well-formed chart.
func TestChartSVGEdges(t *testing.T) {
	for _, pts := range [][]benchPoint{nil, {{1, 5}}, {{0, 0}, {1, 0.2}, {2, 3}}} {
		d := parseSVG(t, chart{title: "t", scenario: "intake", scale: 1, pts: pts}.svg())
		if !d.hasText("commit unknown") || !d.hasText("scenario intake") {
			t.Errorf("%v: caption %q", pts, d.Texts)
		}
		if len(pts) == 0 && !d.hasText("no samples") {
			t.Error("an empty chart does not say so")
		}
		for _, c := range d.Circles {
			if c.CY < svgTop-0.01 || c.CY > svgTop+svgPlotH+0.01 || math.IsNaN(c.CY) {
				t.Errorf("%v: point at y %v outside the plot", pts, c.CY)
			}
		}
		if len(pts) > 0 {
			if _, ok := d.line("p99"); !ok {
				t.Errorf("%v: no p99 line", pts)
			}
		}
	}
}

func TestNiceCeil(t *testing.T) {
	for in, want := range map[float64]float64{1: 1, 1.2: 1.5, 3.5: 4, 60: 60, 61: 80, 95: 100, 0.07: 0.08, 250: 250} {
		if got := niceCeil(in); math.Abs(got-want) > 1e-9 {
			t.Errorf("niceCeil(%v) = %v, want %v", in, got, want)
		}
	}
}
