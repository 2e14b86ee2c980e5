package edge

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/catalog"
	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
)

var languageEnum = []string{"en", "ja", "zh-cn", "zh-tw"}

func gameParam() paramSpec {
	return paramSpec{name: "game", kind: kString, maxLen: 32, doc: "Game; one of the snapshot's games, default the first (pokemon)."}
}

func (s *Server) registerCardRoutes() {
	s.router.add(&route{method: "GET", pattern: "/api/v3/cards", name: "cards_list", contract: "card-gold.v3", cacheable: true, hasGame: true,
		summary: "Paginated card list", schema: "CardPage",
		params: []paramSpec{
			pStr("q", 256, "Case- and accent-insensitive substring of the card name or id, with the search syntax's terms (see below).\n\n"+syntax.Doc),
			pStr("set_id", 64, "Only cards of this set."),
			pEnum("language", "", languageEnum, "Only cards of this language."),
			pStr("rarity", 64, "Only cards of this rarity (case-insensitive)."),
			pStr("variant", 64, "Only cards with this variant (finish)."),
			pStr("card_number", 32, "Only cards with this collector number (leading zeros and a /total ignored)."),
			pStr("marketplace", 256, "Comma list of marketplaces or venues; partner_feed is an alias of partner."),
			pStr("source", 256, "Alias of marketplace."),
			pEnum("marketplace_mode", "any", []string{"any", "only"}, "any: a card matches if any listed marketplace has its sales; only: every populated source of the card is in the list."),
			pEnum("sort", "volume", []string{"volume", "name", "price"}, "Sort key."),
			pEnum("order", "desc", []string{"asc", "desc"}, "Sort order."),
			pIntMin("offset", 0, "0", "Rows to skip."),
			pInt("limit", 1, 200, "50", "Rows to return."),
			gameParam(),
		},
		handle: handleCardsList})
	s.router.add(&route{method: "GET", pattern: "/api/v3/cards/{card_id}", name: "card_get", contract: "card-gold.v3", keyless: true, cacheable: true, hasGame: true,
		summary: "Card detail", schema: "Card",
		params: []paramSpec{
			pStr("include", 256, "Comma list of subresources: "+strings.Join(pricing.IncludeNames, ", ")+"."),
			finishParam(),
			gameParam(),
		},
		handle: handleCardGet})
	s.router.add(&route{method: "GET", pattern: "/api/v3/cards/{card_id}/analytics", name: "card_analytics", contract: "card-analytics.v1", cacheable: true, hasGame: true,
		summary: "Card analytics for a window", schema: "CardAnalytics",
		params: []paramSpec{
			pEnum("window", "1y", []string{"1y", "6m", "3m", "1m", "1w", "all"}, "Analytics window, counted back from the snapshot's as_of."),
			finishParam(),
			gameParam(),
		},
		handle: handleCardAnalytics})
	s.router.add(&route{method: "GET", pattern: "/api/v3/cards/{card_id}/market-history", name: "card_market_history", contract: "market-history.v1", keyless: true, cacheable: true, hasGame: true,
		summary: "Daily market history", schema: "MarketHistory",
		params: []paramSpec{
			pStr("condition", 64, "A raw condition (near_mint, NM, near mint ...), raw, graded, a grader (PSA, BGS, CGC) or a grade (PSA 10, BGS 9.5, raw:near_mint, slab:10)."),
			pStr("source", 32, "Only sales of this marketplace."),
			pDate("date_from", "First day, YYYY-MM-DD (clamped to the tier's history window)."),
			pDate("date_to", "Last day, YYYY-MM-DD."),
			pDate("since", "Alias of date_from; overrides it."),
			pInt("limit", 1, 2000, "365", "Most recent days to return."),
			gameParam(),
		},
		handle: handleMarketHistory})
	s.router.add(&route{method: "GET", pattern: "/api/v3/cards/{card_id}/marketplace-sales", name: "card_marketplace_sales", contract: "marketplace-sales.v1", keyless: true, cacheable: true, hasGame: true,
		summary: "Per-marketplace raw sales", schema: "MarketplaceSales",
		params: []paramSpec{
			pStr("condition", 64, "A raw condition (NM, near mint, near_mint ...), raw, graded, a grader (PSA, BGS, CGC) or a grade (PSA 10, BGS 9.5, slab:10)."),
			pStr("source", 32, "Only this marketplace."),
			pInt("limit", 1, 2000, "365", "Most recent sales to return."),
			pDate("date_from", "First day (clamped to the tier's history window)."),
			pDate("date_to", "Last day."),
			pDate("since", "Alias of date_from; overrides it."),
			gameParam(),
		},
		handle: handleMarketplaceSales})
	s.router.add(&route{method: "GET", pattern: "/api/v3/cards/{card_id}/price-history", name: "card_price_history", contract: "price-history.v3", cacheable: true, hasGame: true,
		summary: "Graded oracle price history", schema: "PriceHistory",
		params: []paramSpec{
			pStr("grade", 256, gradeDoc+" Default Raw, near mint."),
			pEnum("method", "fmv", []string{"fmv", "tvwap", "median"}, "Price method."),
			pEnum("language", "", languageEnum, "Language edition; default the card's own. Another language follows the en_card_id link."),
			gameParam(),
			pDate("date_from", "First day (clamped to the tier's history window)."),
			pDate("date_to", "Last day (default as_of)."),
			pDate("since", "Alias of date_from; overrides it."),
			pEnum("interval", "day", []string{"day", "week", "change"}, "day: one point per day (carried forward); week: the last point of each week (weeks start Monday); change: only days the price changed."),
			pInt("limit", 1, 2000, "365", "Points to return (the newest, after offset)."),
			pIntMin("offset", 0, "0", "Newest points to skip."),
			finishParam(),
		},
		handle: handlePriceHistory})
	s.router.add(&route{method: "GET", pattern: "/api/v3/cards/{card_id}/sales", name: "card_sales", contract: "card-sales.v1", keyless: true, cacheable: true, hasGame: true,
		summary: "Verified sales, cursor-paginated", schema: "SalesPage",
		params: []paramSpec{
			pStr("cursor", 512, "Opaque next_cursor of the previous page."),
			pDate("since", "Only sales on or after this day (clamped to the tier's history window)."),
			pInt("limit", 1, 200, "50", "Rows per page."),
			pBool("include_filtered", "false", "Include sales flagged by quality rules."),
			pBool("include_untrusted_identity", "false", "Include low-confidence identity matches (disagree_medium, disagree_high)."),
			pEnum("trade_type", "", snapshots.TradeTypeNames(), "Only this trade type."),
			pBool("include_price_feed", "false", "Include partner price-feed snapshot rows (daily medians, not sales)."),
			gameParam(),
		},
		handle: handleSales})
	s.router.add(&route{method: "GET", pattern: "/api/v3/cards/{card_id}/partner-history", name: "card_partner_history", contract: "partner-history.v1", keyless: true, cacheable: true, hasGame: true,
		summary: "Partner marketplace daily price and sales", schema: "PartnerHistory",
		params: []paramSpec{pInt("limit", 1, 2000, "365", "Most recent days to return."), gameParam()},
		handle: handlePartnerHistory})
	s.router.add(&route{method: "GET", pattern: "/api/v3/cards/{card_id}/vwap", name: "card_vwap", contract: "vwap.v1", cacheable: true, hasGame: true,
		summary: "Volume-weighted average price", schema: "VWAP",
		params: []paramSpec{
			pStr("condition", 32, "Raw condition (near_mint, NM, near mint ...); sets raw sales only."),
			pStr("grader", 16, "Grader (PSA or slab, BGS, CGC); graded sales of that grader."),
			pFloat("grade_num", 0, 10, true, "Grade number with grader (e.g. 10, 9.5)."),
			pStr("language", 16, "Must match the card's language when given."),
			pInt("window_days", 1, 365, "30", "Days counted back from as_of (clamped to the tier's history window)."),
			finishParam(),
			gameParam(),
		},
		handle: handleVWAP})
	s.router.add(&route{method: "POST", pattern: "/api/v3/cards/batch", name: "cards_batch", contract: "card-gold.v3", cacheable: true, hasGame: false,
		summary: "Batch card lookup (Pro: 50 ids, Elite: 100; Free: 403); costs one unit per unique card its ids name (at least one)", schema: "CardBatch",
		cost: batchCost, handle: handleBatch})
}

// cardOf resolves the {card_id} path variable: a card id or a partner
// product id (resolve.ByID, the id rule of every route).
func (r *request) cardOf() (*snapshots.Card, error) {
	c, _, err := resolve.ByID(r.snap.Reader, r.game, r.vars.v[0])
	return c, err
}

func (r *request) setOf(c *snapshots.Card) *snapshots.Set { return r.snap.setOf(c) }

func handleCardsList(r *request) (any, error) {
	f, err := parseCardFilter(r.p)
	if err != nil {
		return nil, err
	}
	// q with the search syntax: its plain words stay a substring of the
	// name or id; its terms select cards on the index (a bitmap the list
	// checks by ordinal).
	parsed, err := parseQ(r.p)
	if err != nil {
		return nil, err
	}
	if parsed.Structured() {
		f.Q = strings.Join(parsed.Text(), " ")
		if f.Syntax, err = r.snap.Index.Match(r.ctx, r.game, parsed.Filter()); err != nil {
			return nil, err
		}
	}
	cards, err := r.snap.catalog.Cards(r.game)
	if err != nil {
		return nil, err
	}
	p := r.p
	offset, limit := p.int("offset"), p.int("limit")
	page, total := cards.List(&f, catalog.OrderOf(p.str("sort"), p.str("order") == "asc"), offset, limit)
	return &cardPage{snap: r.snap, cards: page, total: total, offset: offset, limit: limit}, nil
}

// parseCardFilter reads the filters of a card-list request.
func parseCardFilter(p *params) (catalog.Filter, error) {
	mkList := p.str("marketplace")
	if p.has("source") && !p.has("marketplace") {
		mkList = p.str("source")
	}
	mks, err := snapshots.ParseMarketplaces(mkList)
	if err != nil {
		return catalog.Filter{}, validationErrors{queryError("marketplace", err.Error(), "value_error", mkList, nil)}
	}
	return catalog.Filter{
		HasSet: p.has("set_id"), HasLanguage: p.has("language"), HasRarity: p.has("rarity"), HasVariant: p.has("variant"), HasNumber: p.has("card_number"),
		SetID: p.str("set_id"), Language: p.str("language"), Rarity: p.str("rarity"), Variant: p.str("variant"), Number: p.str("card_number"),
		Q: strings.TrimSpace(p.str("q")), Markets: mks, Only: p.str("marketplace_mode") == "only",
	}, nil
}

// The card payloads encode themselves (pricing.CardDetail,
// pricing.CardAnalytics: AppendJSON, the bytes encoding/json writes without
// reflection); render uses them as jsonAppenders.

var (
	_ jsonAppender = (*pricing.CardDetail)(nil)
	_ jsonAppender = (*cardPage)(nil)
	_ jsonAppender = (*pricing.CardAnalytics)(nil)
)

// cardPage is the card list payload: the bytes encoding/json writes for the
// page[pricing.CardGold] of each card's pricing.NewCardGold (the type
// schema.go documents), written straight from the cards as
// pricing.CardDetail writes one. TestCardsList_Encoding compares the two.
type cardPage struct {
	snap                 *snapshot
	cards                []*snapshots.Card
	total, offset, limit int
}

// AppendJSON implements jsonAppender.
func (p *cardPage) AppendJSON(b []byte) []byte {
	n := 64
	for _, c := range p.cards {
		d := p.snap.cardDetail(c)
		n += d.SizeHint()
	}
	b = slices.Grow(b, n)
	b = append(b, `{"items":[`...)
	for i, c := range p.cards {
		if i > 0 {
			b = append(b, ',')
		}
		d := p.snap.cardDetail(c)
		b = d.AppendJSON(b)
	}
	return appendPageEnd(b, p.total, p.offset, p.limit)
}

// appendPageEnd closes the items of a list payload (page) and writes its
// total, offset and limit, as encoding/json writes them.
func appendPageEnd(b []byte, total, offset, limit int) []byte {
	b = append(b, `],"total":`...)
	b = strconv.AppendInt(b, int64(total), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(offset), 10)
	b = append(b, `,"limit":`...)
	b = strconv.AppendInt(b, int64(limit), 10)
	return append(b, '}')
}

// MarshalJSON encodes the page as AppendJSON does.
func (p *cardPage) MarshalJSON() ([]byte, error) { return p.AppendJSON(nil), nil }
