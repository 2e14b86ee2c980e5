package edge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/cardedge/cardedge/catalog"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

func (s *Server) registerSetRoutes() {
	s.router.add(&route{method: "GET", pattern: "/api/v3/sets", name: "sets_list", contract: "set-list.v1", cacheable: true, hasGame: true,
		summary: "Set directory", schema: "SetPage",
		params: []paramSpec{
			pEnum("sort", "release_date", []string{"release_date", "release_date_asc", "name", "volume", "card_count"}, "release_date: newest first (sets without a date last); release_date_asc: oldest first; name; volume: 30-day volume, highest first; card_count: most cards first."),
			pIntMin("offset", 0, "0", "Rows to skip."),
			pInt("limit", 1, 200, "50", "Rows to return."),
			gameParam(),
		},
		handle: handleSetsList})
	s.router.add(&route{method: "GET", pattern: "/api/v3/sets/{id}", name: "set_get", contract: "set-gold.v3", cacheable: true, hasGame: true,
		summary: "Set detail", schema: "SetDetail", params: []paramSpec{gameParam()}, handle: handleSetGet})
	s.router.add(&route{method: "GET", pattern: "/api/v3/sets/{id}/breakdown", name: "set_breakdown", contract: "set-breakdown.v1", cacheable: true, hasGame: true,
		summary: "Set breakdown by rarity", schema: "SetBreakdown", params: []paramSpec{gameParam()}, handle: handleSetBreakdown})
	s.router.add(&route{method: "GET", pattern: "/api/v3/sets/{id}/price-distribution", name: "set_price_distribution", contract: "set-price-distribution.v1", cacheable: true, hasGame: true,
		summary: "Set price distribution", schema: "SetPriceDistribution", params: []paramSpec{gameParam()}, handle: handleSetPriceDistribution})
	s.router.add(&route{method: "GET", pattern: "/api/v3/sets/{id}/trending-cards", name: "set_trending_cards", contract: "set-trending-cards.v2", cacheable: true, hasGame: true,
		summary: "Trending cards of a set", schema: "SetTrendingCards",
		params: []paramSpec{
			pEnum("metric", "composite", snapshots.TrendingMetrics, "Trending metric."),
			pEnum("window", "30d", pricing.TrendingWindowNames(), "Trending window."),
			pEnum("direction", "desc", []string{"asc", "desc"}, "desc: biggest values first."),
			pInt("limit", 1, 200, "50", "Rows to return."),
			minSalesParam(), minPriceParam(),
			gameParam(),
		},
		handle: handleSetTrendingCards})
	s.router.add(&route{method: "GET", pattern: "/api/v3/sets/{id}/volume-history", name: "set_volume_history", contract: "set-volume-history.v1", cacheable: true, hasGame: true,
		summary: "Set volume history", schema: "SetVolumeHistory",
		params: []paramSpec{
			pInt("days", 1, 730, "90", "Days counted back from as_of."),
			pEnum("granularity", "daily", []string{"daily", "weekly", "monthly"}, "Period of each point."),
			gameParam(),
		},
		handle: handleSetVolumeHistory})
}

type setGold struct {
	SetID            string   `json:"set_id"`
	Game             string   `json:"game"`
	Name             string   `json:"name"`
	Language         string   `json:"language"`
	Series           *string  `json:"series"`
	ReleaseDate      *string  `json:"release_date"`
	Abbreviation     *string  `json:"abbreviation"`
	CardCount        int      `json:"card_count"`
	CardCountPrinted *int     `json:"card_count_printed"`
	CardCountTotal   *int     `json:"card_count_total"`
	Volume30dUSD     float64  `json:"volume_30d_usd"`
	Sales30d         int      `json:"sales_30d"`
	Source           string   `json:"source"`
	Extra            *setMore `json:"market,omitempty"`
}

type setMore struct {
	PricedCards    int                `json:"priced_cards"`
	ValueUSD       float64            `json:"value_usd"`
	MedianPriceUSD *float64           `json:"median_price_usd"`
	TopCards       []pricing.CardGold `json:"top_cards"`
	PriceBasis     string             `json:"price_basis"`
}

func intOrNil(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

func newSetGold(s *snapshots.Set) setGold {
	return setGold{
		SetID: s.ID, Game: s.Game, Name: s.Name, Language: s.Language, Series: jsontext.StrOrNil(s.Series), ReleaseDate: jsontext.StrOrNil(s.ReleaseDate),
		Abbreviation: jsontext.StrOrNil(s.Abbreviation), CardCount: s.CardCount, CardCountPrinted: intOrNil(s.CardCountPrinted),
		CardCountTotal: intOrNil(s.CardCountTotal), Volume30dUSD: snapshots.USD(s.Volume30dCents), Sales30d: s.Sales30d, Source: s.Source,
	}
}

func handleSetsList(r *request) (any, error) {
	items, err := r.snap.setItemsOf(r.game)
	if err != nil {
		return nil, err
	}
	pg := paginate(items[catalog.SetOrderOf(r.p.str("sort"))], r.p.int("offset"), r.p.int("limit"))
	return &setPage{items: pg.Items, total: pg.Total, offset: pg.Offset, limit: pg.Limit}, nil
}

// setItems are a game's set list items, encoded once (as encoding/json
// writes newSetGold of each set), in every order of the set list
// (catalog.Sets).
type setItems [catalog.NumSetOrders][][]byte

// encodeSets encodes the game's sets once and lays them out in every order.
func (s *snapshot) encodeSets(game string) (*setItems, error) {
	sets, err := s.catalog.Sets(game)
	if err != nil {
		return nil, err
	}
	encoded := map[*snapshots.Set][]byte{}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	out := &setItems{}
	for o := range out {
		sorted := sets.Sorted(catalog.SetOrder(o))
		out[o] = make([][]byte, len(sorted))
		for i, set := range sorted {
			if encoded[set] == nil {
				buf.Reset()
				if err := enc.Encode(newSetGold(set)); err != nil {
					return nil, fmt.Errorf("encode set %s: %w", set.ID, err)
				}
				encoded[set] = bytes.Clone(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
			}
			out[o][i] = encoded[set]
		}
	}
	return out, nil
}

// setItemsOf returns the game's set list items (encoded per request when the
// snapshot was not warmed).
func (s *snapshot) setItemsOf(game string) (*setItems, error) {
	if items := s.setItems[game]; items != nil {
		return items, nil
	}
	return s.encodeSets(game)
}

// setPage is the set list payload: the bytes encoding/json writes for the
// page[setGold] of newSetGold of each set (the type schema.go documents),
// joined from the items encodeSets encoded once.
type setPage struct {
	items                [][]byte
	total, offset, limit int
}

var _ jsonAppender = (*setPage)(nil)

// AppendJSON implements jsonAppender.
func (p *setPage) AppendJSON(b []byte) []byte {
	n := 64
	for _, it := range p.items {
		n += len(it) + 1
	}
	b = slices.Grow(b, n)
	b = append(b, `{"items":[`...)
	for i, it := range p.items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return appendPageEnd(b, p.total, p.offset, p.limit)
}

// MarshalJSON encodes the page as AppendJSON does.
func (p *setPage) MarshalJSON() ([]byte, error) { return p.AppendJSON(nil), nil }

func (r *request) set() (*snapshots.Set, error) { return r.snap.Set(r.game, r.vars.v[0]) }

// setAggregates resolves the {id} set and reads its aggregates.
func (r *request) setAggregates() (*snapshots.Set, *snapshots.SetAggregates, error) {
	s, err := r.set()
	if err != nil {
		return nil, nil, err
	}
	agg, err := r.snap.SetAggregates(r.game, s.ID)
	if err != nil {
		return nil, nil, err
	}
	return s, agg, nil
}

func handleSetGet(r *request) (any, error) {
	s, agg, err := r.setAggregates()
	if err != nil {
		return nil, err
	}
	top, err := r.snap.catalog.TopCards(r.game, s)
	if err != nil {
		return nil, err
	}
	g := newSetGold(s)
	g.Extra = &setMore{PricedCards: agg.Totals.PricedCards, ValueUSD: snapshots.USD(agg.Totals.ValueCents), MedianPriceUSD: snapshots.USDOrNil(agg.Totals.MedianPriceCents),
		TopCards: make([]pricing.CardGold, 0, len(top)), PriceBasis: pricing.PriceBasisSetFMV}
	for _, c := range top {
		cg, err := r.cardGold(c)
		if err != nil {
			return nil, err
		}
		g.Extra.TopCards = append(g.Extra.TopCards, cg)
	}
	return g, nil
}

func handleSetBreakdown(r *request) (any, error) {
	s, agg, err := r.setAggregates()
	if err != nil {
		return nil, err
	}
	return pricing.NewSetBreakdown(s, agg, r.snap.AsOf), nil
}

func handleSetPriceDistribution(r *request) (any, error) {
	s, agg, err := r.setAggregates()
	if err != nil {
		return nil, err
	}
	return pricing.NewSetPriceDistribution(s, agg, r.snap.AsOf), nil
}

func handleSetTrendingCards(r *request) (any, error) {
	s, err := r.set()
	if err != nil {
		return nil, err
	}
	q := pricing.TrendingRequest{Game: r.game, Metric: r.p.str("metric"), Window: r.p.str("window"), Liquidity: r.liquidity(), Asc: r.p.str("direction") == "asc",
		Limit: r.p.int("limit")}
	rows, err := r.snap.catalog.SetTrending(r.game, s.ID, q.Metric, q.Window, q.Liquidity) // shared: read only
	if err != nil {
		return nil, err
	}
	return pricing.NewSetTrendingCards(r.snap.Reader, r.snap.AsOf, s, rows, q)
}

func handleSetVolumeHistory(r *request) (any, error) {
	s, err := r.set()
	if err != nil {
		return nil, err
	}
	daily, err := r.snap.SetDaily(r.game, s.ID)
	if err != nil {
		return nil, err
	}
	return pricing.NewSetVolumeHistory(s, daily, r.snap.AsOf, r.p.int("days"), r.p.str("granularity")), nil
}
