package edge

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// ---- card detail and includes ----

func handleCardGet(r *request) (any, error) {
	c, err := r.cardOf()
	if err != nil {
		return nil, err
	}
	d := &r.detail
	*d = r.snap.cardDetail(c)
	var buf [16]string // more than the includes there are
	names := buf[:0]
	for n := range strings.SplitSeq(r.p.str("include"), ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if indexOfString(includeNames, n) < 0 {
			return nil, validationErrors{queryError("include", fmt.Sprintf("unknown include %q; allowed: %s", n, strings.Join(includeNames, ", ")), "enum", r.p.str("include"), nil)}
		}
		if indexOfString(names, n) < 0 {
			names = append(names, n)
		}
	}
	if len(names) > 0 {
		if err := r.fillIncludes(&r.includes, c, names); err != nil {
			return nil, err
		}
		d.includes = &r.includes
	}
	return d, nil
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

// cardIncludes computes the named subresources of a card. History includes
// respect the caller's history window.
func (r *request) cardIncludes(c *snapshots.Card, names []string) (*cardIncludes, error) {
	out := &cardIncludes{}
	if err := r.fillIncludes(out, c, names); err != nil {
		return nil, err
	}
	return out, nil
}

// fillIncludes is cardIncludes into out, which it expects zero.
func (r *request) fillIncludes(out *cardIncludes, c *snapshots.Card, names []string) error {
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
			if series, err = r.snap.PriceSeries(c.Game, c.ID); err != nil {
				return err
			}
			raw = snapshots.SeriesOf(series, snapshots.RawNearMint)
		}
		if cum == nil {
			if cum, err = r.snap.Cum(c.Game, c.ID); err != nil {
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
			h := &historySeries{Grade: "raw:near_mint", Method: method, From: start.String(), To: asOf.String(), Points: pricing.PointRows(pricing.Points(raw, start, asOf, true, pricing.IntervalDay), method)}
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
			rows := []pricing.SaleRow{}
			for s := range f.Sales(sales) {
				if len(rows) == 10 {
					break
				}
				rows = append(rows, pricing.NewSaleRow(c, *s))
			}
			out.RecentSales = &recentSalesInclude{Limit: 10, Items: rows}
		case "market_summary":
			if err := out.summary.read(r, c, "1m"); err != nil {
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

// ---- date ranges ----

// dateRange resolves date_from/since/date_to with the history window:
// since overrides date_from, from is clamped to the window, to defaults to
// as_of. fromSet reports whether from bounds the range.
func (r *request) dateRange() (from, to snapshots.Day, fromSet bool, err error) {
	from, fromSet = r.p.day("date_from")
	if d, ok := r.p.day("since"); ok {
		from, fromSet = d, true
	}
	from, fromSet = r.clampSince(from, fromSet)
	to = r.snap.AsOf
	if d, ok := r.p.day("date_to"); ok {
		to = d
	}
	if fromSet && to < from {
		name := "date_from"
		if r.p.has("since") {
			name = "since"
		}
		if r.p.has("date_to") {
			return 0, 0, false, validationErrors{queryError("date_to", "date_to must not be before "+name+" ("+from.String()+" after clamping to the history window)", "value_error", r.p.str("date_to"), nil)}
		}
	}
	return from, to, fromSet, nil
}

// gradeFilter parses a condition parameter (snapshots.ParseGradeFilter): a
// raw condition, a grade, raw, graded or a grader.
func gradeFilter(name, v string) (snapshots.GradeFilter, error) {
	f, err := snapshots.ParseGradeFilter(v)
	if err != nil {
		return f, validationErrors{queryError(name, "condition must be a raw condition ("+strings.Join(snapshots.Conditions, ", ")+") or a grade such as raw:near_mint or slab:10", "value_error", v, nil)}
	}
	return f, nil
}

// marketplaceFilter parses a marketplace list parameter
// (snapshots.ParseMarketplaces): "" or all selects every marketplace.
func marketplaceFilter(name, v string) (snapshots.MarketplaceSet, error) {
	mks, err := snapshots.ParseMarketplaces(v)
	if err != nil {
		return 0, validationErrors{queryError(name, err.Error(), "value_error", v, nil)}
	}
	return mks, nil
}

// ---- market history ----

// cardSales is a card's sales and the filter of the history routes
// (market-history, marketplace-sales): the date range, condition and source.
type cardSales struct {
	card   *snapshots.Card
	sales  []snapshots.Sale
	filter pricing.SaleFilter
}

func (r *request) cardSales() (*cardSales, error) {
	c, err := r.cardOf()
	if err != nil {
		return nil, err
	}
	w := &cardSales{card: c}
	f := &w.filter
	var err1, err2 error
	f.Grade, err1 = gradeFilter("condition", r.p.str("condition"))
	f.Marketplaces, err2 = marketplaceFilter("source", r.p.str("source"))
	if err := snapshots.JoinFieldErrors(err1, err2); err != nil {
		return nil, err
	}
	if f.From, f.To, f.FromSet, err = r.dateRange(); err != nil {
		return nil, err
	}
	if w.sales, err = r.snap.Sales(c.Game, c.ID); err != nil {
		return nil, err
	}
	return w, nil
}

type dayRow struct {
	Date      string  `json:"date"`
	Sales     int     `json:"sales"`
	VolumeUSD float64 `json:"volume_usd"`
	MedianUSD float64 `json:"median_usd"`
	LowUSD    float64 `json:"low_usd"`
	HighUSD   float64 `json:"high_usd"`
}

type historyPayload struct {
	CardID     string   `json:"card_id"`
	From       *string  `json:"from"`
	To         string   `json:"to"`
	Limit      int      `json:"limit"`
	TotalDays  int      `json:"total_days"`
	Truncated  bool     `json:"truncated"`
	Items      []dayRow `json:"items"`
	PriceBasis string   `json:"price_basis"`
}

func handleMarketHistory(r *request) (any, error) {
	w, err := r.cardSales()
	if err != nil {
		return nil, err
	}
	c, from, to, fromSet := w.card, w.filter.From, w.filter.To, w.filter.FromSet
	byDay := map[snapshots.Day][]int64{}
	for s := range w.filter.Sales(w.sales) { // verified sales
		byDay[s.Day] = append(byDay[s.Day], s.PriceCents)
	}
	days := make([]snapshots.Day, 0, len(byDay))
	for d := range byDay {
		days = append(days, d)
	}
	sort.Slice(days, func(i, j int) bool { return days[i] < days[j] })
	out := historyPayload{CardID: c.ID, To: to.String(), Limit: r.p.int("limit"), TotalDays: len(days), Items: []dayRow{},
		PriceBasis: "verified sales per day (quality-flagged, low-confidence and price-feed rows excluded); days without sales are omitted"}
	if fromSet {
		out.From = jsontext.StrOrNil(from.String())
	}
	if len(days) > out.Limit {
		days = days[len(days)-out.Limit:]
		out.Truncated = true
	}
	for _, d := range days {
		p := byDay[d]
		var vol int64
		for _, x := range p {
			vol += x
		}
		m := snapshots.Median(p)
		out.Items = append(out.Items, dayRow{Date: d.String(), Sales: len(p), VolumeUSD: snapshots.USD(vol), MedianUSD: snapshots.USD(m), LowUSD: snapshots.USD(p[0]), HighUSD: snapshots.USD(p[len(p)-1])})
	}
	return out, nil
}

// ---- marketplace sales ----

type marketplaceSalesPayload struct {
	CardID        string            `json:"card_id"`
	From          *string           `json:"from"`
	To            string            `json:"to"`
	Limit         int               `json:"limit"`
	Total         int               `json:"total"`
	Truncated     bool              `json:"truncated"`
	ByMarketplace map[string]int    `json:"by_marketplace"`
	Items         []pricing.SaleRow `json:"items"`
	Note          string            `json:"note"`
}

func handleMarketplaceSales(r *request) (any, error) {
	w, err := r.cardSales()
	if err != nil {
		return nil, err
	}
	c, from, to, fromSet := w.card, w.filter.From, w.filter.To, w.filter.FromSet
	// Raw executed sales: flagged and low-confidence rows too, not the
	// price feed.
	w.filter.IncludeFiltered, w.filter.IncludeUntrusted = true, true
	out := marketplaceSalesPayload{CardID: c.ID, To: to.String(), Limit: r.p.int("limit"), ByMarketplace: map[string]int{}, Items: []pricing.SaleRow{},
		Note: "raw executed sales per marketplace, newest first, with their quality and identity flags; partner price-feed rows are not sales and are left out"}
	if fromSet {
		out.From = jsontext.StrOrNil(from.String())
	}
	for s := range w.filter.Sales(w.sales) {
		out.Total++
		out.ByMarketplace[s.Marketplace.String()]++
		if len(out.Items) < out.Limit {
			out.Items = append(out.Items, pricing.NewSaleRow(c, *s))
		}
	}
	out.Truncated = out.Total > len(out.Items)
	return out, nil
}

// ---- partner history ----

type partnerDay struct {
	Date           string   `json:"date"`
	MarketPriceUSD *float64 `json:"market_price_usd"`
	Sales          int      `json:"sales"`
	VolumeUSD      float64  `json:"volume_usd"`
}

func handlePartnerHistory(r *request) (any, error) {
	c, err := r.cardOf()
	if err != nil {
		return nil, err
	}
	sales, err := r.snap.Sales(c.Game, c.ID)
	if err != nil {
		return nil, err
	}
	start, limited := r.windowStart()
	type acc struct {
		feed  int64
		n     int
		cents int64
	}
	byDay := map[snapshots.Day]*acc{}
	for _, s := range sales {
		if s.Marketplace != snapshots.MarketPartner || s.Day > r.snap.AsOf || (limited && s.Day < start) {
			continue
		}
		a := byDay[s.Day]
		if a == nil {
			a = &acc{}
			byDay[s.Day] = a
		}
		if s.Flags&snapshots.SalePriceFeed != 0 {
			a.feed = s.PriceCents
		} else if !s.Hidden() {
			a.n++
			a.cents += s.PriceCents
		}
	}
	days := make([]snapshots.Day, 0, len(byDay))
	for d := range byDay {
		days = append(days, d)
	}
	sort.Slice(days, func(i, j int) bool { return days[i] < days[j] })
	limit := r.p.int("limit")
	total := len(days)
	if len(days) > limit {
		days = days[len(days)-limit:]
	}
	items := make([]partnerDay, 0, len(days))
	for _, d := range days {
		a := byDay[d]
		items = append(items, partnerDay{Date: d.String(), MarketPriceUSD: snapshots.USDOrNil(a.feed), Sales: a.n, VolumeUSD: snapshots.USD(a.cents)})
	}
	out := partnerHistoryPayload{CardID: c.ID, Marketplace: "partner", Limit: limit, TotalDays: total, Truncated: total > len(items), Items: items,
		Basis: "market_price_usd is the partner price feed's daily market median (not a sale); sales and volume are verified partner sales"}
	if c.PartnerProductID != 0 {
		id := c.PartnerProductID
		out.PartnerProductID = &id
	}
	if limited {
		out.WindowStart = jsontext.StrOrNil(start.String())
	}
	return out, nil
}

type partnerHistoryPayload struct {
	CardID           string       `json:"card_id"`
	Marketplace      string       `json:"marketplace"`
	PartnerProductID *int64       `json:"partner_product_id"`
	Limit            int          `json:"limit"`
	TotalDays        int          `json:"total_days"`
	Truncated        bool         `json:"truncated"`
	WindowStart      *string      `json:"window_start"`
	Items            []partnerDay `json:"items"`
	Basis            string       `json:"basis"`
}

// ---- price history ----

func handlePriceHistory(r *request) (any, error) {
	c, err := r.cardOf()
	if err != nil {
		return nil, err
	}
	grade, err := snapshots.ReadGradeOr(r.p.str("grade"), snapshots.RawNearMint)
	if err != nil {
		return nil, validationErrors{queryError("grade", err.Error(), "value_error", r.p.str("grade"), nil)}
	}
	target := c
	if lang := r.p.str("language"); lang != "" && lang != c.Language {
		if target, err = r.counterpart(c, lang); err != nil {
			return nil, err
		}
	}
	from, to, fromSet, err := r.dateRange()
	if err != nil {
		return nil, err
	}
	series, err := r.snap.PriceSeries(target.Game, target.ID)
	if err != nil {
		return nil, err
	}
	s := snapshots.SeriesOf(series, grade)
	method, interval := r.p.str("method"), r.p.str("interval")
	pts := pricing.PointRows(pricing.Points(s, from, to, fromSet, interval), method)
	total := len(pts)
	offset, limit := r.p.int("offset"), r.p.int("limit")
	end := max(0, total-offset)
	begin := max(0, end-limit)
	page := append([]pricing.PointRow{}, pts[begin:end]...)
	grades := []string{}
	for _, x := range series {
		grades = append(grades, x.Grade.String())
	}
	out := priceHistoryPayload{
		CardID: target.ID, RequestedCardID: c.ID, Language: target.Language, Grade: grade.String(), Method: method, Interval: interval,
		To: to.String(), Total: total, Offset: offset, Limit: limit, Items: page, AvailableGrades: grades,
		PriceBasis: map[string]string{
			"fmv":    "exponentially smoothed daily medians of verified sales of this grade",
			"tvwap":  "trailing 7-day, recency-weighted average of verified sales of this grade",
			"median": "median of the trailing 7 days' verified sales of this grade",
		}[method],
		Order: "oldest first; the page holds the newest points after skipping offset newer ones",
	}
	if fromSet {
		out.From = jsontext.StrOrNil(from.String())
	}
	return out, nil
}

type priceHistoryPayload struct {
	CardID          string             `json:"card_id"`
	RequestedCardID string             `json:"requested_card_id"`
	Language        string             `json:"language"`
	Grade           string             `json:"grade"`
	Method          string             `json:"method"`
	Interval        string             `json:"interval"`
	From            *string            `json:"from"`
	To              string             `json:"to"`
	Total           int                `json:"total"`
	Offset          int                `json:"offset"`
	Limit           int                `json:"limit"`
	Items           []pricing.PointRow `json:"items"`
	AvailableGrades []string           `json:"available_grades"`
	PriceBasis      string             `json:"price_basis"`
	Order           string             `json:"order"`
}

// counterpart finds the card's edition in another language through the
// en_card_id links.
func (r *request) counterpart(c *snapshots.Card, lang string) (*snapshots.Card, error) {
	if lang == "en" && c.ENCardID != "" {
		return r.snap.Card(c.Game, c.ENCardID)
	}
	cards, err := r.snap.Cards(c.Game)
	if err != nil {
		return nil, err
	}
	enID := c.ID
	if c.Language != "en" {
		enID = c.ENCardID
	}
	if enID != "" {
		for _, x := range cards {
			if x.Language == lang && strings.EqualFold(x.ENCardID, enID) {
				return x, nil
			}
		}
	}
	return nil, snapshots.Errorf(snapshots.ENOTFOUND, "card %s has no known %s edition", c.ID, lang)
}

// ---- vwap ----

func handleVWAP(r *request) (any, error) {
	c, err := r.cardOf()
	if err != nil {
		return nil, err
	}
	p := r.p
	var verrs validationErrors
	condition, grader := strings.ToLower(p.str("condition")), strings.ToLower(p.str("grader"))
	ci, gi := -1, -1
	if condition != "" {
		if ci = snapshots.ConditionIndex(condition); ci < 0 {
			verrs = append(verrs, queryError("condition", "condition must be one of "+strings.Join(snapshots.Conditions, ", "), "enum", p.str("condition"), nil))
		}
	}
	if grader != "" {
		if gi = snapshots.GraderIndex(grader); gi < 0 {
			verrs = append(verrs, queryError("grader", "grader must be one of "+strings.Join(snapshots.Graders, ", "), "enum", p.str("grader"), nil))
		}
	}
	if condition != "" && grader != "" {
		verrs = append(verrs, queryError("grader", "give condition (raw sales) or grader (graded sales), not both", "value_error", p.str("grader"), nil))
	}
	if p.has("grade_num") {
		n := p.num("grade_num")
		if grader == "" {
			verrs = append(verrs, queryError("grade_num", "grade_num needs grader", "value_error", n, nil))
		} else if n < 1 || n*2 != math.Trunc(n*2) {
			verrs = append(verrs, queryError("grade_num", "grade_num must be 1 to 10 in steps of 0.5", "value_error", n, nil))
		}
	}
	if len(verrs) > 0 {
		return nil, verrs
	}
	keep := func(g snapshots.Grade) bool {
		switch {
		case ci >= 0:
			return g == snapshots.RawGrade(ci)
		case gi >= 0 && p.has("grade_num"):
			return g == snapshots.GradedGrade(gi, p.num("grade_num"))
		case gi >= 0:
			return g.Grader() == gi
		}
		return true
	}
	days := p.int("window_days")
	from := r.snap.AsOf - snapshots.Day(days) + 1
	clamped := false
	if w, ok := r.windowStart(); ok && w > from {
		from, clamped = w, true
	}
	out := vwapPayload{
		CardID: c.ID, WindowDays: days, From: from.String(), To: r.snap.AsOf.String(), Clamped: clamped,
		Condition: jsontext.StrOrNil(condition), Grader: jsontext.StrOrNil(grader), Language: c.Language,
		PriceBasis: "sum of verified sale prices / number of verified sales in the window (each sale is one unit)",
	}
	if p.has("grade_num") {
		n := p.num("grade_num")
		out.GradeNum = &n
	}
	if lang := p.str("language"); lang != "" && !strings.EqualFold(lang, c.Language) {
		out.Note = jsontext.StrOrNil("card " + c.ID + " is a " + c.Language + " card; no sales match language " + lang)
		return out, nil
	}
	cum, err := r.snap.Cum(c.Game, c.ID)
	if err != nil {
		return nil, err
	}
	n, cents := snapshots.SumWindow(cum, keep, from, r.snap.AsOf)
	out.Sales, out.VolumeUSD = n, snapshots.USD(cents)
	if n > 0 {
		v := snapshots.USD(int64(math.Round(float64(cents) / float64(n))))
		out.VWAPUSD = &v
	}
	return out, nil
}

type vwapPayload struct {
	CardID     string   `json:"card_id"`
	WindowDays int      `json:"window_days"`
	From       string   `json:"from"`
	To         string   `json:"to"`
	Clamped    bool     `json:"clamped_to_history_window"`
	Condition  *string  `json:"condition"`
	Grader     *string  `json:"grader"`
	GradeNum   *float64 `json:"grade_num"`
	Language   string   `json:"language"`
	VWAPUSD    *float64 `json:"vwap_usd"`
	Sales      int      `json:"sales"`
	VolumeUSD  float64  `json:"volume_usd"`
	PriceBasis string   `json:"price_basis"`
	Note       *string  `json:"note,omitempty"`
}
