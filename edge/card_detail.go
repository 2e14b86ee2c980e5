package edge

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
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
		m, err := finishMarketOf(r.snap.Reader, c, finish, r.snap.AsOf)
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

// printing returns the index of the printing finish (from finishOf) stands
// for: the card's base printing for -1.
func printing(c *snapshots.Card, finish int) int {
	if finish < 0 {
		return snapshots.BasePrinting(c)
	}
	return finish
}

// priceSeries, cumSeries and analyticsWindow read one printing of a card
// (finish from finishOf; -1 is the base printing, read as before printings
// existed).
func (r *request) priceSeries(c *snapshots.Card, finish int) ([]snapshots.PriceSeries, error) {
	if finish < 0 {
		return r.snap.PriceSeries(c.Game, c.ID)
	}
	return r.snap.PrintingSeries(c.Game, c.ID, finish)
}

func (r *request) cumSeries(c *snapshots.Card, finish int) ([]snapshots.CumSeries, error) {
	if finish < 0 {
		return r.snap.Cum(c.Game, c.ID)
	}
	return r.snap.PrintingCum(c.Game, c.ID, finish)
}

func (r *request) analyticsWindow(c *snapshots.Card, finish int, window string, buf []snapshots.AnalyticsEntry) (snapshots.WindowAnalytics, bool, error) {
	if finish < 0 {
		return r.snap.AnalyticsWindow(c.Game, c.ID, window, buf)
	}
	return r.snap.PrintingAnalyticsWindow(c.Game, c.ID, finish, window, buf)
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

type gradeRow struct {
	Grade      string   `json:"grade"`
	Sales      int      `json:"sales"`
	FMVUSD     *float64 `json:"fmv_usd"`
	TVWAPUSD   *float64 `json:"tvwap_usd"`
	MedianUSD  *float64 `json:"median_usd"`
	LastSale   *string  `json:"last_sale_date"`
	ChangePct  *float64 `json:"change_30d_pct,omitempty"`
	PremiumRaw *float64 `json:"premium_vs_raw,omitempty"`
}

// cardIncludes are the optional subresources of card detail; only the
// requested ones are present.
type cardIncludes struct {
	PriceHistory       *historySeries       `json:"price_history,omitempty"`
	TVWAPHistory       *historySeries       `json:"tvwap_history,omitempty"`
	TVWAPSlots         *slotsInclude        `json:"tvwap_slots,omitempty"`
	GradeMomentum      *momentumInclude     `json:"grade_momentum,omitempty"`
	RecentSales        *recentSalesInclude  `json:"recent_sales,omitempty"`
	MarketSummary      *analyticsPayload    `json:"market_summary,omitempty"`
	GradeBreakdown     *breakdownInclude    `json:"grade_breakdown,omitempty"`
	PopulationOverview *populationInclude   `json:"population_overview,omitempty"`
	GradingEconomics   *gradingEconomicsInc `json:"grading_economics,omitempty"`

	summary analyticsPayload // MarketSummary points here: one allocation
}

type historySeries struct {
	Grade  string             `json:"grade"`
	Finish *string            `json:"finish"`
	Method string             `json:"method"`
	From   string             `json:"from"`
	To     string             `json:"to"`
	Points []pricing.PointRow `json:"points"`
}

type slotsInclude struct {
	Basis string     `json:"basis"`
	Slots []gradeRow `json:"slots"`
}

type momentumInclude struct {
	WindowDays int        `json:"window_days"`
	Grades     []gradeRow `json:"grades"`
}

type recentSalesInclude struct {
	Limit int               `json:"limit"`
	Items []pricing.SaleRow `json:"items"`
}

type breakdownInclude struct {
	Grades []gradeRow `json:"grades"`
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

// fillIncludes is cardIncludes into out, which it expects zero.
func (r *request) fillIncludes(out *cardIncludes, c *snapshots.Card, finish int, names []string) error {
	// Price and cumulative series are read only when an include needs them.
	var series []snapshots.PriceSeries
	var cum []snapshots.CumSeries
	var raw *snapshots.PriceSeries
	for _, name := range names {
		if name == "recent_sales" || name == "market_summary" {
			continue
		}
		var err error
		if series == nil {
			if series, err = r.priceSeries(c, finish); err != nil {
				return err
			}
			raw = snapshots.SeriesOf(series, snapshots.RawNearMint)
		}
		if cum == nil {
			if cum, err = r.cumSeries(c, finish); err != nil {
				return err
			}
		}
		break
	}
	asOf := r.snap.AsOf
	for _, name := range names {
		switch name {
		case "price_history", "tvwap_history":
			start := r.historyStart(90)
			method := "fmv"
			if name == "tvwap_history" {
				method = "tvwap"
			}
			h := &historySeries{Grade: "raw:near_mint", Finish: jsontext.StrOrNil(pricing.PrintingName(c, printing(c, finish))), Method: method, From: start.String(), To: asOf.String(), Points: pricing.PointRows(pricing.Points(raw, start, asOf, true, pricing.IntervalDay), method)}
			if name == "price_history" {
				out.PriceHistory = h
			} else {
				out.TVWAPHistory = h
			}
		case "tvwap_slots":
			slots := []gradeRow{}
			for _, s := range series {
				if p, ok := snapshots.PointAt(&s, asOf); ok {
					slots = append(slots, gradeRow{Grade: s.Grade.String(), Sales: int(p.Sales), TVWAPUSD: snapshots.USDOrNil(p.TVWAPCents), FMVUSD: snapshots.USDOrNil(p.FMVCents), LastSale: jsontext.StrOrNil(p.Day.String())})
				}
			}
			out.TVWAPSlots = &slotsInclude{Basis: "latest trailing-7-day tvwap per grade", Slots: slots}
		case "grade_momentum":
			rows := []gradeRow{}
			for _, s := range series {
				now, ok1 := snapshots.FMVAt(&s, asOf)
				then, ok2 := snapshots.FMVAt(&s, asOf-30)
				row := gradeRow{Grade: s.Grade.String(), FMVUSD: snapshots.USDOrNil(now)}
				g := s.Grade
				row.Sales, _ = snapshots.SumWindow(cum, func(x snapshots.Grade) bool { return x == g }, asOf-29, asOf)
				if ok1 && ok2 && then > 0 {
					v := snapshots.Round2(100 * float64(now-then) / float64(then))
					row.ChangePct = &v
				}
				rows = append(rows, row)
			}
			out.GradeMomentum = &momentumInclude{WindowDays: 30, Grades: rows}
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
			rows := []pricing.SaleRow{}
			for s := range f.Sales(sales) {
				if len(rows) == 10 {
					break
				}
				rows = append(rows, pricing.NewSaleRow(c, *s))
			}
			out.RecentSales = &recentSalesInclude{Limit: 10, Items: rows}
		case "market_summary":
			if err := out.summary.read(r, c, finish, "1m"); err != nil {
				return err
			}
			out.MarketSummary = &out.summary
		case "grade_breakdown":
			out.GradeBreakdown = &breakdownInclude{Grades: gradeBreakdown(series, cum, asOf, raw)}
		case "population_overview":
			out.PopulationOverview = populationOverview(cum, asOf)
		case "grading_economics":
			out.GradingEconomics = gradingEconomics(series, cum, asOf, raw)
		}
	}
	return nil
}

func gradeBreakdown(series []snapshots.PriceSeries, cum []snapshots.CumSeries, asOf snapshots.Day, raw *snapshots.PriceSeries) []gradeRow {
	rawFMV, _ := snapshots.FMVAt(raw, asOf)
	rows := []gradeRow{}
	for _, cs := range cum {
		n, _ := snapshots.SumWindow([]snapshots.CumSeries{cs}, nil, 1, asOf)
		row := gradeRow{Grade: cs.Grade.String(), Sales: n}
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
	return rows
}

type populationRow struct {
	Grader string  `json:"grader"`
	Grade  float64 `json:"grade"`
	Sales  int     `json:"sales"`
	Share  float64 `json:"share_pct"`
}

type populationInclude struct {
	Basis       string          `json:"basis"`
	GradedSales int             `json:"graded_sales"`
	Grades      []populationRow `json:"grades"`
}

// populationOverview counts graded sales per grader and grade: the graded
// population this market has seen trade (not a grading company's census).
func populationOverview(cum []snapshots.CumSeries, asOf snapshots.Day) *populationInclude {
	out := &populationInclude{Basis: "graded copies seen in verified sales, all history; not a grading company's population report", Grades: []populationRow{}}
	for _, cs := range cum {
		if cs.Grade.Raw() {
			continue
		}
		n, _ := snapshots.SumWindow([]snapshots.CumSeries{cs}, nil, 1, asOf)
		out.GradedSales += n
		out.Grades = append(out.Grades, populationRow{Grader: snapshots.Graders[cs.Grade.Grader()], Grade: cs.Grade.Number(), Sales: n})
	}
	for i := range out.Grades {
		out.Grades[i].Share = snapshots.Round2(100 * float64(out.Grades[i].Sales) / math.Max(1, float64(out.GradedSales)))
	}
	return out
}

// gradingFeeCents is the assumed cost of grading one card (fee and shipping).
const gradingFeeCents = 3000

type gradingEconomicsInc struct {
	Grader            string   `json:"grader"`
	RawFMVUSD         *float64 `json:"raw_fmv_usd"`
	GradingCostUSD    float64  `json:"grading_cost_usd"`
	ExpectedGradedUSD *float64 `json:"expected_graded_usd"`
	ExpectedGainUSD   *float64 `json:"expected_gain_usd"`
	SampleSales       int      `json:"sample_sales"`
	Basis             string   `json:"basis"`
}

// gradingEconomics estimates the value of grading a raw near-mint copy with
// the first grader: the observed grade mix of its graded sales weights the
// graded fmv of each grade.
func gradingEconomics(series []snapshots.PriceSeries, cum []snapshots.CumSeries, asOf snapshots.Day, raw *snapshots.PriceSeries) *gradingEconomicsInc {
	rawFMV, _ := snapshots.FMVAt(raw, asOf)
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
	out := &gradingEconomicsInc{
		Grader: snapshots.Graders[0], RawFMVUSD: snapshots.USDOrNil(rawFMV), GradingCostUSD: snapshots.USD(gradingFeeCents), SampleSales: int(weights),
		Basis: "expected graded value = graded fmv per grade weighted by the grade mix of this card's verified graded sales; grading cost is an assumed flat fee",
	}
	if weights > 0 && rawFMV > 0 {
		exp := int64(weighted / weights)
		e, g := snapshots.USD(exp), snapshots.USD(exp-rawFMV-gradingFeeCents)
		out.ExpectedGradedUSD, out.ExpectedGainUSD = &e, &g
	}
	return out
}
