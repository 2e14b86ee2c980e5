package edge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// Card detail encodes itself: AppendJSON writes the bytes encoding/json
// (SetEscapeHTML(false)) writes for the same values, field for field in
// declaration order, without reflection (render uses it; see jsonAppender).
// TestCardDetail_AppendJSON compares the two for every card of a tiny
// snapshot with every include; change a payload type and its appender
// together.
//
// One difference: encoding/json refuses NaN and infinities (the request
// fails); the appenders write null. No payload here computes either.

var (
	_ jsonAppender = (*cardDetail)(nil)
	_ jsonAppender = (*cardPage)(nil)
	_ jsonAppender = (*analyticsPayload)(nil)
)

// The long constant strings, quoted once.
var (
	quotedAnalyticsPriceBasis = appendJSONStr(nil, analyticsPriceBasis)
)

// cardDetail is the card detail payload (card-gold.v3 with its includes),
// written straight from the card: the bytes encoding/json writes for
// newCardGold(card, set) with Includes, without building the cardGold.
type cardDetail struct {
	card     *snapshots.Card
	set      *snapshots.Set // nil: unknown set
	includes *cardIncludes  // nil: none asked for
	// object is the card's object as encodedCards holds it (nil: encode it
	// from card, set and market).
	object []byte
	market *pricing.MarketObject
}

// AppendJSON implements jsonAppender.
func (d *cardDetail) AppendJSON(b []byte) []byte {
	b = slices.Grow(b, d.sizeHint())
	if d.object != nil {
		b = append(b, d.object...)
	} else {
		b = appendCardObject(b, d.card, d.set, d.market)
	}
	if d.includes != nil {
		b = append(b, `,"includes":`...)
		b = d.includes.appendJSON(b)
	}
	return append(b, '}')
}

// appendCardObject appends the card-gold.v3 object of c with market m,
// without includes and without its closing brace (card detail adds its
// includes there).
func appendCardObject(b []byte, c *snapshots.Card, set *snapshots.Set, m *pricing.MarketObject) []byte {
	b = append(b, `{"card_id":`...)
	b = appendJSONStr(b, c.ID)
	b = append(b, `,"game":`...)
	b = appendJSONStr(b, c.Game)
	b = append(b, `,"name":`...)
	b = appendJSONStr(b, c.Name)
	b = append(b, `,"name_language":`...)
	b = appendJSONStr(b, c.NameLanguage)
	b = append(b, `,"language":`...)
	b = appendJSONStr(b, c.Language)
	b = append(b, `,"set":{"id":`...)
	b = appendJSONStr(b, c.SetID)
	b = append(b, `,"name":`...)
	if set != nil {
		b = appendJSONStr(b, set.Name)
	} else {
		b = append(b, `""`...)
	}
	b = append(b, `},"number":`...)
	b = appendJSONStr(b, c.Number)
	b = append(b, `,"rarity":`...)
	b = appendJSONStrOrNull(b, c.Rarity)
	b = append(b, `,"supertype":`...)
	b = appendJSONStrOrNull(b, c.Supertype)
	b = append(b, `,"subtypes":`...)
	b = appendJSONStrs(b, jsontext.NonNil(c.Subtypes))
	b = append(b, `,"colors":`...)
	b = appendJSONStrs(b, jsontext.NonNil(c.Colors))
	b = append(b, `,"national_dex":`...)
	if c.NationalDex == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, n := range c.NationalDex {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(n), 10)
		}
		b = append(b, ']')
	}
	b = append(b, `,"variants":`...)
	b = appendJSONStrs(b, c.Variants)
	b = append(b, `,"en_card_id":`...)
	b = appendJSONStrOrNull(b, c.ENCardID)
	b = append(b, `,"en_match":`...)
	b = appendJSONStrOrNull(b, c.ENMatch)
	b = append(b, `,"play":`...)
	b = resolve.AppendPlay(b, c.Play)
	b = append(b, `,"partner_product_id":`...)
	if c.PartnerProductID == 0 {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, c.PartnerProductID, 10)
	}
	b = append(b, `,"market_ids":`...)
	b = pricing.AppendMarketLinks(b, snapshots.MarketLinks(c))
	b = append(b, `,"market_sources":`...)
	b = appendJSONStrs(b, jsontext.NonNil(c.MarketSources))
	b = append(b, `,"venues":[`...)
	for i, v := range c.Venues {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"marketplace":`...)
		b = appendJSONStr(b, v)
		b = append(b, '}')
	}
	b = append(b, `],"market":`...)
	return m.AppendJSON(b)
}

// cardPage is the card list payload: the bytes encoding/json writes for the
// page[cardGold] of newCardGold(card, set) of each card (the type schema.go
// documents), written straight from the cards as cardDetail writes one.
// TestCardsList_Encoding compares the two.
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
		n += d.sizeHint()
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

// sizeHint is about the encoded size of d (a little more for typical cards),
// so that the buffer grows once.
func (d *cardDetail) sizeHint() int {
	n := 900 + len(d.card.Name) + 32*(len(d.card.MarketSources)+len(d.card.Venues)) + 300*len(d.card.Variants)
	if d.object != nil {
		n = len(d.object) + 1
	}
	in := d.includes
	if in == nil {
		return n
	}
	for _, h := range []*pricing.HistorySeries{in.PriceHistory, in.TVWAPHistory} {
		if h != nil {
			n += 160 + 110*len(h.Points)
		}
	}
	if in.TVWAPSlots != nil {
		n += 96 + 160*len(in.TVWAPSlots.Slots)
	}
	if in.GradeMomentum != nil {
		n += 64 + 160*len(in.GradeMomentum.Grades)
	}
	if in.RecentSales != nil {
		n += 64 + 256*len(in.RecentSales.Items)
	}
	if in.MarketSummary != nil {
		w := &in.MarketSummary.w
		// Measured: about 500 bytes and 16 per breakdown entry. An
		// overestimate makes the render buffer (4 KiB) grow for a detail
		// that fits it, and fasthttp's buffer pool then drops the grown
		// buffer: keep it close.
		n += 520 + 17*(len(w.ByMarketplace)+len(w.ByGrade)+len(w.GradeMedian)+len(w.TradeTypes))
	}
	if in.GradeBreakdown != nil {
		n += 32 + 160*len(in.GradeBreakdown.Grades)
	}
	if in.PopulationOverview != nil {
		n += 160 + 72*len(in.PopulationOverview.Grades)
	}
	if in.GradingEconomics != nil {
		n += 384
	}
	return n
}

func (in *cardIncludes) appendJSON(b []byte) []byte {
	b = append(b, '{')
	n := len(b)
	field := func(b []byte, name string) []byte {
		if len(b) > n {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, name...)
		return append(b, '"', ':')
	}
	if in.PriceHistory != nil {
		b = in.PriceHistory.AppendJSON(field(b, "price_history"))
	}
	if in.TVWAPHistory != nil {
		b = in.TVWAPHistory.AppendJSON(field(b, "tvwap_history"))
	}
	if in.TVWAPSlots != nil {
		b = in.TVWAPSlots.AppendJSON(field(b, "tvwap_slots"))
	}
	if in.GradeMomentum != nil {
		b = in.GradeMomentum.AppendJSON(field(b, "grade_momentum"))
	}
	if in.RecentSales != nil {
		b = in.RecentSales.AppendJSON(field(b, "recent_sales"))
	}
	if in.MarketSummary != nil {
		b = in.MarketSummary.AppendJSON(field(b, "market_summary"))
	}
	if in.GradeBreakdown != nil {
		b = in.GradeBreakdown.AppendJSON(field(b, "grade_breakdown"))
	}
	if in.PopulationOverview != nil {
		b = in.PopulationOverview.AppendJSON(field(b, "population_overview"))
	}
	if in.GradingEconomics != nil {
		b = in.GradingEconomics.AppendJSON(field(b, "grading_economics"))
	}
	return append(b, '}')
}

// AppendJSON implements jsonAppender: the payload straight from the stored
// window (see analyticsPayload).
func (p *analyticsPayload) AppendJSON(b []byte) []byte {
	w := &p.w
	b = append(b, `{"card_id":`...)
	b = appendJSONStr(b, p.card.ID)
	b = append(b, `,"name":`...)
	b = appendJSONStr(b, p.card.Name)
	b = append(b, `,"window":`...)
	b = appendJSONStr(b, w.Window)
	b = append(b, `,"from":"`...)
	if w.From != snapshots.NoDay {
		b = w.From.AppendFormat(b)
	}
	b = append(b, `","to":"`...)
	if w.To != snapshots.NoDay {
		b = w.To.AppendFormat(b)
	}
	b = append(b, `","sales":`...)
	b = strconv.AppendInt(b, int64(w.Sales), 10)
	b = append(b, `,"volume_usd":`...)
	b = appendUSD(b, w.VolumeCents)
	b = append(b, `,"avg_usd":`...)
	b = appendUSDOrNull(b, w.AvgCents)
	b = append(b, `,"median_usd":`...)
	b = appendUSDOrNull(b, w.MedianCents)
	b = append(b, `,"low_usd":`...)
	b = appendUSDOrNull(b, w.LowCents)
	b = append(b, `,"high_usd":`...)
	b = appendUSDOrNull(b, w.HighCents)
	b = append(b, `,"first_fmv_usd":`...)
	b = appendUSDOrNull(b, w.FirstFMVCents)
	b = append(b, `,"last_fmv_usd":`...)
	b = appendUSDOrNull(b, w.LastFMVCents)
	if w.FirstFMVCents > 0 {
		b = append(b, `,"change_pct":`...)
		b = appendJSONNum(b, w.ChangePct)
		b = append(b, `,"volatility_pct":`...)
		b = appendJSONNum(b, w.VolatilityPct)
	} else {
		b = append(b, `,"change_pct":null,"volatility_pct":null`...)
	}
	b = append(b, `,"by_marketplace":`...)
	b = appendBreakdown(b, w.ByMarketplace, marketplaceKeys, false)
	b = append(b, `,"by_grade":`...)
	b = appendBreakdown(b, w.ByGrade, gradeKeys, false)
	b = append(b, `,"grade_median_usd":`...)
	b = appendBreakdown(b, w.GradeMedian, gradeKeys, true)
	b = append(b, `,"trade_types":`...)
	b = appendBreakdown(b, w.TradeTypes, tradeTypeKeys, false)
	b = append(b, `,"finish":`...)
	if p.finish >= 0 && p.finish < len(p.card.Variants) {
		b = appendJSONStr(b, p.card.Variants[p.finish])
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"price_basis":`...)
	b = append(b, quotedAnalyticsPriceBasis...)
	if p.PriceReason != nil { // rare (no value shown): encoding/json's own bytes
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(p.PriceReason); err == nil { // strings and numbers: cannot fail
			b = append(b, `,"price_reason":`...)
			b = append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
		}
	}
	return append(b, '}')
}

// MarshalJSON encodes the payload where it nests in payloads that go through
// encoding/json (batch).
func (p *analyticsPayload) MarshalJSON() ([]byte, error) { return p.AppendJSON(nil), nil }

// appendBreakdown writes entries (already in the order of their names) as a
// JSON object of counts, or of dollars when usdValues; keys holds the quoted
// name and colon of every code.
func appendBreakdown(b []byte, entries []snapshots.AnalyticsEntry, keys *[256][]byte, usdValues bool) []byte {
	b = append(b, '{')
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, keys[e.Code]...)
		if usdValues {
			b = appendUSD(b, e.Value)
		} else {
			b = strconv.AppendInt(b, e.Value, 10)
		}
	}
	return append(b, '}')
}

// The breakdown keys of every code, quoted with their colon.
var marketplaceKeys, gradeKeys, tradeTypeKeys = breakdownKeys(snapshots.MarketplaceName), breakdownKeys(snapshots.GradeName), breakdownKeys(snapshots.TradeTypeName)

func breakdownKeys(name func(uint8) string) *[256][]byte {
	var keys [256][]byte
	for c := range keys {
		keys[c] = append(appendJSONStr(nil, name(uint8(c))), ':')
	}
	return &keys
}

// ---- JSON values, as encoding/json writes them ----

func appendUSDOrNull(b []byte, cents int64) []byte {
	if cents == 0 {
		return append(b, "null"...)
	}
	return appendUSD(b, cents)
}

// appendUSD writes snapshots.USD(cents) as encoding/json does: the float nearest to
// cents/100 prints as cents/100 while cents has at most 15 digits (see
// appendJSONNum).
func appendUSD(b []byte, cents int64) []byte {
	if -1e15 < cents && cents < 1e15 {
		return appendCents(b, cents)
	}
	return appendJSONNum(b, snapshots.USD(cents))
}

// appendJSONNum formats f like encoding/json (jsontext.AppendNumber); NaN
// and infinities are null.
func appendJSONNum(b []byte, f float64) []byte { return jsontext.AppendNumber(b, f) }

// appendCents writes c/100 as a decimal without trailing zeros.
func appendCents(b []byte, c int64) []byte { return jsontext.AppendCents(b, c) }

// appendJSONStrOrNull writes "" as null (strOrNil).
func appendJSONStrOrNull(b []byte, s string) []byte { return jsontext.AppendStrOrNull(b, s) }

// appendJSONStrs writes a string list; nil is null.
func appendJSONStrs(b []byte, list []string) []byte { return jsontext.AppendStrs(b, list) }

// appendJSONStr quotes s as the edge's encoder does (encoding/json with
// SetEscapeHTML(false)).
func appendJSONStr(b []byte, s string) []byte { return jsontext.AppendString(b, s, false) }

// encodedCards holds the object of every card of one game, encoded once
// when the snapshot opens (appendCardObject, without the closing brace):
// card detail and the card list copy a card's bytes instead of encoding its
// fields on every request. A card's fields are read from all over the heap,
// its encoded object is one run of bytes. The default snapshot's 51,152
// cards take 36 MB.
type encodedCards struct {
	buf  []byte   // the objects back to back, in ordinal order
	ends []uint32 // ends[ordinal] is where the card's object ends in buf
	// unpriced has bit ordinal set when the card's default market shows no
	// price (price_usd null): market_summary then says why (explain).
	unpriced []uint64
}

// encodeCards encodes cards (a game's catalog, index = ordinal); setOf
// gives a card's set (nil when unknown), marketOf its default market.
func encodeCards(cards []*snapshots.Card, setOf func(*snapshots.Card) *snapshots.Set, marketOf func(*snapshots.Card) (*pricing.MarketObject, error)) (*encodedCards, error) {
	e := &encodedCards{ends: make([]uint32, len(cards)), unpriced: make([]uint64, (len(cards)+63)/64)}
	n := 0
	for _, c := range cards {
		n += (&cardDetail{card: c}).sizeHint()
	}
	e.buf = make([]byte, 0, n)
	for i, c := range cards {
		if int(c.Ordinal) != i {
			return nil, fmt.Errorf("encode cards: card %s has ordinal %d at position %d", c.ID, c.Ordinal, i)
		}
		m, err := marketOf(c)
		if err != nil {
			return nil, fmt.Errorf("encode cards: market of %s: %w", c.ID, err)
		}
		e.buf = appendCardObject(e.buf, c, setOf(c), m)
		if m.PriceUSD == nil {
			e.unpriced[i/64] |= 1 << (i % 64)
		}
		if len(e.buf) > math.MaxUint32 {
			return nil, fmt.Errorf("encode cards: %d bytes at card %s, more than 4 GiB", len(e.buf), c.ID)
		}
		e.ends[i] = uint32(len(e.buf))
	}
	e.buf = slices.Clone(e.buf) // the exact size: the estimate is generous
	return e, nil
}

// priced reports whether the default market of the card of ordinal ord
// shows a price; known is false when e does not hold the card.
func (e *encodedCards) priced(ord uint32) (priced, known bool) {
	if e == nil || int(ord) >= len(e.ends) {
		return false, false
	}
	return e.unpriced[ord/64]&(1<<(ord%64)) == 0, true
}

// object returns the encoded object of the card of ordinal ord (shared,
// read-only), or nil when there is no such card.
func (e *encodedCards) object(ord uint32) []byte {
	if e == nil || int(ord) >= len(e.ends) {
		return nil
	}
	start := uint32(0)
	if ord > 0 {
		start = e.ends[ord-1]
	}
	return e.buf[start:e.ends[ord]:e.ends[ord]]
}
