package edge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

func handleCardGet(r *request) (any, error) {
	c, err := r.cardOf()
	if err != nil {
		return nil, err
	}
	finish, err := r.finishOf(c)
	if err != nil {
		return nil, err
	}
	d := &r.detail
	if finish < 0 {
		*d = r.snap.cardDetail(c)
	} else {
		m, err := pricing.ReadMarketObject(r.snap.Reader, c, finish, r.snap.AsOf)
		if err != nil {
			return nil, err
		}
		*d = cardDetail{card: c, set: r.setOf(c), market: m}
	}
	var buf [16]string // more than the includes there are
	names := buf[:0]
	for n := range strings.SplitSeq(r.p.str("include"), ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if !slices.Contains(includeNames, n) {
			return nil, validationErrors{queryError("include", fmt.Sprintf("unknown include %q; allowed: %s", n, strings.Join(includeNames, ", ")), "enum", r.p.str("include"), nil)}
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) > 0 {
		if err := r.fillIncludes(&r.includes, c, finish, names); err != nil {
			return nil, err
		}
		d.includes = &r.includes
	}
	return d, nil
}

// finishOf reads the request's finish parameter for card c: the printing it
// names (pricing.PrintingOf), or -1 when it is not given (the card's base
// printing, read through the reader's base-printing methods). A finish the
// card has not is a 422 naming its printings.
func (r *request) finishOf(c *snapshots.Card) (int, error) {
	if !r.p.has("finish") {
		return -1, nil
	}
	f, err := pricing.PrintingOf(c, r.p.str("finish"))
	if err != nil {
		return 0, validationErrors{queryError("finish", apperr.ErrorMessage(err), "value_error", r.p.str("finish"), nil)}
	}
	return f, nil
}

// finishParam is the finish parameter of the routes that price a card.
func finishParam() paramSpec {
	p := pStr("finish", 64, "Extension (not in the spec): the printing to price, one of the card's variants (holo/shadowless) or parts of one "+
		"(1st-edition, shadowless/1st-edition, reverse; the variant with the fewest other parts wins, the base printing on a tie). "+
		"Default: the card's base printing (see /api/v3/methodology, base_printing), named in the payload. Prices are never blended across printings.")
	p.extension = true
	return p
}

// historyStart is the first day a history include shows: the tier's window
// start or the default look-back, whichever is later.
func (r *request) historyStart(lookback int) snapshots.Day {
	start := r.snap.AsOf - snapshots.Day(lookback) + 1
	if w, ok := r.windowStart(); ok && w > start {
		start = w
	}
	return start
}

// cardIncludes are the optional subresources of card detail; only the
// requested ones are present.
type cardIncludes struct {
	PriceHistory       *pricing.HistorySeries       `json:"price_history,omitempty"`
	TVWAPHistory       *pricing.HistorySeries       `json:"tvwap_history,omitempty"`
	TVWAPSlots         *pricing.SlotsInclude        `json:"tvwap_slots,omitempty"`
	GradeMomentum      *pricing.MomentumInclude     `json:"grade_momentum,omitempty"`
	RecentSales        *pricing.RecentSalesInclude  `json:"recent_sales,omitempty"`
	MarketSummary      *analyticsPayload            `json:"market_summary,omitempty"`
	GradeBreakdown     *pricing.BreakdownInclude    `json:"grade_breakdown,omitempty"`
	PopulationOverview *pricing.PopulationInclude   `json:"population_overview,omitempty"`
	GradingEconomics   *pricing.GradingEconomicsInc `json:"grading_economics,omitempty"`

	summary analyticsPayload // MarketSummary points here: one allocation
}

// cardIncludes computes the named subresources of a card in printing finish
// (-1: the base printing; see finishOf). History includes respect the
// caller's history window.
func (r *request) cardIncludes(c *snapshots.Card, finish int, names []string) (*cardIncludes, error) {
	out := &cardIncludes{}
	if err := r.fillIncludes(out, c, finish, names); err != nil {
		return nil, err
	}
	return out, nil
}

// fillIncludes is cardIncludes into out, which it expects zero: each
// include is pricing's analytics of the printing's series.
func (r *request) fillIncludes(out *cardIncludes, c *snapshots.Card, finish int, names []string) error {
	// Price and cumulative series are read only when an include needs them.
	var series []snapshots.PriceSeries
	var cum []snapshots.CumSeries
	for _, name := range names {
		if name == "recent_sales" || name == "market_summary" {
			continue
		}
		var err error
		if series, err = pricing.ReadSeries(r.snap.Reader, c, finish); err != nil {
			return err
		}
		if cum, err = pricing.ReadCum(r.snap.Reader, c, finish); err != nil {
			return err
		}
		break
	}
	asOf := r.snap.AsOf
	for _, name := range names {
		switch name {
		case "price_history":
			out.PriceHistory = pricing.NewHistorySeries(c, finish, snapshots.SeriesOf(series, snapshots.RawNearMint), r.historyStart(90), asOf, pricing.MethodFMV)
		case "tvwap_history":
			out.TVWAPHistory = pricing.NewHistorySeries(c, finish, snapshots.SeriesOf(series, snapshots.RawNearMint), r.historyStart(90), asOf, pricing.MethodTVWAP)
		case "tvwap_slots":
			out.TVWAPSlots = pricing.TVWAPSlots(series, asOf)
		case "grade_momentum":
			out.GradeMomentum = pricing.GradeMomentum(series, cum, asOf)
		case "recent_sales":
			sales, err := r.snap.Sales(c.Game, c.ID)
			if err != nil {
				return err
			}
			f := pricing.SaleFilter{To: asOf}
			f.From, f.FromSet = r.windowStart()
			if finish >= 0 {
				f.Finish = pricing.OnePrinting(c, finish)
			}
			out.RecentSales = pricing.RecentSales(c, sales, f, 10)
		case "market_summary":
			if err := out.summary.read(r, c, finish, "1m"); err != nil {
				return err
			}
			if err := out.summary.explain(r, c, finish); err != nil {
				return err
			}
			out.MarketSummary = &out.summary
		case "grade_breakdown":
			out.GradeBreakdown = pricing.GradeBreakdown(series, cum, asOf)
		case "population_overview":
			out.PopulationOverview = pricing.PopulationOverview(cum, asOf)
		case "grading_economics":
			out.GradingEconomics = pricing.GradingEconomics(series, cum, asOf)
		}
	}
	return nil
}
