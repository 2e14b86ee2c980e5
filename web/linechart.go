package web

import (
	"math"
	"strconv"

	"github.com/cardedge/cardedge/snapshots"
)

// LineChart is an SVG line chart of money over days, rendered on the server
// (template "linechart" in partials.html), with the conventions of BarChart:
// horizontal positions are percentages of the width, vertical ones pixels,
// so the chart fills any width and its text keeps its size. The line is a
// step line (a price holds until the next change) drawn in an inner SVG
// whose x axis is stretched (a 0-1000 viewBox, the stroke not scaled); each
// point is a circle with its date and value in a <title> and data-label
// (app.js reads it out on tap), one per price change in range.
type LineChart struct {
	ID      string // prefix of the element ids
	Title   string // accessible name
	Desc    string // one-sentence summary
	Height  int    // plot height in pixels
	Line    string // the polyline's points in the inner viewBox (0-1000 x Height)
	Points  []linePoint
	Grid    []chartTick
	XLabels []chartLabel
	Class   string // the line's CSS class
	Empty   bool   // no point in range
	Note    string // what the empty chart says
}

// SVGHeight is the height of the whole chart: the plot and the date labels.
func (c LineChart) SVGHeight() int { return c.Height + 22 }

type linePoint struct {
	X     string // percentage
	Y     string // pixels
	Label string
}

// DayValue is one point of a line chart: a value in cents from Day on.
type DayValue struct {
	Day   snapshots.Day
	Cents int64
}

// newLineChart draws points (day order, one per change) over the days
// from..to: the line starts at the first point (or at the left edge, when a
// point in force before the range is given first with Day < from) and, when hold,
// holds the last value to the end of the range (false: it ends at the last
// point, a value no longer shown today). what names the series in the
// description ("the raw:near_mint fmv"); markers false draws no circles (a
// daily series).
func newLineChart(id, title, what string, from, to snapshots.Day, points []DayValue, markers, hold bool, empty string) LineChart {
	const height = 200
	c := LineChart{ID: id, Title: title, Height: height, Class: "line-price", Note: empty}
	if to < from {
		to = from
	}
	if len(points) == 0 {
		c.Empty = true
		c.Desc = empty
		c.XLabels = dayLabels(from, to)
		return c
	}
	lo, hi := points[0].Cents, points[0].Cents
	for _, p := range points {
		lo, hi = min(lo, p.Cents), max(hi, p.Cents)
	}
	bottom, top, step := moneyScale(lo, hi)
	span := float64(to-from) + 1
	xOf := func(d snapshots.Day) float64 { // 0..1 of the width; a day is a slot, points at its middle
		d = max(d, from)
		if span <= 1 {
			return 0.5
		}
		return (float64(d-from) + 0.5) / span
	}
	yOf := func(cents int64) float64 {
		return height - float64(cents-bottom)/float64(top-bottom)*(height-8)
	}
	var line []byte
	add := func(x, y float64) {
		if len(line) > 0 {
			line = append(line, ' ')
		}
		line = strconv.AppendFloat(line, x*1000, 'f', 1, 64)
		line = append(line, ',')
		line = strconv.AppendFloat(line, y, 'f', 1, 64)
	}
	for i, p := range points {
		x, y := xOf(p.Day), yOf(p.Cents)
		if p.Day < from { // in force when the range begins: from its left edge
			x = 0
		}
		if i > 0 {
			add(x, yOf(points[i-1].Cents)) // hold the previous value up to this day
		}
		add(x, y)
		if markers && p.Day >= from {
			c.Points = append(c.Points, linePoint{X: pct(x * 100), Y: px(y), Label: p.Day.String() + ": " + money(p.Cents)})
		}
	}
	if hold {
		add(xOf(to)+0.5/span, yOf(points[len(points)-1].Cents))
	}
	c.Line = string(line)
	for v := bottom; v <= top; v += step {
		y := yOf(v)
		c.Grid = append(c.Grid, chartTick{Y: px(y), TextY: px(math.Max(12, y-4)), Label: axisMoney(v, step)})
	}
	c.XLabels = dayLabels(from, to)
	last := points[len(points)-1]
	end := " at the end"
	if !hold {
		end = " on " + last.Day.String() + ", the last shown"
	}
	c.Desc = what + " from " + from.String() + " to " + to.String() + ": " + money(last.Cents) + end + ", between " + money(lo) + " and " + money(hi)
	if markers {
		n := len(c.Points)
		c.Desc += "; " + formatInt(int64(n)) + " " + plural(int64(n), "change") + " in range"
	}
	c.Desc += "."
	return c
}

// dayLabels are the first, middle and last day of a range.
func dayLabels(from, to snapshots.Day) []chartLabel {
	out := []chartLabel{{X: "0%", Anchor: "start", Label: from.String()}}
	if to-from > 2 {
		mid := from + (to-from)/2
		out = append(out, chartLabel{X: pct((float64(mid-from) + 0.5) / (float64(to-from) + 1) * 100), Anchor: "middle", Label: mid.String()})
	}
	if to > from {
		out = append(out, chartLabel{X: "100%", Anchor: "end", Label: to.String()})
	}
	return out
}

// moneyScale returns the bottom and top of a y axis over lo..hi cents and
// the step of its grid lines: 1, 2 or 5 times a power of ten, about four
// steps, never below zero.
func moneyScale(lo, hi int64) (bottom, top, step int64) {
	if hi == lo {
		pad := max(100, hi/10)
		lo, hi = max(0, lo-pad), hi+pad
	}
	step = niceCeil(max(1, (hi-lo)/4))
	bottom = lo / step * step
	top = (hi + step - 1) / step * step
	if top == bottom {
		top += step
	}
	return bottom, top, step
}

// money writes cents as dollars, always to the cent ($1,234.56, $25,000.00,
// −$3.10): every amount a page shows is written this way, so that amounts
// side by side read alike (issue 34). Only the axes of charts round
// (shortMoney).
func money(cents int64) string {
	neg := cents < 0
	if neg {
		cents = -cents
	}
	s := "$" + formatInt(cents/100) + "." + strconv.FormatInt(100+cents%100, 10)[1:]
	if neg {
		return "−" + s
	}
	return s
}

// axisMoney writes a tick of an axis whose ticks are step cents apart, every
// tick of it alike: $120k for steps of whole thousands, $144,920 for steps
// of whole dollars, $2.50 otherwise.
func axisMoney(cents, step int64) string {
	switch {
	case step%100000 == 0:
		return "$" + strconv.FormatFloat(float64(cents)/100000, 'f', -1, 64) + "k"
	case step%100 == 0:
		return "$" + formatInt(cents/100)
	}
	return money(cents)
}

// shortMoney writes a round amount of cents for an axis: $0, $2.50, $5,
// $1k, $2.5k.
func shortMoney(cents int64) string {
	switch {
	case cents >= 100000 && cents%10000 == 0:
		return "$" + strconv.FormatFloat(float64(cents)/100000, 'f', -1, 64) + "k"
	case cents%100 == 0:
		return "$" + formatInt(cents/100)
	}
	return money(cents)
}
