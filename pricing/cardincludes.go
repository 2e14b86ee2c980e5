package pricing

import (
	"github.com/cardedge/cardedge/snapshots"
)

// IncludeNames are card detail's includes, in the order of their fields.
var IncludeNames = []string{"price_history", "tvwap_history", "tvwap_slots", "grade_momentum", "recent_sales",
	"market_summary", "grade_breakdown", "population_overview", "grading_economics"}

// CardIncludes are the optional subresources of card detail; only the
// requested ones are present.
type CardIncludes struct {
	PriceHistory       *HistorySeries       `json:"price_history,omitempty"`
	TVWAPHistory       *HistorySeries       `json:"tvwap_history,omitempty"`
	TVWAPSlots         *SlotsInclude        `json:"tvwap_slots,omitempty"`
	GradeMomentum      *MomentumInclude     `json:"grade_momentum,omitempty"`
	RecentSales        *RecentSalesInclude  `json:"recent_sales,omitempty"`
	MarketSummary      *CardAnalytics       `json:"market_summary,omitempty"`
	GradeBreakdown     *BreakdownInclude    `json:"grade_breakdown,omitempty"`
	PopulationOverview *PopulationInclude   `json:"population_overview,omitempty"`
	GradingEconomics   *GradingEconomicsInc `json:"grading_economics,omitempty"`

	summary CardAnalytics // MarketSummary points here: one allocation
}

// IncludeOptions are what the includes of one request see: the snapshot's
// as_of and the caller's history window (the callers clamp: pricing
// applies no tier).
type IncludeOptions struct {
	AsOf snapshots.Day
	// HistoryStart is the first day of price_history and tvwap_history.
	HistoryStart snapshots.Day
	// SalesFrom, when SalesFromSet, is the first day of recent_sales.
	SalesFrom    snapshots.Day
	SalesFromSet bool
	// Objects, when not nil, holds the game's encoded cards: market_summary
	// then knows without a read that a priced base printing needs no
	// price_reason (CardObjects.Priced).
	Objects *CardObjects
}

// Read fills in, which it expects zero, with the named includes (names
// from IncludeNames; others are ignored) of c in printing finish (BaseRead:
// the base printing): each include is the analytics of the printing's
// series.
func (in *CardIncludes) Read(r snapshots.Reader, c *snapshots.Card, finish int, names []string, o IncludeOptions) error {
	// Price and cumulative series are read only when an include needs them.
	var series []snapshots.PriceSeries
	var cum []snapshots.CumSeries
	for _, name := range names {
		if name == "recent_sales" || name == "market_summary" {
			continue
		}
		var err error
		if series, err = ReadSeries(r, c, finish); err != nil {
			return err
		}
		if cum, err = ReadCum(r, c, finish); err != nil {
			return err
		}
		break
	}
	asOf := o.AsOf
	for _, name := range names {
		switch name {
		case "price_history":
			in.PriceHistory = NewHistorySeries(c, finish, snapshots.SeriesOf(series, snapshots.RawNearMint), o.HistoryStart, asOf, MethodFMV)
		case "tvwap_history":
			in.TVWAPHistory = NewHistorySeries(c, finish, snapshots.SeriesOf(series, snapshots.RawNearMint), o.HistoryStart, asOf, MethodTVWAP)
		case "tvwap_slots":
			in.TVWAPSlots = TVWAPSlots(series, asOf)
		case "grade_momentum":
			in.GradeMomentum = GradeMomentum(series, cum, asOf)
		case "recent_sales":
			sales, err := r.Sales(c.Game, c.ID)
			if err != nil {
				return err
			}
			f := SaleFilter{To: asOf, From: o.SalesFrom, FromSet: o.SalesFromSet}
			if finish >= 0 {
				f.Finish = OnePrinting(c, finish)
			}
			in.RecentSales = RecentSales(c, sales, f, 10)
		case "market_summary":
			if err := in.summary.Read(r, c, finish, "1m", asOf); err != nil {
				return err
			}
			if err := in.summary.Explain(r, c, finish, asOf, o.Objects); err != nil {
				return err
			}
			in.MarketSummary = &in.summary
		case "grade_breakdown":
			in.GradeBreakdown = GradeBreakdown(series, cum, asOf)
		case "population_overview":
			in.PopulationOverview = PopulationOverview(cum, asOf)
		case "grading_economics":
			in.GradingEconomics = GradingEconomics(series, cum, asOf)
		}
	}
	return nil
}

// AppendJSON appends the includes as encoding/json writes them.
func (in *CardIncludes) AppendJSON(b []byte) []byte {
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
