package edge

import (
	"fmt"
	"math"
	"strings"

	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

func (s *Server) registerMarketRoutes() {
	s.router.add(&route{method: "GET", pattern: "/api/v3/trending", name: "trending", contract: "trending.v1", keyless: true, cacheable: true, hasGame: true,
		summary: "Trending cards leaderboard", schema: "Trending",
		params: []paramSpec{
			pEnum("metric", pricing.MoversMetric, snapshots.TrendingMetrics, "Ranking metric; slab_* metrics use the first grader's (PSA's) graded sales only. "+
				"The default, composite, is the movers' ranking the dashboard and the chat share: price change weighted with volume change and by the sales behind it."),
			pEnum("window", "30d", pricing.TrendingWindowNames(), "Window counted back from as_of."),
			pInt("window_days", 1, 365, "", "Custom window in days; overrides window."),
			pEnum("language", "all", append(append([]string{}, languageEnum...), "all"), "Card language."),
			pEnum("direction", "desc", []string{"asc", "desc"}, "desc: highest values first."),
			pInt("limit", 1, 200, "50", "Rows to return."),
			pIntMin("offset", 0, "0", "Rows to skip."),
			pStr("grader", 16, "Rank on this grader's graded sales only (PSA or slab, BGS, CGC)."),
			pFloat("grade_num", 0, 10, true, "With grader: rank on this grade only."),
			minSalesParam(), moversMinPriceParam(),
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
	if g := strings.TrimSpace(p.str("grader")); g != "" {
		if gi = snapshots.ReadGrader(g); gi < 0 { // PSA is slab
			verrs = append(verrs, queryError("grader", "grader must be one of "+strings.Join(snapshots.Graders, ", ")+" (slab is PSA)", "enum", p.str("grader"), nil))
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
	liq := r.liquidityOr(pricing.MoversLiquidity())
	q := pricing.TrendingRequest{Game: r.game, Metric: metric, Window: window, Language: lang, Liquidity: liq,
		Asc: p.str("direction") == "asc", Offset: p.int("offset"), Limit: p.int("limit")}
	for _, w := range snapshots.TrendingWindows {
		if w.Name == window {
			q.Days = w.Days
		}
	}
	if p.has("window_days") {
		q.Days, q.Window = p.int("window_days"), ""
	}
	q.Custom = p.has("window_days") || gi >= 0 // ranked for this request, not precomputed
	if gi >= 0 {
		q.Keep = func(g snapshots.Grade) bool {
			if p.has("grade_num") {
				return g == snapshots.GradedGrade(gi, p.num("grade_num"))
			}
			return g.Grader() == gi
		}
	}
	pg, err := pricing.RankTrending(r.snap.Reader, r.snap.AsOf, q)
	if err != nil {
		return nil, err
	}
	var gradeNum *float64
	if p.has("grade_num") {
		n := p.num("grade_num")
		gradeNum = &n
	}
	return pricing.NewTrendingBoard(q, pg, r.snap.AsOf, gi, gradeNum), nil
}

// minSalesParam and minPriceParam are the liquidity parameters of the
// leaderboards (trending, set trending cards, market volume).
func minSalesParam() paramSpec {
	p := pInt("min_sales", 0, 100000, "", "Extension (not in the spec): least verified sales of a row in the window (in the last 30 days for shorter windows); "+
		"default the methodology's liquidity rule (see /api/v3/methodology, liquidity.min_sales). 0 ranks every row with activity.")
	p.extension = true
	return p
}

// moversMinPriceParam is the price floor of the movers (trending): default
// the methodology's movers floor (pricing.MoversLiquidity).
func moversMinPriceParam() paramSpec {
	p := pFloat("min_price_usd", 0, 1e9, true, fmt.Sprintf("Extension (not in the spec): least price of a row in USD; default $%.2f, the methodology's floor of the movers "+
		"(liquidity.movers_min_price_usd: a collector's floor, under which a card is bulk), shared with the dashboard's movers page and the chat. 0 ranks rows of any price.",
		estimate.Default.Liquidity.MoversMinPriceUSD))
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
func (r *request) liquidity() pricing.Liquidity { return r.liquidityOr(pricing.DefaultLiquidity()) }

// liquidityOr is the request's leaderboard filter: l, with min_sales and
// min_price_usd when given.
func (r *request) liquidityOr(l pricing.Liquidity) pricing.Liquidity {
	if r.p.has("min_sales") {
		l.MinSales = r.p.int("min_sales")
	}
	if r.p.has("min_price_usd") {
		l.MinPriceCents = int64(math.Round(r.p.num("min_price_usd") * 100))
	}
	return l
}

func handleMarketVolume(r *request) (any, error) {
	return pricing.NewMarketVolume(r.snap.Reader, r.snap.AsOf, r.game, r.p.int("days"), r.p.str("language"), r.p.str("granularity"), r.liquidity())
}

func handleShopListings(r *request) (any, error) {
	p := r.p
	platforms, err := marketplaceFilter("platforms", p.str("platforms"))
	if err != nil {
		return nil, err
	}
	return pricing.ShopListings(r.snap.Reader, pricing.ListingsRequest{Game: r.game, Platforms: platforms, Q: p.str("q"), CardID: p.str("card_id"),
		Sort: p.str("sort"), Offset: p.int("offset"), Limit: p.int("limit")})
}
