package pricing

import (
	"math"

	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// The analytics of a card's detail (REST's card includes): price and tvwap
// history, the tvwap of each grade, the 30-day momentum of each grade, the
// recent sales, the breakdown by grade, the graded population seen in sales
// and the economics of grading. Each reads one printing's series (ReadSeries,
// ReadCum) as of the snapshot's as_of day. The type names are the schema
// names the OpenAPI document publishes.

// GradeRow is one grade of a card's printing as the includes show it.
type GradeRow struct {
	Grade      string   `json:"grade"`
	GradeName  string   `json:"grade_name"`
	Sales      int      `json:"sales"`
	FMVUSD     *float64 `json:"fmv_usd"`
	TVWAPUSD   *float64 `json:"tvwap_usd"`
	MedianUSD  *float64 `json:"median_usd"`
	LastSale   *string  `json:"last_sale_date"`
	ChangePct  *float64 `json:"change_30d_pct,omitempty"`
	PremiumRaw *float64 `json:"premium_vs_raw,omitempty"`
}

// HistorySeries is the price_history and tvwap_history include: one grade's
// daily points by one method.
type HistorySeries struct {
	Grade     string     `json:"grade"`
	GradeName string     `json:"grade_name"`
	Finish    *string    `json:"finish"`
	Method    string     `json:"method"`
	From      string     `json:"from"`
	To        string     `json:"to"`
	Points    []PointRow `json:"points"`
}

// NewHistorySeries is the raw near-mint series raw of printing finish of c
// (BaseRead: the base printing) from start to asOf, one point a day, priced
// by method.
func NewHistorySeries(c *snapshots.Card, finish int, raw *snapshots.PriceSeries, start, asOf snapshots.Day, method string) *HistorySeries {
	return &HistorySeries{Grade: snapshots.RawNearMint.String(), GradeName: snapshots.RawNearMint.Name(), Finish: jsontext.StrOrNil(PrintingName(c, PrintingIndex(c, finish))), Method: method,
		From: start.String(), To: asOf.String(), Points: PointRows(Points(raw, start, asOf, true, IntervalDay), method)}
}

// SlotsInclude is the tvwap_slots include.
type SlotsInclude struct {
	Basis string     `json:"basis"`
	Slots []GradeRow `json:"slots"`
}

// TVWAPSlots is each grade's latest trailing-7-day tvwap (and fmv) as of
// asOf, from the printing's series.
func TVWAPSlots(series []snapshots.PriceSeries, asOf snapshots.Day) *SlotsInclude {
	slots := []GradeRow{}
	for _, s := range series {
		if p, ok := snapshots.PointAt(&s, asOf); ok {
			slots = append(slots, GradeRow{Grade: s.Grade.String(), GradeName: s.Grade.Name(), Sales: int(p.Sales), TVWAPUSD: snapshots.USDOrNil(p.TVWAPCents), FMVUSD: snapshots.USDOrNil(p.FMVCents), LastSale: jsontext.StrOrNil(p.Day.String())})
		}
	}
	return &SlotsInclude{Basis: "latest trailing-7-day tvwap per grade", Slots: slots}
}

// MomentumInclude is the grade_momentum include.
type MomentumInclude struct {
	WindowDays int        `json:"window_days"`
	Grades     []GradeRow `json:"grades"`
}

// GradeMomentum is each grade's fmv as of asOf, its change over 30 days
// and its verified sales of the last 30 days.
func GradeMomentum(series []snapshots.PriceSeries, cum []snapshots.CumSeries, asOf snapshots.Day) *MomentumInclude {
	rows := []GradeRow{}
	for _, s := range series {
		now, ok1 := snapshots.FMVAt(&s, asOf)
		then, ok2 := snapshots.FMVAt(&s, asOf-30)
		row := GradeRow{Grade: s.Grade.String(), GradeName: s.Grade.Name(), FMVUSD: snapshots.USDOrNil(now)}
		g := s.Grade
		row.Sales, _ = snapshots.SumWindow(cum, func(x snapshots.Grade) bool { return x == g }, asOf-29, asOf)
		if ok1 && ok2 && then > 0 {
			v := snapshots.Round2(100 * float64(now-then) / float64(then))
			row.ChangePct = &v
		}
		rows = append(rows, row)
	}
	return &MomentumInclude{WindowDays: 30, Grades: rows}
}

// RecentSalesInclude is the recent_sales include.
type RecentSalesInclude struct {
	Limit int       `json:"limit"`
	Items []SaleRow `json:"items"`
}

// RecentSales is the first limit sales of c (newest first) that f selects.
func RecentSales(c *snapshots.Card, sales []snapshots.Sale, f SaleFilter, limit int) *RecentSalesInclude {
	rows := []SaleRow{}
	for s := range f.Sales(sales) {
		if len(rows) == limit {
			break
		}
		rows = append(rows, NewSaleRow(c, *s))
	}
	return &RecentSalesInclude{Limit: limit, Items: rows}
}

// BreakdownInclude is the grade_breakdown include.
type BreakdownInclude struct {
	Grades []GradeRow `json:"grades"`
}

// GradeBreakdown is every grade that sold: its verified sales of all
// history, its last sale, its prices as of asOf and a graded grade's premium
// over the raw near-mint fmv.
func GradeBreakdown(series []snapshots.PriceSeries, cum []snapshots.CumSeries, asOf snapshots.Day) *BreakdownInclude {
	rawFMV, _ := snapshots.FMVAt(snapshots.SeriesOf(series, snapshots.RawNearMint), asOf)
	rows := []GradeRow{}
	for _, cs := range cum {
		n, _ := snapshots.SumWindow([]snapshots.CumSeries{cs}, nil, 1, asOf)
		row := GradeRow{Grade: cs.Grade.String(), GradeName: cs.Grade.Name(), Sales: n}
		if len(cs.Points) > 0 {
			row.LastSale = jsontext.StrOrNil(cs.Points[len(cs.Points)-1].Day.String())
		}
		if s := snapshots.SeriesOf(series, cs.Grade); s != nil {
			if p, ok := snapshots.PointAt(s, asOf); ok {
				row.FMVUSD, row.TVWAPUSD, row.MedianUSD = snapshots.USDOrNil(p.FMVCents), snapshots.USDOrNil(p.TVWAPCents), snapshots.USDOrNil(p.MedianCents)
				if rawFMV > 0 && !cs.Grade.Raw() {
					v := snapshots.Round2(float64(p.FMVCents) / float64(rawFMV))
					row.PremiumRaw = &v
				}
			}
		}
		rows = append(rows, row)
	}
	return &BreakdownInclude{Grades: rows}
}

// PopulationRow is one grader and grade of the population_overview include.
type PopulationRow struct {
	Grader string  `json:"grader"`
	Grade  float64 `json:"grade"`
	Sales  int     `json:"sales"`
	Share  float64 `json:"share_pct"`
}

// PopulationInclude is the population_overview include.
type PopulationInclude struct {
	Basis       string          `json:"basis"`
	GradedSales int             `json:"graded_sales"`
	Grades      []PopulationRow `json:"grades"`
}

// PopulationOverview counts graded sales per grader and grade: the graded
// population this market has seen trade (not a grading company's census).
func PopulationOverview(cum []snapshots.CumSeries, asOf snapshots.Day) *PopulationInclude {
	out := &PopulationInclude{Basis: "graded copies seen in verified sales, all history; not a grading company's population report", Grades: []PopulationRow{}}
	for _, cs := range cum {
		if cs.Grade.Raw() {
			continue
		}
		n, _ := snapshots.SumWindow([]snapshots.CumSeries{cs}, nil, 1, asOf)
		out.GradedSales += n
		out.Grades = append(out.Grades, PopulationRow{Grader: snapshots.Graders[cs.Grade.Grader()], Grade: cs.Grade.Number(), Sales: n})
	}
	for i := range out.Grades {
		out.Grades[i].Share = snapshots.Round2(100 * float64(out.Grades[i].Sales) / math.Max(1, float64(out.GradedSales)))
	}
	return out
}

// GradingFeeCents is the assumed cost of grading one card (fee and
// shipping).
const GradingFeeCents = 3000

// GradingEconomicsInc is the grading_economics include.
type GradingEconomicsInc struct {
	Grader            string   `json:"grader"`
	RawFMVUSD         *float64 `json:"raw_fmv_usd"`
	GradingCostUSD    float64  `json:"grading_cost_usd"`
	ExpectedGradedUSD *float64 `json:"expected_graded_usd"`
	ExpectedGainUSD   *float64 `json:"expected_gain_usd"`
	SampleSales       int      `json:"sample_sales"`
	Basis             string   `json:"basis"`
}

// GradingEconomics estimates the value of grading a raw near-mint copy with
// the first grader: the observed grade mix of its graded sales weights the
// graded fmv of each grade.
func GradingEconomics(series []snapshots.PriceSeries, cum []snapshots.CumSeries, asOf snapshots.Day) *GradingEconomicsInc {
	rawFMV, _ := snapshots.FMVAt(snapshots.SeriesOf(series, snapshots.RawNearMint), asOf)
	var weighted, weights float64
	for _, cs := range cum {
		if cs.Grade.Grader() != 0 {
			continue
		}
		n, _ := snapshots.SumWindow([]snapshots.CumSeries{cs}, nil, 1, asOf)
		fmv, ok := snapshots.FMVAt(snapshots.SeriesOf(series, cs.Grade), asOf)
		if !ok || n == 0 {
			continue
		}
		weighted += float64(n) * float64(fmv)
		weights += float64(n)
	}
	out := &GradingEconomicsInc{
		Grader: snapshots.Graders[0], RawFMVUSD: snapshots.USDOrNil(rawFMV), GradingCostUSD: snapshots.USD(GradingFeeCents), SampleSales: int(weights),
		Basis: "expected graded value = graded fmv per grade weighted by the grade mix of this card's verified graded sales; grading cost is an assumed flat fee",
	}
	if weights > 0 && rawFMV > 0 {
		exp := int64(weighted / weights)
		e, g := snapshots.USD(exp), snapshots.USD(exp-rawFMV-GradingFeeCents)
		out.ExpectedGradedUSD, out.ExpectedGainUSD = &e, &g
	}
	return out
}
