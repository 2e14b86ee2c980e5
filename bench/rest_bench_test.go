package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/edge"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/bolt"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"
)

// restEnv is one in-process edge over a tiny snapshot, reached through an
// in-memory listener: the edge's own cost per request, without the network.
type restEnv struct {
	client *fasthttp.Client
	key    string
	stop   func()
}

var (
	restOnce sync.Once
	restErr  error
	rest     = map[int64]*restEnv{}
)

func startREST(b *testing.B, cacheBytes int64) *restEnv {
	b.Helper()
	restOnce.Do(func() { restErr = buildRESTSnapshot() })
	if restErr != nil {
		b.Fatal(restErr)
	}
	if e := rest[cacheBytes]; e != nil {
		return e
	}
	state := filepath.Join(restDir, "state-"+string(rune('a'+len(rest)))+".bolt")
	st, err := statebolt.Open(state, statebolt.Options{})
	if err != nil {
		b.Fatal(err)
	}
	secret, _, err := access.Keys{State: st}.Create(context.Background(), access.KeySpec{Tier: access.Elite, Name: "bench", Unmetered: true})
	if err != nil {
		b.Fatal(err)
	}
	acc, err := access.Open(access.Options{State: st})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := newBenchEdge(filepath.Join(restDir, "snapshots"), st, acc, edge.Options{CacheBytes: cacheBytes})
	if err != nil {
		b.Fatal(err)
	}
	ln := fasthttputil.NewInmemoryListener()
	go srv.Serve(ln)
	e := &restEnv{
		client: &fasthttp.Client{Dial: func(string) (net.Conn, error) { return ln.Dial() }, MaxConnsPerHost: 512},
		key:    secret,
		stop:   func() { srv.Shutdown(context.Background()); srv.Close(); acc.Close() },
	}
	rest[cacheBytes] = e
	return e
}

var restDir string

// TestMain stops the edges the benchmarks started and removes their snapshot.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, e := range rest {
		e.stop()
	}
	if restDir != "" {
		os.RemoveAll(restDir)
	}
	os.Exit(code)
}

func buildRESTSnapshot() error {
	dir, err := os.MkdirTemp("", "cardedge-restbench-")
	if err != nil {
		return err
	}
	restDir = dir
	_, err = snapshotstest.Build(filepath.Join(dir, "snapshots"), 7, snapshotstest.AsOf, "s0001")
	return err
}

// benchGet GETs path in parallel. Besides ns/op it reports cpu-ns/op, the
// process's CPU time (user and system: edge, client and in-memory listener)
// per request, which other load on the machine does not inflate the way it
// inflates wall time.
func benchGet(b *testing.B, e *restEnv, path string) {
	b.ReportAllocs()
	b.ResetTimer() // the first call builds the snapshot
	cpu0 := processCPU()
	defer func() { b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op") }()
	b.RunParallel(func(pb *testing.PB) {
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(resp)
		req.SetRequestURI("http://edge" + path)
		req.Header.Set("Authorization", "Bearer "+e.key)
		for pb.Next() {
			if err := e.client.Do(req, resp); err != nil || resp.StatusCode() != 200 {
				b.Fatalf("GET %s: %v %d %s", path, err, resp.StatusCode(), resp.Body())
			}
		}
	})
}

// BenchmarkREST_CardDetail measures card detail through the whole edge
// (front door, access layer, cache) over an in-memory listener.
func BenchmarkREST_CardDetail(b *testing.B) {
	b.Run("cached", func(b *testing.B) {
		benchGet(b, startREST(b, 64<<20), "/api/v3/cards/en:base1-4?include=market_summary")
	})
	b.Run("uncached", func(b *testing.B) {
		benchGet(b, startREST(b, 0), "/api/v3/cards/en:base1-4?include=market_summary")
	})
	b.Run("uncached_all_includes", func(b *testing.B) {
		benchGet(b, startREST(b, 0), "/api/v3/cards/en:base1-4?include=price_history,tvwap_history,tvwap_slots,grade_momentum,"+
			"recent_sales,market_summary,grade_breakdown,population_overview,grading_economics")
	})
	b.Run("list_uncached", func(b *testing.B) {
		benchGet(b, startREST(b, 0), "/api/v3/cards?limit=50&sort=volume")
	})
}

// processCPU is the CPU time this process has used, in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// listKind is one kind of request of BenchmarkREST_CardLists: a name and
// the path of the i-th request drawn for it from the snapshot's catalog.
type listKind struct {
	name string
	path func(cat *benchCatalog, r *rand.Rand) string
}

// benchCatalog is the catalog of a benchmark snapshot, every game's cards
// and sets, to draw requests from.
type benchCatalog struct {
	game0 string // the default game
	cards []*snapshots.Card
	sets  []*snapshots.Set
}

// gameArg is "&game=g" when g is not the default game.
func (c *benchCatalog) gameArg(g string) string {
	if g == c.game0 {
		return ""
	}
	return "&game=" + url.QueryEscape(g)
}

// setPath is the path of a set route without other parameters: "?game=g"
// when g is not the default game.
func (c *benchCatalog) setPath(s *snapshots.Set, sub string) string {
	p := "/api/v3/sets/" + url.PathEscape(s.ID) + sub
	if s.Game != c.game0 {
		p += "?game=" + url.QueryEscape(s.Game)
	}
	return p
}

func (c *benchCatalog) card(r *rand.Rand) *snapshots.Card { return c.cards[r.IntN(len(c.cards))] }
func (c *benchCatalog) set(r *rand.Rand) *snapshots.Set   { return c.sets[r.IntN(len(c.sets))] }

// listKinds are the card-list requests users page through (issue 8's
// "cards of a set", "cards by volume" and "cards by name", and the other
// filters), then the rest of the REST read mix for comparison.
var listKinds = []listKind{
	{"list/set", func(c *benchCatalog, r *rand.Rand) string {
		s := c.set(r)
		return "/api/v3/cards?set_id=" + url.QueryEscape(s.ID) + "&limit=50" + c.gameArg(s.Game)
	}},
	{"list/set_by_price_asc", func(c *benchCatalog, r *rand.Rand) string {
		s := c.set(r)
		return "/api/v3/cards?set_id=" + url.QueryEscape(s.ID) + "&sort=price&order=asc&limit=50" + c.gameArg(s.Game)
	}},
	{"list/q_word", func(c *benchCatalog, r *rand.Rand) string {
		k := c.card(r)
		return "/api/v3/cards?q=" + url.QueryEscape(strings.Fields(k.Name + " x")[0]) + "&limit=20" + c.gameArg(k.Game)
	}},
	{"list/q_fragment", func(c *benchCatalog, r *rand.Rand) string {
		k := c.card(r)
		runes := []rune(strings.ToLower(k.Name))
		i := r.IntN(max(1, len(runes)-3))
		return "/api/v3/cards?q=" + url.QueryEscape(string(runes[i:min(len(runes), i+3)])) + "&limit=20" + c.gameArg(k.Game)
	}},
	{"list/card_number", func(c *benchCatalog, r *rand.Rand) string {
		k := c.card(r)
		return "/api/v3/cards?card_number=" + url.QueryEscape(k.Number) + "&limit=50" + c.gameArg(k.Game)
	}},
	{"list/rarity", func(c *benchCatalog, r *rand.Rand) string {
		k := c.card(r)
		return "/api/v3/cards?rarity=" + url.QueryEscape(k.Rarity) + "&limit=50" + c.gameArg(k.Game)
	}},
	{"list/default", func(c *benchCatalog, r *rand.Rand) string {
		return fmt.Sprintf("/api/v3/cards?sort=volume&limit=50&offset=%d", 50*r.IntN(4))
	}},
	{"list/by_price", func(c *benchCatalog, r *rand.Rand) string {
		return fmt.Sprintf("/api/v3/cards?sort=price&order=desc&limit=50&offset=%d", 50*r.IntN(4))
	}},
	{"list/marketplace_only", func(c *benchCatalog, r *rand.Rand) string {
		return "/api/v3/cards?marketplace=ebay,partner&marketplace_mode=only&limit=50"
	}},
	{"mix/sales_page", func(c *benchCatalog, r *rand.Rand) string {
		k := c.card(r)
		return "/api/v3/cards/" + url.PathEscape(k.ID) + "/sales?limit=50" + c.gameArg(k.Game)
	}},
	{"mix/price_history_90d", func(c *benchCatalog, r *rand.Rand) string {
		k := c.card(r)
		return "/api/v3/cards/" + url.PathEscape(k.ID) + "/price-history?grade=raw:near_mint&limit=90" + c.gameArg(k.Game)
	}},
	{"mix/price_history_weekly", func(c *benchCatalog, r *rand.Rand) string {
		k := c.card(r)
		return "/api/v3/cards/" + url.PathEscape(k.ID) + "/price-history?interval=week&limit=52" + c.gameArg(k.Game)
	}},
	{"mix/trending", func(c *benchCatalog, r *rand.Rand) string {
		metrics := []string{"composite", "composite", "volume_pct", "price_pct", "volume_usd", "sales_count"}
		windows := []string{"7d", "30d", "30d", "90d"}
		return "/api/v3/trending?metric=" + metrics[r.IntN(len(metrics))] + "&window=" + windows[r.IntN(len(windows))] + "&limit=50"
	}},
	{"mix/sets_list", func(c *benchCatalog, r *rand.Rand) string {
		sorts := []string{"release_date", "volume", "name"}
		return "/api/v3/sets?sort=" + sorts[r.IntN(len(sorts))] + "&limit=50"
	}},
	{"mix/set_detail", func(c *benchCatalog, r *rand.Rand) string {
		return c.setPath(c.set(r), "")
	}},
	{"mix/set_breakdown", func(c *benchCatalog, r *rand.Rand) string {
		return c.setPath(c.set(r), "/breakdown")
	}},
	{"mix/set_price_distribution", func(c *benchCatalog, r *rand.Rand) string {
		return c.setPath(c.set(r), "/price-distribution")
	}},
	{"mix/set_trending_cards", func(c *benchCatalog, r *rand.Rand) string {
		s := c.set(r)
		return "/api/v3/sets/" + url.PathEscape(s.ID) + "/trending-cards?limit=20" + c.gameArg(s.Game)
	}},
	{"mix/set_volume_history", func(c *benchCatalog, r *rand.Rand) string {
		s := c.set(r)
		return "/api/v3/sets/" + url.PathEscape(s.ID) + "/volume-history?days=90" + c.gameArg(s.Game)
	}},
	{"sets/list_release_date", setsListPath("release_date")},
	{"sets/list_release_date_asc", setsListPath("release_date_asc")},
	{"sets/list_name", setsListPath("name")},
	{"sets/list_volume", setsListPath("volume")},
	{"sets/list_card_count", setsListPath("card_count")},
	{"sets/trending_cards_any", func(c *benchCatalog, r *rand.Rand) string {
		s := c.set(r)
		metrics := []string{"composite", "volume_pct", "price_pct", "volume_usd", "sales_count"}
		windows := []string{"7d", "30d", "90d"}
		dirs := []string{"asc", "desc"}
		return "/api/v3/sets/" + url.PathEscape(s.ID) + "/trending-cards?metric=" + metrics[r.IntN(len(metrics))] +
			"&window=" + windows[r.IntN(len(windows))] + "&direction=" + dirs[r.IntN(2)] + "&limit=50" + c.gameArg(s.Game)
	}},
	{"sets/volume_history_weekly", func(c *benchCatalog, r *rand.Rand) string {
		s := c.set(r)
		return "/api/v3/sets/" + url.PathEscape(s.ID) + "/volume-history?days=365&granularity=weekly" + c.gameArg(s.Game)
	}},
}

// setsListPath draws set-list requests in one sort: a page of 20, 50 or 200
// among the first four, in a game drawn as the sets are (by set count).
func setsListPath(sort string) func(c *benchCatalog, r *rand.Rand) string {
	return func(c *benchCatalog, r *rand.Rand) string {
		limit := []int{20, 50, 50, 200}[r.IntN(4)]
		return fmt.Sprintf("/api/v3/sets?sort=%s&limit=%d&offset=%d%s", sort, limit, limit*r.IntN(4), c.gameArg(c.set(r).Game))
	}
}

// openBenchCatalog reads every game's cards and sets of a benchmark snapshot.
func openBenchCatalog(tb testing.TB, e *snapEnv) *benchCatalog {
	tb.Helper()
	m, err := snapshots.ReadManifest(e.dir)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := bolt.Open(e.dir, m)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	c := &benchCatalog{game0: m.Games[0]}
	for _, g := range m.Games {
		cards, err := r.Cards(g)
		if err != nil {
			tb.Fatal(err)
		}
		sets, err := r.Sets(g)
		if err != nil {
			tb.Fatal(err)
		}
		c.cards, c.sets = append(c.cards, cards...), append(c.sets, sets...)
	}
	return c
}

// BenchmarkREST_CardLists runs the card list (by set, by name fragment, by
// card number, by rarity, the default list, sorted by price, by
// marketplace), the other routes of issue 8's REST read mix and the set
// routes in their other forms (sets/: every sort of the set list, pages
// and games; trending cards of a set by every metric and direction) through the
// whole uncached edge over the benchmark snapshots (see BenchmarkLookupHTTP),
// one request at a time over 128 requests per kind drawn from the catalog
// (cards and sets uniformly, every game): p50/p99 per request, allocations
// and process CPU per request. Every path is requested once before timing
// (per-snapshot structures are built on first use).
//
//	go test ./bench -run '^$' -bench REST_CardLists -benchtime 200x
func BenchmarkREST_CardLists(b *testing.B) {
	forEachSnapshot(b, func(b *testing.B, e *snapEnv) {
		e.startEdge(b)
		cat := openBenchCatalog(b, e)
		for _, k := range listKinds {
			b.Run(k.name, func(b *testing.B) {
				r := rand.New(rand.NewPCG(8, uint64(len(k.name))))
				paths := make([]string, 128)
				for i := range paths {
					paths[i] = k.path(cat, r)
				}
				benchPaths(b, e, paths, paths, "GET "+k.name+" (uncached)")
			})
		}
	})
}
