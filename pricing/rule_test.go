package pricing_test

import (
	"slices"
	"testing"

	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

// TestFlags_OneRule reads every series of the tiny snapshot, every estimate
// of every printing and every row of every leaderboard: no value is thin at
// high confidence or stale above none, and a leaderboard row is thin
// exactly when its sample_size, the count shown beside its flags, is below
// the thin rule's (issue 34: "thin" beside "high confidence" and beside "26
// in sample").
func TestFlags_OneRule(t *testing.T) {
	m := &estimate.Default
	r := src.Reader
	points, estimates := 0, 0
	for _, game := range r.Manifest().Games {
		err := r.ScanPrintings(game, func(c *snapshots.Card, finish int, _ []snapshots.CumSeries, series []snapshots.PriceSeries) error {
			for _, s := range series {
				for _, p := range s.Points {
					points++
					if p.Flags&estimate.FlagThin != 0 && p.Confidence == estimate.ConfidenceHigh {
						t.Errorf("%s printing %d %s on %s: thin at high confidence (sample %d)", c.ID, finish, s.Grade, p.Day, p.Sample)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		cards, err := r.Cards(game)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cards {
			ps, err := r.Printings(game, c.ID)
			if err != nil {
				continue
			}
			for _, p := range ps {
				for _, e := range p.Estimates {
					estimates++
					thin, stale := e.Flags&estimate.FlagThin != 0, e.Flags&estimate.FlagStale != 0
					if thin && e.Confidence == estimate.ConfidenceHigh {
						t.Errorf("%s %s %s: thin at high confidence (sample %d)", c.ID, p.Name, e.Grade, e.SampleSize)
					}
					if stale && e.Confidence != estimate.ConfidenceNone {
						t.Errorf("%s %s %s: stale at confidence %s", c.ID, p.Name, e.Grade, e.Confidence)
					}
				}
			}
		}
		for _, metric := range []string{"composite", "price_pct", "volume_pct"} {
			for _, liq := range []pricing.Liquidity{pricing.DefaultLiquidity(), {}} {
				pg, err := pricing.RankTrending(r, src.AsOf, pricing.TrendingRequest{Game: game, Metric: metric, Window: "30d", Language: "all", Liquidity: liq, Limit: 200})
				if err != nil {
					t.Fatal(err)
				}
				for _, it := range pg.Items {
					feed := slices.Contains(m.Sources.Priority, it.Source) // ranked by a source's price: its series' flags
					if thin := slices.Contains(it.Flags, "thin"); thin != m.ThinOf(it.SampleSize) && !feed {
						t.Errorf("%s %s (min_sales %d): %s flags %v beside sample_size %d", game, metric, liq.MinSales, it.CardID, it.Flags, it.SampleSize)
					}
				}
			}
		}
	}
	if points == 0 || estimates == 0 {
		t.Fatalf("read %d points and %d estimates", points, estimates)
	}
}
