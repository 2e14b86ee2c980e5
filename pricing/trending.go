package pricing

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/estimate"
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

// TrendingItem is one ranked printing of a trending list: REST's trending
// and set trending routes and the agent's trending tool. A card's printings
// rank apart (finish names the printing); price_usd, sales_30d and
// volume_30d_usd are the printing's.
type TrendingItem struct {
	Rank     int     `json:"rank"`
	CardID   string  `json:"card_id"`
	Name     string  `json:"name"`
	Set      SetRef  `json:"set"`
	Language string  `json:"language"`
	Rarity   *string `json:"rarity"`
	// Finish is the printing (null for a card without variants) and
	// BaseFinish whether it is the card's base printing.
	Finish     *string `json:"finish"`
	BaseFinish bool    `json:"base_finish"`
	Metric     string  `json:"metric"`
	Value      float64 `json:"value"`
	// PriceUSD is the fmv at as_of of the row's reference series (raw
	// near-mint, or the row's grades' most sold grade).
	PriceUSD *float64 `json:"price_usd"`
	// SampleSize is the verified sales behind the row: in its window, or
	// in the last estimate.Default.Liquidity.ShortWindowDays days for
	// shorter windows.
	SampleSize int `json:"sample_size"`
	// Flags are the reference series' solo, outlier_excluded and stale,
	// and thin by SampleSize, the count shown beside them
	// (estimate.Methodology.RowFlags): a row that ranks by its verified
	// sales under the default liquidity rule is never thin; a row ranked
	// by a fresh source's price keeps its series' flags.
	Flags []string `json:"flags"`
	// Source is where price_usd (and price_pct's prices) come from: a
	// source's file (tcgplayer, cardmarket, pricecharting), observed
	// (verified sales) or synthetic; Synthetic whether it is synthesized.
	Source    string  `json:"source" enum:"tcgplayer,cardmarket,pricecharting,observed,synthetic"`
	Synthetic bool    `json:"synthetic"`
	Sales30d  int     `json:"sales_30d"`
	Volume30d float64 `json:"volume_30d_usd"`
}

// Liquidity is the filter of a leaderboard: a row ranks with at least
// MinSales verified sales (its sample size) and a price of at least
// MinPriceCents. DefaultLiquidity is estimate.Default's rule; the routes'
// min_sales and min_price_usd parameters lower or raise it.
type Liquidity struct {
	MinSales      int
	MinPriceCents int64
}

// DefaultLiquidity is the liquidity rule of estimate.Default.
func DefaultLiquidity() Liquidity {
	return Liquidity{MinSales: estimate.Default.Liquidity.MinSales, MinPriceCents: estimate.Default.MinPriceCents()}
}

// KeepRow reports whether a leaderboard row passes l: by its verified
// sales and price (Keep), or, its reference series being a fresh source's
// (TrendingRow.Feed), by its price alone while l asks for no more sales than
// the methodology's rule (estimate.Methodology.LiquidFeed).
func (l Liquidity) KeepRow(row *snapshots.TrendingRow) bool {
	return l.Keep(int(row.SampleSize), row.PriceCents) || (row.Feed && estimate.Default.LiquidFeed(l.MinSales, row.PriceCents, l.MinPriceCents))
}

// The movers: what "top movers" ranks by default wherever it is asked (REST's
// trending route, the dashboard's movers page, the chat's trending tool, the
// MCP movers resource), so that they give one answer.
//
// MoversMetric is the composite, the spec's default of the trending route:
// a collector asking for movers means moves that sales stand behind, and the
// composite is the price change weighted with the volume change and shrunk
// by n / (n + 5) for the row's n sales, where price_pct alone puts a 5-sale
// blip first. MoversLiquidity floors the price at the methodology's movers
// floor ($10: estimate.LiquidityRule.MoversMinPriceUSD), which callers may
// lower (min_price_usd, the page's Price filter).
const MoversMetric = "composite"

// MoversLiquidity is the movers' default filter: the methodology's liquidity
// rule with its movers price floor.
func MoversLiquidity() Liquidity {
	return Liquidity{MinSales: estimate.Default.Liquidity.MinSales, MinPriceCents: estimate.Default.MoversMinPriceCents()}
}

// IsDefault reports whether l is the default rule (the precomputed
// rankings').
func (l Liquidity) IsDefault() bool { return l == DefaultLiquidity() }

// Keep reports whether a row with sample verified sales and a price of
// priceCents passes l.
func (l Liquidity) Keep(sample int, priceCents int64) bool {
	return sample >= l.MinSales && priceCents >= l.MinPriceCents
}

// Basis says how a leaderboard under l ranks its rows (the trending
// payloads' basis), from estimate.Default's rules.
func (l Liquidity) Basis() string {
	m := &estimate.Default
	c := m.Composite
	g := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	return fmt.Sprintf("verified sales of each printing of a card (its printings rank apart); volume_pct compares the window's volume with the window before it "+
		"(windows under %d days: with the %d days before, scaled); price_pct is the fmv change of the row's reference series (raw near-mint, or its most sold grade) over the window; "+
		"composite = (%s price_pct + %s volume_pct, each clamped to [%s, %s]) x n / (n + %s) for the row's n verified sales, so volume is built in; "+
		"a row ranks with at least %d verified sales in the window (in the last %d days for shorter windows: sample_size) and a price of at least $%.2f "+
		"(the methodology's liquidity rule is %d sales and $%.2f, the movers' price floor $%.2f; min_sales and min_price_usd change them), or, its reference series being a fresh source's file "+
		"(a marketplace's daily price: source), by its price alone while min_sales is at most the rule's; see /api/v3/methodology",
		m.VolumeBaselineDays, m.VolumeBaselineDays, g(c.PriceWeight), g(c.VolumeWeight), g(c.ClampMinPct), g(c.ClampMaxPct), g(c.ShrinkSales),
		l.MinSales, m.Liquidity.ShortWindowDays, snapshots.USD(l.MinPriceCents), m.Liquidity.MinSales, m.Liquidity.MinPriceUSD, m.Liquidity.MoversMinPriceUSD)
}

// Leaderboard is a ranking of printings that passed a liquidity filter,
// highest value first.
type Leaderboard struct {
	Rows []snapshots.TrendingRow
	// refs are the reference grades of the rows of a custom window (their
	// flags are read for the rows shown); nil for precomputed rows, which
	// carry theirs.
	refs []snapshots.Grade
}

// FilterRows keeps the precomputed rows (snapshots.Reader.TrendingRows)
// that pass l, in order.
func FilterRows(rows []snapshots.TrendingRow, l Liquidity) Leaderboard {
	out := make([]snapshots.TrendingRow, 0, len(rows)/4)
	for _, row := range rows {
		if !math.IsNaN(row.Value) && l.KeepRow(&row) {
			out = append(out, row)
		}
	}
	return Leaderboard{Rows: out}
}

// Trending is the precomputed ranking of metric, window and language
// filtered by l.
func Trending(r snapshots.Reader, game, metric, window, lang string, l Liquidity) (Leaderboard, error) {
	rows, err := r.TrendingRows(game, metric, window, lang)
	if err != nil {
		return Leaderboard{}, err
	}
	return FilterRows(rows, l), nil
}

// NewTrendingItem is printing p of card c (of set s, nil when unknown)
// ranked rank on row's value of metric, its price from origin o.
func NewTrendingItem(rank int, c *snapshots.Card, s *snapshots.Set, p *snapshots.Printing, metric string, row snapshots.TrendingRow, o Origin) TrendingItem {
	it := TrendingItem{Rank: rank, CardID: c.ID, Name: c.Name, Set: SetRef{ID: c.SetID}, Language: c.Language, Rarity: jsontext.StrOrNil(c.Rarity),
		Finish: jsontext.StrOrNil(PrintingName(c, int(row.Finish))), BaseFinish: int(row.Finish) == snapshots.BasePrinting(c),
		Metric: metric, Value: snapshots.Round2(row.Value), PriceUSD: snapshots.USDOrNil(row.PriceCents),
		SampleSize: int(row.SampleSize), Flags: FlagNames(estimate.Default.RowFlags(int(row.SampleSize), row.Feed, row.Flags)), Source: o.Source, Synthetic: o.Synthetic}
	if s != nil {
		it.Set.Name = s.Name
	}
	if p != nil {
		it.Sales30d, it.Volume30d = p.Sales30d, snapshots.USD(p.Volume30dCents)
	}
	return it
}

// Ranked is the items of lb.Rows[offset:offset+limit], highest first, or
// lowest first when asc; ranks count from 1 in that order.
func Ranked(r snapshots.Reader, game, metric string, lb Leaderboard, asc bool, offset, limit int) ([]TrendingItem, error) {
	cards, err := r.Cards(game)
	if err != nil {
		return nil, err
	}
	items := []TrendingItem{}
	n := len(lb.Rows)
	for i := offset; i < n && i < offset+limit; i++ {
		j := i
		if asc {
			j = n - 1 - i
		}
		row := lb.Rows[j]
		c := cards[row.Ordinal]
		set, _ := r.Set(c.Game, c.SetID)
		ps, err := r.Printings(c.Game, c.ID)
		if err != nil {
			return nil, err
		}
		var p *snapshots.Printing
		for k := range ps {
			if ps[k].Finish == row.Finish {
				p = &ps[k]
			}
		}
		if lb.refs != nil && p != nil {
			e, _ := EstimateOf(p, lb.refs[j])
			row.Flags = e.Flags
		}
		prov, err := ReadProvenance(r, c)
		if err != nil {
			return nil, err
		}
		items = append(items, NewTrendingItem(i+1, c, set, p, metric, row, prov.RowOrigin(int(row.Finish), strings.HasPrefix(metric, "slab_"))))
	}
	return items, nil
}

// CustomTrending ranks every printing of game for a window of days ending
// at asOf, or a grade filter (keep), that is not precomputed: one pass over
// the per-printing cumulative sums, highest value first, rows that pass l
// only.
func CustomTrending(r snapshots.Reader, asOf snapshots.Day, game, metric string, days int, lang string, keep func(snapshots.Grade) bool, l Liquidity) (Leaderboard, error) {
	slab := strings.HasPrefix(metric, "slab_")
	base := strings.TrimPrefix(metric, "slab_")
	if slab {
		keep = func(g snapshots.Grade) bool { return g.Grader() == 0 }
	}
	type printingKey struct {
		ord    uint32
		finish int
	}
	var listings map[printingKey]int // new listings per printing
	if metric == "new_listings" {
		all, err := r.AllListings(game)
		if err != nil {
			return Leaderboard{}, err
		}
		listings = map[printingKey]int{}
		for _, x := range all {
			if x.ListedDay > asOf-snapshots.Day(days) && x.ListedDay <= asOf {
				if c, err := r.Card(game, x.CardID); err == nil {
					listings[printingKey{c.Ordinal, ListingPrinting(c, x)}]++
				}
			}
		}
	}
	type row struct {
		snapshots.TrendingRow
		ref snapshots.Grade
	}
	var out []row
	err := r.ScanPrintings(game, func(c *snapshots.Card, finish int, cum []snapshots.CumSeries, series []snapshots.PriceSeries) error {
		if lang != "all" && c.Language != lang {
			return nil
		}
		var v float64
		stats := snapshots.TrendingStats(cum, series, asOf, days, keep)
		feed := false
		if !l.Keep(stats.Sample, stats.PriceCents) {
			var err error
			if feed, err = freshFeed(r, asOf, c, finish, stats.Ref, series, l); err != nil || !feed {
				return err
			}
		}
		if metric == "new_listings" {
			n := listings[printingKey{c.Ordinal, finish}]
			if n == 0 {
				return nil
			}
			v = float64(n)
		} else {
			v, _ = stats.Metric(base)
		}
		if !math.IsNaN(v) {
			out = append(out, row{snapshots.TrendingRow{Ordinal: c.Ordinal, Finish: uint8(finish), Value: v, SampleSize: int32(stats.Sample), PriceCents: stats.PriceCents, Feed: feed}, stats.Ref})
		}
		return nil
	})
	if err != nil {
		return Leaderboard{}, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Value != out[j].Value {
			return out[i].Value > out[j].Value
		}
		if out[i].Ordinal != out[j].Ordinal {
			return out[i].Ordinal < out[j].Ordinal
		}
		return out[i].Finish < out[j].Finish
	})
	lb := Leaderboard{Rows: make([]snapshots.TrendingRow, len(out)), refs: make([]snapshots.Grade, len(out))}
	for i, x := range out {
		lb.Rows[i], lb.refs[i] = x.TrendingRow, x.ref
	}
	return lb, nil
}

// freshFeed reports whether a row of printing finish of c that failed l by
// its sales passes by the feed rule (Liquidity.KeepRow): its reference
// series (grade ref of series) is a fresh source's and its price passes.
// Only a snapshot built from sources has such rows.
func freshFeed(r snapshots.Reader, asOf snapshots.Day, c *snapshots.Card, finish int, ref snapshots.Grade, series []snapshots.PriceSeries, l Liquidity) (bool, error) {
	if r.Manifest().MarketSource != snapshots.MarketSources {
		return false, nil
	}
	p, ok := snapshots.PointAt(snapshots.SeriesOf(series, ref), asOf)
	if !ok || !estimate.Default.SourceFresh(int(asOf-p.Day)) || !estimate.Default.LiquidFeed(l.MinSales, p.FMVCents, l.MinPriceCents) {
		return false, nil
	}
	prov, err := ReadProvenance(r, c)
	if err != nil {
		return false, err
	}
	return prov.SeriesOrigin(finish, ref).Field != "", nil
}

// ListingPrinting is the printing of card c listing l is for: the variant
// its finish names, else the card's base printing (as the builder counts
// them).
func ListingPrinting(c *snapshots.Card, l *snapshots.Listing) int {
	for i, v := range c.Variants {
		if v == l.Finish {
			return i
		}
	}
	return snapshots.BasePrinting(c)
}

// TrendingRequest asks for a page of a trending ranking: the precomputed
// ranking of a metric, window and language (Trending), or with Custom one
// of Days days ending at as_of whose sales Keep selects (nil: every grade;
// CustomTrending); rows that pass Liquidity, highest value first (lowest
// with Asc).
type TrendingRequest struct {
	Game, Metric, Window, Language string
	Custom                         bool
	Days                           int
	Keep                           func(snapshots.Grade) bool
	Liquidity                      Liquidity
	Asc                            bool
	Offset, Limit                  int
}

// TrendingPage is a page of a ranking: how many rows passed the liquidity
// rule, and the items of the page.
type TrendingPage struct {
	Total int
	Items []TrendingItem
}

// RankTrending is the page q asks for, from the snapshot r reads (as of
// asOf): REST's trending route, the dashboard's movers and the agent's
// trending tool.
func RankTrending(r snapshots.Reader, asOf snapshots.Day, q TrendingRequest) (TrendingPage, error) {
	var lb Leaderboard
	var err error
	if q.Custom {
		lb, err = CustomTrending(r, asOf, q.Game, q.Metric, q.Days, q.Language, q.Keep, q.Liquidity)
	} else {
		lb, err = Trending(r, q.Game, q.Metric, q.Window, q.Language, q.Liquidity)
	}
	if err != nil {
		return TrendingPage{}, err
	}
	items, err := Ranked(r, q.Game, q.Metric, lb, q.Asc, q.Offset, q.Limit)
	if err != nil {
		return TrendingPage{}, err
	}
	return TrendingPage{Total: len(lb.Rows), Items: items}, nil
}

// SetTrendingCards is set-trending-cards.v2: a set's cards in a trending
// ranking.
type SetTrendingCards struct {
	SetID     string `json:"set_id"`
	Name      string `json:"name"`
	Metric    string `json:"metric"`
	Window    string `json:"window"`
	Direction string `json:"direction"`
	AsOf      string `json:"as_of"`
	// MinSales and MinPriceUSD are the liquidity rule the rows passed.
	MinSales    int            `json:"min_sales"`
	MinPriceUSD float64        `json:"min_price_usd"`
	Total       int            `json:"total"`
	Limit       int            `json:"limit"`
	Items       []TrendingItem `json:"items"`
	Basis       string         `json:"basis"`
}

// NewSetTrendingCards is the first q.Limit of rows, the rows of set s in
// the ranking of q.Game, q.Metric and q.Window under q.Liquidity (catalog's
// SetTrending), ranked as q asks.
func NewSetTrendingCards(r snapshots.Reader, asOf snapshots.Day, s *snapshots.Set, rows []snapshots.TrendingRow, q TrendingRequest) (SetTrendingCards, error) {
	items, err := Ranked(r, q.Game, q.Metric, Leaderboard{Rows: rows}, q.Asc, 0, q.Limit)
	if err != nil {
		return SetTrendingCards{}, err
	}
	direction := "desc"
	if q.Asc {
		direction = "asc"
	}
	return SetTrendingCards{SetID: s.ID, Name: s.Name, Metric: q.Metric, Window: q.Window, Direction: direction, AsOf: asOf.String(),
		MinSales: q.Liquidity.MinSales, MinPriceUSD: snapshots.USD(q.Liquidity.MinPriceCents), Total: len(rows), Limit: q.Limit, Items: items,
		Basis: q.Liquidity.Basis()}, nil
}
