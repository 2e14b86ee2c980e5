package bench

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/index/syntax"
)

// BenchmarkSearchSyntax is BenchmarkSearch with the search syntax's terms:
// Index.Search (25 hits with highlights) over 1,000 queries drawn by
// queries.Syntax, parsed first (the edge parses q once per request);
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
		timeQueries(b, "SearchSyntax", e.syntaxQueries, search)
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

// BenchmarkSearchHTTP runs GET /api/v3/search?limit=25 through the whole
// uncached edge (front door, access layer, query parse, Index.Search,
// hydrate and render of 25 cards, ETag) over an in-memory listener, one
// request at a time, over the plain-word and the syntax queries (the HTTP
// search workload's requests): p50/p99 per request, allocations, the
// process CPU per request (client and server both live in this process)
// and the bytes per response.
//
//	go test ./bench -run '^$' -bench SearchHTTP -benchtime 2000x -benchmem -cpuprofile /tmp/search.pprof
func BenchmarkSearchHTTP(b *testing.B) {
	forEachSnapshot(b, func(b *testing.B, e *snapEnv) {
		e.startEdge(b)
		for _, kind := range []struct {
			name string
			qs   []gameQuery
		}{{"plain", e.queries}, {"syntax", e.syntaxQueries}} {
			b.Run(kind.name, func(b *testing.B) {
				paths := make([]string, len(kind.qs))
				for i, q := range kind.qs {
					paths[i] = searchPath(q)
				}
				benchPaths(b, e, paths[:200], paths, "GET /api/v3/search "+kind.name+" (uncached)")
			})
		}
	})
}

// searchPath is the request of one search query as cardbench's HTTP search
// workload sends it (limit 25).
func searchPath(q gameQuery) string {
	return "/api/v3/search?q=" + url.QueryEscape(q.q) + "&limit=25&game=" + url.QueryEscape(q.game)
}
