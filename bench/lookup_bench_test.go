package bench

import (
	"context"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/bench/queries"
	"github.com/cardedge/cardedge/edge"
	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/bolt"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"
)

// snapshotsEnv names the snapshot roots of the lookup and search benchmarks:
// a comma list of preset=root (default: default=../var/bench/default and
// large=../var/bench/large, each only when it holds a CURRENT snapshot;
// make bench builds the default one).
const snapshotsEnv = "CARDEDGE_BENCH_SNAPSHOTS"

// lookupPrefixCount is the number of typeahead prefixes of issue 5.
const lookupPrefixCount = 10000

// snapEnv is one benchmark snapshot opened read-only: its index, its
// catalog, the 10,000 prefixes and the search queries drawn from it, and
// (on first use) an uncached edge over it on an in-memory listener.
type snapEnv struct {
	preset, root, dir string
	ix                *index.Index
	games             []string
	prefixes          []gameQuery // 1-6 characters
	queries           []gameQuery // search queries
	syntaxQueries     []gameQuery // search queries with the search syntax's terms

	edgeOnce sync.Once
	edgeErr  error
	client   *fasthttp.Client
	key      string
}

type gameQuery struct{ game, q string }

var (
	snapEnvsMu sync.Mutex
	snapEnvs   = map[string]*snapEnv{}
)

// benchSnapshots returns preset -> snapshots root of the benchmark
// snapshots present on this machine.
func benchSnapshots() [][2]string {
	var out [][2]string
	if v := os.Getenv(snapshotsEnv); v != "" {
		for _, p := range strings.Split(v, ",") {
			name, root, ok := strings.Cut(strings.TrimSpace(p), "=")
			if !ok {
				name, root = filepath.Base(p), p
			}
			out = append(out, [2]string{name, root})
		}
		return out
	}
	for _, p := range []string{"default", "large"} {
		root := filepath.Join("..", "var", "bench", p)
		if _, err := snapshots.ReadCurrent(root); err == nil {
			out = append(out, [2]string{p, root})
		}
	}
	return out
}

// forEachSnapshot runs f as a sub-benchmark per benchmark snapshot.
func forEachSnapshot(b *testing.B, f func(b *testing.B, e *snapEnv)) {
	roots := benchSnapshots()
	if len(roots) == 0 {
		b.Skipf("no benchmark snapshot: run make bench once (it builds var/bench/default) or set %s=default=/path/to/snapshots", snapshotsEnv)
	}
	for _, r := range roots {
		b.Run(r[0], func(b *testing.B) { f(b, openSnapEnv(b, r[0], r[1])) })
	}
}

func openSnapEnv(tb testing.TB, preset, root string) *snapEnv {
	tb.Helper()
	snapEnvsMu.Lock()
	defer snapEnvsMu.Unlock()
	if e := snapEnvs[root]; e != nil {
		return e
	}
	id, err := snapshots.ReadCurrent(root)
	if err != nil {
		tb.Fatal(err)
	}
	dir := filepath.Join(root, id)
	m, err := snapshots.ReadManifest(dir)
	if err != nil {
		tb.Fatal(err)
	}
	ix, err := index.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := bolt.Open(dir, m)
	if err != nil {
		ix.Close()
		tb.Fatal(err)
	}
	defer r.Close()
	e := &snapEnv{preset: preset, root: root, dir: dir, ix: ix, games: m.Games}
	var cards []*snapshots.Card
	var sets []*snapshots.Set
	for _, g := range m.Games {
		cs, err := r.Cards(g)
		if err != nil {
			tb.Fatal(err)
		}
		ss, err := r.Sets(g)
		if err != nil {
			tb.Fatal(err)
		}
		cards, sets = append(cards, cs...), append(sets, ss...)
	}
	e.prefixes = lookupPrefixes(sets, cards, lookupPrefixCount, 42)
	e.queries = gameQueries(queries.Plain(sets, cards, 1000, 43))
	e.syntaxQueries = gameQueries(queries.Syntax(cards, 1000, 44))
	snapEnvs[root] = e
	tb.Logf("%s: %s, %d cards, %d sets", preset, dir, len(cards), len(sets))
	return e
}

// lookupPrefixes draws n prefixes of 1-6 characters as index's own latency
// test does: 70% card names (a tenth of them card ids), 30% set names, each
// cut after 1-6 characters, lower-cased; cards and sets uniformly.
func lookupPrefixes(sets []*snapshots.Set, cards []*snapshots.Card, n int, seed uint64) []gameQuery {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]gameQuery, 0, n)
	for len(out) < n {
		var s, game string
		switch x := r.IntN(10); {
		case x < 7:
			c := cards[r.IntN(len(cards))]
			s, game = c.Name, c.Game
			if x == 0 {
				s = c.ID
			}
		default:
			set := sets[r.IntN(len(sets))]
			s, game = set.Name, set.Game
		}
		runes := []rune(strings.ToLower(s))
		k := min(1+r.IntN(6), len(runes))
		if k == 0 || strings.TrimSpace(string(runes[:k])) == "" {
			continue
		}
		out = append(out, gameQuery{game, string(runes[:k])})
	}
	return out
}

// gameQueries converts the draws of package queries.
func gameQueries(qs []queries.Query) []gameQuery {
	out := make([]gameQuery, len(qs))
	for i, q := range qs {
		out[i] = gameQuery{q.Game, q.Q}
	}
	return out
}

// percentiles reports p50, p99 and p99.9 of d (sorted in place) as metrics
// and in the log.
func percentiles(b *testing.B, what string, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	at := func(p float64) time.Duration { return d[min(len(d)-1, int(p*float64(len(d))))] }
	b.ReportMetric(float64(at(0.50).Nanoseconds())/1e3, "p50-us")
	b.ReportMetric(float64(at(0.99).Nanoseconds())/1e3, "p99-us")
	b.ReportMetric(float64(at(0.999).Nanoseconds())/1e3, "p99.9-us")
	b.Logf("%s over %d calls: p50 %v, p99 %v, p99.9 %v, max %v", what, len(d), at(0.50), at(0.99), at(0.999), d[len(d)-1])
}

// BenchmarkLookup is issue 5's in-process typeahead figure: Index.Lookup
// (limit 25) over 10,000 prefixes of 1-6 characters of the benchmark
// snapshots' names and ids, cycled; it reports p50/p99/p99.9 per call
// (target p99 <= 1 ms). Run at least one pass:
//
//	go test ./bench -run '^$' -bench 'Lookup$' -benchtime 20000x
func BenchmarkLookup(b *testing.B) {
	forEachSnapshot(b, func(b *testing.B, e *snapEnv) {
		for _, p := range e.prefixes { // warm the caches once
			e.ix.Lookup(p.game, p.q, "", 25)
		}
		lat := make([]time.Duration, 0, max(b.N, lookupPrefixCount))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			p := e.prefixes[i%len(e.prefixes)]
			t0 := time.Now()
			e.ix.Lookup(p.game, p.q, "", 25)
			lat = append(lat, time.Since(t0))
		}
		b.StopTimer()
		percentiles(b, "Lookup", lat)
	})
}

// startEdge starts an uncached edge (no response cache: every request runs
// the handler) over the snapshot root, on an in-memory listener.
func (e *snapEnv) startEdge(b *testing.B) {
	b.Helper()
	e.edgeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cardedge-lookupbench-")
		if err != nil {
			e.edgeErr = err
			return
		}
		state := filepath.Join(dir, "state.bolt")
		st, err := statebolt.Open(state, statebolt.Options{})
		if err != nil {
			e.edgeErr = err
			return
		}
		secret, _, err := access.Keys{State: st}.Create(context.Background(), access.KeySpec{Tier: access.Elite, Name: "bench", Unmetered: true})
		if err != nil {
			e.edgeErr = err
			return
		}
		acc, err := access.Open(access.Options{State: st})
		if err != nil {
			e.edgeErr = err
			return
		}
		srv, err := newBenchEdge(e.root, st, acc, edge.Options{})
		if err != nil {
			e.edgeErr = err
			return
		}
		ln := fasthttputil.NewInmemoryListener()
		go srv.Serve(ln)
		e.client = &fasthttp.Client{Dial: func(string) (net.Conn, error) { return ln.Dial() }, MaxConnsPerHost: 512}
		e.key = secret
	})
	if e.edgeErr != nil {
		b.Fatal(e.edgeErr)
	}
}

// lookupPath is the request of one prefix (limit 10, as the typing users of
// cardbench ask).
func lookupPath(p gameQuery) string {
	return "/api/v3/lookup?q=" + url.QueryEscape(p.q) + "&limit=10&game=" + url.QueryEscape(p.game)
}

// BenchmarkLookupHTTP runs GET /api/v3/lookup through the whole uncached
// edge (front door, access layer, handler, encoding, ETag) over an
// in-memory listener, one request at a time over the 10,000 prefixes:
// p50/p99 per request, allocations, and the process CPU per request
// (client and server: both live in this process).
//
//	go test ./bench -run '^$' -bench LookupHTTP -benchtime 20000x -cpuprofile /tmp/lookup.pprof
func BenchmarkLookupHTTP(b *testing.B) {
	forEachSnapshot(b, func(b *testing.B, e *snapEnv) {
		e.startEdge(b)
		paths := make([]string, len(e.prefixes))
		for i, p := range e.prefixes {
			paths[i] = lookupPath(p)
		}
		benchPaths(b, e, paths[:1000], paths, "GET /api/v3/lookup (uncached)")
	})
}

// BenchmarkSearch is issue 5's search figure: Index.Search (25 hits with
// highlights) over 1,000 queries drawn from the benchmark snapshots (whole
// names, first words, name and number, set names, names with a typo);
// reports p50/p99 (target p99 <= 10 ms).
//
//	go test ./bench -run '^$' -bench 'Search$' -benchtime 3000x
func BenchmarkSearch(b *testing.B) {
	forEachSnapshot(b, func(b *testing.B, e *snapEnv) {
		ctx := context.Background()
		search := func(q gameQuery) {
			if _, err := e.ix.Search(ctx, index.SearchRequest{Game: q.game, Q: q.q, Limit: 25, MinPriceCents: -1, MaxPriceCents: -1}); err != nil {
				b.Fatalf("search %q: %v", q.q, err)
			}
		}
		timeQueries(b, "Search", e.queries, search)
	})
}

// timeQueries runs search over the first 200 queries (a warm-up), then
// b.N times over queries (cycled), and reports the process CPU per
// operation and the latency percentiles under name.
func timeQueries(b *testing.B, name string, queries []gameQuery, search func(gameQuery)) {
	for _, q := range queries[:200] {
		search(q)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		search(queries[i%len(queries)])
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	percentiles(b, name, lat)
}

// benchPaths sends paths (cycled, b.N in all) one at a time through e's
// edge after a warm-up pass over warm, and reports p50/p99/p99.9 per
// request, allocations, the process CPU per request (client and server:
// both live in this process) and the bytes per response.
func benchPaths(b *testing.B, e *snapEnv, warm, paths []string, what string) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.Header.Set("Authorization", "Bearer "+e.key)
	get := func(path string) {
		req.SetRequestURI("http://edge" + path)
		if err := e.client.Do(req, resp); err != nil || resp.StatusCode() != 200 {
			b.Fatalf("GET %s: %v %d %.300s", path, err, resp.StatusCode(), resp.Body())
		}
	}
	for _, p := range warm {
		get(p)
	}
	lat := make([]time.Duration, 0, b.N)
	var bytes int64
	cpu0 := cpuTime()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		get(paths[i%len(paths)])
		lat = append(lat, time.Since(t0))
		bytes += int64(len(resp.Body()))
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/1e3/float64(b.N), "cpu-us/req")
	b.ReportMetric(float64(bytes)/float64(b.N), "B/resp")
	percentiles(b, what, lat)
}

// cpuTime is this process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
