package pricing

import (
	"math"
	"sort"
	"strings"

	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// A card's history as the REST history routes answer it (market-history,
// marketplace-sales, partner-history, price-history, vwap), and the one
// reading of a printing and grade's price series that the MCP get_prices
// tool and the dashboard's card page share with price-history
// (ReadHistory). Callers clamp the ranges to the caller's history window
// first.

// fromDate is a range's first day as the payloads show it (null when the
// range is unbounded).
func fromDate(from snapshots.Day, set bool) *string {
	if !set {
		return nil
	}
	return jsontext.StrOrNil(from.String())
}

// MarketHistory is market-history.v1: a card's verified sales per day.
type MarketHistory struct {
	CardID     string   `json:"card_id"`
	From       *string  `json:"from"`
	To         string   `json:"to"`
	Limit      int      `json:"limit"`
	TotalDays  int      `json:"total_days"`
	Truncated  bool     `json:"truncated"`
	Items      []DayRow `json:"items"`
	PriceBasis string   `json:"price_basis"`
}

// NewMarketHistory is the days (Daily) of the sales f selects among card c's
// sales (newest first), the most recent limit of them.
func NewMarketHistory(c *snapshots.Card, sales []snapshots.Sale, f SaleFilter, limit int) MarketHistory {
	days := Daily(f.Sales(sales))
	out := MarketHistory{CardID: c.ID, From: fromDate(f.From, f.FromSet), To: f.To.String(), Limit: limit, TotalDays: len(days),
		PriceBasis: "verified sales per day (quality-flagged, low-confidence and price-feed rows excluded); days without sales are omitted"}
	if len(days) > limit {
		days = days[len(days)-limit:]
		out.Truncated = true
	}
	out.Items = days
	return out
}

// MarketplaceSales is marketplace-sales.v1: a card's raw executed sales per
// marketplace.
type MarketplaceSales struct {
	CardID        string         `json:"card_id"`
	From          *string        `json:"from"`
	To            string         `json:"to"`
	Limit         int            `json:"limit"`
	Total         int            `json:"total"`
	Truncated     bool           `json:"truncated"`
	ByMarketplace map[string]int `json:"by_marketplace"`
	Items         []SaleRow      `json:"items"`
	Note          string         `json:"note"`
}

// NewMarketplaceSales is the raw executed sales of card c that f selects,
// flagged and low-confidence rows too (never the price feed), newest first:
// the first limit of them and every one counted per marketplace.
func NewMarketplaceSales(c *snapshots.Card, sales []snapshots.Sale, f SaleFilter, limit int) MarketplaceSales {
	f.IncludeFiltered, f.IncludeUntrusted = true, true
	out := MarketplaceSales{CardID: c.ID, From: fromDate(f.From, f.FromSet), To: f.To.String(), Limit: limit, ByMarketplace: map[string]int{}, Items: []SaleRow{},
		Note: "raw executed sales per marketplace, newest first, with their quality and identity flags; partner price-feed rows are not sales and are left out"}
	for s := range f.Sales(sales) {
		out.Total++
		out.ByMarketplace[s.Marketplace.String()]++
		if len(out.Items) < out.Limit {
			out.Items = append(out.Items, NewSaleRow(c, *s))
		}
	}
	out.Truncated = out.Total > len(out.Items)
	return out
}

// PartnerDay is one day of the partner marketplace.
type PartnerDay struct {
	Date           string   `json:"date"`
	MarketPriceUSD *float64 `json:"market_price_usd"`
	Sales          int      `json:"sales"`
	VolumeUSD      float64  `json:"volume_usd"`
}

// PartnerHistory is partner-history.v1.
type PartnerHistory struct {
	CardID           string  `json:"card_id"`
	Marketplace      string  `json:"marketplace"`
	PartnerProductID *int64  `json:"partner_product_id"`
	Limit            int     `json:"limit"`
	TotalDays        int     `json:"total_days"`
	Truncated        bool    `json:"truncated"`
	WindowStart      *string `json:"window_start"`
	// Finish is the printing whose market price the days give (the card's
	// base printing when it has a price-feed row that day).
	Finish *string      `json:"finish"`
	Items  []PartnerDay `json:"items"`
	// Source is where market_price_usd comes from (tcgplayer: the partner
	// marketplace's price file or feed; synthetic in the synthetic
	// market), Synthetic whether it is synthesized.
	Source    string `json:"source" enum:"tcgplayer,synthetic"`
	Synthetic bool   `json:"synthetic"`
	// Sources are every source's daily history of the printing, each
	// grade apart, never blended (a snapshot built from real sources: each
	// source's headline field day by day; empty otherwise), the most recent
	// limit days in the window, oldest first.
	Sources []SourceHistory `json:"sources"`
	Basis   string          `json:"basis"`
}

// SourceHistory is one source's daily history of one field, printing and
// grade of a card.
type SourceHistory struct {
	Source    string          `json:"source" enum:"tcgplayer,cardmarket,pricecharting"`
	Field     string          `json:"field"`
	Finish    *string         `json:"finish"`
	Grade     string          `json:"grade"`
	Currency  string          `json:"currency"`
	Stale     bool            `json:"stale"`
	TotalDays int             `json:"total_days"`
	Items     []SourceDayItem `json:"items"`
}

// SourceDayItem is one day of a source: its number in USD and as the
// source gave it (amount, in the history's currency), and the day of the
// ECB rate that converted it (null for USD).
type SourceDayItem struct {
	Date     string  `json:"date"`
	PriceUSD float64 `json:"price_usd"`
	Amount   float64 `json:"amount"`
	RateDate *string `json:"rate_date"`
}

// NewPartnerHistory is the partner marketplace's days of card c up to asOf
// (from start when limited): each day's price-feed median (of the base
// printing, else of the first printing with a row that day) and verified
// sales, the most recent limit days, oldest first; and every source's days
// of the base printing from the card's provenance p.
func NewPartnerHistory(c *snapshots.Card, sales []snapshots.Sale, p Provenance, asOf, start snapshots.Day, limited bool, limit int) PartnerHistory {
	type acc struct {
		feed   int64
		finish int
		n      int
		cents  int64
	}
	base := snapshots.BasePrinting(c)
	byDay := map[snapshots.Day]*acc{}
	for _, s := range sales {
		if s.Marketplace != snapshots.MarketPartner || s.Day > asOf || (limited && s.Day < start) {
			continue
		}
		a := byDay[s.Day]
		if a == nil {
			a = &acc{finish: -1}
			byDay[s.Day] = a
		}
		if s.Flags&snapshots.SalePriceFeed != 0 {
			if a.finish < 0 || (int(s.Finish) == base && a.finish != base) {
				a.feed, a.finish = s.PriceCents, int(s.Finish)
			}
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
	total := len(days)
	if len(days) > limit {
		days = days[len(days)-limit:]
	}
	items := make([]PartnerDay, 0, len(days))
	for _, d := range days {
		a := byDay[d]
		items = append(items, PartnerDay{Date: d.String(), MarketPriceUSD: snapshots.USDOrNil(a.feed), Sales: a.n, VolumeUSD: snapshots.USD(a.cents)})
	}
	origin := p.SaleOrigin(&snapshots.Sale{Flags: snapshots.SalePriceFeed})
	out := PartnerHistory{CardID: c.ID, Marketplace: "partner", Limit: limit, TotalDays: total, Truncated: total > len(items),
		Finish: jsontext.StrOrNil(PrintingName(c, base)), Items: items, Source: origin.Source, Synthetic: origin.Synthetic,
		Sources: sourceHistories(c, p, base, asOf, start, limited, limit),
		Basis: "market_price_usd is the partner price feed's daily market median (not a sale; TCGplayer's market price in a snapshot built from its files); " +
			"sales and volume are verified partner sales; sources are each source's own days, in its currency and in USD (see /api/v3/methodology, sources)"}
	if c.PartnerProductID != 0 {
		id := c.PartnerProductID
		out.PartnerProductID = &id
	}
	if limited {
		out.WindowStart = jsontext.StrOrNil(start.String())
	}
	return out
}

// sourceHistories are the card's sources' histories of printing finish
// (p.Sources.History) up to asOf, from start when limited, the most recent
// limit days of each.
func sourceHistories(c *snapshots.Card, p Provenance, finish int, asOf, start snapshots.Day, limited bool, limit int) []SourceHistory {
	out := []SourceHistory{}
	if p.Sources == nil {
		return out
	}
	for _, h := range p.Sources.History {
		if int(h.Finish) != finish {
			continue
		}
		var items []SourceDayItem
		for _, pt := range h.Points {
			if pt.Day > asOf || (limited && pt.Day < start) {
				continue
			}
			it := SourceDayItem{Date: pt.Day.String(), PriceUSD: snapshots.USD(pt.Cents), Amount: snapshots.USD(pt.Amount)}
			if pt.RateDay != 0 {
				it.RateDate = jsontext.StrOrNil(pt.RateDay.String())
			}
			items = append(items, it)
		}
		total := len(items)
		if len(items) > limit {
			items = items[len(items)-limit:]
		}
		out = append(out, SourceHistory{Source: h.Source, Field: h.Field, Finish: jsontext.StrOrNil(PrintingName(c, finish)), Grade: h.Grade.String(),
			Currency: h.Currency, Stale: p.SourceStale(h.Source), TotalDays: total, Items: jsontext.NonNil(items)})
	}
	return out
}

// PrintingHistory is one printing and grade of a card as read for its
// history: the printing's series of every grade, the grade's series (nil
// when the grade never sold in the printing) and its estimate as of the
// snapshot's as_of.
type PrintingHistory struct {
	Printing int // the printing read (PrintingIndex)
	Series   []snapshots.PriceSeries
	Grade    *snapshots.PriceSeries
	Estimate snapshots.Estimate
	// Origin is where the grade's series comes from.
	Origin Origin
}

// ReadHistory reads grade g of printing finish (BaseRead: the base
// printing) of card c.
func ReadHistory(r snapshots.Reader, c *snapshots.Card, finish int, g snapshots.Grade) (PrintingHistory, error) {
	series, err := ReadSeries(r, c, finish)
	if err != nil {
		return PrintingHistory{}, err
	}
	h := PrintingHistory{Printing: PrintingIndex(c, finish), Series: series, Grade: snapshots.SeriesOf(series, g)}
	if h.Estimate, _, err = PrintingEstimate(r, c, h.Printing, g); err != nil {
		return PrintingHistory{}, err
	}
	prov, err := ReadProvenance(r, c)
	if err != nil {
		return PrintingHistory{}, err
	}
	h.Origin = prov.SeriesOrigin(h.Printing, g)
	return h, nil
}

// Points is the grade's points from from (when fromSet) to to at the
// interval (Points).
func (h PrintingHistory) Points(from, to snapshots.Day, fromSet bool, interval string) []Point {
	return Points(h.Grade, from, to, fromSet, interval)
}

// PriceHistory is price-history.v3.
type PriceHistory struct {
	CardID          string     `json:"card_id"`
	RequestedCardID string     `json:"requested_card_id"`
	Language        string     `json:"language"`
	Grade           string     `json:"grade"`
	GradeName       string     `json:"grade_name"`
	Finish          *string    `json:"finish"`
	BaseFinish      bool       `json:"base_finish"`
	Method          string     `json:"method"`
	Interval        string     `json:"interval"`
	From            *string    `json:"from"`
	To              string     `json:"to"`
	Total           int        `json:"total"`
	Offset          int        `json:"offset"`
	Limit           int        `json:"limit"`
	Items           []PointRow `json:"items"`
	AvailableGrades []string   `json:"available_grades"`
	// Estimate is the series as of as_of: the values (null at confidence
	// none, with a note), sample size, last sale, confidence and flags.
	Estimate EstimateRow `json:"estimate"`
	// Source is where the series comes from: a source's file (tcgplayer,
	// cardmarket, pricecharting: each point is its number of the day),
	// observed (the estimator over verified sales) or synthetic; Synthetic
	// whether it is synthesized.
	Source     string `json:"source" enum:"tcgplayer,cardmarket,pricecharting,observed,synthetic"`
	Synthetic  bool   `json:"synthetic"`
	PriceBasis string `json:"price_basis"`
	Order      string `json:"order"`
}

// PriceHistoryRequest asks for a page of a price history: the grade, the
// price method and interval, the range and the page (offset newest points
// skipped, then limit points).
type PriceHistoryRequest struct {
	Grade            snapshots.Grade
	Method, Interval string
	From, To         snapshots.Day
	FromSet          bool
	Offset, Limit    int
}

// NewPriceHistory is a page of the history h of card target (read for card
// requested: the same card or its edition in another language).
func NewPriceHistory(requested, target *snapshots.Card, h PrintingHistory, q PriceHistoryRequest) PriceHistory {
	pts := PointRows(h.Points(q.From, q.To, q.FromSet, q.Interval), q.Method)
	total := len(pts)
	end := max(0, total-q.Offset)
	begin := max(0, end-q.Limit)
	grades := []string{}
	for _, x := range h.Series {
		grades = append(grades, x.Grade.String())
	}
	return PriceHistory{
		CardID: target.ID, RequestedCardID: requested.ID, Language: target.Language, Grade: q.Grade.String(), GradeName: q.Grade.Name(),
		Finish: jsontext.StrOrNil(PrintingName(target, h.Printing)), BaseFinish: h.Printing == snapshots.BasePrinting(target),
		Method: q.Method, Interval: q.Interval, From: fromDate(q.From, q.FromSet),
		To: q.To.String(), Total: total, Offset: q.Offset, Limit: q.Limit, Items: append([]PointRow{}, pts[begin:end]...), AvailableGrades: grades,
		Estimate: NewEstimateRow(h.Estimate), Source: h.Origin.Source, Synthetic: h.Origin.Synthetic,
		PriceBasis: historyBasis(h.Origin, q.Method),
		Order:      "oldest first; the page holds the newest points after skipping offset newer ones",
	}
}

// VWAP is vwap.v1: the volume-weighted average price of a card's verified
// sales over a window.
type VWAP struct {
	CardID     string   `json:"card_id"`
	WindowDays int      `json:"window_days"`
	From       string   `json:"from"`
	To         string   `json:"to"`
	Clamped    bool     `json:"clamped_to_history_window"`
	Condition  *string  `json:"condition"`
	Grader     *string  `json:"grader"`
	GradeNum   *float64 `json:"grade_num"`
	Language   string   `json:"language"`
	Finish     *string  `json:"finish"`
	BaseFinish bool     `json:"base_finish"`
	VWAPUSD    *float64 `json:"vwap_usd"`
	Sales      int      `json:"sales"`
	VolumeUSD  float64  `json:"volume_usd"`
	PriceBasis string   `json:"price_basis"`
	Note       *string  `json:"note,omitempty"`
}

// VWAPRequest selects the sales of a VWAP: a printing (BaseRead: the base
// printing), the raw sales of a condition or the graded sales of a grader
// (and a grade number), or every sale; the window's days and its first and
// last day (Clamped: the first was raised to the history window's start);
// a language the card must have ("" any).
type VWAPRequest struct {
	Finish            int
	Condition, Grader string // snapshots.Conditions and snapshots.Graders names, or ""
	GradeNum          *float64
	Days              int
	From, To          snapshots.Day
	Clamped           bool
	Language          string
}

// NewVWAP is the VWAP of card c's verified sales that q selects: each sale
// is one unit, outliers count (as in volumes).
func NewVWAP(r snapshots.Reader, c *snapshots.Card, q VWAPRequest) (VWAP, error) {
	ci, gi := snapshots.ConditionIndex(q.Condition), snapshots.GraderIndex(q.Grader)
	keep := func(g snapshots.Grade) bool {
		switch {
		case q.Condition != "":
			return g == snapshots.RawGrade(ci)
		case q.Grader != "" && q.GradeNum != nil:
			return g == snapshots.GradedGrade(gi, *q.GradeNum)
		case q.Grader != "":
			return g.Grader() == gi
		}
		return true
	}
	p := PrintingIndex(c, q.Finish)
	out := VWAP{
		CardID: c.ID, WindowDays: q.Days, From: q.From.String(), To: q.To.String(), Clamped: q.Clamped,
		Condition: jsontext.StrOrNil(q.Condition), Grader: jsontext.StrOrNil(q.Grader), GradeNum: q.GradeNum, Language: c.Language,
		Finish: jsontext.StrOrNil(PrintingName(c, p)), BaseFinish: p == snapshots.BasePrinting(c),
		PriceBasis: "sum of verified sale prices / number of verified sales of the printing in the window (each sale is one unit; outliers count, as in volumes)",
	}
	if q.Language != "" && !strings.EqualFold(q.Language, c.Language) {
		out.Note = jsontext.StrOrNil("card " + c.ID + " is a " + c.Language + " card; no sales match language " + q.Language)
		return out, nil
	}
	cum, err := ReadCum(r, c, q.Finish)
	if err != nil {
		return VWAP{}, err
	}
	n, cents := snapshots.SumWindow(cum, keep, q.From, q.To)
	out.Sales, out.VolumeUSD = n, snapshots.USD(cents)
	if n > 0 {
		v := snapshots.USD(int64(math.Round(float64(cents) / float64(n))))
		out.VWAPUSD = &v
	}
	return out, nil
}

// historyBasis says what the points of a series of origin o are, by method.
func historyBasis(o Origin, method string) string {
	if o.Field != "" {
		return SourceLabel(o.Source) + "'s " + o.Field + " price of this printing and grade, one point per day of its files (fmv, tvwap and median are that number alike; " +
			"a day without a file keeps the last one); see /api/v3/methodology, sources"
	}
	return map[string]string{
		MethodFMV:    "exponentially smoothed daily medians of the accepted verified sales of this printing and grade (outliers set aside; see /api/v3/methodology)",
		MethodTVWAP:  "trailing 7-day, recency-weighted average of the accepted verified sales of this printing and grade",
		MethodMedian: "median of the trailing 7 days' accepted verified sales of this printing and grade",
	}[method]
}
