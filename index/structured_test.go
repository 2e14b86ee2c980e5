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

// bruteTerms evaluates a syntax tree of field terms on a card, straight from
// the card's fields: the reference the index's answers are checked
// against. ok is false for a term it does not evaluate (plain words,
// name, set).
func bruteTerms(c *snapshots.Card, n *syntax.Node) (match, ok bool) {
	switch n.Kind {
	case syntax.NodeAnd, syntax.NodeOr:
		all, anyOf := true, false
		for _, x := range n.Nodes {
			m, ok := bruteTerms(c, x)
			if !ok {
				return false, false
			}
			all, anyOf = all && m, anyOf || m
		}
		if n.Kind == syntax.NodeAnd {
			return all, true
		}
		return anyOf, true
	case syntax.NodeNot:
		m, ok := bruteTerms(c, n.Nodes[0])
		return !m, ok
	}
	t := n.Term
	num := func(v *int) (bool, bool) {
		if v == nil {
			return false, true
		}
		x := *v
		switch t.Op {
		case syntax.OpNe:
			return x != t.Num, true
		case syntax.OpLt:
			return x < t.Num, true
		case syntax.OpLe:
			return x <= t.Num, true
		case syntax.OpGt:
			return x > t.Num, true
		case syntax.OpGe:
			return x >= t.Num, true
		}
		return x == t.Num, true
	}
	// words: whole words of one of values equal the value's words
	words := func(values ...string) bool {
		want := " " + index.NormalizeText(t.Value) + " "
		for _, v := range values {
			if strings.Contains(" "+index.NormalizeText(v)+" ", want) {
				return true
			}
		}
		return false
	}
	pk, op := c.Play.Pokemon, c.Play.OnePiece
	if pk == nil {
		pk = &snapshots.PokemonPlay{}
	}
	if op == nil {
		op = &snapshots.OnePiecePlay{}
	}
	var m bool
	switch t.Field {
	case syntax.FieldHP:
		return num(pk.HP)
	case syntax.FieldRetreat:
		return num(pk.Retreat)
	case syntax.FieldCost:
		return num(op.Cost)
	case syntax.FieldPower:
		return num(op.Power)
	case syntax.FieldCounter:
		return num(op.Counter)
	case syntax.FieldLife:
		return num(op.Life)
	case syntax.FieldArtist:
		m = words(pk.Artist)
	case syntax.FieldType:
		m = words(append(append([]string{c.Supertype}, c.Subtypes...), pk.Types...)...)
	case syntax.FieldColor:
		m = words(c.Colors...)
	case syntax.FieldAttack:
		var names []string
		for _, a := range pk.Attacks {
			names = append(names, a.Name)
		}
		m = words(names...)
	case syntax.FieldAbility:
		var names []string
		for _, a := range pk.Abilities {
			names = append(names, a.Name)
		}
		m = words(names...)
	case syntax.FieldAttribute:
		m = words(op.Attributes...)
	case syntax.FieldLegal:
		m = pk.Legalities.Of(t.Value) == snapshots.LegalityLegal
	case syntax.FieldBanned:
		m = pk.Legalities.Of(t.Value) == snapshots.LegalityBanned
	case syntax.FieldReg:
		m = pk.RegulationMark != "" && index.NormalizeText(pk.RegulationMark) == index.NormalizeText(t.Value)
	case syntax.FieldRarity:
		m = c.Rarity != "" && index.NormKeyword(c.Rarity) == index.NormKeyword(t.Value)
	case syntax.FieldLang:
		m = c.Language == t.Value
	case syntax.FieldIs:
		want := index.NormKeyword(t.Value)
		for _, v := range c.Variants {
			m = m || index.NormKeyword(v) == want || slices.ContainsFunc(strings.Split(v, "/"), func(p string) bool { return index.NormKeyword(p) == want })
		}
	default:
		return false, false
	}
	if t.Op == syntax.OpNe {
		m = !m
	}
	return m, true
}

// structuredCases are queries of field terms only: the index's answer
// must be exactly the cards bruteTerms selects.
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
}

// TestSearch_Structured checks Search and Match against bruteTerms on the
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
				m, ok := bruteTerms(c, q.Root)
				if !ok {
					t.Fatalf("bruteTerms cannot evaluate %q", tc.q)
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
