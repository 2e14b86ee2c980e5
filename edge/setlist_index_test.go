package edge

// Internal test: the set routes (orders encoded once, top cards and trending
// groups computed once) against the straightforward handlers they replaced.

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/valyala/fasthttp"
)

// referenceSetsList sorts a copy of every set of the game on each request,
// folding names on every comparison, then cuts and encodes the page by
// encoding/json.
func referenceSetsList(tb testing.TB, r *request) ([]byte, error) {
	sets, err := r.snap.Sets(r.game)
	if err != nil {
		return nil, err
	}
	sorted := referenceSortSets(sets, r.p.str("sort"))
	pg := paginate(sorted, r.p.int("offset"), r.p.int("limit"))
	out := page[setGold]{Total: pg.Total, Offset: pg.Offset, Limit: pg.Limit, Items: make([]setGold, 0, len(pg.Items))}
	for _, s := range pg.Items {
		out.Items = append(out.Items, newSetGold(s))
	}
	return stdlibJSON(tb, out), nil
}

// referenceSortSets sorts a copy of sets by key, folding names on every
// comparison.
func referenceSortSets(sets []*snapshots.Set, key string) []*snapshots.Set {
	sorted := append([]*snapshots.Set{}, sets...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		switch key {
		case "release_date", "release_date_asc":
			if (a.ReleaseDate == "") != (b.ReleaseDate == "") {
				return b.ReleaseDate == ""
			}
			if a.ReleaseDate != b.ReleaseDate {
				if key == "release_date" {
					return a.ReleaseDate > b.ReleaseDate
				}
				return a.ReleaseDate < b.ReleaseDate
			}
		case "name":
			if c := strings.Compare(index.Fold(a.Name), index.Fold(b.Name)); c != 0 {
				return c < 0
			}
		case "volume":
			if a.Volume30dCents != b.Volume30dCents {
				return a.Volume30dCents > b.Volume30dCents
			}
		case "card_count":
			if a.CardCount != b.CardCount {
				return a.CardCount > b.CardCount
			}
		}
		return a.ID < b.ID
	})
	return sorted
}

// referenceSetGet sorts a copy of the set's cards by price on each request.
func referenceSetGet(tb testing.TB, r *request) ([]byte, error) {
	s, agg, err := r.setAggregates()
	if err != nil {
		return nil, err
	}
	cards, err := r.snap.SetCards(r.game, s.ID)
	if err != nil {
		return nil, err
	}
	g := newSetGold(s)
	g.Extra = &setMore{PricedCards: agg.Totals.PricedCards, ValueUSD: snapshots.USD(agg.Totals.ValueCents), MedianPriceUSD: snapshots.USDOrNil(agg.Totals.MedianPriceCents),
		TopCards: []cardGold{}, PriceBasis: priceBasisSetFMV}
	for _, c := range referenceTopCards(tb, r.snap.Reader, cards) {
		cg, err := r.cardGold(c)
		if err != nil {
			return nil, err
		}
		g.Extra.TopCards = append(g.Extra.TopCards, cg)
	}
	return stdlibJSON(tb, g), nil
}

// referenceTopCards sorts a copy of cards by price and keeps the priced ones
// of the first ten.
func referenceTopCards(tb testing.TB, r snapshots.Reader, cards []*snapshots.Card) []*snapshots.Card {
	top := append([]*snapshots.Card{}, cards...)
	sortCardsPlain(tb, r, top, "price", false)
	var out []*snapshots.Card
	for _, c := range top[:min(10, len(top))] {
		price := c.PriceCents
		if r != nil {
			price, _ = snapshots.ShownPrice(r, c)
		}
		if price > 0 {
			out = append(out, c)
		}
	}
	return out
}

// referenceSetTrendingCards scans the game's whole ranking on each request.
func referenceSetTrendingCards(tb testing.TB, r *request) ([]byte, error) {
	s, err := r.set()
	if err != nil {
		return nil, err
	}
	metric, window := r.p.str("metric"), r.p.str("window")
	liq := r.liquidity()
	rows, err := r.snap.TrendingRows(r.game, metric, window, "all")
	if err != nil {
		return nil, err
	}
	cards, err := r.snap.Cards(r.game)
	if err != nil {
		return nil, err
	}
	var liquid []snapshots.TrendingRow
	for _, row := range rows {
		if !math.IsNaN(row.Value) && int(row.SampleSize) >= liq.MinSales && row.PriceCents >= liq.MinPriceCents {
			liquid = append(liquid, row)
		}
	}
	mine := referenceSetEntries(liquid, cards, s.ID)
	limit := r.p.int("limit")
	items, err := pricing.Ranked(r.snap.Reader, r.game, metric, pricing.Leaderboard{Rows: mine}, r.p.str("direction") == "asc", 0, limit)
	if err != nil {
		return nil, err
	}
	return stdlibJSON(tb, setTrendingPayload{SetID: s.ID, Name: s.Name, Metric: metric, Window: window, Direction: r.p.str("direction"),
		AsOf: r.snap.AsOf.String(), MinSales: liq.MinSales, MinPriceUSD: snapshots.USD(liq.MinPriceCents), Total: len(mine), Limit: limit, Items: items,
		Basis: liq.Basis()}), nil
}

// referenceSetEntries keeps the entries whose card's set id is setID under
// strings.EqualFold.
func referenceSetEntries(entries []snapshots.TrendingRow, cards []*snapshots.Card, setID string) []snapshots.TrendingRow {
	var mine []snapshots.TrendingRow
	for _, e := range entries {
		if strings.EqualFold(cards[e.Ordinal].SetID, setID) {
			mine = append(mine, e)
		}
	}
	return mine
}

// routeRequest parses a query of the named route as the front door does,
// with the path variable id (when not empty).
func routeRequest(tb testing.TB, snap *snapshot, name, id, query string) *request {
	tb.Helper()
	s := &Server{router: newRouter()}
	s.registerRoutes()
	i := slices.IndexFunc(s.router.routes, func(rt *route) bool { return rt.name == name })
	if i < 0 {
		tb.Fatalf("no route %s", name)
	}
	var args fasthttp.Args
	args.Parse(query)
	p, verrs := parseParams(&args, s.router.routes[i].params)
	if len(verrs) > 0 {
		tb.Fatalf("%s %s: %v", name, query, verrs)
	}
	game := p.str("game")
	if game == "" {
		game = snap.Manifest().Games[0]
	}
	r := &request{snap: snap, p: p, game: game}
	if id != "" {
		r.vars.v[0], r.vars.n = id, 1
	}
	return r
}

// encodeData encodes a handler's payload as render does.
func encodeData(tb testing.TB, data any) []byte {
	if a, ok := data.(jsonAppender); ok {
		return a.AppendJSON(nil)
	}
	return stdlibJSON(tb, data)
}

// TestSetRoutes_MatchScan compares the set list, set detail and a set's
// trending cards with the straightforward handlers, byte for byte: the list
// in every sort and many pages, detail and trending cards for every set
// (by its id and in other case) and some unknown ids, trending cards in
// every metric, window, direction and some limits, in every game.
func TestSetRoutes_MatchScan(t *testing.T) {
	skipUnderRace(t)
	snap := mustTinySnapshot(t)
	compared, failed, empty := 0, 0, 0
	check := func(t *testing.T, name, id, query string, reference func(testing.TB, *request) ([]byte, error), handle func(*request) (any, error)) {
		t.Helper()
		want, wantErr := reference(t, routeRequest(t, snap, name, id, query))
		data, err := handle(routeRequest(t, snap, name, id, query))
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("%s %s %s: error %v, want %v", name, id, query, err, wantErr)
		}
		compared++
		if err != nil {
			failed++
			return
		}
		if bytes.Contains(want, []byte(`"items":[]`)) {
			empty++
		}
		if got := encodeData(t, data); !bytes.Equal(got, want) {
			t.Fatalf("%s %s %s:\n got %.800s\nwant %.800s", name, id, query, got, want)
		}
	}
	pages := [][2]int{{0, 1}, {0, 2}, {0, 50}, {0, 200}, {1, 1}, {1, 2}, {2, 3}, {3, 5}, {5, 200}, {7, 7}, {10, 1}, {1000, 50}}
	limits := []int{1, 2, 3, 5, 50, 200}
	sets := 0
	for _, game := range snap.Manifest().Games {
		all, err := snap.Sets(game)
		if err != nil {
			t.Fatal(err)
		}
		sets += len(all)
		t.Run(game+"/list", func(t *testing.T) {
			check(t, "sets_list", "", "game="+game, referenceSetsList, handleSetsList)
			for _, key := range setSortKeys {
				check(t, "sets_list", "", "game="+game+"&sort="+key, referenceSetsList, handleSetsList)
				for _, pg := range append(pages, [2]int{len(all) - 1, 50}, [2]int{len(all), 50}, [2]int{len(all) + 1, 1}) {
					check(t, "sets_list", "", fmt.Sprintf("game=%s&sort=%s&offset=%d&limit=%d", game, key, pg[0], pg[1]), referenceSetsList, handleSetsList)
				}
			}
		})
		ids := []string{"nope", "EN:NOPE", "ſ"}
		for _, s := range all {
			ids = append(ids, s.ID, strings.ToUpper(s.ID))
		}
		t.Run(game+"/detail", func(t *testing.T) {
			for _, id := range ids {
				check(t, "set_get", id, "game="+game, referenceSetGet, handleSetGet)
			}
		})
		t.Run(game+"/trending_cards", func(t *testing.T) {
			for i, id := range ids {
				check(t, "set_trending_cards", id, "game="+game, referenceSetTrendingCards, handleSetTrendingCards)
				for _, metric := range snapshots.TrendingMetrics {
					for _, window := range pricing.TrendingWindowNames() {
						for _, dir := range []string{"asc", "desc"} {
							limit := limits[(i+len(metric)+len(window))%len(limits)]
							check(t, "set_trending_cards", id, fmt.Sprintf("game=%s&metric=%s&window=%s&direction=%s&limit=%d", game, metric, window, dir, limit),
								referenceSetTrendingCards, handleSetTrendingCards)
						}
					}
				}
			}
		})
	}
	if sets < 4 {
		t.Fatalf("%d sets: the tiny snapshot is smaller than expected", sets)
	}
	if empty > compared/2 {
		t.Fatalf("%d of %d payloads have no items: the tiny snapshot is smaller than expected", empty, compared)
	}
	t.Logf("%d sets, %d requests compared (%d errors, %d without items)", sets, compared, failed, empty)
}

// TestSetViews_Ties compares the views with the references over made-up
// catalogs full of what the tiny snapshot lacks: set names equal but for
// case and accents, equal and unknown dates, equal volumes and card counts,
// repeated ids, unpriced cards and equal prices, card set ids in other case.
func TestSetViews_Ties(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pick := func(list []string) string { return list[r.IntN(len(list))] }
	names := []string{"Base", "base", "BASE", "Bäse", "Éclat", "eclat", "Eclat", "151", "Romance Dawn", "ROMANCE DAWN", "zeta", "Ωmega", "ωmega", ""}
	dates := []string{"", "", "1999-01-09", "1999-01-09", "2023-06-16", "2001-01-01"}
	setIDs := []string{"en:a", "EN:A", "en:A", "en:b", "EN:B", "ſet", "SET", "set", "en:k", "en:\u212a"}
	for round := range 300 {
		sets := make([]*snapshots.Set, 1+r.IntN(30))
		for i := range sets {
			sets[i] = &snapshots.Set{ID: fmt.Sprintf("en:s%d", r.IntN(40)), Game: "pokemon", Name: pick(names), Language: "en",
				ReleaseDate: pick(dates), CardCount: r.IntN(3), Volume30dCents: int64(r.IntN(3)) * 150, Sales30d: r.IntN(4)}
		}
		var o setOrders
		if err := o.build(sets); err != nil {
			t.Fatal(err)
		}
		for ord, key := range setSortKeys {
			want := page[setGold]{Total: len(sets), Limit: len(sets)}
			for _, s := range referenceSortSets(sets, key) {
				want.Items = append(want.Items, newSetGold(s))
			}
			got := (&setPage{items: o.sorted[ord], total: len(sets), limit: len(sets)}).AppendJSON(nil)
			if !bytes.Equal(got, stdlibJSON(t, want)) {
				t.Fatalf("round %d, sort %s:\n got %s\nwant %s", round, key, got, stdlibJSON(t, want))
			}
		}

		cards := make([]*snapshots.Card, 1+r.IntN(60))
		for i := range cards {
			cards[i] = &snapshots.Card{Ordinal: uint32(i), ID: fmt.Sprintf("en:c-%d", i), Name: pick(names), SetID: pick(setIDs),
				PriceCents: []int64{0, 0, 100, 100, 250, 999}[r.IntN(6)], Volume30dCents: int64(r.IntN(3))}
		}
		var co cardOrders
		co.build(cards, nil)
		var subset []*snapshots.Card // a set's cards, in catalog order
		for _, c := range cards {
			if r.IntN(3) > 0 {
				subset = append(subset, c)
			}
		}
		if got, want := topPricedCards(subset, &co), referenceTopCards(t, nil, subset); !slices.Equal(got, want) {
			ids := func(cards []*snapshots.Card) (out []string) {
				for _, c := range cards {
					out = append(out, fmt.Sprintf("%s@%d", c.ID, c.PriceCents))
				}
				return out
			}
			t.Fatalf("round %d: top cards %v, want %v", round, ids(got), ids(want))
		}
		var entries []snapshots.TrendingRow
		for _, i := range r.Perm(len(cards))[:r.IntN(len(cards)+1)] {
			entries = append(entries, snapshots.TrendingRow{Ordinal: uint32(i), Value: float64(r.IntN(100))})
		}
		var tr setTrending
		tr.group(entries, &co)
		for _, id := range append(setIDs, "nope", "EN:S1") {
			if got, want := tr.of(id), referenceSetEntries(entries, cards, id); !slices.Equal(got, want) {
				t.Fatalf("round %d, set %q: entries %v, want %v", round, id, got, want)
			}
		}
	}
}
