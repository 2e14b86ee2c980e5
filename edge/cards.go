package edge

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cardedge/cardedge/edge/access"
	"github.com/cardedge/cardedge/edge/resolve"
	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

var languageEnum = []string{"en", "ja", "zh-cn", "zh-tw"}

var includeNames = []string{"price_history", "tvwap_history", "tvwap_slots", "grade_momentum", "recent_sales",
	"market_summary", "grade_breakdown", "population_overview", "grading_economics"}

func gameParam() paramSpec {
	return paramSpec{name: "game", kind: kString, maxLen: 32, doc: "Game; one of the snapshot's games, default the first (pokemon)."}
}

func (s *Server) registerCardRoutes() {
	s.router.add(&route{method: "GET", pattern: "/api/v3/cards", name: "cards_list", contract: "card-gold.v3", cacheable: true, hasGame: true,
		summary: "Paginated card list", schema: "CardPage",
		params: []paramSpec{
			pStr("q", 256, "Case- and accent-insensitive substring of the card name or id."),
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
			pStr("include", 256, "Comma list of subresources: "+strings.Join(includeNames, ", ")+"."),
			gameParam(),
		},
		handle: handleCardGet})
	s.router.add(&route{method: "GET", pattern: "/api/v3/cards/{card_id}/analytics", name: "card_analytics", contract: "card-analytics.v1", cacheable: true, hasGame: true,
		summary: "Card analytics for a window", schema: "CardAnalytics",
		params: []paramSpec{
			pEnum("window", "1y", []string{"1y", "6m", "3m", "1m", "1w", "all"}, "Analytics window, counted back from the snapshot's as_of."),
			gameParam(),
		},
		handle: handleCardAnalytics})
	s.router.add(&route{method: "GET", pattern: "/api/v3/cards/{card_id}/market-history", name: "card_market_history", contract: "market-history.v1", keyless: true, cacheable: true, hasGame: true,
		summary: "Daily market history", schema: "MarketHistory",
		params: []paramSpec{
			pStr("condition", 64, "A raw condition (near_mint ...) or a grade (raw:near_mint, slab:10)."),
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
			pStr("condition", 64, "A raw condition or a grade."),
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
			pStr("grade", 256, "raw:<condition> or <grader>:<number>."),
			pEnum("method", "fmv", []string{"fmv", "tvwap", "median"}, "Price method."),
			pEnum("language", "", languageEnum, "Language edition; default the card's own. Another language follows the en_card_id link."),
			gameParam(),
			pDate("date_from", "First day (clamped to the tier's history window)."),
			pDate("date_to", "Last day (default as_of)."),
			pDate("since", "Alias of date_from; overrides it."),
			pEnum("interval", "day", []string{"day", "week", "change"}, "day: one point per day (carried forward); week: the last point of each week (weeks start Monday); change: only days the price changed."),
			pInt("limit", 1, 2000, "365", "Points to return (the newest, after offset)."),
			pIntMin("offset", 0, "0", "Newest points to skip."),
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
			pStr("condition", 32, "Raw condition (near_mint ...); sets raw sales only."),
			pStr("grader", 16, "Grader (slab, bgs, cgc); graded sales of that grader."),
			pFloat("grade_num", 0, 10, true, "Grade number with grader (e.g. 10, 9.5)."),
			pStr("language", 16, "Must match the card's language when given."),
			pInt("window_days", 1, 365, "30", "Days counted back from as_of (clamped to the tier's history window)."),
			gameParam(),
		},
		handle: handleVWAP})
}

// cardOf resolves the {card_id} path variable: a card id or a partner
// product id (resolve.ByID, the id rule of every route).
func (r *request) cardOf() (*snapshots.Card, error) {
	c, _, err := resolve.ByID(r.snap.Reader, r.game, r.vars.v[0])
	return c, err
}

func (r *request) setOf(c *snapshots.Card) *snapshots.Set { return r.snap.setOf(c) }

// ---- card list ----

func handleCardsList(r *request) (any, error) {
	f, err := parseCardFilter(r.p)
	if err != nil {
		return nil, err
	}
	orders, err := r.snap.orders(r.game)
	if err != nil {
		return nil, err
	}
	p := r.p
	offset, limit := p.int("offset"), p.int("limit")
	cards, total := orders.list(&f, cardOrderOf(p.str("sort"), p.str("order") == "asc"), offset, limit)
	return &cardPage{snap: r.snap, cards: cards, total: total, offset: offset, limit: limit}, nil
}

// parseCardFilter reads the filters of a card-list request.
func parseCardFilter(p *params) (cardFilter, error) {
	mkList := p.str("marketplace")
	if p.has("source") && !p.has("marketplace") {
		mkList = p.str("source")
	}
	mks, err := snapshots.ParseMarketplaces(mkList)
	if err != nil {
		return cardFilter{}, validationErrors{queryError("marketplace", err.Error(), "value_error", mkList, nil)}
	}
	f := cardFilter{
		hasSet:      p.has("set_id"),
		hasLanguage: p.has("language"),
		hasRarity:   p.has("rarity"),
		hasVariant:  p.has("variant"),
		hasNumber:   p.has("card_number"),
		setID:       p.str("set_id"),
		language:    p.str("language"),
		rarity:      p.str("rarity"),
		variant:     p.str("variant"),
		number:      resolve.NormalizeNumber(p.str("card_number")),
		q:           index.Fold(strings.TrimSpace(p.str("q"))),
		only:        p.str("marketplace_mode") == "only",
	}
	f.markets = uint32(mks)
	return f, nil
}

func hasFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// ---- sales ----

type salesPage struct {
	CardID       string            `json:"card_id"`
	Items        []pricing.SaleRow `json:"items"`
	Limit        int               `json:"limit"`
	NextCursor   *string           `json:"next_cursor"`
	WindowStart  *string           `json:"window_start"`
	HistoryDays  *int              `json:"history_days"`
	Filters      salesFilters      `json:"filters"`
	RowsInWindow int               `json:"rows_in_window"`
}

type salesFilters struct {
	Since                    *string `json:"since"`
	IncludeFiltered          bool    `json:"include_filtered"`
	IncludeUntrustedIdentity bool    `json:"include_untrusted_identity"`
	IncludePriceFeed         bool    `json:"include_price_feed"`
	TradeType                *string `json:"trade_type"`
}

func handleSales(r *request) (any, error) {
	c, err := r.cardOf()
	if err != nil {
		return nil, err
	}
	p := r.p
	since, sinceSet := p.day("since")
	since, sinceSet = r.clampSince(since, sinceSet)
	f := salesFilters{
		IncludeFiltered: p.flag("include_filtered"), IncludeUntrustedIdentity: p.flag("include_untrusted_identity"),
		IncludePriceFeed: p.flag("include_price_feed"), TradeType: jsontext.StrOrNil(p.str("trade_type")),
	}
	if sinceSet {
		d := since.String()
		f.Since = &d
	}
	// The cursor binds the card and every filter: a cursor of another query
	// is refused.
	binding := fmt.Sprintf("%s|%s|%s|%v|%v|%v|%s", r.game, strings.ToLower(c.ID), since, f.IncludeFiltered, f.IncludeUntrustedIdentity, f.IncludePriceFeed, p.str("trade_type"))
	var after *cursorPos
	if p.has("cursor") && p.str("cursor") != "" {
		if r.caller.Tier == access.Playground {
			return nil, validationErrors{queryError("cursor", "paging needs an API key: the Playground tier gets the first page only", "value_error", p.str("cursor"), nil)}
		}
		pos, err := decodeCursor(r.srv.opts.CursorSecret, p.str("cursor"), binding)
		if err != nil {
			return nil, validationErrors{queryError("cursor", err.Error(), "value_error", p.str("cursor"), nil)}
		}
		after = &pos
	}
	sales, err := r.snap.Sales(r.game, c.ID)
	if err != nil {
		return nil, err
	}
	sf := pricing.SaleFilter{From: since, FromSet: sinceSet, To: r.snap.AsOf,
		IncludeFiltered: f.IncludeFiltered, IncludeUntrusted: f.IncludeUntrustedIdentity, IncludePriceFeed: f.IncludePriceFeed}
	sf.TradeType, sf.HasTradeType = snapshots.ParseTradeType(p.str("trade_type"))
	out := salesPage{CardID: c.ID, Items: []pricing.SaleRow{}, Limit: p.int("limit"), Filters: f}
	if start, ok := r.windowStart(); ok {
		d := start.String()
		out.WindowStart = &d
		h := r.limits.HistoryDays
		out.HistoryDays = &h
	}
	var last *snapshots.Sale
	more := false
	for s := range sf.Sales(sales) {
		out.RowsInWindow++
		if after != nil && !after.before(s) {
			continue
		}
		if len(out.Items) == out.Limit {
			more = true
			continue
		}
		out.Items = append(out.Items, pricing.NewSaleRow(c, *s))
		last = s
	}
	if more && last != nil && r.caller.Tier != access.Playground {
		cur := encodeCursor(r.srv.opts.CursorSecret, cursorPos{Day: last.Day, ID: last.ID}, binding)
		out.NextCursor = &cur
	}
	return out, nil
}

// cursorPos is the position of the last row of a page: rows sort by day,
// then id, both descending.
type cursorPos struct {
	Day snapshots.Day
	ID  uint64
}

// before reports whether s comes after the position in page order.
func (p cursorPos) before(s *snapshots.Sale) bool {
	return s.Day < p.Day || (s.Day == p.Day && s.ID < p.ID)
}

// encodeCursor: base64url(version, day, id, sha256(binding)[:8]) "." base64url(hmac[:16]).
func encodeCursor(secret []byte, pos cursorPos, binding string) string {
	b := make([]byte, 0, 21)
	b = append(b, 1)
	b = binary.BigEndian.AppendUint32(b, uint32(pos.Day))
	b = binary.BigEndian.AppendUint64(b, pos.ID)
	bh := sha256.Sum256([]byte(binding))
	b = append(b, bh[:8]...)
	mac := hmac.New(sha256.New, secret)
	mac.Write(b)
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:16])
}

func decodeCursor(secret []byte, s, binding string) (cursorPos, error) {
	payload, sig, ok := strings.Cut(s, ".")
	if !ok {
		return cursorPos{}, fmt.Errorf("cursor is not a value this API issued")
	}
	b, err1 := base64.RawURLEncoding.DecodeString(payload)
	m, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || len(b) != 21 || b[0] != 1 {
		return cursorPos{}, fmt.Errorf("cursor is not a value this API issued")
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(b)
	if !hmac.Equal(mac.Sum(nil)[:16], m) {
		return cursorPos{}, fmt.Errorf("cursor signature does not verify")
	}
	bh := sha256.Sum256([]byte(binding))
	if !hmac.Equal(bh[:8], b[13:21]) {
		return cursorPos{}, fmt.Errorf("cursor belongs to another card or other filters; start again without cursor")
	}
	pos := cursorPos{Day: snapshots.Day(binary.BigEndian.Uint32(b[1:])), ID: binary.BigEndian.Uint64(b[5:])}
	if encodeCursor(secret, pos, binding) != s {
		// base64 decoding tolerates newlines and non-zero padding bits: only
		// the exact string issued is accepted (one cursor, one cache entry).
		return cursorPos{}, fmt.Errorf("cursor is not a value this API issued")
	}
	return pos, nil
}

// ---- analytics ----

// analyticsPayload is card-analytics.v1 and the market_summary include. The
// exported fields are its published shape: schema.go reflects them, and the
// tests fill them from the map form of the analytics to encode the reference
// with encoding/json. At run time read leaves them empty: the
// payload encodes itself from the stored window (AppendJSON, MarshalJSON in
// cardjson.go), with no maps and no pointers to build.
type analyticsPayload struct {
	CardID        string             `json:"card_id"`
	Name          string             `json:"name"`
	Window        string             `json:"window"`
	From          string             `json:"from"`
	To            string             `json:"to"`
	Sales         int                `json:"sales"`
	VolumeUSD     float64            `json:"volume_usd"`
	AvgUSD        *float64           `json:"avg_usd"`
	MedianUSD     *float64           `json:"median_usd"`
	LowUSD        *float64           `json:"low_usd"`
	HighUSD       *float64           `json:"high_usd"`
	FirstFMVUSD   *float64           `json:"first_fmv_usd"`
	LastFMVUSD    *float64           `json:"last_fmv_usd"`
	ChangePct     *float64           `json:"change_pct"`
	VolatilityPct *float64           `json:"volatility_pct"`
	ByMarketplace map[string]int     `json:"by_marketplace"`
	ByGrade       map[string]int     `json:"by_grade"`
	GradeMedian   map[string]float64 `json:"grade_median_usd"`
	TradeTypes    map[string]int     `json:"trade_types"`
	PriceBasis    string             `json:"price_basis"`

	card *snapshots.Card
	w    snapshots.WindowAnalytics
	// entries holds w's breakdowns when they fit (read): one allocation
	// with the payload, none with a pooled request's.
	entries [64]snapshots.AnalyticsEntry
}

const analyticsPriceBasis = "verified sales only (quality-flagged, low-confidence identity and price-feed rows excluded); fmv of raw:near_mint for change and volatility"

// cardWindow is the analytics payload of one window of c (read).
func (r *request) cardWindow(c *snapshots.Card, window string) (*analyticsPayload, error) {
	p := &analyticsPayload{}
	if err := p.read(r, c, window); err != nil {
		return nil, err
	}
	return p, nil
}

// read fills p with one analytics window of c; a card without one gets an
// empty window ending at as_of.
func (p *analyticsPayload) read(r *request, c *snapshots.Card, window string) error {
	w, ok, err := r.snap.AnalyticsWindow(c.Game, c.ID, window, p.entries[:0])
	if err != nil {
		return err
	}
	if !ok {
		w = snapshots.WindowAnalytics{Window: window, From: snapshots.NoDay, To: r.snap.AsOf}
	}
	p.card, p.w = c, w
	return nil
}

func handleCardAnalytics(r *request) (any, error) {
	c, err := r.cardOf()
	if err != nil {
		return nil, err
	}
	return r.cardWindow(c, r.p.str("window"))
}

// ---- batch ----

type batchBody struct {
	IDs     []string `json:"ids"`
	Game    string   `json:"game"`
	Profile string   `json:"profile"`
}

var batchProfiles = []string{"core", "market", "full"}

// parseBatch decodes and checks a batch body; the unique ids are its cost.
func parseBatch(r *request) (batchBody, []string, error) {
	return decodeBatch(r.body, r.snap.Manifest().Games)
}

// decodeBatch decodes and checks a batch body against the snapshot's games
// (the first is the default). Every rejection is a validationErrors whose loc
// starts with "body"; one JSON value and nothing after it is accepted.
func decodeBatch(body []byte, games []string) (batchBody, []string, error) {
	var b batchBody
	dec := json.NewDecoder(bytes.NewReader(body))
	err := dec.Decode(&b)
	if err == nil && len(bytes.TrimSpace(body[dec.InputOffset():])) > 0 {
		err = errors.New("data after the JSON object")
	}
	if err != nil {
		return b, nil, validationErrors{{Loc: []any{"body"}, Msg: "body must be a JSON object {\"ids\": [...], \"game\": ..., \"profile\": ...}: " + err.Error(), Type: "json_invalid"}}
	}
	var verrs validationErrors
	if len(b.IDs) == 0 {
		verrs = append(verrs, validationError{Loc: []any{"body", "ids"}, Msg: "ids must be a non-empty array of card ids", Type: "missing"})
	}
	if b.Profile == "" {
		b.Profile = "core"
	}
	if indexOfString(batchProfiles, b.Profile) < 0 {
		verrs = append(verrs, validationError{Loc: []any{"body", "profile"}, Msg: "Input should be " + enumList(batchProfiles), Type: "enum", Input: b.Profile})
	}
	if b.Game == "" {
		b.Game = games[0]
	} else if indexOfString(games, b.Game) < 0 {
		verrs = append(verrs, validationError{Loc: []any{"body", "game"}, Msg: "Input should be " + enumList(games), Type: "enum", Input: b.Game})
	}
	seen := map[string]bool{}
	var unique []string
	for i, id := range b.IDs {
		if id == "" || len(id) > 128 {
			verrs = append(verrs, validationError{Loc: []any{"body", "ids", i}, Msg: "card id must be 1 to 128 characters", Type: "string_too_long", Input: id})
			continue
		}
		k := strings.ToLower(id)
		if !seen[k] {
			seen[k] = true
			unique = append(unique, id)
		}
	}
	if len(verrs) > 0 {
		return b, nil, verrs
	}
	return b, unique, nil
}

func indexOfString(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func batchCost(r *request) (int, error) {
	if err := access.RequireKey(r.caller); err != nil {
		return 0, err
	}
	if r.caller.Tier == access.Free {
		return 0, access.CheckBatch(r.caller, 0)
	}
	b, ids, err := parseBatch(r)
	if err != nil {
		return 0, err
	}
	if err := access.CheckBatch(r.caller, len(ids)); err != nil {
		return 0, validationErrors{{Loc: []any{"body", "ids"}, Msg: snapshots.ErrorMessage(err), Type: "too_long", Ctx: map[string]any{"max_length": r.limits.BatchMax}}}
	}
	cards, _, err := batchCards(r, b.Game, ids)
	if err != nil {
		return 0, err
	}
	return max(1, len(cards)), nil
}

// batchCards resolves the unique ids (card ids or partner product ids,
// resolve.ByID): the distinct cards they name, in first-seen order (what a
// batch costs, at least one unit for the request itself), and the ids that
// name none.
func batchCards(r *request, game string, ids []string) (cards []*snapshots.Card, notFound []string, err error) {
	seen := map[*snapshots.Card]bool{}
	for _, id := range ids {
		c, _, err := resolve.ByID(r.snap.Reader, game, id)
		switch {
		case err == nil:
			if !seen[c] {
				seen[c] = true
				cards = append(cards, c)
			}
		case snapshots.ErrorCode(err) == snapshots.ENOTFOUND:
			notFound = append(notFound, id)
		default:
			return nil, nil, err
		}
	}
	return cards, notFound, nil
}

type batchPayload struct {
	Profile  string         `json:"profile"`
	Items    []cardGold     `json:"items"`
	NotFound []string       `json:"not_found"`
	Cost     int            `json:"cost"`
	Summary  map[string]int `json:"summary"`
}

func handleBatch(r *request) (any, error) {
	b, ids, err := parseBatch(r)
	if err != nil {
		return nil, err
	}
	cards, notFound, err := batchCards(r, b.Game, ids)
	if err != nil {
		return nil, err
	}
	out := batchPayload{Profile: b.Profile, Items: []cardGold{}, NotFound: jsontext.NonNil(notFound), Cost: max(1, len(cards))}
	for _, c := range cards {
		g := newCardGold(c, r.setOf(c))
		var includes []string
		switch b.Profile {
		case "market":
			includes = []string{"market_summary"}
		case "full":
			includes = includeNames
		}
		if len(includes) > 0 {
			if g.Includes, err = r.cardIncludes(c, includes); err != nil {
				return nil, err
			}
		}
		out.Items = append(out.Items, g)
	}
	out.Summary = map[string]int{"requested": len(b.IDs), "unique": len(ids), "found": len(out.Items), "not_found": len(out.NotFound)}
	return out, nil
}
