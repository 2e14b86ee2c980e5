package pricing

import (
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// Trending: how cards moved over a window, ranked (REST's trending and set
// trending routes, the agent's trending tool).

// TrendingWindowNames are the names of the precomputed windows
// (snapshots.TrendingWindows), shortest first.
func TrendingWindowNames() []string {
	out := make([]string, len(snapshots.TrendingWindows))
	for i, w := range snapshots.TrendingWindows {
		out[i] = w.Name
	}
	return out
}

// SetRef names a card's set.
type SetRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// TrendingItem is one ranked card of a trending list: REST's trending and set
// trending routes and the agent's trending tool.
type TrendingItem struct {
	Rank      int       `json:"rank"`
	CardID    string    `json:"card_id"`
	Name      string    `json:"name"`
	Set       SetRef    `json:"set"`
	Language  string    `json:"language"`
	Rarity    *string   `json:"rarity"`
	Metric    string    `json:"metric"`
	Value     float64   `json:"value"`
	PriceUSD  *float64  `json:"price_usd"`
	Sales30d  int       `json:"sales_30d"`
	Volume30d float64   `json:"volume_30d_usd"`
	Extra     *TrendExt `json:"detail,omitempty"`
}

// TrendExt holds the other metrics of a ranked card.
type TrendExt struct {
	SalesCount float64  `json:"sales_count"`
	VolumeUSD  float64  `json:"volume_usd"`
	VolumePct  *float64 `json:"volume_pct"`
	PricePct   *float64 `json:"price_pct"`
	Composite  *float64 `json:"composite"`
}

// NewTrendingItem is card c (of set s, nil when unknown) ranked rank with value v
// of metric.
func NewTrendingItem(rank int, c *snapshots.Card, s *snapshots.Set, metric string, v float64) TrendingItem {
	it := TrendingItem{Rank: rank, CardID: c.ID, Name: c.Name, Set: SetRef{ID: c.SetID}, Language: c.Language, Rarity: jsontext.StrOrNil(c.Rarity),
		Metric: metric, Value: snapshots.Round2(v), PriceUSD: snapshots.USDOrNil(c.PriceCents), Sales30d: c.Sales30d, Volume30d: snapshots.USD(c.Volume30dCents)}
	if s != nil {
		it.Set.Name = s.Name
	}
	return it
}

// Ranked is the items of entries[offset:offset+limit] (a ranking of game's
// cards), highest first, or lowest first when asc; ranks count from 1 in
// that order.
func Ranked(r snapshots.Reader, game, metric string, entries []snapshots.TrendingEntry, asc bool, offset, limit int) ([]TrendingItem, error) {
	cards, err := r.Cards(game)
	if err != nil {
		return nil, err
	}
	if asc {
		entries = slices.Clone(entries)
		slices.Reverse(entries)
	}
	items := []TrendingItem{}
	for i := offset; i < len(entries) && i < offset+limit; i++ {
		c := cards[entries[i].Ordinal]
		set, _ := r.Set(c.Game, c.SetID)
		items = append(items, NewTrendingItem(i+1, c, set, metric, entries[i].Value))
	}
	return items, nil
}

// CustomTrending ranks every card of game for a window of days ending at
// asOf, or a grade filter (keep), that is not precomputed: one pass over the
// per-card cumulative sums, highest value first.
func CustomTrending(r snapshots.Reader, asOf snapshots.Day, game, metric string, days int, lang string, keep func(snapshots.Grade) bool) ([]snapshots.TrendingEntry, error) {
	slab := strings.HasPrefix(metric, "slab_")
	base := strings.TrimPrefix(metric, "slab_")
	if slab {
		keep = func(g snapshots.Grade) bool { return g.Grader() == 0 }
	}
	var out []snapshots.TrendingEntry
	var listings map[string]int
	if metric == "new_listings" {
		all, err := r.AllListings(game)
		if err != nil {
			return nil, err
		}
		listings = map[string]int{}
		for _, l := range all {
			if l.ListedDay > asOf-snapshots.Day(days) && l.ListedDay <= asOf {
				listings[strings.ToLower(l.CardID)]++
			}
		}
	}
	err := r.ScanMarket(game, func(c *snapshots.Card, cum []snapshots.CumSeries, series []snapshots.PriceSeries) error {
		if lang != "all" && c.Language != lang {
			return nil
		}
		var v float64
		if metric == "new_listings" {
			n := listings[strings.ToLower(c.ID)]
			if n == 0 {
				return nil
			}
			v = float64(n)
		} else {
			v, _ = snapshots.TrendingValues(cum, series, asOf, days, keep).Metric(base)
		}
		if !math.IsNaN(v) {
			out = append(out, snapshots.TrendingEntry{Ordinal: c.Ordinal, Value: v})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Value != out[j].Value {
			return out[i].Value > out[j].Value
		}
		return out[i].Ordinal < out[j].Ordinal
	})
	return out, nil
}
