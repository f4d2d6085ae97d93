package bench

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Chart geometry, in SVG user units.
const (
	svgW, svgH      = 800.0, 400.0
	svgLeft, svgTop = 70.0, 40.0
	svgPlotW        = 700.0
	svgPlotH        = 300.0
)

// benchSVG draws points (x: seconds into the run, y: milliseconds) as a scatter chart
// with axes, ticks and a title. No points gives an empty chart that says so.
func benchSVG(title string, pts []benchPoint) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="12">`+"\n", svgW, svgH, svgW, svgH)
	fmt.Fprintf(&b, `<rect width="%g" height="%g" fill="white"/>`+"\n", svgW, svgH)
	fmt.Fprintf(&b, `<text x="%g" y="24" font-size="15">%s</text>`+"\n", svgLeft, html.EscapeString(title))
	xMax, yMax := 1.0, 1.0
	for _, p := range pts {
		xMax, yMax = math.Max(xMax, p.at), math.Max(yMax, p.ms)
	}
	xMax, yMax = niceCeil(xMax), niceCeil(yMax)
	svgAxes(&b, xMax, yMax)
	for _, p := range pts {
		x := svgLeft + p.at/xMax*svgPlotW
		y := svgTop + svgPlotH - p.ms/yMax*svgPlotH
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2" fill="#1f77b4" fill-opacity="0.6"/>`+"\n", x, y)
	}
	if len(pts) == 0 {
		fmt.Fprintf(&b, `<text x="%g" y="%g">no samples</text>`+"\n", svgLeft+svgPlotW/2-30, svgTop+svgPlotH/2)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// svgAxes draws the axes with five ticks each and their labels.
func svgAxes(b *strings.Builder, xMax, yMax float64) {
	x0, y0 := svgLeft, svgTop+svgPlotH
	fmt.Fprintf(b, `<path d="M%g %g V%g H%g" stroke="black" fill="none"/>`+"\n", x0, svgTop, y0, x0+svgPlotW)
	for i := 0; i <= 5; i++ {
		f := float64(i) / 5
		x, y := x0+f*svgPlotW, y0-f*svgPlotH
		fmt.Fprintf(b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#ccc"/>`+"\n", x0, y, x0+svgPlotW, y)
		fmt.Fprintf(b, `<text x="%g" y="%g" text-anchor="end">%g</text>`+"\n", x0-6, y+4, f*yMax)
		fmt.Fprintf(b, `<text x="%g" y="%g" text-anchor="middle">%g</text>`+"\n", x, y0+18, f*xMax)
	}
	fmt.Fprintf(b, `<text x="%g" y="%g" text-anchor="middle">seconds into the run</text>`+"\n", x0+svgPlotW/2, y0+40)
	fmt.Fprintf(b, `<text x="18" y="%g" transform="rotate(-90 18 %g)" text-anchor="middle">milliseconds</text>`+"\n", svgTop+svgPlotH/2, svgTop+svgPlotH/2)
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten, so that fifths are round.
func niceCeil(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}
