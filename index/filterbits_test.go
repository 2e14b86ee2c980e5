package index_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/index/syntax"
)

// TestSearch_FilterBits: a search with the syntax's terms answers the same
// (hits, scores, highlights, totals) with its filters as bitmaps as with
// its filters as Bleve queries, with and without text, in every sort, with
// collapse, pages, the request's filters and price bounds, twice (the
// second time from the cache of term bitmaps).
func TestSearch_FilterBits(t *testing.T) {
	ix := full(t)
	defer ix.SetFilterBits(true)
	queries := []struct{ game, q string }{
		{"pokemon", `t:fire`}, {"pokemon", `t:fire hp>=100`}, {"pokemon", `hp>=100 hp<=120 -t:fire`},
		{"pokemon", `(t:fire or t:water or t:grass) hp>=90 -t:ex`}, {"pokemon", `a:"Mitsuhiro Arita"`},
		{"pokemon", `a:"Mitsuhiro Arita" charizard`}, {"pokemon", `charizard -set:base1`}, {"pokemon", `pikachu is:1st-edition`},
		{"pokemon", `-charizard t:fire hp>=180 legal:standard`}, {"pokemon", `r:"rare holo" is:holo`}, {"pokemon", `attack:"fire spin"`},
		{"pokemon", `name:charizard -name:ex hp>=100`}, {"pokemon", `charizard or blastoise t:fire`}, {"pokemon", `hp!=60 retreat=1`},
		{"pokemon", `a:ari*`}, {"pokemon", `set:zzzz`}, {"pokemon", `-(t:fire or t:water)`}, {"pokemon", `name:charizard AND NOT set.id:base1 AND lang:en`},
		{"onepiece", `luffy is:alternate-art c:red`}, {"onepiece", `set:op-01 t:leader`}, {"onepiece", `c:red cost=3 power>=5000`},
		{"onepiece", `t:"straw hat crew" counter>=1000`}, {"onepiece", `types:* or nationalPokedexNumbers:*`},
	}
	requests := func(game, q string) []index.SearchRequest {
		base := index.SearchRequest{Game: game, Query: syntax.MustParse(q), Limit: 25, MinPriceCents: -1, MaxPriceCents: -1}
		var out []index.SearchRequest
		for _, sort := range []string{"", index.SortVolume, index.SortName, index.SortPrice} {
			r := base
			r.Sort = sort
			out = append(out, r)
		}
		paged := base
		paged.Offset, paged.Limit = 7, 5
		collapsed := base
		collapsed.CollapseVariants = true
		collapsedPaged := collapsed
		collapsedPaged.Offset = 3
		lang := base
		lang.Language = "en"
		rarity := base
		rarity.Rarity, rarity.Variant = "rare holo", "holo"
		priced := base
		priced.MinPriceCents, priced.MaxPriceCents = 100, 5000
		far := base
		far.Offset = 100000
		return append(out, paged, collapsed, collapsedPaged, lang, rarity, priced, far)
	}
	compared, nonEmpty := 0, 0
	for _, tc := range queries {
		for i, r := range requests(tc.game, tc.q) {
			name := fmt.Sprintf("%s/%s/%d", tc.game, tc.q, i)
			ix.SetFilterBits(false)
			want := mustSearch(t, r)
			ix.SetFilterBits(true)
			for pass := 0; pass < 2; pass++ {
				got, err := ix.Search(context.Background(), r)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if got.Total != want.Total || len(got.Hits) != len(want.Hits) {
					t.Fatalf("%s: total %d, %d hits; want %d, %d", name, got.Total, len(got.Hits), want.Total, len(want.Hits))
				}
				for k := range want.Hits {
					if g, w := got.Hits[k], want.Hits[k]; g.CardID != w.CardID || g.Score != w.Score || !reflect.DeepEqual(g.Highlights, w.Highlights) {
						t.Fatalf("%s: hit %d is %+v, want %+v", name, k, g, w)
					}
				}
			}
			compared++
			if len(want.Hits) > 0 {
				nonEmpty++
			}
		}
	}
	if nonEmpty < compared/2 {
		t.Fatalf("%d of %d searches found cards: the cases miss the catalog", nonEmpty, compared)
	}
	t.Logf("%d searches compared, %d with hits", compared, nonEmpty)
}
