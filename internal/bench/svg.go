package bench

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/garrison-ci/garrison/internal/testbed"
)

// Chart geometry, in SVG user units.
const (
	svgW, svgH      = 800.0, 440.0
	svgLeft, svgTop = 70.0, 40.0
	svgPlotW        = 610.0
	svgPlotH        = 300.0
)

// chart is what the --svg file shows: the latency of each sample by when it happened, on
// a logarithmic millisecond scale, with the p50 and p99 of all samples as lines and a
// caption naming the scenario, the scale and the commit.
type chart struct {
	title    string
	scenario string
	scale    float64
	commit   string // "" when unknown
	pts      []benchPoint
}

// svg draws the chart. No points gives an empty chart that says so.
func (c chart) svg() string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="12">`+"\n", svgW, svgH, svgW, svgH)
	fmt.Fprintf(&b, `<rect width="%g" height="%g" fill="white"/>`+"\n", svgW, svgH)
	fmt.Fprintf(&b, `<text x="%g" y="24" font-size="15">%s</text>`+"\n", svgLeft, html.EscapeString(c.title))
	xMax := 1.0
	ms := make([]float64, 0, len(c.pts))
	for _, p := range c.pts {
		xMax = math.Max(xMax, p.at)
		ms = append(ms, p.ms)
	}
	xMax = niceCeil(xMax)
	y := newLogAxis(ms)
	svgAxes(&b, xMax, y)
	for _, p := range c.pts {
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2" fill="#1f77b4" fill-opacity="0.5"/>`+"\n",
			svgLeft+p.at/xMax*svgPlotW, y.pos(p.ms))
	}
	if len(c.pts) == 0 {
		fmt.Fprintf(&b, `<text x="%g" y="%g">no samples</text>`+"\n", svgLeft+svgPlotW/2-30, svgTop+svgPlotH/2)
	} else {
		pc := testbed.PercentilesOf(ms)
		percentileLine(&b, y, "p50", pc.P50, "#2ca02c")
		percentileLine(&b, y, "p99", pc.P99, "#d62728")
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" fill="#444">%s</text>`+"\n", svgLeft, svgH-14, html.EscapeString(c.caption()))
	b.WriteString("</svg>\n")
	return b.String()
}

// caption names what was measured: scenario, scale, commit, samples and the scale used.
func (c chart) caption() string {
	commit := c.commit
	if commit == "" {
		commit = "unknown"
	}
	return fmt.Sprintf("scenario %s · scale %g · commit %s · %d samples · log scale", c.scenario, c.scale, commit, len(c.pts))
}

// percentileLine draws a dashed horizontal line at v with its label right of the plot.
func percentileLine(b *strings.Builder, y logAxis, name string, v float64, color string) {
	py := y.pos(v)
	fmt.Fprintf(b, `<line class="%s" x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="%s" stroke-width="1.5" stroke-dasharray="6 4"/>`+"\n",
		name, svgLeft, py, svgLeft+svgPlotW, py, color)
	fmt.Fprintf(b, `<text x="%g" y="%.1f" fill="%s">%s %s ms</text>`+"\n", svgLeft+svgPlotW+6, py+4, color, name, fmtMS(v))
}

// fmtMS prints milliseconds with up to three significant digits.
func fmtMS(v float64) string { return fmt.Sprintf("%.3g", v) }

// logAxis maps milliseconds to the plot's height on a log10 scale spanning whole decades.
type logAxis struct{ lo, hi float64 } // decade exponents: 10^lo .. 10^hi ms

// newLogAxis spans the decades holding every value (at least one decade; values at or
// below zero are drawn at the bottom).
func newLogAxis(ms []float64) logAxis {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range ms {
		if v > 0 {
			lo, hi = math.Min(lo, math.Floor(math.Log10(v))), math.Max(hi, math.Ceil(math.Log10(v)))
		}
	}
	if math.IsInf(lo, 1) {
		return logAxis{0, 3}
	}
	if hi <= lo {
		hi = lo + 1
	}
	return logAxis{lo, hi}
}

// pos is the SVG y of v ms.
func (a logAxis) pos(v float64) float64 {
	f := 0.0
	if v > 0 {
		f = (math.Log10(v) - a.lo) / (a.hi - a.lo)
	}
	f = math.Max(0, math.Min(1, f))
	return svgTop + svgPlotH - f*svgPlotH
}

// svgAxes draws the time axis with five ticks and the log millisecond axis with a labelled
// line per decade and fainter lines at 2 and 5 times it.
func svgAxes(b *strings.Builder, xMax float64, y logAxis) {
	x0, y0 := svgLeft, svgTop+svgPlotH
	fmt.Fprintf(b, `<path d="M%g %g V%g H%g" stroke="black" fill="none"/>`+"\n", x0, svgTop, y0, x0+svgPlotW)
	for i := 0; i <= 5; i++ {
		f := float64(i) / 5
		fmt.Fprintf(b, `<text x="%g" y="%g" text-anchor="middle">%g</text>`+"\n", x0+f*svgPlotW, y0+18, f*xMax)
	}
	for e := y.lo; e <= y.hi; e++ {
		v := math.Pow(10, e)
		py := y.pos(v)
		fmt.Fprintf(b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#bbb"/>`+"\n", x0, py, x0+svgPlotW, py)
		fmt.Fprintf(b, `<text x="%g" y="%.1f" text-anchor="end">%g</text>`+"\n", x0-6, py+4, v)
		for _, m := range []float64{2, 5} {
			if e < y.hi {
				pm := y.pos(m * v)
				fmt.Fprintf(b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#eee"/>`+"\n", x0, pm, x0+svgPlotW, pm)
			}
		}
	}
	fmt.Fprintf(b, `<text x="%g" y="%g" text-anchor="middle">seconds into the run</text>`+"\n", x0+svgPlotW/2, y0+40)
	fmt.Fprintf(b, `<text x="18" y="%g" transform="rotate(-90 18 %g)" text-anchor="middle">milliseconds (log scale)</text>`+"\n", svgTop+svgPlotH/2, svgTop+svgPlotH/2)
}

// niceCeil rounds v up to 1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten, so that
// fifths are round and little of the axis is empty.
func niceCeil(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}
