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
	SourceOwn:      "fmv: our fair market value of the grade, exponentially smoothed daily medians of verified sales; date is the day of its last change",
	SourcePartner:  "the partner marketplace price feed's latest daily market median of the grade: a median, not an executed sale",
	SourceObserved: "the latest verified executed sale of the grade on any marketplace (quality-flagged, low-confidence identity and price-feed rows excluded)",
}

// SourcePrice is one source's current price of a card in a grade as of a
// day: Cents 0 means none, and Note then says why.
type SourcePrice struct {
	Cents int64
	Day   snapshots.Day // the fmv's last change, the feed day or the sale day
	// Sale is the sale behind an observed price (nil otherwise).
	Sale *snapshots.Sale
	Note string
}

// Own is the fmv of grade g in force on asOf, from the card's price series.
func Own(series []snapshots.PriceSeries, g snapshots.Grade, asOf snapshots.Day) SourcePrice {
	if p, ok := snapshots.PointAt(snapshots.SeriesOf(series, g), asOf); ok && p.FMVCents > 0 {
		return SourcePrice{Cents: p.FMVCents, Day: p.Day}
	}
	return SourcePrice{Note: "no fmv: no verified " + g.String() + " sale of this card yet"}
}

// Partner is the partner price feed's latest row of grade g on or before
// asOf, from the card's sales (newest first).
func Partner(sales []snapshots.Sale, g snapshots.Grade, asOf snapshots.Day) SourcePrice {
	for i := range sales {
		s := &sales[i]
		if s.Flags&snapshots.SalePriceFeed != 0 && s.Marketplace == snapshots.MarketPartner && s.Grade == g && s.Day <= asOf {
			return SourcePrice{Cents: s.PriceCents, Day: s.Day}
		}
	}
	return SourcePrice{Note: "no partner price-feed row for " + g.String() + " (the feed covers raw:near_mint of cards listed on the partner marketplace)"}
}

// Observed is the latest verified sale of grade g on or before asOf, from
// the card's sales (newest first).
func Observed(sales []snapshots.Sale, g snapshots.Grade, asOf snapshots.Day) SourcePrice {
	for i := range sales {
		s := &sales[i]
		if !s.Hidden() && s.Grade == g && s.Day <= asOf {
			return SourcePrice{Cents: s.PriceCents, Day: s.Day, Sale: s}
		}
	}
	return SourcePrice{Note: "no verified " + g.String() + " sale of this card"}
}

// FMV is card c's fmv in grade g as of asOf (Own; 0 when it has none): what
// a collection's holding is valued at.
func FMV(r snapshots.Reader, c *snapshots.Card, g snapshots.Grade, asOf snapshots.Day) (int64, error) {
	series, err := r.PriceSeries(c.Game, c.ID)
	if err != nil {
		return 0, err
	}
	return Own(series, g, asOf).Cents, nil
}
