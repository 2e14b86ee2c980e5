package pricing

import (
	"github.com/cardedge/cardedge/snapshots"
)

// The sources of a card's current price (prices.v1's source). They are
// different products and never blended into one number; the quote rule
// (Market, Pick) is yet another, which falls back from one to the next.
const (
	// SourceOwn is our fmv of the grade (the price the card routes show).
	SourceOwn = "own"
	// SourcePartner is the partner price feed's latest daily market median.
	SourcePartner = "partner"
	// SourceObserved is the latest verified executed sale of the grade.
	SourceObserved = "observed"
)

// SourceBasis says what each source's price is.
var SourceBasis = map[string]string{
	SourceOwn: "fmv: our fair market value of the grade in the printing named in finish (the card's base printing unless finish is given), exponentially smoothed daily medians of " +
		"accepted verified sales (outliers set aside); null with a note at confidence none; date is the day of its last point",
	SourcePartner:  "the partner marketplace price feed's latest daily market median of the grade in the printing: a median, not an executed sale",
	SourceObserved: "the latest verified executed sale of the grade in the printing on any marketplace (quality-flagged, low-confidence identity and price-feed rows excluded)",
}

// SourcePrice is one source's current price of a card in a grade as of a
// day: Cents 0 means none, and Note then says why.
type SourcePrice struct {
	Cents int64
	Day   snapshots.Day // the fmv's last point, the feed day or the sale day
	// Sale is the sale behind an observed price (nil otherwise).
	Sale *snapshots.Sale
	// Estimate is the estimate behind an own price (nil otherwise).
	Estimate *snapshots.Estimate
	Note     string
}

// Own is the fmv of grade g of printing finish of card c in force on asOf:
// the printing's estimate (none at confidence none, with a note) and the day
// of its series' last point.
func Own(r snapshots.Reader, c *snapshots.Card, finish int, g snapshots.Grade, asOf snapshots.Day) (SourcePrice, error) {
	e, ok, err := PrintingEstimate(r, c, finish, g)
	if err != nil {
		return SourcePrice{}, err
	}
	if !ok {
		return SourcePrice{Estimate: &e, Note: "no fmv: no verified " + g.String() + " sale of this printing yet"}, nil
	}
	cents, note := Shown(e)
	if cents == 0 {
		return SourcePrice{Estimate: &e, Note: note}, nil
	}
	series, err := r.PrintingSeries(c.Game, c.ID, finish)
	if err != nil {
		return SourcePrice{}, err
	}
	sp := SourcePrice{Cents: cents, Day: e.LastSaleDay, Estimate: &e}
	if p, ok := snapshots.PointAt(snapshots.SeriesOf(series, g), asOf); ok {
		sp.Day = p.Day
	}
	return sp, nil
}

// Partner is the partner price feed's latest row of grade g in the printing
// f selects on or before asOf, from the card's sales (newest first).
func Partner(sales []snapshots.Sale, g snapshots.Grade, f Finish, asOf snapshots.Day) SourcePrice {
	for i := range sales {
		s := &sales[i]
		if s.Flags&snapshots.SalePriceFeed != 0 && s.Marketplace == snapshots.MarketPartner && s.Grade == g && s.Day <= asOf && f.Sale(s) {
			return SourcePrice{Cents: s.PriceCents, Day: s.Day}
		}
	}
	return SourcePrice{Note: "no partner price-feed row for " + g.String() + " of this printing (the feed covers raw:near_mint of cards listed on the partner marketplace)"}
}

// Observed is the latest verified sale of grade g in the printing f selects
// on or before asOf, from the card's sales (newest first).
func Observed(sales []snapshots.Sale, g snapshots.Grade, f Finish, asOf snapshots.Day) SourcePrice {
	for i := range sales {
		s := &sales[i]
		if !s.Hidden() && s.Grade == g && s.Day <= asOf && f.Sale(s) {
			return SourcePrice{Cents: s.PriceCents, Day: s.Day, Sale: s}
		}
	}
	return SourcePrice{Note: "no verified " + g.String() + " sale of this printing"}
}

// FMV is card c's fmv in grade g of its base printing as of asOf (Own; 0
// when it has none, or at confidence none): what a collection's holding is
// valued at.
func FMV(r snapshots.Reader, c *snapshots.Card, g snapshots.Grade, asOf snapshots.Day) (int64, error) {
	sp, err := Own(r, c, snapshots.BasePrinting(c), g, asOf)
	return sp.Cents, err
}
