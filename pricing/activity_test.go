package pricing_test

import (
	"context"
	"slices"
	"testing"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

func TestActivity(t *testing.T) {
	if a := pricing.NewActivity(src.AsOf, "1m", "", false, false); a != nil {
		t.Fatalf("no filter: %+v", a)
	}
	cards, err := src.Reader.Cards("pokemon")
	if err != nil {
		t.Fatal(err)
	}
	// The reference: the card's cumulative sales of every printing.
	has := func(c *snapshots.Card, days int, keep func(snapshots.Grade) bool) bool {
		from := snapshots.Day(1)
		if days > 0 {
			from = src.AsOf - snapshots.Day(days) + 1
		}
		for f := range c.Printings() {
			cum, err := src.Reader.PrintingCum(c.Game, c.ID, f)
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := snapshots.SumWindow(cum, keep, from, src.AsOf); n > 0 {
				return true
			}
		}
		return false
	}
	bgs := func(g snapshots.Grade) bool { return g.Grader() == 1 }
	slab := func(g snapshots.Grade) bool { return g.Grader() == 0 }
	raw := func(g snapshots.Grade) bool { return g.Raw() }
	for _, tc := range []struct {
		window, grader string
		slab, raw      bool
		days           int
		want           func(c *snapshots.Card) bool
	}{
		{"all", "bgs", false, false, 0, func(c *snapshots.Card) bool { return has(c, 0, bgs) }},
		{"1m", "", true, false, 30, func(c *snapshots.Card) bool { return has(c, 30, slab) }},
		{"1w", "", false, true, 7, func(c *snapshots.Card) bool { return has(c, 7, raw) }},
		{"1y", "slab", true, true, 365, func(c *snapshots.Card) bool { return has(c, 365, slab) && has(c, 365, raw) }},
	} {
		a := pricing.NewActivity(src.AsOf, tc.window, tc.grader, tc.slab, tc.raw)
		active := 0
		for _, c := range cards {
			got, err := a.Active(src.Reader, c)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want(c) {
				t.Fatalf("%+v: %s active %v", tc, c.ID, got)
			}
			if got {
				active++
			}
		}
		if active == 0 || active == len(cards) {
			t.Errorf("%+v: %d of %d cards active: the filter tells nothing apart", tc, active, len(cards))
		}
	}
}

// TestSearchActive: the kept matches are the ranked matches a keeps, paged
// by the request's offset and limit.
func TestSearchActive(t *testing.T) {
	ctx := context.Background()
	a := pricing.NewActivity(src.AsOf, "all", "", false, true)
	// The reference: every ranked match, then a's verdict on each.
	var kept []string
	for off := 0; ; off += index.MaxLimit {
		res, err := src.Index.Search(ctx, index.SearchRequest{Game: "pokemon", MinPriceCents: -1, MaxPriceCents: -1, Offset: off, Limit: index.MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			c, err := src.Reader.Card("pokemon", h.CardID)
			if err != nil {
				t.Fatal(err)
			}
			if ok, err := a.Active(src.Reader, c); err != nil {
				t.Fatal(err)
			} else if ok {
				kept = append(kept, h.CardID)
			}
		}
		if len(res.Hits) == 0 || off+len(res.Hits) >= res.Total {
			break
		}
	}
	if len(kept) <= index.MaxLimit { // more than a page of the scan
		t.Fatalf("%d active cards: the tiny snapshot should have more than %d", len(kept), index.MaxLimit)
	}
	for _, pg := range []struct{ offset, limit int }{{0, 2}, {1, 100}, {index.MaxLimit - 1, 3}, {len(kept) - 1, 5}, {len(kept), 5}} {
		got, err := pricing.SearchActive(ctx, src, index.SearchRequest{Game: "pokemon", MinPriceCents: -1, MaxPriceCents: -1, Offset: pg.offset, Limit: pg.limit}, a)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range got.Hits {
			ids = append(ids, h.CardID)
		}
		want := kept[pg.offset:min(len(kept), pg.offset+pg.limit)]
		if !slices.Equal(ids, want) || got.Total != len(kept) || got.LowerBound {
			t.Errorf("offset %d limit %d: %v of %d (lower bound %v), want %v of %d", pg.offset, pg.limit, ids, got.Total, got.LowerBound, want, len(kept))
		}
	}
}
