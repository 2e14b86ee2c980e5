package web_test

import (
	"strings"
	"testing"

	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/web"
)

func TestNewLineChart(t *testing.T) {
	from, to := snapshots.Day(100), snapshots.Day(109)
	t.Run("OK", func(t *testing.T) {
		// A price in force before the range (day 95), then two changes in it.
		pts := []web.DayValue{{Day: 95, Cents: 1000}, {Day: 102, Cents: 1500}, {Day: 107, Cents: 1200}}
		c := web.NewLineChartForTest("h", "title", "The fmv", from, to, pts, true, true, "none")
		if c.Empty || len(c.Points) != 2 {
			t.Fatalf("empty %v, %d points, want 2 (the one before the range has none)", c.Empty, len(c.Points))
		}
		if got, want := c.Points[0].Label, snapshots.Day(102).String()+": $15.00"; got != want {
			t.Errorf("first point %q, want %q", got, want)
		}
		// A step line: start (at the left edge: the value in force when the
		// range begins), a step down to
		// each change, and the last value held to the end.
		if got := strings.Count(c.Line, " ") + 1; got != 1+2*2+1 {
			t.Errorf("line %q has %d vertices, want 6", c.Line, got)
		}
		if !strings.HasPrefix(c.Line, "0.0,") || !strings.HasSuffix(strings.Fields(c.Line)[5], ","+c.Points[1].Y) {
			t.Errorf("line %q", c.Line)
		}
		if !strings.Contains(c.Desc, "$12.00 at the end") || !strings.Contains(c.Desc, "2 changes in range") {
			t.Errorf("desc %q", c.Desc)
		}
		for _, g := range c.Grid {
			if strings.Contains(g.Label, ".") && !strings.HasSuffix(g.Label, "0") {
				t.Errorf("grid label %q", g.Label)
			}
		}
	})
	t.Run("NotHeld", func(t *testing.T) {
		// Today's value is not shown (confidence none): the line ends at
		// its last change.
		pts := []web.DayValue{{Day: 102, Cents: 1500}, {Day: 104, Cents: 1200}}
		c := web.NewLineChartForTest("h", "title", "The fmv", from, to, pts, true, false, "")
		v := strings.Fields(c.Line)
		if len(v) != 3 || !strings.HasPrefix(v[2], "450.0,") || !strings.Contains(c.Desc, "$12.00 on "+snapshots.Day(104).String()+", the last shown") {
			t.Fatalf("line %q, desc %q", c.Line, c.Desc)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		c := web.NewLineChartForTest("h", "title", "The fmv", from, to, nil, true, true, "No price in this range.")
		if !c.Empty || c.Line != "" || len(c.Points) != 0 || c.Desc != "No price in this range." || len(c.XLabels) != 3 {
			t.Fatalf("%+v", c)
		}
	})
	t.Run("OneDay", func(t *testing.T) {
		c := web.NewLineChartForTest("h", "title", "The fmv", to, to, []web.DayValue{{Day: to, Cents: 100}}, true, true, "")
		if len(c.Points) != 1 || c.Points[0].X != "50.000%" {
			t.Fatalf("%+v", c.Points)
		}
	})
}

func TestMoney(t *testing.T) {
	for _, tc := range []struct {
		cents int64
		want  string
	}{{0, "$0.00"}, {5, "$0.05"}, {123456, "$1,234.56"}, {999999, "$9,999.99"}, {1000049, "$10,000.49"}, {2500000, "$25,000.00"}, {1821100, "$18,211.00"}, {-250, "−$2.50"}} {
		if got := web.MoneyForTest(tc.cents); got != tc.want {
			t.Errorf("money(%d) = %q, want %q", tc.cents, got, tc.want)
		}
	}
}

// TestAxisMoney: the ticks of one axis are written alike (issue 34: an axis
// read $144.9k beside $144,920).
func TestAxisMoney(t *testing.T) {
	for _, tc := range []struct {
		step  int64
		ticks []int64
		want  string
	}{
		{2000, []int64{14490000, 14492000, 14494000}, "$144,900|$144,920|$144,940"},
		{1000000, []int64{12000000, 13000000}, "$120k|$130k"},
		{100000, []int64{14400000, 14500000}, "$144k|$145k"},
		{50, []int64{0, 50, 100}, "$0.00|$0.50|$1.00"},
		{100, []int64{0, 100}, "$0|$1"},
	} {
		var got []string
		for _, v := range tc.ticks {
			got = append(got, web.AxisMoneyForTest(v, tc.step))
		}
		if strings.Join(got, "|") != tc.want {
			t.Errorf("step %d: %q, want %q", tc.step, strings.Join(got, "|"), tc.want)
		}
	}
}
