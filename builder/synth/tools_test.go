package synth_test

import (
	"github.com/cardedge/cardedge/snapshots"
	"os"
	"slices"
	"testing"

	"github.com/cardedge/cardedge/builder/synth"
)

// The tests of this file are tools for tuning the model, skipped unless
// their environment variable is set:
//
//	SYNTH_DEBUG=default go test -run TestDebugTop -v      # the 40 busiest cards
//	SYNTH_CARD=en:base1-4 go test -run TestDebugCard -v   # one card's grades, sales, listings
//	SYNTH_TREND=1 go test -run TestDebugTrend -v          # 7/30/90-day price changes

func TestDebugTop(t *testing.T) {
	name := os.Getenv("SYNTH_DEBUG")
	if name == "" {
		t.Skip()
	}
	cards, sets := catalogFor(t, name, 1)
	g := synth.New(MustPreset(t, name), 1, testAsOf)
	type row struct {
		i, n  int
		cents int64
	}
	var rows []row
	for i, c := range cards {
		sales, _ := g.CardMarket(synth.GameIndex(c.Game), c, setOf(sets, c))
		n := 0
		var last int64
		for _, s := range sales {
			if s.Flags == 0 && s.Grade == 0 {
				if last == 0 {
					last = s.PriceCents
				}
				n++
			}
		}
		rows = append(rows, row{i, len(sales), last})
	}
	slices.SortFunc(rows, func(a, b row) int { return b.n - a.n })
	for _, r := range rows[:40] {
		c := cards[r.i]
		s := setOf(sets, c)
		t.Logf("%-22s %-28q %-26q %s pop %.3f: %d rows, last raw NM $%.2f", c.ID, c.Name, c.Rarity, s.ReleaseDate, g.Popularity(c, s), r.n, float64(r.cents)/100)
	}
}

func TestDebugCard(t *testing.T) {
	id := os.Getenv("SYNTH_CARD")
	if id == "" {
		t.Skip()
	}
	cards, sets := catalogFor(t, "default", 1)
	g := synth.New(MustPreset(t, "default"), 1, testAsOf)
	for _, c := range cards {
		if c.ID != id {
			continue
		}
		sales, ls := g.CardMarket(synth.GameIndex(c.Game), c, setOf(sets, c))
		by := map[string][]int64{}
		for _, s := range sales {
			if s.Hidden() || s.Finish != 0 {
				continue
			}
			by[s.Grade.String()] = append(by[s.Grade.String()], s.PriceCents)
		}
		for k, v := range by {
			slices.Sort(v)
			t.Logf("%-22s n=%5d median $%.2f", k, len(v), float64(v[len(v)/2])/100)
		}
		for i, s := range sales {
			if i < 15 {
				t.Logf("%v", s)
			}
		}
		for _, l := range ls {
			t.Logf("%+v", l)
		}
	}
}

func TestDebugTrend(t *testing.T) {
	if os.Getenv("SYNTH_TREND") == "" {
		t.Skip()
	}
	cards, sets := catalogFor(t, "default", 1)
	g := synth.New(MustPreset(t, "default"), 1, testAsOf)
	for _, w := range []int{7, 30, 90} {
		var chs []float64
		for i := 0; i < len(cards); i += 3 {
			c := cards[i]
			sales, _ := g.CardMarket(synth.GameIndex(c.Game), c, setOf(sets, c))
			now, n1 := medianRaw(sales, 0, testAsOf-7, testAsOf)
			then, n2 := medianRaw(sales, 0, testAsOf-snapshots.Day(w)-7, testAsOf-snapshots.Day(w))
			if n1 < 3 || n2 < 3 {
				continue
			}
			chs = append(chs, float64(now)/float64(then)-1)
		}
		slices.Sort(chs)
		q := func(f float64) float64 { return 100 * chs[int(f*float64(len(chs)-1))] }
		t.Logf("%2dd change over %d cards: p1 %.0f%% p5 %.0f%% p25 %.0f%% p50 %.0f%% p75 %.0f%% p95 %.0f%% p99 %.0f%%", w, len(chs), q(0.01), q(0.05), q(0.25), q(0.5), q(0.75), q(0.95), q(0.99))
	}
}
