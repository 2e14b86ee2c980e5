package pricing

import (
	"strconv"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// CardAnalytics is card-analytics.v1 and card detail's market_summary
// include: one analytics window of a card's printing. The exported fields
// are its published shape: the OpenAPI document reflects them, and the tests
// fill them from the map form of the analytics to encode the reference with
// encoding/json. Read leaves them empty: the payload encodes itself from the
// stored window (AppendJSON, MarshalJSON), with no maps and no pointers to
// build.
type CardAnalytics struct {
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
	// Finish is the printing (null for a card without variants).
	Finish     *string `json:"finish"`
	PriceBasis string  `json:"price_basis"`
	// PriceReason (the market_summary include only) says why the
	// printing's raw near-mint shows no value, with its last sale
	// (ExplainNoValue); absent when it shows one.
	PriceReason *NoValue `json:"price_reason,omitempty"`

	card   *snapshots.Card
	finish int // the printing, an index into card.Variants
	w      snapshots.WindowAnalytics
	// entries holds w's breakdowns when they fit (Read): one allocation
	// with the payload, none with a pooled one's.
	entries [64]snapshots.AnalyticsEntry
}

// AnalyticsPriceBasis is the price basis of every analytics window.
const AnalyticsPriceBasis = "verified sales only (quality-flagged, low-confidence identity and price-feed rows excluded); fmv of raw:near_mint for change and volatility"

// quotedAnalyticsPriceBasis is AnalyticsPriceBasis, quoted once.
var quotedAnalyticsPriceBasis = jsontext.AppendStr(nil, AnalyticsPriceBasis)

// ReadCardAnalytics reads one analytics window of c in printing finish
// (BaseRead: the base printing; see Read).
func ReadCardAnalytics(r snapshots.Reader, c *snapshots.Card, finish int, window string, asOf snapshots.Day) (*CardAnalytics, error) {
	p := &CardAnalytics{}
	if err := p.Read(r, c, finish, window, asOf); err != nil {
		return nil, err
	}
	return p, nil
}

// Read fills p with one analytics window of c; a card without one gets an
// empty window ending at asOf.
func (p *CardAnalytics) Read(r snapshots.Reader, c *snapshots.Card, finish int, window string, asOf snapshots.Day) error {
	w, ok, err := ReadWindow(r, c, finish, window, p.entries[:0])
	if err != nil {
		return err
	}
	if !ok {
		w = snapshots.WindowAnalytics{Window: window, From: snapshots.NoDay, To: asOf}
	}
	p.card, p.w, p.finish = c, w, PrintingIndex(c, finish)
	return nil
}

// Explain sets p.PriceReason when printing finish of c (BaseRead: the base
// printing) shows no raw near-mint value: why, with its last sale (the
// card's sales are read only then). objects (nil: none) answers for a base
// printing without a read.
func (p *CardAnalytics) Explain(r snapshots.Reader, c *snapshots.Card, finish int, asOf snapshots.Day, objects *CardObjects) error {
	f := PrintingIndex(c, finish)
	if f == snapshots.BasePrinting(c) { // the default market says, without a read
		if priced, known := objects.Priced(c.Ordinal); known && priced {
			return nil
		}
	}
	e, _, err := PrintingEstimate(r, c, f, snapshots.RawNearMint)
	if err != nil || e.Shown() != 0 {
		return err
	}
	sales, err := r.Sales(c.Game, c.ID)
	if err != nil && apperr.ErrorCode(err) != apperr.ENOTFOUND {
		return err
	}
	p.PriceReason = ExplainNoValue(c, sales, f, e, asOf)
	return nil
}

// AppendJSON appends the payload as encoding/json writes it, straight from
// the stored window.
func (p *CardAnalytics) AppendJSON(b []byte) []byte {
	w := &p.w
	b = append(b, `{"card_id":`...)
	b = jsontext.AppendStr(b, p.card.ID)
	b = append(b, `,"name":`...)
	b = jsontext.AppendStr(b, p.card.Name)
	b = append(b, `,"window":`...)
	b = jsontext.AppendStr(b, w.Window)
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
		b = jsontext.AppendNumber(b, w.ChangePct)
		b = append(b, `,"volatility_pct":`...)
		b = jsontext.AppendNumber(b, w.VolatilityPct)
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
		b = jsontext.AppendStr(b, p.card.Variants[p.finish])
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"price_basis":`...)
	b = append(b, quotedAnalyticsPriceBasis...)
	if p.PriceReason != nil { // rare (no value shown): encoding/json's own bytes
		if reason, err := jsontext.Marshal(p.PriceReason); err == nil { // strings and numbers: cannot fail
			b = append(b, `,"price_reason":`...)
			b = append(b, reason...)
		}
	}
	return append(b, '}')
}

// MarshalJSON encodes the payload where it nests in payloads that go through
// encoding/json (batch).
func (p *CardAnalytics) MarshalJSON() ([]byte, error) { return p.AppendJSON(nil), nil }

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
		keys[c] = append(jsontext.AppendStr(nil, name(uint8(c))), ':')
	}
	return &keys
}

func appendUSDOrNull(b []byte, cents int64) []byte {
	if cents == 0 {
		return append(b, "null"...)
	}
	return appendUSD(b, cents)
}

// appendUSD writes snapshots.USD(cents) as encoding/json does: the float
// nearest to cents/100 prints as cents/100 while cents has at most 15 digits
// (jsontext.AppendCents).
func appendUSD(b []byte, cents int64) []byte {
	if -1e15 < cents && cents < 1e15 {
		return jsontext.AppendCents(b, cents)
	}
	return jsontext.AppendNumber(b, snapshots.USD(cents))
}
