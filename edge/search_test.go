package edge

import (
	"bytes"
	"fmt"
	"net/url"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// TestSearch_Encoding: the search payload's bytes (cards copied from their
// encoded objects) are encoding/json's of the searchPayload of the same
// hits, cards built by cardGold, for plain words, syntax terms, a query
// without matches (hints), collapsed variants, field sorts and pages, in
// every game.
func TestSearch_Encoding(t *testing.T) {
	snap := mustTinySnapshot(t)
	var ctx fasthttp.RequestCtx // Search's context.Context
	ctx.Init(&fasthttp.Request{}, nil, nil)
	pages, items, highlighted, hinted := 0, 0, 0, 0
	for _, game := range snap.Manifest().Games {
		for _, q := range []string{"", "a", "char", "charizard", "pikachu base", "luffy", "t:fire", "hp>=100", "r:rare -t:water", "set:zzzz", "\"quote\\\" <mark>\""} {
			for _, extra := range []string{"", "&collapse=variants", "&sort=price", "&sort=name&offset=2&limit=3", "&raw_only=true"} {
				query := fmt.Sprintf("game=%s&q=%s%s", game, url.QueryEscape(q), extra)
				r := routeRequest(t, snap, "search", "", query)
				r.ctx = &ctx
				data, err := handleSearch(r)
				if err != nil {
					t.Fatalf("%s: %v", query, err)
				}
				pg := data.(*searchPage)
				want := searchPayload{Query: pg.Query, Sort: pg.Sort, Items: []searchItem{}, Total: pg.Total, TotalIsLowerBound: pg.TotalIsLowerBound,
					Offset: pg.Offset, Limit: pg.Limit, Note: searchNote, Hints: pg.Hints}
				for _, it := range pg.items {
					g, err := r.cardGold(it.card.Card)
					if err != nil {
						t.Fatal(err)
					}
					hl := it.highlights
					if hl == nil {
						hl = map[string][]string{}
					}
					if len(hl) > 0 {
						highlighted++
					}
					want.Items = append(want.Items, searchItem{Card: g, Score: it.score, Highlights: hl})
				}
				wantJSON, err := jsontext.Marshal(want) // what render writes for a payload without an appender
				if err != nil {
					t.Fatal(err)
				}
				if got := pg.AppendJSON(nil); !bytes.Equal(got, wantJSON) {
					t.Fatalf("%s:\n got %.600s\nwant %.600s", query, got, wantJSON)
				}
				pages, items = pages+1, items+len(pg.items)
				if len(pg.Hints) > 0 {
					hinted++
				}
			}
		}
	}
	// The comparisons must have seen cards, highlights and hints.
	if items == 0 || highlighted == 0 || hinted == 0 {
		t.Fatalf("%d pages compared, %d items, %d highlighted, %d with hints: the queries miss the tiny snapshot", pages, items, highlighted, hinted)
	}
	t.Logf("%d pages compared, %d items, %d highlighted, %d with hints", pages, items, highlighted, hinted)
}
