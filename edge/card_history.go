package edge

import (
	"sort"
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/catalog"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

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
	if err := apperr.JoinFieldErrors(err1, err2); err != nil {
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

// fromDate is the range's first day as the payloads show it (null when the
// range is unbounded).
func (w *cardSales) fromDate() *string {
	if !w.filter.FromSet {
		return nil
	}
	return jsontext.StrOrNil(w.filter.From.String())
}

type historyPayload struct {
	CardID     string           `json:"card_id"`
	From       *string          `json:"from"`
	To         string           `json:"to"`
	Limit      int              `json:"limit"`
	TotalDays  int              `json:"total_days"`
	Truncated  bool             `json:"truncated"`
	Items      []pricing.DayRow `json:"items"`
	PriceBasis string           `json:"price_basis"`
}

func handleMarketHistory(r *request) (any, error) {
	w, err := r.cardSales()
	if err != nil {
		return nil, err
	}
	days := pricing.Daily(w.filter.Sales(w.sales)) // verified sales
	out := historyPayload{CardID: w.card.ID, From: w.fromDate(), To: w.filter.To.String(), Limit: r.p.int("limit"), TotalDays: len(days),
		PriceBasis: "verified sales per day (quality-flagged, low-confidence and price-feed rows excluded); days without sales are omitted"}
	if len(days) > out.Limit {
		days = days[len(days)-out.Limit:]
		out.Truncated = true
	}
	out.Items = days
	return out, nil
}

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
	// Raw executed sales: flagged and low-confidence rows too, not the
	// price feed.
	w.filter.IncludeFiltered, w.filter.IncludeUntrusted = true, true
	out := marketplaceSalesPayload{CardID: w.card.ID, From: w.fromDate(), To: w.filter.To.String(), Limit: r.p.int("limit"), ByMarketplace: map[string]int{}, Items: []pricing.SaleRow{},
		Note: "raw executed sales per marketplace, newest first, with their quality and identity flags; partner price-feed rows are not sales and are left out"}
	for s := range w.filter.Sales(w.sales) {
		out.Total++
		out.ByMarketplace[s.Marketplace.String()]++
		if len(out.Items) < out.Limit {
			out.Items = append(out.Items, pricing.NewSaleRow(w.card, *s))
		}
	}
	out.Truncated = out.Total > len(out.Items)
	return out, nil
}

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
		if target, err = catalog.Counterpart(r.snap.Reader, c, lang); err != nil {
			return nil, err
		}
	}
	finish := -1
	if r.p.has("finish") {
		if finish, err = pricing.PrintingOf(target, r.p.str("finish")); err != nil {
			return nil, validationErrors{queryError("finish", apperr.ErrorMessage(err), "value_error", r.p.str("finish"), nil)}
		}
	}
	from, to, fromSet, err := r.dateRange()
	if err != nil {
		return nil, err
	}
	series, err := r.priceSeries(target, finish)
	if err != nil {
		return nil, err
	}
	est, _, err := pricing.PrintingEstimate(r.snap.Reader, target, printing(target, finish), grade)
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
		CardID: target.ID, RequestedCardID: c.ID, Language: target.Language, Grade: grade.String(),
		Finish: jsontext.StrOrNil(pricing.PrintingName(target, printing(target, finish))), BaseFinish: printing(target, finish) == snapshots.BasePrinting(target),
		Method: method, Interval: interval,
		To: to.String(), Total: total, Offset: offset, Limit: limit, Items: page, AvailableGrades: grades,
		Estimate: pricing.NewEstimateRow(est),
		PriceBasis: map[string]string{
			"fmv":    "exponentially smoothed daily medians of the accepted verified sales of this printing and grade (outliers set aside; see /api/v3/methodology)",
			"tvwap":  "trailing 7-day, recency-weighted average of the accepted verified sales of this printing and grade",
			"median": "median of the trailing 7 days' accepted verified sales of this printing and grade",
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
	Finish          *string            `json:"finish"`
	BaseFinish      bool               `json:"base_finish"`
	Method          string             `json:"method"`
	Interval        string             `json:"interval"`
	From            *string            `json:"from"`
	To              string             `json:"to"`
	Total           int                `json:"total"`
	Offset          int                `json:"offset"`
	Limit           int                `json:"limit"`
	Items           []pricing.PointRow `json:"items"`
	AvailableGrades []string           `json:"available_grades"`
	// Estimate is the series as of as_of: the values (null at confidence
	// none, with a note), sample size, last sale, confidence and flags.
	Estimate   pricing.EstimateRow `json:"estimate"`
	PriceBasis string              `json:"price_basis"`
	Order      string              `json:"order"`
}
