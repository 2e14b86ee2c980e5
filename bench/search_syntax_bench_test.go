package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/snapshots"
)

// syntaxQueries draws n queries with the search syntax's terms from random
// cards of the benchmark snapshot (README "Search syntax"): artist and
// name, type and HP with a legality, attack names, a name without its set,
// rarity and printing, or-groups; One Piece color, cost and power, types
// and counters, names of alternate arts. Every query parses.
func syntaxQueries(sets []*snapshots.Set, cards []*snapshots.Card, n int, seed uint64) []gameQuery {
	r := rand.New(rand.NewPCG(seed, 3))
	quote := func(s string) string { return `"` + s + `"` }
	usable := func(s string) bool { return s != "" && !strings.ContainsAny(s, `"\`) }
	first := func(c *snapshots.Card) string { return strings.Fields(c.Name + " x")[0] }
	out := make([]gameQuery, 0, n)
	for tries := 0; len(out) < n && tries < 100*n; tries++ {
		c := cards[r.IntN(len(cards))]
		var q string
		switch p, op := c.Play.Pokemon, c.Play.OnePiece; {
		case p != nil:
			switch r.IntN(6) {
			case 0:
				if usable(p.Artist) {
					q = "a:" + quote(p.Artist) + " " + first(c)
				}
			case 1:
				if p.HP != nil && len(p.Types) > 0 {
					q = fmt.Sprintf("t:%s hp>=%d", strings.ToLower(p.Types[0]), *p.HP/10*10)
					if r.IntN(2) == 0 {
						q += " legal:" + []string{"standard", "expanded", "unlimited"}[r.IntN(3)]
					}
				}
			case 2:
				if len(p.Attacks) > 0 && usable(p.Attacks[0].Name) {
					q = "attack:" + quote(p.Attacks[0].Name)
				}
			case 3:
				q = first(c) + " -set:" + strings.TrimPrefix(c.SetID, c.Language+":")
			case 4:
				if usable(c.Rarity) && len(c.Variants) > 0 {
					q = "r:" + quote(c.Rarity) + " is:" + strings.Split(c.Variants[0], "/")[0]
				}
			case 5:
				if p.HP != nil {
					q = fmt.Sprintf("(t:fire or t:water or t:grass) hp>=%d -t:ex", *p.HP/10*10)
				}
			}
		case op != nil:
			switch r.IntN(3) {
			case 0:
				if len(c.Colors) > 0 && op.Cost != nil && op.Power != nil {
					q = fmt.Sprintf("c:%s cost=%d power>=%d", strings.ToLower(c.Colors[0]), *op.Cost, *op.Power)
				}
			case 1:
				if len(c.Subtypes) > 0 && usable(c.Subtypes[0]) {
					q = "t:" + quote(c.Subtypes[0]) + " counter>=1000"
				}
			case 2:
				q = first(c) + " is:alternate-art"
			}
		}
		if q == "" {
			continue
		}
		if _, err := syntax.Parse(q); err != nil {
			continue
		}
		out = append(out, gameQuery{c.Game, q})
	}
	return out
}

// BenchmarkSearchSyntax is BenchmarkSearch with the search syntax's terms:
// Index.Search (25 hits with highlights) over 1,000 queries drawn by
// syntaxQueries, parsed first (the edge parses q once per request);
// reports p50/p99 (target p99 <= 10 ms on default). Run beside
// BenchmarkSearch for the figures with and without terms:
//
//	go test ./bench -run '^$' -bench 'Search$|SearchSyntax$' -benchtime 3000x
func BenchmarkSearchSyntax(b *testing.B) {
	forEachSnapshot(b, func(b *testing.B, e *snapEnv) {
		ctx := context.Background()
		search := func(q gameQuery) {
			parsed, err := syntax.Parse(q.q)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := e.ix.Search(ctx, index.SearchRequest{Game: q.game, Query: parsed, Limit: 25, MinPriceCents: -1, MaxPriceCents: -1}); err != nil {
				b.Fatalf("search %q: %v", q.q, err)
			}
		}
		for _, q := range e.syntaxQueries[:200] {
			search(q)
		}
		lat := make([]time.Duration, 0, b.N)
		b.ReportAllocs()
		b.ResetTimer()
		cpu0 := processCPU()
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			search(e.syntaxQueries[i%len(e.syntaxQueries)])
			lat = append(lat, time.Since(t0))
		}
		b.StopTimer()
		b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		percentiles(b, "SearchSyntax", lat)
	})
}

// BenchmarkMatchSyntax times Index.Match, what the card list asks for a q
// with terms, over the filters of the same queries.
//
//	go test ./bench -run '^$' -bench 'MatchSyntax$' -benchtime 3000x
func BenchmarkMatchSyntax(b *testing.B) {
	forEachSnapshot(b, func(b *testing.B, e *snapEnv) {
		ctx := context.Background()
		filters := make([]*syntax.Query, len(e.syntaxQueries))
		for i, q := range e.syntaxQueries {
			filters[i] = syntax.MustParse(q.q)
		}
		lat := make([]time.Duration, 0, b.N)
		b.ReportAllocs()
		b.ResetTimer()
		cpu0 := processCPU()
		for i := 0; i < b.N; i++ {
			k := i % len(filters)
			t0 := time.Now()
			if _, err := e.ix.Match(ctx, e.syntaxQueries[k].game, filters[k].Filter()); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
		b.StopTimer()
		b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		percentiles(b, "MatchSyntax", lat)
	})
}
