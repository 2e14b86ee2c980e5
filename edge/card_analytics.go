package edge

import (
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

// analyticsPayload is card-analytics.v1 and the market_summary include. The
// exported fields are its published shape: schema.go reflects them, and the
// tests fill them from the map form of the analytics to encode the reference
// with encoding/json. At run time read leaves them empty: the
// payload encodes itself from the stored window (AppendJSON, MarshalJSON in
// card_encode.go), with no maps and no pointers to build.
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
	// Finish is the printing (null for a card without variants).
	Finish     *string `json:"finish"`
	PriceBasis string  `json:"price_basis"`
	// PriceReason (the market_summary include only) says why the
	// printing's raw near-mint shows no value, with its last sale
	// (pricing.ExplainNoValue); absent when it shows one.
	PriceReason *pricing.NoValue `json:"price_reason,omitempty"`

	card   *snapshots.Card
	finish int // the printing, an index into card.Variants
	w      snapshots.WindowAnalytics
	// entries holds w's breakdowns when they fit (read): one allocation
	// with the payload, none with a pooled request's.
	entries [64]snapshots.AnalyticsEntry
}

const analyticsPriceBasis = "verified sales only (quality-flagged, low-confidence identity and price-feed rows excluded); fmv of raw:near_mint for change and volatility"

// cardWindow is the analytics payload of one window of c in printing finish
// (-1: the base printing; read).
func (r *request) cardWindow(c *snapshots.Card, finish int, window string) (*analyticsPayload, error) {
	p := &analyticsPayload{}
	if err := p.read(r, c, finish, window); err != nil {
		return nil, err
	}
	return p, nil
}

// read fills p with one analytics window of c; a card without one gets an
// empty window ending at as_of.
func (p *analyticsPayload) read(r *request, c *snapshots.Card, finish int, window string) error {
	w, ok, err := pricing.ReadWindow(r.snap.Reader, c, finish, window, p.entries[:0])
	if err != nil {
		return err
	}
	if !ok {
		w = snapshots.WindowAnalytics{Window: window, From: snapshots.NoDay, To: r.snap.AsOf}
	}
	p.card, p.w, p.finish = c, w, pricing.PrintingIndex(c, finish)
	return nil
}

// explain sets p.PriceReason when printing finish of c (-1: the base
// printing) shows no raw near-mint value: why, with its last sale (the
// card's sales are read only then).
func (p *analyticsPayload) explain(r *request, c *snapshots.Card, finish int) error {
	f := pricing.PrintingIndex(c, finish)
	if f == snapshots.BasePrinting(c) { // the default market says, without a read
		if priced, known := r.snap.encoded[c.Game].priced(c.Ordinal); known && priced {
			return nil
		}
	}
	e, _, err := pricing.PrintingEstimate(r.snap.Reader, c, f, snapshots.RawNearMint)
	if err != nil || e.Shown() != 0 {
		return err
	}
	sales, err := r.snap.Sales(c.Game, c.ID)
	if err != nil && apperr.ErrorCode(err) != apperr.ENOTFOUND {
		return err
	}
	p.PriceReason = pricing.ExplainNoValue(c, sales, f, e, r.snap.AsOf)
	return nil
}

func handleCardAnalytics(r *request) (any, error) {
	c, err := r.cardOf()
	if err != nil {
		return nil, err
	}
	finish, err := r.finishOf(c)
	if err != nil {
		return nil, err
	}
	return r.cardWindow(c, finish, r.p.str("window"))
}
