package edge

import (
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/catalog"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
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
		return f, validationErrors{queryError(name, "condition must be a raw condition ("+strings.Join(snapshots.Conditions, ", ")+", or NM, LP ...), raw, graded, a grader (PSA, BGS, CGC) or a grade such as PSA 10, BGS 9.5, raw:near_mint or slab:10", "value_error", v, nil)}
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

func handleMarketHistory(r *request) (any, error) {
	w, err := r.cardSales()
	if err != nil {
		return nil, err
	}
	return pricing.NewMarketHistory(w.card, w.sales, w.filter, r.p.int("limit")), nil
}

func handleMarketplaceSales(r *request) (any, error) {
	w, err := r.cardSales()
	if err != nil {
		return nil, err
	}
	return pricing.NewMarketplaceSales(w.card, w.sales, w.filter, r.p.int("limit")), nil
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
	prov, err := pricing.ReadProvenance(r.snap.Reader, c)
	if err != nil {
		return nil, err
	}
	return pricing.NewPartnerHistory(c, sales, prov, r.snap.AsOf, start, limited, r.p.int("limit")), nil
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
	finish := pricing.BaseRead
	if r.p.has("finish") {
		if finish, err = pricing.PrintingOf(target, r.p.str("finish")); err != nil {
			return nil, validationErrors{queryError("finish", apperr.ErrorMessage(err), "value_error", r.p.str("finish"), nil)}
		}
	}
	q := pricing.PriceHistoryRequest{Grade: grade, Method: r.p.str("method"), Interval: r.p.str("interval"), Offset: r.p.int("offset"), Limit: r.p.int("limit")}
	if q.From, q.To, q.FromSet, err = r.dateRange(); err != nil {
		return nil, err
	}
	h, err := pricing.ReadHistory(r.snap.Reader, target, finish, grade)
	if err != nil {
		return nil, err
	}
	return pricing.NewPriceHistory(c, target, h, q), nil
}
