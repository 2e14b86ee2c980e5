package edge

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

func (s *Server) registerMarketRoutes() {
	s.router.add(&route{method: "GET", pattern: "/api/v3/trending", name: "trending", contract: "trending.v1", keyless: true, cacheable: true, hasGame: true,
		summary: "Trending cards leaderboard", schema: "Trending",
		params: []paramSpec{
			pEnum("metric", "composite", snapshots.TrendingMetrics, "Ranking metric; slab_* metrics use the first grader's graded sales only."),
			pEnum("window", "30d", pricing.TrendingWindowNames(), "Window counted back from as_of."),
			pInt("window_days", 1, 365, "", "Custom window in days; overrides window."),
			pEnum("language", "all", append(append([]string{}, languageEnum...), "all"), "Card language."),
			pEnum("direction", "desc", []string{"asc", "desc"}, "desc: highest values first."),
			pInt("limit", 1, 200, "50", "Rows to return."),
			pIntMin("offset", 0, "0", "Rows to skip."),
			pStr("grader", 16, "Rank on this grader's graded sales only (slab, bgs, cgc)."),
			pFloat("grade_num", 0, 10, true, "With grader: rank on this grade only."),
			minSalesParam(), minPriceParam(),
			gameParam(),
		},
		handle: handleTrending})
	s.router.add(&route{method: "GET", pattern: "/api/v3/market/volume", name: "market_volume", contract: "market-volume.v1", cacheable: true, hasGame: true,
		summary: "Market-wide volume by set", schema: "MarketVolume",
		params: []paramSpec{
			pInt("days", 1, 730, "90", "Days counted back from as_of."),
			pEnum("language", "en", append(append([]string{}, languageEnum...), "all"), "Card language."),
			pEnum("granularity", "daily", []string{"daily", "weekly", "monthly"}, "Period of the series."),
			minSalesParam(), minPriceParam(),
			gameParam(),
		},
		handle: handleMarketVolume})
	s.router.add(&route{method: "GET", pattern: "/api/v3/shop/listings", name: "shop_listings", contract: "shop-listings.v1", cacheable: true, hasGame: true,
		summary: "Shop listings (beta: deal_score and platform_freshness_h are experimental)", schema: "ListingPage",
		params: []paramSpec{
			pStr("platforms", 256, "all, or a comma list of marketplaces."),
			pStr("q", 256, "Case- and accent-insensitive substring of the card name."),
			pStr("card_id", 128, "Only listings of this card."),
			pEnum("sort", "price_asc", []string{"price_asc", "price_desc", "deal_score", "newest"}, "Sort order."),
			pIntMin("offset", 0, "0", "Rows to skip."),
			pInt("limit", 1, 100, "50", "Rows to return."),
			gameParam(),
		},
		handle: handleShopListings})
}

func handleTrending(r *request) (any, error) {
	p := r.p
	metric, window, lang := p.str("metric"), p.str("window"), p.str("language")
	var verrs validationErrors
	gi := -1
	if g := strings.ToLower(p.str("grader")); g != "" {
		if gi = snapshots.GraderIndex(g); gi < 0 {
			verrs = append(verrs, queryError("grader", "grader must be one of "+strings.Join(snapshots.Graders, ", "), "enum", p.str("grader"), nil))
		}
	}
	if p.has("grade_num") {
		n := p.num("grade_num")
		if !p.has("grader") {
			verrs = append(verrs, queryError("grade_num", "grade_num needs grader", "value_error", n, nil))
		} else if n < 1 || n*2 != math.Trunc(n*2) {
			verrs = append(verrs, queryError("grade_num", "grade_num must be 1 to 10 in steps of 0.5", "value_error", n, nil))
		}
	}
	if gi >= 0 && (metric == "new_listings" || strings.HasPrefix(metric, "slab_")) {
		verrs = append(verrs, queryError("metric", "with grader, use the plain metrics (volume_pct, price_pct, composite, volume_usd, sales_count); the grader selects the sales", "value_error", metric, nil))
	}
	if len(verrs) > 0 {
		return nil, verrs
	}
	liq := r.liquidity()
	var lb pricing.Leaderboard
	var err error
	days := 0
	for _, w := range snapshots.TrendingWindows {
		if w.Name == window {
			days = w.Days
		}
	}
	custom := p.has("window_days") || gi >= 0
	if p.has("window_days") {
		days = p.int("window_days")
		window = ""
	}
	if !custom {
		if lb, err = pricing.Trending(r.snap.Reader, r.game, metric, window, lang, liq); err != nil {
			return nil, err
		}
	} else {
		var keep func(snapshots.Grade) bool
		if gi >= 0 {
			keep = func(g snapshots.Grade) bool {
				if p.has("grade_num") {
					return g == snapshots.GradedGrade(gi, p.num("grade_num"))
				}
				return g.Grader() == gi
			}
		}
		if lb, err = pricing.CustomTrending(r.snap.Reader, r.snap.AsOf, r.game, metric, days, lang, keep, liq); err != nil {
			return nil, err
		}
	}
	offset, limit := p.int("offset"), p.int("limit")
	items, err := pricing.Ranked(r.snap.Reader, r.game, metric, lb, p.str("direction") == "asc", offset, limit)
	if err != nil {
		return nil, err
	}
	out := trendingPayload{Metric: metric, Window: jsontext.StrOrNil(window), WindowDays: days, Language: lang, Direction: p.str("direction"),
		Grader: jsontext.StrOrNil(p.str("grader")), AsOf: r.snap.AsOf.String(), MinSales: liq.MinSales, MinPriceUSD: snapshots.USD(liq.MinPriceCents),
		Total: len(lb.Rows), Offset: offset, Limit: limit, Items: items, Basis: liq.Basis()}
	if p.has("grade_num") {
		n := p.num("grade_num")
		out.GradeNum = &n
	}
	return out, nil
}

// minSalesParam and minPriceParam are the liquidity parameters of the
// leaderboards (trending, set trending cards, market volume).
func minSalesParam() paramSpec {
	p := pInt("min_sales", 0, 100000, "", "Extension (not in the spec): least verified sales of a row in the window (in the last 30 days for shorter windows); "+
		"default the methodology's liquidity rule (see /api/v3/methodology, liquidity.min_sales). 0 ranks every row with activity.")
	p.extension = true
	return p
}

func minPriceParam() paramSpec {
	p := pFloat("min_price_usd", 0, 1e9, true, "Extension (not in the spec): least price of a row in USD; default the methodology's liquidity rule "+
		"(liquidity.min_price_usd). 0 ranks rows of any price.")
	p.extension = true
	return p
}

// liquidity is the request's leaderboard filter: the methodology's rule,
// with min_sales and min_price_usd when given.
func (r *request) liquidity() pricing.Liquidity {
	l := pricing.DefaultLiquidity()
	if r.p.has("min_sales") {
		l.MinSales = r.p.int("min_sales")
	}
	if r.p.has("min_price_usd") {
		l.MinPriceCents = int64(math.Round(r.p.num("min_price_usd") * 100))
	}
	return l
}

type trendingPayload struct {
	Metric     string   `json:"metric"`
	Window     *string  `json:"window"`
	WindowDays int      `json:"window_days"`
	Language   string   `json:"language"`
	Direction  string   `json:"direction"`
	Grader     *string  `json:"grader"`
	GradeNum   *float64 `json:"grade_num"`
	AsOf       string   `json:"as_of"`
	// MinSales and MinPriceUSD are the liquidity rule the rows passed.
	MinSales    int                    `json:"min_sales"`
	MinPriceUSD float64                `json:"min_price_usd"`
	Total       int                    `json:"total"`
	Offset      int                    `json:"offset"`
	Limit       int                    `json:"limit"`
	Items       []pricing.TrendingItem `json:"items"`
	Basis       string                 `json:"basis"`
}

func handleMarketVolume(r *request) (any, error) {
	days, lang, gran := r.p.int("days"), r.p.str("language"), r.p.str("granularity")
	sets, err := r.snap.Sets(r.game)
	if err != nil {
		return nil, err
	}
	liq := r.liquidity()
	m := &estimate.Default
	from, to := r.snap.AsOf-snapshots.Day(days)+1, r.snap.AsOf
	sampleFrom := to - snapshots.Day(m.SalesDays(days)) + 1
	var rows []setVolumeRow
	var all []snapshots.DailyStat
	var totalCents int64
	totalSales := 0
	for _, s := range sets {
		if lang != "all" && s.Language != lang {
			continue
		}
		daily, err := r.snap.SetDaily(r.game, s.ID)
		if err != nil {
			return nil, err
		}
		row := setVolumeRow{SetID: s.ID, Name: s.Name, Language: s.Language, Flags: []string{}}
		var cents int64
		thin, last := 0, snapshots.NoDay
		for _, d := range daily {
			if d.Day > to {
				continue
			}
			if d.Day >= from {
				row.Sales += d.Sales
				cents += d.VolumeCents
				all = append(all, d)
			}
			if d.Day >= sampleFrom {
				row.SampleSize += d.Sales
			}
			if d.Day > to-snapshots.Day(m.Thin.Days) {
				thin += d.Sales
			}
			if d.Sales > 0 {
				last = max(last, d.Day)
			}
		}
		if row.Sales == 0 {
			continue
		}
		totalCents += cents
		totalSales += row.Sales
		avg := int64(math.Round(float64(cents) / float64(row.Sales)))
		if !liq.Keep(row.SampleSize, avg) {
			continue
		}
		row.VolumeUSD, row.AvgPriceUSD = snapshots.USD(cents), snapshots.USD(avg)
		if thin < m.Thin.Sales {
			row.Flags = append(row.Flags, estimate.FlagThin.Names()...)
		}
		if last == snapshots.NoDay || to-last > snapshots.Day(m.StaleDays) {
			row.Flags = append(row.Flags, estimate.FlagStale.Names()...)
		}
		rows = append(rows, row)
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].VolumeUSD > rows[j].VolumeUSD })
	for i := range rows {
		rows[i].SharePct = snapshots.Round2(100 * rows[i].VolumeUSD / math.Max(0.01, snapshots.USD(totalCents)))
	}
	return marketVolumePayload{
		Game: r.game, Language: lang, Granularity: gran, Days: days, From: from.String(), To: to.String(),
		TotalSales: totalSales, TotalVolumeUSD: snapshots.USD(totalCents), Series: bucketDaily(all, from, to, gran),
		MinSales: liq.MinSales, MinPriceUSD: snapshots.USD(liq.MinPriceCents),
		Sets: jsontext.NonNil(rows),
		Basis: fmt.Sprintf("verified sales; totals and series count every set of the language; sets lists, by volume, the sets with at least %d verified sales "+
			"in the window (in the last %d days for shorter windows: sample_size) and an average sale price of at least $%.2f (min_sales and min_price_usd change it; "+
			"the methodology's liquidity rule, /api/v3/methodology); share_pct is of the total volume",
			liq.MinSales, m.Liquidity.ShortWindowDays, snapshots.USD(liq.MinPriceCents)),
	}, nil
}

type setVolumeRow struct {
	SetID     string  `json:"set_id"`
	Name      string  `json:"name"`
	Language  string  `json:"language"`
	Sales     int     `json:"sales"`
	VolumeUSD float64 `json:"volume_usd"`
	SharePct  float64 `json:"share_pct"`
	// AvgPriceUSD is the average verified sale price of the window (the
	// price the liquidity rule looks at), SampleSize the verified sales the
	// rule counts.
	AvgPriceUSD float64  `json:"avg_price_usd"`
	SampleSize  int      `json:"sample_size"`
	Flags       []string `json:"flags"`
}

type marketVolumePayload struct {
	Game           string         `json:"game"`
	Language       string         `json:"language"`
	Granularity    string         `json:"granularity"`
	Days           int            `json:"days"`
	From           string         `json:"from"`
	To             string         `json:"to"`
	TotalSales     int            `json:"total_sales"`
	TotalVolumeUSD float64        `json:"total_volume_usd"`
	Series         []periodRow    `json:"series"`
	MinSales       int            `json:"min_sales"`
	MinPriceUSD    float64        `json:"min_price_usd"`
	Sets           []setVolumeRow `json:"sets"`
	Basis          string         `json:"basis"`
}

type listingRow struct {
	ListingID          string   `json:"listing_id"`
	CardID             string   `json:"card_id"`
	Name               string   `json:"name"`
	SetID              string   `json:"set_id"`
	Platform           string   `json:"platform"`
	Grade              string   `json:"grade"`
	Finish             *string  `json:"finish"`
	AskUSD             float64  `json:"ask_usd"`
	ShippingUSD        float64  `json:"shipping_usd"`
	ListedDate         string   `json:"listed_date"`
	Quantity           int      `json:"quantity"`
	FMVUSD             *float64 `json:"fmv_usd"`
	DealScore          float64  `json:"deal_score"`
	PlatformFreshnessH int      `json:"platform_freshness_h"`
}

func handleShopListings(r *request) (any, error) {
	p := r.p
	keep, err := marketplaceFilter("platforms", p.str("platforms"))
	if err != nil {
		return nil, err
	}
	all, err := r.snap.AllListings(r.game)
	if err != nil {
		return nil, err
	}
	q := index.Fold(strings.TrimSpace(p.str("q")))
	cardID := p.str("card_id")
	if cardID != "" {
		if _, err := r.snap.Card(r.game, cardID); err != nil {
			return nil, err
		}
	}
	var matches []*snapshots.Listing
	for _, l := range all {
		if cardID != "" && !strings.EqualFold(l.CardID, cardID) {
			continue
		}
		if keep != 0 {
			if mk, _ := snapshots.ParseMarketplace(l.Platform); !keep.Has(mk) {
				continue
			}
		}
		if q != "" {
			c, err := r.snap.Card(r.game, l.CardID)
			if err != nil || !strings.Contains(index.Fold(c.Name), q) {
				continue
			}
		}
		matches = append(matches, l)
	}
	switch p.str("sort") {
	case "price_desc":
		matches = append([]*snapshots.Listing{}, matches...)
		slices.Reverse(matches)
		sort.SliceStable(matches, func(i, j int) bool { return matches[i].AskCents > matches[j].AskCents })
	case "deal_score":
		sort.SliceStable(matches, func(i, j int) bool { return matches[i].DealScore > matches[j].DealScore })
	case "newest":
		sort.SliceStable(matches, func(i, j int) bool { return matches[i].ListedDay > matches[j].ListedDay })
	}
	pg := paginate(matches, p.int("offset"), p.int("limit"))
	items := make([]listingRow, 0, len(pg.Items))
	for _, l := range pg.Items {
		row := listingRow{ListingID: l.ID, CardID: l.CardID, Platform: l.Platform, Grade: l.Grade, Finish: jsontext.StrOrNil(l.Finish),
			AskUSD: snapshots.USD(l.AskCents), ShippingUSD: snapshots.USD(l.ShippingCents), ListedDate: l.ListedDay.String(), Quantity: l.Quantity,
			DealScore: snapshots.Round2(l.DealScore), PlatformFreshnessH: l.PlatformFreshnessH}
		if c, err := r.snap.Card(r.game, l.CardID); err == nil {
			row.Name, row.SetID = c.Name, c.SetID
			if price, err := snapshots.ShownPrice(r.snap.Reader, c); err == nil {
				row.FMVUSD = snapshots.USDOrNil(price)
			}
		}
		items = append(items, row)
	}
	return listingsPayload{Items: items, Total: pg.Total, Offset: pg.Offset, Limit: pg.Limit, Beta: true,
		Note: "beta route: deal_score (100 x (1 - ask / fmv)) and platform_freshness_h are experimental and may change"}, nil
}

type listingsPayload struct {
	Items  []listingRow `json:"items"`
	Total  int          `json:"total"`
	Offset int          `json:"offset"`
	Limit  int          `json:"limit"`
	Beta   bool         `json:"beta"`
	Note   string       `json:"note"`
}
