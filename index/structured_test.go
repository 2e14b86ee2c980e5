package index_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/snapshots"
)

// structuredCases are queries of field terms only: the index's answer
// must be exactly the cards refMatch selects.
var structuredCases = []struct{ game, q string }{
	{"pokemon", `a:"Mitsuhiro Arita"`},
	{"pokemon", `a:arita`},
	{"pokemon", `artist:"5ban graphics"`},
	{"pokemon", `t:water hp>=300 legal:standard`},
	{"pokemon", `t:water hp>=300 legal:standard lang:en`},
	{"pokemon", `attack:"Fire Spin"`},
	{"pokemon", `attack:spin -attack:"fire spin"`},
	{"pokemon", `ability:"energy burn" or ability:"rain dance"`},
	{"pokemon", `t:supporter legal:expanded -legal:standard`},
	{"pokemon", `t:"stage 2" c:fire retreat<=1`},
	{"pokemon", `hp=120 t:fire`},
	{"pokemon", `hp!=120 t:fire`},
	{"pokemon", `-hp=120 t:fire`},
	{"pokemon", `hp<30`},
	{"pokemon", `hp>340`},
	{"pokemon", `banned:expanded`},
	{"pokemon", `reg:H t:pokemon`},
	{"pokemon", `reg:g or reg:h`},
	{"pokemon", `r:"rare holo" is:1st-edition`},
	{"pokemon", `is:reverse lang:ja`},
	{"pokemon", `is:shadowless`},
	{"pokemon", `(t:fire or t:water) hp>=200 -t:ex`},
	{"pokemon", `t:pokémon retreat=0 lang:zh-tw`},
	{"pokemon", `c!=colorless t:basic hp>=200`},
	{"onepiece", `c:red cost=5 power>=7000`},
	{"onepiece", `c:red cost=5 power>=7000 t:character`},
	{"onepiece", `t:"straw hat crew" counter>=2000`},
	{"onepiece", `life>=5 c:blue`},
	{"onepiece", `t:leader -life=5`},
	{"onepiece", `attr:slash power>8000 lang:ja`},
	{"onepiece", `is:alternate-art r:sec`},
	{"onepiece", `cost>=10 or power>=12000`},
	{"onepiece", `hp>0`}, // a Pokémon field: no One Piece card
	// rarity: words of the rarity (issue 34: the Cards page's example)
	{"pokemon", `set:base rarity:holo`},
	{"pokemon", `rarity:holo`},
	{"pokemon", `r:"rare holo" -r:"rare holo ex"`},
	{"pokemon", `!r:"rare holo" set:base1`},
	{"pokemon", `r:"lv.x" or r:"LV X"`},
	{"pokemon", `r:rare_holo lang:en`},
	{"onepiece", `r:sr or !r:sec`},
	{"pokemon", `set:base`},
	{"pokemon", `set:"base set" or set:jungle`},
	// pokemontcg.io's fields and the Lucene forms
	{"pokemon", `name:char* lang:en`},
	{"pokemon", `name:char*der`},
	{"pokemon", `!name:charizard`},
	{"pokemon", `!name:char* -name:charizard lang:en`},
	{"pokemon", `name:*zard*`},
	{"pokemon", `nationalPokedexNumbers:[1 TO 151] lang:en`},
	{"pokemon", `nationalPokedexNumbers:{150 TO 152}`},
	{"pokemon", `hp:[* TO 100] lang:en`},
	{"pokemon", `hp:[150 TO *] lang:en`},
	{"pokemon", `hp:{150 TO 170}`},
	{"pokemon", `set.id:sm1`},
	{"pokemon", `set.id:en:sm1 or set.id:SV1S`},
	{"pokemon", `attacks.name:Spelunk`},
	{"pokemon", `legalities.standard:banned`},
	{"pokemon", `legalities.expanded:banned or legalities.unlimited:banned`},
	{"pokemon", `legalities.standard:legal lang:en -types:water`},
	{"pokemon", `subtypes:mega`},
	{"pokemon", `subtypes:mega -types:water`},
	{"pokemon", `subtypes:"stage 2" supertype:pokemon types:fire`},
	{"pokemon", `!subtypes:ex subtypes:"tera"`},
	{"pokemon", `set.name:generations subtypes:mega`},
	{"pokemon", `set.name:"evolving skies" OR set.series:base`},
	{"pokemon", `set.ptcgoCode:BS set.printedTotal:102`},
	{"pokemon", `set.releaseDate:[2020/01/01 TO 2020-12-31] set.total>200`},
	{"pokemon", `set.releaseDate<1999/06/17 lang:en`},
	{"pokemon", `set.releaseDate:1999/01/09`},
	{"pokemon", `set.legalities.standard:legal lang:en`},
	{"pokemon", `-set.legalities.expanded:legal lang:en set.legalities.unlimited:legal`},
	{"pokemon", `number:4 set.id:base1`},
	{"pokemon", `number:tg0* lang:en`},
	{"pokemon", `id:base1-4 or id:EN:BASE2-1`},
	{"pokemon", `id:base1-1*`},
	{"pokemon", `level:x or level:76`},
	{"pokemon", `evolvesFrom:charmeleon`},
	{"pokemon", `evolvesFrom:* -subtypes:"stage 1" -subtypes:"stage 2" lang:en`},
	{"pokemon", `attacks.damage:100+ or attacks.damage:30×`},
	{"pokemon", `attacks.damage:1*0 lang:en`},
	{"pokemon", `attacks.cost:free or attacks.convertedEnergyCost:0`},
	{"pokemon", `attacks.convertedEnergyCost>=5 lang:en`},
	{"pokemon", `abilities.type:"pokemon power" abilities.name:burn`},
	{"pokemon", `weaknesses.type:water weaknesses.value:×2 resistances.value:-30`},
	{"pokemon", `resistances.type:* -weaknesses.type:*`},
	{"pokemon", `retreatCost:colorless convertedRetreatCost:4`},
	{"pokemon", `convertedRetreatCost!=1 retreatCost:*`},
	{"pokemon", `regulationMark:H or reg:g*`},
	{"pokemon", `artist:ari* or !a:"ken sugimori"`},
	{"pokemon", `attack:"fire sp*" or !attack:fire*`},
	{"pokemon", `t:stage* is:1st*`},
	{"pokemon", `set:base* lang:en`},
	{"pokemon", `-lang:* or legal:*`},
	{"pokemon", `hp:* -hp:[30 TO 340]`},
	{"pokemon", `attacks.text:"flip a coin" rules:* flavorText:fire`},
	{"pokemon", `abilities.text:"energy burn" or ancientTrait.name:*`},
	{"pokemon", `!attacks.text:"test text of fire spin. flip a coin."`},
	{"pokemon", `attacks.text:"of fire spin flip a"`},
	{"pokemon", `attacks.text:"of fire spin flip a coin"`},
	{"pokemon", `evolvesTo:charizard or !evolvesTo:*eon`},
	{"pokemon", `name:charizard AND NOT set.id:base1 AND lang:en`},
	{"onepiece", `subtypes:"straw hat crew" supertype:leader`},
	{"onepiece", `types:* or nationalPokedexNumbers:*`},
}

// TestSearch_Structured checks Search and Match against refMatch on the
// whole catalog: the same cards, and every hit passes.
func TestSearch_Structured(t *testing.T) {
	ix := full(t)
	_, cards := catalog(t)
	for _, tc := range structuredCases {
		t.Run(tc.game+"/"+tc.q, func(t *testing.T) {
			q := syntax.MustParse(tc.q)
			want := map[string]bool{}
			var wantOrds []uint32
			for _, c := range cards {
				if c.Game != tc.game {
					continue
				}
				m, ok := refMatch(t, c, q.Root)
				if !ok {
					t.Fatalf("refMatch cannot evaluate %q", tc.q)
				}
				if m {
					want[c.ID] = true
					wantOrds = append(wantOrds, c.Ordinal)
				}
			}
			set, err := ix.Match(context.Background(), tc.game, q.Filter())
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d cards", len(wantOrds))
			if got := set.Ordinals(); !slices.Equal(got, wantOrds) {
				t.Errorf("Match: %d cards, want %d", len(got), len(wantOrds))
			}
			for _, o := range wantOrds {
				if !set.Has(o) {
					t.Fatalf("Match: Has(%d) is false", o)
				}
			}
			res := mustSearch(t, index.SearchRequest{Game: tc.game, Query: q, Limit: index.MaxLimit})
			if res.Total != len(want) {
				t.Errorf("Search: Total %d, want %d", res.Total, len(want))
			}
			for _, h := range res.Hits {
				if !want[h.CardID] {
					t.Errorf("Search: %s does not match", h.CardID)
				}
			}
			if len(want) > 0 && len(res.Hits) == 0 {
				t.Errorf("Search: no hits")
			}
		})
	}
}

// TestSearch_StructuredText combines plain words with field terms: every
// hit matches the terms, and the words rank as they do alone.
func TestSearch_StructuredText(t *testing.T) {
	ix := full(t)
	for _, tc := range []struct {
		game, q string
		first   string                     // the expected first hit ("" : any)
		ok      func(*snapshots.Card) bool // every hit
		min     int                        // at least this many hits
	}{
		{"pokemon", `a:"Mitsuhiro Arita" charizard`, "en:base1-4",
			func(c *snapshots.Card) bool {
				return c.Play.Pokemon != nil && c.Play.Pokemon.Artist == "Mitsuhiro Arita" && strings.Contains(c.Name, "Charizard")
			}, 2},
		{"pokemon", `attack:"Fire Spin" charizard lang:en`, "en:base1-4",
			func(c *snapshots.Card) bool { return c.Language == "en" }, 1},
		{"pokemon", `charizard -set:base1`, "",
			func(c *snapshots.Card) bool { return c.SetID != "en:base1" && c.SetID != "ja:base1" }, 10},
		{"pokemon", `charizard -set:"base set"`, "",
			func(c *snapshots.Card) bool { return c.SetID != "en:base1" }, 10},
		{"pokemon", `pikachu set:base1`, "en:base1-58",
			func(c *snapshots.Card) bool { return c.SetID == "en:base1" }, 1},
		{"pokemon", `pikachu is:1st-edition`, "",
			func(c *snapshots.Card) bool {
				return slices.ContainsFunc(c.Variants, func(v string) bool { return strings.Contains(strings.ToLower(v), "1st") })
			}, 1},
		{"pokemon", `charizard or blastoise t:fire`, "",
			func(c *snapshots.Card) bool { return true }, 10},
		{"pokemon", `name:charizard -name:ex hp>=100`, "",
			func(c *snapshots.Card) bool {
				n := strings.ToLower(c.Name)
				return !strings.Contains(n, " ex") && c.Play.Pokemon.HP != nil && *c.Play.Pokemon.HP >= 100
			}, 10},
		{"pokemon", `-charizard t:fire hp>=180 legal:standard`, "",
			func(c *snapshots.Card) bool { return !strings.Contains(strings.ToLower(c.Name), "charizard") }, 5},
		{"onepiece", `luffy is:alternate-art c:red`, "",
			func(c *snapshots.Card) bool {
				return slices.Contains(c.Colors, "Red") && slices.Contains(c.Variants, "alternate-art") // luffy: name or set name
			}, 3},
		{"onepiece", `set:op-01 t:leader`, "",
			func(c *snapshots.Card) bool { return strings.HasSuffix(c.SetID, ":OP-01") && c.Supertype == "Leader" }, 3},
	} {
		t.Run(tc.game+"/"+tc.q, func(t *testing.T) {
			res := mustSearch(t, index.SearchRequest{Game: tc.game, Query: syntax.MustParse(tc.q), Limit: index.MaxLimit})
			if len(res.Hits) < tc.min {
				t.Fatalf("%d hits (total %d), want at least %d", len(res.Hits), res.Total, tc.min)
			}
			if tc.first != "" && res.Hits[0].CardID != tc.first {
				t.Errorf("first hit %s, want %s", res.Hits[0].CardID, tc.first)
			}
			for _, h := range res.Hits {
				if c := card(t, tc.game, h.CardID); !tc.ok(c) {
					t.Errorf("%s (%s, %s) does not pass", h.CardID, c.Name, c.SetID)
				}
			}
		})
	}
	_ = ix
}

// TestSearch_QueryOfPlainWords: a query of plain words answers as Q does
// (the same hits, scores and totals).
func TestSearch_QueryOfPlainWords(t *testing.T) {
	for _, tc := range relevanceCases(t) {
		game := tc.game
		if game == "" {
			game = "pokemon"
		}
		q, err := syntax.Parse(tc.q)
		if err != nil || q.Structured() {
			continue // a case using syntax characters
		}
		a := mustSearch(t, index.SearchRequest{Game: game, Q: tc.q, Language: tc.lang, Limit: 10})
		b := mustSearch(t, index.SearchRequest{Game: game, Query: q, Language: tc.lang, Limit: 10})
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("%q: Q gives %v, Query gives %v", tc.q, a, b)
		}
	}
}

// TestMatch_Err: an unknown game is ENOTFOUND.
func TestMatch_Err(t *testing.T) {
	_, err := full(t).Match(context.Background(), "magic", nil)
	if apperr.ErrorCode(err) != apperr.ENOTFOUND {
		t.Fatalf("err = %v, want ENOTFOUND", err)
	}
	all, err := full(t).Match(context.Background(), "onepiece", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, cards := catalog(t)
	n := 0
	for _, c := range cards {
		if c.Game == "onepiece" {
			n++
		}
	}
	if all.Len() != n {
		t.Errorf("Match(nil) = %d cards, want %d", all.Len(), n)
	}
}

// FuzzSearchSyntax: any query that parses runs through Search and Match
// on a small index without an error, within its limits.
func FuzzSearchSyntax(f *testing.F) {
	for _, tc := range structuredCases {
		f.Add(tc.q)
	}
	for _, ex := range syntax.Examples {
		f.Add(ex.Q)
	}
	for _, ex := range syntax.LuceneExamples {
		f.Add(ex.Q)
	}
	for _, s := range []string{"charizard or -(a b)", "name:\"\"", `-""`, "--x", "set:", "is:1st", "a:\"\" or x", "en:base1-4 -en:base1-4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := syntax.Parse(s)
		if err != nil {
			return
		}
		smallOnce.Do(func() {
			sets, cards := smallCatalog(t)
			dir := filepath.Join(tmpRoot, "fuzz-small") // outlives this run; TestMain removes it
			if err := index.Build(context.Background(), dir, sets, cards, index.BuildOptions{}); err != nil {
				t.Fatal(err)
			}
			if smallIx, err = index.Open(dir); err != nil {
				t.Fatal(err)
			}
		})
		if smallIx == nil {
			t.Skip("no index")
		}
		for _, game := range []string{"pokemon", "onepiece"} {
			res, err := smallIx.Search(context.Background(), index.SearchRequest{
				Game: game, Query: q, Limit: 10, MinPriceCents: -1, MaxPriceCents: -1, CollapseVariants: len(s)%2 == 1,
			})
			if err != nil {
				t.Fatalf("Search(%q): %v", s, err)
			}
			if len(res.Hits) > 10 || res.Total < len(res.Hits) {
				t.Fatalf("Search(%q): %d hits, Total %d", s, len(res.Hits), res.Total)
			}
			set, err := smallIx.Match(context.Background(), game, q.Filter())
			if err != nil {
				t.Fatalf("Match(%q): %v", s, err)
			}
			if !q.Structured() && set.Len() == 0 {
				t.Fatalf("Match(%q, no filter): no card", s)
			}
		}
	})
}

// TestHints: a query that matches nothing because of a field's value says
// which values the field has among the cards the rest selects.
func TestHints(t *testing.T) {
	ix := full(t)
	for _, tc := range []struct {
		game, q string
		field   string   // "": no hint
		known   []string // among Known (all of them when exact)
		exact   bool
	}{
		{"pokemon", `set:base rarity:holx`, "rarity", []string{"common", "uncommon", "rare", "rare holo"}, true},
		{"pokemon", `rarity:holx`, "rarity", []string{"rare holo"}, false},
		{"pokemon", `supertype:energy hp>=30`, "supertype", []string{"pokemon", "trainer"}, true},
		{"pokemon", `set.id:bsae1`, "set.id", []string{"base1"}, false},
		{"pokemon", `subtypes:vmaxx`, "subtypes", []string{"vmax"}, false},
		{"pokemon", `name:charizrd lang:en`, "name", []string{"charizard"}, false},
		{"pokemon", `set:jungel`, "set", []string{"jungle"}, false},
		{"pokemon", `set.name:jungel`, "set.name", []string{"jungle"}, false},
		{"pokemon", `set.series:bsae set.ptcgoCode:BS`, "set.series", []string{"base"}, true},
		{"pokemon", `set:base rarity:holo`, "", nil, false}, // matches: no hint
		{"pokemon", `hp>9000`, "", nil, false},              // a number: no hint
		{"pokemon", `-rarity:holx hp>9000`, "", nil, false},
	} {
		t.Run(tc.q, func(t *testing.T) {
			q := syntax.MustParse(tc.q)
			hints, err := ix.Hints(context.Background(), tc.game, q.Filter())
			if err != nil {
				t.Fatal(err)
			}
			if tc.field == "" {
				if len(hints) != 0 {
					t.Fatalf("hints = %+v, want none", hints)
				}
				return
			}
			if len(hints) != 1 || hints[0].Field != tc.field {
				t.Fatalf("hints = %+v, want one on %s", hints, tc.field)
			}
			h := hints[0]
			t.Logf("%s", h.Message)
			for _, k := range tc.known {
				if !slices.Contains(h.Known, k) {
					t.Errorf("Known = %q, want %q among them", h.Known, k)
				}
			}
			if tc.exact && len(h.Known) != len(tc.known) {
				t.Errorf("Known = %q, want %q", h.Known, tc.known)
			}
			if len(h.Known) > index.MaxHintValues {
				t.Errorf("%d values", len(h.Known))
			}
			// Each known value, as the term's value, matches cards.
			for _, k := range h.Known {
				term := syntax.Term{Field: h.Field, Value: k}
				alone := syntax.MustParse(term.String())
				set, err := ix.Match(context.Background(), tc.game, alone.Filter())
				if err != nil || set.Len() == 0 {
					t.Errorf("%s: %v, %d cards", term.String(), err, set.Len())
				}
			}
		})
	}
}
