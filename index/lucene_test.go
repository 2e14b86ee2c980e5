package index_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/pokemontcg"
	"github.com/cardedge/cardedge/snapshots"
)

// The q examples of pokemontcg.io's documentation, as /v2 runs them: q
// parsed with syntax.Cards, restricted to English cards
// (pokemontcg.CardQuery), matched by the index, sorted and paged by the
// pokemontcg catalog.

var (
	v2Once sync.Once
	v2Cat  *pokemontcg.Catalog
	v2Err  error
)

// v2Catalog is the pokemontcg catalog of the tests' catalog.
func v2Catalog(tb testing.TB) *pokemontcg.Catalog {
	tb.Helper()
	sets, cards := catalog(tb)
	v2Once.Do(func() {
		v2Cat, v2Err = pokemontcg.NewCatalog(sets, cards, pokemontcg.Options{AsOf: snapshots.Day(20777)})
	})
	if v2Err != nil {
		tb.Fatal(v2Err)
	}
	return v2Cat
}

// v2List runs q (cards) as /v2/cards does: every matching card, sorted by
// orderBy.
func v2List(tb testing.TB, ix *index.Index, cat *pokemontcg.Catalog, q, orderBy string) []*snapshots.Card {
	tb.Helper()
	parsed, err := syntax.Parse(q)
	if err != nil {
		tb.Fatal(err)
	}
	set, err := ix.Match(context.Background(), pokemontcg.Game, pokemontcg.CardQuery(parsed))
	if err != nil {
		tb.Fatal(err)
	}
	byOrd := map[uint32]*snapshots.Card{}
	for _, c := range cat.Cards() {
		byOrd[c.Ordinal] = c
	}
	var out []*snapshots.Card
	for _, o := range set.Ordinals() {
		c := byOrd[o]
		if c == nil {
			tb.Fatalf("%q: ordinal %d is not an English card", q, o)
		}
		out = append(out, c)
	}
	keys, err := pokemontcg.ParseOrderBy("cards", orderBy)
	if err != nil {
		tb.Fatal(err)
	}
	cat.SortCards(out, keys)
	return out
}

// TestLuceneExamples: every card q example of pokemontcg.io's
// documentation gives exactly the English cards the reference selects
// (totalCount), each page of the sorted list is the list's slice, and the
// pages together are the list.
func TestLuceneExamples(t *testing.T) {
	ix := full(t)
	cat := v2Catalog(t)
	_, cards := catalog(t)
	for _, ex := range syntax.LuceneExamples {
		if ex.Resource != "cards" {
			continue
		}
		t.Run(ex.Q+"&orderBy="+ex.OrderBy, func(t *testing.T) {
			list := v2List(t, ix, cat, ex.Q, ex.OrderBy)
			q := syntax.MustParse(ex.Q)
			n := pokemontcg.CardQuery(q)
			var want []string
			for _, c := range cards {
				if c.Game != pokemontcg.Game {
					continue
				}
				if m, ok := refMatch(t, c, n); !ok {
					t.Fatalf("the reference cannot evaluate %q", ex.Q)
				} else if m {
					want = append(want, c.ID)
				}
			}
			got := make([]string, len(list))
			for i, c := range list {
				got[i] = c.ID
			}
			t.Logf("totalCount %d", len(got))
			sortedGot := slices.Sorted(slices.Values(got))
			slices.Sort(want)
			if !slices.Equal(sortedGot, want) {
				t.Fatalf("%d cards, want %d", len(got), len(want))
			}
			for _, size := range []int{1, 7, 250} {
				var pages []string
				for page := 1; ; page++ {
					from, to := pokemontcg.Paging{Page: page, PageSize: size}.Window(len(list))
					if from == to {
						break
					}
					pages = append(pages, got[from:to]...)
				}
				if !slices.Equal(pages, got) {
					t.Fatalf("pages of %d do not make the list", size)
				}
			}
		})
	}
}

// TestLuceneExamples_Content spot-checks what the examples find in the
// catalog, as pokemontcg.io's documentation describes them.
func TestLuceneExamples_Content(t *testing.T) {
	ix := full(t)
	cat := v2Catalog(t)
	every := func(q string, ok func(c *snapshots.Card) bool) int {
		t.Helper()
		list := v2List(t, ix, cat, q, "")
		for _, c := range list {
			if !ok(c) {
				t.Fatalf("%q: %s (%s) does not belong", q, c.ID, c.Name)
			}
		}
		return len(list)
	}
	words := func(s string) []string {
		return strings.Fields(strings.ToLower(strings.NewReplacer("-", " ", "'", "").Replace(s)))
	}
	hasWord := func(s, w string) bool { return slices.Contains(words(s), w) }
	if n := every("name:charizard", func(c *snapshots.Card) bool { return hasWord(c.Name, "charizard") }); n < 50 {
		t.Errorf("name:charizard: %d cards", n)
	}
	if n := every("!name:charizard", func(c *snapshots.Card) bool { return c.Name == "Charizard" }); n < 10 {
		t.Errorf("!name:charizard: %d cards", n)
	}
	every("name:char*der", func(c *snapshots.Card) bool { return strings.Contains(strings.ToLower(c.Name), "charmander") })
	every(`name:"venusaur v"`, func(c *snapshots.Card) bool { return hasWord(c.Name, "venusaur") && hasWord(c.Name, "v") })
	every("hp:[150 TO *]", func(c *snapshots.Card) bool { return *c.Play.Pokemon.HP >= 150 })
	every("hp:[* TO 100]", func(c *snapshots.Card) bool { return *c.Play.Pokemon.HP <= 100 })
	every("nationalPokedexNumbers:[1 TO 151]", func(c *snapshots.Card) bool {
		return slices.ContainsFunc(c.NationalDex, func(n int) bool { return n >= 1 && n <= 151 })
	})
	if n := every("set.id:sm1", func(c *snapshots.Card) bool { return c.SetID == "en:sm1" }); n != 173 {
		t.Errorf("set.id:sm1: %d cards, want sm1's 173", n)
	}
	every("subtypes:mega -types:water", func(c *snapshots.Card) bool {
		return !slices.Contains(c.Play.Pokemon.Types, "Water") && slices.ContainsFunc(c.Subtypes, func(s string) bool { return hasWord(s, "mega") })
	})
	list := v2List(t, ix, cat, "subtypes:mega", "-set.releaseDate")
	for i := 1; i < len(list); i++ {
		a, b := cat.Card(list[i-1]).Set.ReleaseDate, cat.Card(list[i]).Set.ReleaseDate
		if a < b {
			t.Fatalf("subtypes:mega by -set.releaseDate: %s before %s", a, b)
		}
	}
}

// BenchmarkLuceneExamples measures each card q example of pokemontcg.io's
// documentation on benchIndex (the shipped catalog, all of it: the default
// preset's catalog; CARDEDGE_SNAPSHOT=<dir> a built snapshot): parse and
// Match (what /v2/cards evaluates before it sorts), and the whole list's
// work before the body (Match, the cards of the ordinals, orderBy, the
// first page of 250 as JSON). cards/op is the totalCount.
func BenchmarkLuceneExamples(b *testing.B) {
	ix, _ := benchIndex(b)
	cat := v2Catalog(b)
	byOrd := map[uint32]*snapshots.Card{}
	for _, c := range cat.Cards() {
		byOrd[c.Ordinal] = c
	}
	ctx := context.Background()
	for _, ex := range syntax.LuceneExamples {
		if ex.Resource != "cards" {
			continue
		}
		name := strings.NewReplacer(" ", "_", "/", "_").Replace(ex.Q)
		if ex.OrderBy != "" {
			name += "&orderBy=" + ex.OrderBy
		}
		b.Run("match/"+name, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				q, err := syntax.Parse(ex.Q)
				if err != nil {
					b.Fatal(err)
				}
				set, err := ix.Match(ctx, pokemontcg.Game, pokemontcg.CardQuery(q))
				if err != nil {
					b.Fatal(err)
				}
				n = set.Len()
			}
			b.ReportMetric(float64(n), "cards/op")
		})
		b.Run("page/"+name, func(b *testing.B) {
			keys, err := pokemontcg.ParseOrderBy("cards", ex.OrderBy)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			var body []byte
			for b.Loop() {
				q, err := syntax.Parse(ex.Q)
				if err != nil {
					b.Fatal(err)
				}
				set, err := ix.Match(ctx, pokemontcg.Game, pokemontcg.CardQuery(q))
				if err != nil {
					b.Fatal(err)
				}
				cards := make([]*snapshots.Card, 0, set.Len())
				for _, o := range set.Ordinals() {
					cards = append(cards, byOrd[o])
				}
				cat.SortCards(cards, keys)
				p := pokemontcg.Paging{Page: 1, PageSize: pokemontcg.MaxPageSize}
				from, to := p.Window(len(cards))
				body = pokemontcg.AppendListStart(body[:0])
				for i, c := range cards[from:to] {
					if i > 0 {
						body = append(body, ',')
					}
					body = cat.Card(c).AppendJSON(body, pokemontcg.All)
				}
				body = pokemontcg.AppendListEnd(body, p, to-from, len(cards))
			}
			b.ReportMetric(float64(len(body)), "bytes/op")
		})
	}
}
