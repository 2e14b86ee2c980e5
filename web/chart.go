package web

import (
	"math"
	"strconv"
	"strings"
)

// BarChart is an SVG bar chart rendered on the server (template "chart" in
// partials.html). Horizontal positions are percentages of the chart's width
// and vertical ones pixels, so the chart fills any width while its text keeps
// its size: no scaling, readable at 390 px. Each bar carries its label in a
// <title> (a tooltip) and in data-label (app.js shows it on tap); the page
// gives the numbers in a table as well.
type BarChart struct {
	ID      string // prefix of the element ids
	Title   string // accessible name
	Desc    string // one-sentence summary
	Height  int    // plot height in pixels
	Bars    []chartBar
	Grid    []chartTick
	XLabels []chartLabel
	Legend  []Series
	Empty   bool // every value is zero
	// EmptyNote is what the chart says when Empty.
	EmptyNote string

	total, max int64 // the sum of the values, the tallest bar
}

// SVGHeight is the height of the whole chart: the plot and the date labels.
func (c BarChart) SVGHeight() int { return c.Height + 22 }

type chartBar struct {
	X, W  string // percentages
	Y, H  string // pixels
	Class string
	Label string
}

type chartTick struct {
	Y     string // pixels
	TextY string
	Label string
}

type chartLabel struct {
	X, Anchor, Label string
	Minor            bool // hidden on narrow screens (every other label of a crowded axis)
}

// Series is one stacked series of a bar chart: its name (legend), CSS class
// and a value per label.
type Series struct {
	Name, Class string
	Values      []int64
}

// newBarChart stacks series over labels (x axis: every label a bar). unit
// names what the values count, in the singular ("call").
func newBarChart(id, title, unit string, labels []string, series []Series) BarChart {
	c := newBars(id, title, labels, series, formatInt)
	c.EmptyNote = "No calls in this period."
	if n := len(labels); n > 0 {
		c.Desc = formatInt(c.total) + " " + plural(c.total, unit) + " over " + strconv.Itoa(n) + " days, " + labels[0] + " to " + labels[n-1] +
			"; the busiest day had " + formatInt(c.max) + "."
	}
	return c
}

// newBars stacks series over labels (x axis: every label a bar), the value
// axis written with format; the caller writes Desc.
func newBars(id, title string, labels []string, series []Series, format func(int64) string) BarChart {
	const height = 180
	c := BarChart{ID: id, Title: title, Height: height, Legend: series, EmptyNote: "Nothing in this period."}
	n := len(labels)
	if n == 0 {
		c.Empty = true
		return c
	}
	var max, total int64
	sums := make([]int64, n)
	for _, s := range series {
		for i, v := range s.Values {
			sums[i] += v
			total += v
		}
	}
	for _, v := range sums {
		if v > max {
			max = v
		}
	}
	c.Empty = total == 0
	top := niceCeil(max)
	slot := 100 / float64(n)
	for i := range labels {
		base := 0.0
		first := len(c.Bars)
		var parts []string
		for _, s := range series {
			v := s.Values[i]
			parts = append(parts, format(v)+" "+s.Name)
			if v == 0 {
				continue
			}
			h := float64(v) / float64(top) * height
			c.Bars = append(c.Bars, chartBar{
				X: pct(float64(i)*slot + slot*0.1), W: pct(slot * 0.8),
				Y: px(height - base - h), H: px(h), Class: s.Class,
			})
			base += h
		}
		label := labels[i] + ": " + strings.Join(parts, ", ")
		for j := first; j < len(c.Bars); j++ {
			c.Bars[j].Label = label
		}
		if sums[i] == 0 { // an invisible bar still answers a tap
			c.Bars = append(c.Bars, chartBar{X: pct(float64(i)*slot + slot*0.1), W: pct(slot * 0.8),
				Y: px(height - 2), H: px(2), Class: "bar-none", Label: label})
		}
	}
	ticks := []int64{0, top / 2, top}
	if top < 2 {
		ticks = []int64{0, top}
	}
	for _, v := range ticks {
		y := height - float64(v)/float64(top)*height
		c.Grid = append(c.Grid, chartTick{Y: px(y), TextY: px(math.Max(12, y-4)), Label: format(v)})
	}
	c.XLabels = []chartLabel{{X: "0%", Anchor: "start", Label: labels[0]}}
	if n > 2 {
		c.XLabels = append(c.XLabels, chartLabel{X: pct(float64(n/2)*slot + slot/2), Anchor: "middle", Label: labels[n/2]})
	}
	if n > 1 {
		c.XLabels = append(c.XLabels, chartLabel{X: "100%", Anchor: "end", Label: labels[n-1]})
	}
	c.total, c.max = total, max
	return c
}

// niceCeil returns the smallest of 1, 2, 5 times a power of ten that is at
// least v (at least 1).
func niceCeil(v int64) int64 {
	if v <= 1 {
		return 1
	}
	p := int64(1)
	for p*10 < v {
		p *= 10
	}
	for _, m := range []int64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func pct(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) + "%" }
func px(f float64) string  { return strconv.FormatFloat(f, 'f', 1, 64) }

// plural returns unit for 1 and unit+"s" otherwise.
func plural(n int64, unit string) string {
	if n == 1 {
		return unit
	}
	return unit + "s"
}
