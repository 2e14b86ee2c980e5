package mcp

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

// gradeFilter parses a grade filter (snapshots.ParseGradeFilter): "" (every
// grade), "raw", "graded", a grader name, or a grade.
func gradeFilter(s string) (snapshots.GradeFilter, error) {
	f, err := snapshots.ParseGradeFilter(s)
	if err != nil {
		return f, apperr.Errorf(apperr.EINVALID, "grade: %v (or use raw, graded, or a grader name: %s; slab is PSA)", err, strings.Join(snapshots.Graders, ", "))
	}
	return f, nil
}

// marketplaces parses a comma list of marketplaces
// (snapshots.ParseMarketplaces; "" or "all": every marketplace).
func marketplaces(field, list string) (snapshots.MarketplaceSet, error) {
	set, err := snapshots.ParseMarketplaces(list)
	if err != nil {
		return 0, apperr.Errorf(apperr.EINVALID, "%s: %v", field, err)
	}
	return set, nil
}

// gradeAndMarkets parses a tool's grade filter and its marketplace list
// (field names the list's argument).
func gradeAndMarkets(grade, field, list string) (snapshots.GradeFilter, snapshots.MarketplaceSet, error) {
	g, err := gradeFilter(grade)
	if err != nil {
		return g, 0, err
	}
	m, err := marketplaces(field, list)
	return g, m, err
}

// cardFinish matches a finish for one card; a card without it is reported.
func cardFinish(c *snapshots.Card, finish string) (pricing.Finish, *unresolved) {
	f, err := pricing.MatchFinish(c, finish)
	if err != nil {
		return f, &unresolved{Ref: c.ID, Status: "finish_not_found", Message: apperr.ErrorMessage(err)}
	}
	return f, nil
}

// ---- get_prices ----

type pricesArgs struct {
	IDs      []string `json:"ids"`
	Grade    string   `json:"grade"`
	Pick     string   `json:"pick"`
	Interval string   `json:"interval"`
	Limit    *int     `json:"limit"`
	Since    string   `json:"since"`
	Until    string   `json:"until"`
	Finish   string   `json:"finish"`
	Game     string   `json:"game"`
}

type pricePoint struct {
	Date      string   `json:"date"`
	FMVUSD    *float64 `json:"fmv_usd,omitempty"`
	TVWAPUSD  *float64 `json:"tvwap_usd,omitempty"`
	MedianUSD *float64 `json:"median_usd,omitempty"`
	Sales     int      `json:"sales"`
	// The estimate behind the point as of its day (package estimate).
	SampleSize int      `json:"sample_size"`
	Confidence string   `json:"confidence"`
	Flags      []string `json:"flags"`
}

// pricesOut is get_prices' data.
type pricesOut struct {
	Game             string           `json:"game"`
	Grade            string           `json:"grade"`
	GradeName        string           `json:"grade_name"`
	Pick             string           `json:"pick" enum:"fmv,tvwap,median,all"`
	Interval         string           `json:"interval" enum:"change,day,week"`
	Limit            int              `json:"limit"`
	Range            rangeOut         `json:"range"`
	Items            []priceSeriesOut `json:"items"`
	Unresolved       []unresolved     `json:"unresolved"`
	Order            string           `json:"order"`
	BoundedByDefault bool             `json:"bounded_by_default,omitempty"`
	Note             string           `json:"note,omitempty"`
}

type priceSeriesOut struct {
	CardID string `json:"card_id"`
	Name   string `json:"name"`
	Grade  string `json:"grade"`
	// Finish is the printing (null for a card without variants) and
	// BaseFinish whether it is the card's base printing.
	Finish     *string `json:"finish"`
	BaseFinish bool    `json:"base_finish"`
	// Estimate is the series as of as_of: fmv, tvwap and median (null at
	// confidence none, with a note), sample size, last sale, confidence and
	// flags.
	Estimate pricing.EstimateRow `json:"estimate"`
	// Source is where the series comes from: a source's file (tcgplayer,
	// cardmarket, pricecharting: each point its number of the day),
	// observed (the estimator over verified sales) or synthetic.
	Source    string       `json:"source" enum:"tcgplayer,cardmarket,pricecharting,observed,synthetic"`
	Synthetic bool         `json:"synthetic"`
	Points    []pricePoint `json:"points"`
	InRange   int          `json:"points_in_range"`
	Returned  int          `json:"returned"`
	Truncated bool         `json:"truncated"`
	Message   string       `json:"message,omitempty"`
}

func (s *Server) toolPrices(t *toolCall) (any, error) {
	var a pricesArgs
	if err := t.bind(&a); err != nil {
		return nil, err
	}
	game, explicit, err := t.game(a.Game)
	if err != nil {
		return nil, err
	}
	grade, err := snapshots.ReadGradeOr(a.Grade, snapshots.RawNearMint)
	if err != nil {
		return nil, apperr.Errorf(apperr.EINVALID, "%v", err)
	}
	if a.Pick == "" {
		a.Pick = "fmv"
	}
	if a.Interval == "" {
		a.Interval = "change"
	}
	hr, err := t.historyRange(a.Since, a.Until)
	if err != nil {
		return nil, err
	}
	limit, bounded := PricesMaxLimit, false
	switch {
	case a.Limit != nil:
		limit = *a.Limit
	case a.Since == "":
		limit, bounded = PricesDefaultLimit, true
	}
	rs, cards, err := t.resolveIDs("ids", game, explicit, a.IDs)
	if err != nil {
		return nil, err
	}
	if err := t.charge(len(cards)); err != nil {
		return nil, err
	}
	items := make([]priceSeriesOut, 0, len(cards))
	missing := unresolvedOf(rs)
	for _, c := range cards {
		finish, err := pricing.PrintingOf(c, a.Finish)
		if err != nil {
			missing = append(missing, unresolved{Ref: c.ID, Status: "finish_not_found", Message: apperr.ErrorMessage(err)})
			continue
		}
		h, err := pricing.ReadHistory(t.snap.Reader, c, finish, grade)
		if err != nil {
			return nil, err
		}
		out := priceSeriesOut{CardID: c.ID, Name: c.Name, Grade: grade.String(), Points: []pricePoint{},
			Finish: nilIfEmpty(pricing.PrintingName(c, finish)), BaseFinish: finish == snapshots.BasePrinting(c), Estimate: pricing.NewEstimateRow(h.Estimate),
			Source: h.Origin.Source, Synthetic: h.Origin.Synthetic}
		if h.Grade == nil || len(h.Grade.Points) == 0 {
			out.Message = "no price for this grade of this printing: no verified sales and no source's file price it"
			items = append(items, out)
			continue
		}
		pts := ledger(h, hr, a.Interval, a.Pick)
		out.InRange = len(pts)
		if len(pts) > limit {
			pts, out.Truncated = pts[len(pts)-limit:], true
		}
		out.Points, out.Returned = pts, len(pts)
		items = append(items, out)
	}
	res := pricesOut{
		Game: game, Grade: grade.String(), GradeName: grade.Name(), Pick: a.Pick, Interval: a.Interval, Limit: limit,
		Range: hr.JSON(), Items: items, Unresolved: jsontext.NonNil(missing), Order: "oldest first; when truncated, the newest points are kept",
	}
	if bounded {
		res.BoundedByDefault = true
		res.Note = fmt.Sprintf("neither limit nor since was given: each id returns only its newest %d points; pass limit (up to %d) or since to get more", PricesDefaultLimit, PricesMaxLimit)
	}
	return res, nil
}

// ledger returns the grade's points in [from, to] at the interval, oldest
// first (PrintingHistory.Points), with the prices pick asks for (an empty
// list, not nil, when none is in range).
func ledger(h pricing.PrintingHistory, hr historyRange, interval, pick string) []pricePoint {
	pts := h.Points(hr.From, hr.To, hr.FromSet, interval)
	out := make([]pricePoint, len(pts))
	for i, pt := range pts {
		p := pt.Price
		pp := pricePoint{Date: pt.Day.String(), Sales: pt.Sales, SampleSize: int(p.Sample), Confidence: p.Confidence.String(), Flags: pricing.FlagNames(p.Flags)}
		switch pick {
		case "all":
			pp.FMVUSD, pp.TVWAPUSD, pp.MedianUSD = snapshots.USDOrNil(p.FMVCents), snapshots.USDOrNil(p.TVWAPCents), snapshots.USDOrNil(p.MedianCents)
		case pricing.MethodTVWAP:
			pp.TVWAPUSD = snapshots.USDOrNil(p.TVWAPCents)
		case pricing.MethodMedian:
			pp.MedianUSD = snapshots.USDOrNil(p.MedianCents)
		default:
			pp.FMVUSD = snapshots.USDOrNil(p.FMVCents)
		}
		out[i] = pp
	}
	return out
}

// ---- get_sales ----

type salesArgs struct {
	IDs                      []string `json:"ids"`
	Mode                     string   `json:"mode"`
	Limit                    *int     `json:"limit"`
	Since                    string   `json:"since"`
	Until                    string   `json:"until"`
	Grade                    string   `json:"grade"`
	Finish                   string   `json:"finish"`
	Marketplace              string   `json:"marketplace"`
	TradeType                string   `json:"trade_type"`
	IncludeFiltered          bool     `json:"include_filtered"`
	IncludeUntrustedIdentity bool     `json:"include_untrusted_identity"`
	IncludePriceFeed         bool     `json:"include_price_feed"`
	Game                     string   `json:"game"`
}

// salesOut is get_sales' data: rows are pricing.SaleRow (mode records) or
// pricing.DayRow (mode daily).
type salesOut[R any] struct {
	Game       string         `json:"game"`
	Mode       string         `json:"mode" enum:"records,daily"`
	Limit      int            `json:"limit"`
	Range      rangeOut       `json:"range"`
	Filters    salesFilters   `json:"filters"`
	Items      []salesItem[R] `json:"items"`
	Unresolved []unresolved   `json:"unresolved"`
	Order      string         `json:"order"`
}

// salesFilters echoes get_sales' filters.
type salesFilters struct {
	Grade                    string `json:"grade"`
	Finish                   string `json:"finish"`
	Marketplace              string `json:"marketplace"`
	TradeType                string `json:"trade_type"`
	IncludeFiltered          bool   `json:"include_filtered"`
	IncludeUntrustedIdentity bool   `json:"include_untrusted_identity"`
	IncludePriceFeed         bool   `json:"include_price_feed"`
}

// salesItem is one card's sales rows.
type salesItem[R any] struct {
	CardID    string `json:"card_id"`
	Name      string `json:"name"`
	Rows      []R    `json:"rows"`
	InRange   int    `json:"rows_in_range"`
	Returned  int    `json:"returned"`
	Truncated bool   `json:"truncated"`
}

func (s *Server) toolSales(t *toolCall) (any, error) {
	var a salesArgs
	if err := t.bind(&a); err != nil {
		return nil, err
	}
	game, explicit, err := t.game(a.Game)
	if err != nil {
		return nil, err
	}
	if a.Mode == "" {
		a.Mode = "records"
	}
	limit := SalesDefaultRecords
	if a.Mode == "daily" {
		limit = SalesDefaultDays
	}
	if a.Limit != nil {
		limit = *a.Limit
		if a.Mode == "records" && limit > SalesMaxRecords {
			return nil, apperr.Errorf(apperr.EINVALID, "limit %d: records mode returns at most %d rows per id; use mode=daily for longer spans", limit, SalesMaxRecords)
		}
	}
	keepGrade, keepMarket, err := gradeAndMarkets(a.Grade, "marketplace", a.Marketplace)
	if err != nil {
		return nil, err
	}
	hr, err := t.historyRange(a.Since, a.Until)
	if err != nil {
		return nil, err
	}
	filter := pricing.SaleFilter{From: hr.From, To: hr.To, FromSet: hr.FromSet, Grade: keepGrade, Marketplaces: keepMarket,
		IncludeFiltered: a.IncludeFiltered, IncludeUntrusted: a.IncludeUntrustedIdentity, IncludePriceFeed: a.IncludePriceFeed}
	filter.TradeType, filter.HasTradeType = snapshots.ParseTradeType(a.TradeType)
	targets, unres, err := t.finishTargets(game, explicit, a.IDs, a.Finish)
	if err != nil {
		return nil, err
	}
	recItems := make([]salesItem[pricing.SaleRow], 0, len(targets))
	dayItems := make([]salesItem[pricing.DayRow], 0, len(targets))
	for _, tg := range targets {
		c := tg.c
		sales, err := t.snap.Reader.Sales(c.Game, c.ID)
		if err != nil && apperr.ErrorCode(err) != apperr.ENOTFOUND {
			return nil, err
		}
		filter.Finish = tg.f
		if a.Mode == "daily" {
			days := pricing.Daily(filter.Sales(sales))
			slices.Reverse(days) // newest first
			inRange := len(days)
			if len(days) > limit {
				days = days[:limit]
			}
			dayItems = append(dayItems, salesItem[pricing.DayRow]{CardID: c.ID, Name: c.Name, Rows: jsontext.NonNil(days),
				InRange: inRange, Returned: len(days), Truncated: len(days) < inRange})
			continue
		}
		pg := pricing.PageSales(c, sales, filter, nil, limit) // the sales route's first page
		recItems = append(recItems, salesItem[pricing.SaleRow]{CardID: c.ID, Name: c.Name, Rows: pg.Rows,
			InRange: pg.InRange, Returned: len(pg.Rows), Truncated: len(pg.Rows) < pg.InRange})
	}
	filters := salesFilters{Grade: a.Grade, Finish: a.Finish, Marketplace: a.Marketplace, TradeType: a.TradeType,
		IncludeFiltered: a.IncludeFiltered, IncludeUntrustedIdentity: a.IncludeUntrustedIdentity, IncludePriceFeed: a.IncludePriceFeed}
	unres = jsontext.NonNil(unres)
	if a.Mode == "daily" {
		return salesOut[pricing.DayRow]{Game: game, Mode: a.Mode, Limit: limit, Range: hr.JSON(), Filters: filters, Items: dayItems, Unresolved: unres, Order: "newest first"}, nil
	}
	return salesOut[pricing.SaleRow]{Game: game, Mode: a.Mode, Limit: limit, Range: hr.JSON(), Filters: filters, Items: recItems, Unresolved: unres, Order: "newest first"}, nil
}

// ---- get_listings ----

type listingsArgs struct {
	IDs       []string `json:"ids"`
	Mode      string   `json:"mode"`
	Grade     string   `json:"grade"`
	Finish    string   `json:"finish"`
	Platforms string   `json:"platforms"`
	Limit     int      `json:"limit"`
	Game      string   `json:"game"`
}

// listingsOut is get_listings' data: items are listingsItem (mode
// listings) or bookItem (mode book).
type listingsOut[I any] struct {
	Game       string       `json:"game"`
	Mode       string       `json:"mode" enum:"listings,book"`
	Items      []I          `json:"items"`
	Unresolved []unresolved `json:"unresolved"`
	Note       string       `json:"note"`
}

// listingsItem is one card's listings, cheapest first.
type listingsItem struct {
	CardID        string       `json:"card_id"`
	Name          string       `json:"name"`
	ListingsTotal int          `json:"listings_total"`
	Listings      []listingRow `json:"listings"`
	Truncated     bool         `json:"truncated"`
}

// bookItem is one card's book: a summary per finish.
type bookItem struct {
	CardID        string    `json:"card_id"`
	Name          string    `json:"name"`
	ListingsTotal int       `json:"listings_total"`
	Book          []bookRow `json:"book"`
}

type listingRow struct {
	ListingID          string   `json:"listing_id"`
	Platform           string   `json:"platform"`
	Grade              string   `json:"grade"`
	GradeName          string   `json:"grade_name"`
	Finish             *string  `json:"finish"`
	AskUSD             float64  `json:"ask_usd"`
	ShippingUSD        float64  `json:"shipping_usd"`
	ListedDate         string   `json:"listed_date"`
	Quantity           int      `json:"quantity"`
	DealScore          *float64 `json:"deal_score"`
	PlatformFreshnessH int      `json:"platform_freshness_h"`
}

type bookRow struct {
	Finish       *string            `json:"finish"`
	Listings     int                `json:"listings"`
	Quantity     int                `json:"quantity"`
	MinAskUSD    float64            `json:"min_ask_usd"`
	MedianAskUSD float64            `json:"median_ask_usd"`
	MaxAskUSD    float64            `json:"max_ask_usd"`
	Platforms    []string           `json:"platforms"`
	CheapestBy   map[string]float64 `json:"cheapest_by_grade"`
}

func (s *Server) toolListings(t *toolCall) (any, error) {
	var a listingsArgs
	if err := t.bind(&a); err != nil {
		return nil, err
	}
	game, explicit, err := t.game(a.Game)
	if err != nil {
		return nil, err
	}
	if a.Mode == "" {
		a.Mode = "listings"
	}
	if a.Limit == 0 {
		a.Limit = ListingsDefaultLimit
	}
	keepGrade, keepPlatform, err := gradeAndMarkets(a.Grade, "platforms", a.Platforms)
	if err != nil {
		return nil, err
	}
	targets, unres, err := t.finishTargets(game, explicit, a.IDs, a.Finish)
	if err != nil {
		return nil, err
	}
	listItems := make([]listingsItem, 0, len(targets))
	bookItems := make([]bookItem, 0, len(targets))
	for _, tg := range targets {
		ls, err := t.snap.Reader.Listings(tg.c.Game, tg.c.ID)
		if err != nil && apperr.ErrorCode(err) != apperr.ENOTFOUND {
			return nil, err
		}
		var kept []*snapshots.Listing
		for i := range ls {
			l := &ls[i]
			if !tg.f.Listing(l) {
				continue
			}
			if keepPlatform != 0 {
				if mk, ok := snapshots.ParseMarketplace(l.Platform); !ok || !keepPlatform.Has(mk) {
					continue
				}
			}
			if !keepGrade.Any() {
				if g, err := snapshots.ParseGrade(l.Grade); err != nil || !keepGrade.Match(g) {
					continue
				}
			}
			kept = append(kept, l)
		}
		if a.Mode == "book" {
			bookItems = append(bookItems, bookItem{CardID: tg.c.ID, Name: tg.c.Name, ListingsTotal: len(kept), Book: book(kept)})
		} else {
			rows := []listingRow{}
			for _, l := range kept[:min(len(kept), a.Limit)] {
				ds := math.Round(l.DealScore*100) / 100
				rows = append(rows, listingRow{ListingID: l.ID, Platform: l.Platform, Grade: l.Grade, GradeName: snapshots.GradeNameOf(l.Grade), Finish: jsontext.StrOrNil(l.Finish), AskUSD: snapshots.USD(l.AskCents),
					ShippingUSD: snapshots.USD(l.ShippingCents), ListedDate: l.ListedDay.String(), Quantity: l.Quantity, DealScore: &ds, PlatformFreshnessH: l.PlatformFreshnessH})
			}
			listItems = append(listItems, listingsItem{CardID: tg.c.ID, Name: tg.c.Name, ListingsTotal: len(kept), Listings: rows, Truncated: len(kept) > len(rows)})
		}
	}
	const note = "asks exclude shipping; deal_score (100 x (1 - ask / fmv)) and platform_freshness_h are experimental"
	unres = jsontext.NonNil(unres)
	if a.Mode == "book" {
		return listingsOut[bookItem]{Game: game, Mode: a.Mode, Items: bookItems, Unresolved: unres, Note: note}, nil
	}
	return listingsOut[listingsItem]{Game: game, Mode: a.Mode, Items: listItems, Unresolved: unres, Note: note}, nil
}

func book(ls []*snapshots.Listing) []bookRow {
	byFinish := map[string][]*snapshots.Listing{}
	var order []string
	for _, l := range ls {
		if _, ok := byFinish[l.Finish]; !ok {
			order = append(order, l.Finish)
		}
		byFinish[l.Finish] = append(byFinish[l.Finish], l)
	}
	out := []bookRow{}
	for _, f := range order {
		group := byFinish[f]
		r := bookRow{Finish: jsontext.StrOrNil(f), CheapestBy: map[string]float64{}}
		var asks []int64
		seen := map[string]bool{}
		for _, l := range group {
			r.Listings++
			r.Quantity += l.Quantity
			asks = append(asks, l.AskCents)
			if !seen[l.Platform] {
				seen[l.Platform] = true
				r.Platforms = append(r.Platforms, l.Platform)
			}
			if v, ok := r.CheapestBy[l.Grade]; !ok || snapshots.USD(l.AskCents) < v {
				r.CheapestBy[l.Grade] = snapshots.USD(l.AskCents)
			}
		}
		slices.Sort(asks)
		r.MinAskUSD, r.MaxAskUSD, r.MedianAskUSD = snapshots.USD(asks[0]), snapshots.USD(asks[len(asks)-1]), snapshots.USD(snapshots.Median(asks))
		out = append(out, r)
	}
	return out
}

// finishTarget is a resolved card and the finish a tool reads of it.
type finishTarget struct {
	c *snapshots.Card
	f pricing.Finish
}

// finishTargets resolves ids, keeps the cards that have the finish (the
// others are reported unresolved) and charges one unit per kept card.
func (t *toolCall) finishTargets(game string, explicit bool, ids []string, finish string) ([]finishTarget, []unresolved, error) {
	rs, cards, err := t.resolveIDs("ids", game, explicit, ids)
	if err != nil {
		return nil, nil, err
	}
	unres := unresolvedOf(rs)
	var targets []finishTarget
	for _, c := range cards {
		f, miss := cardFinish(c, finish)
		if miss != nil {
			unres = append(unres, *miss)
			continue
		}
		targets = append(targets, finishTarget{c, f})
	}
	if err := t.charge(len(targets)); err != nil {
		return nil, nil, err
	}
	return targets, unres, nil
}
