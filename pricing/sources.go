package pricing

import (
	"github.com/cardedge/cardedge/snapshots"
)

// The sources of a card's current price (prices.v1's source). They are
// different products and never blended into one number; the quote rule
// (Market, Pick) is yet another, which falls back from one to the next.
const (
	// SourceOwn is our fmv of the grade (the price the card routes show):
	// in a snapshot built from real sources, the series of one source
	// (its quote's source says which), else the estimator over verified
	// sales.
	SourceOwn = "own"
	// SourcePartner is the partner price feed's latest daily market median:
	// TCGplayer's market price in a snapshot built from real sources.
	SourcePartner = "partner"
	// SourceObserved is the latest verified executed sale of the grade.
	SourceObserved = "observed"
	// The sources' files (a snapshot built from real sources): each
	// source's numbers of its newest day (FeedPrice).
	SourceTCGplayer     = snapshots.SourceTCGplayer
	SourceCardmarket    = snapshots.SourceCardmarket
	SourcePriceCharting = snapshots.SourcePriceCharting
)

// headlineFields are the sources' headline fields: the number a source's
// price is (PriceCharting has one per grade).
var headlineFields = map[string]string{SourceTCGplayer: "market", SourceCardmarket: "trend"}

// SourceBasis says what each source's price is.
var SourceBasis = map[string]string{
	SourceOwn: "fmv: our fair market value of the grade in the printing named in finish (the card's base printing unless finish is given), exponentially smoothed daily medians of " +
		"accepted verified sales (outliers set aside); null with a note at confidence none; date is the day of its last point",
	SourcePartner: "the partner marketplace price feed's latest daily market median of the grade in the printing: a median, not an executed sale " +
		"(in a snapshot built from real sources, TCGplayer's market price of its newest file, as source=tcgplayer)",
	SourceObserved: "the latest verified executed sale of the grade in the printing on any marketplace (quality-flagged, low-confidence identity and price-feed rows excluded)",
	SourceTCGplayer: "TCGplayer's market price of the grade in the printing from its newest daily price file (tcgcsv), in USD, with every field of the row (market, low, mid, high, direct_low): " +
		"a marketplace's market price, not a sale; stale after 2 days without a file",
	SourceCardmarket: "Cardmarket's trend price of the grade in the printing from its newest price guide, in EUR (amount, currency) converted to USD with the ECB reference rate of its day (rate, rate_date), " +
		"with every field of the guide (avg, low, trend, avg1, avg7, avg30): not a sale; stale after 2 days without a file",
	SourcePriceCharting: "PriceCharting's guide price of the grade in the printing (its column of the grade), in USD, from the newest guide: not a sale; stale after 2 days without a file",
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
	// Quote is the source's headline number behind a file's price, and
	// Fields every number of its row (nil otherwise).
	Quote  *snapshots.Quote
	Fields []snapshots.Quote
	// Origin is where the price comes from; Stale says the source's file
	// (or the estimate's sales) is stale.
	Origin Origin
	Stale  bool
	Note   string
}

// FeedPrice is source's price of grade g in printing finish of the card of
// provenance p as of asOf: its headline number (TCGplayer's market,
// Cardmarket's trend, PriceCharting's column of the grade) of its newest
// day, with the row's other numbers; when the newest day had no row for
// them, the last day of the source's history that had (its headline number
// alone, stale after snapshots.StaleAfterDays days). None (with a note)
// when the source never had a number for them.
func FeedPrice(p Provenance, source string, finish int, g snapshots.Grade, asOf snapshots.Day) SourcePrice {
	sp := SourcePrice{Origin: Origin{Source: source}}
	head := -1
	if p.Sources != nil {
		for _, q := range p.Sources.Quotes {
			if q.Source != source || int(q.Finish) != finish || q.Grade != g {
				continue
			}
			if f, ok := headlineFields[source]; head < 0 && (!ok || q.Field == f) {
				head = len(sp.Fields)
			}
			sp.Fields = append(sp.Fields, q)
		}
	}
	if head < 0 {
		if q, ok := lastPoint(p, source, finish, g, asOf); ok {
			sp.Fields = []snapshots.Quote{q}
			head = 0
		}
	}
	if head < 0 {
		sp.Note = "no " + SourceLabel(source) + " " + headlineName(source) + " price for " + g.Name() + " of this printing"
		if p.Market != snapshots.MarketSources {
			sp.Note += " (this snapshot was not built from " + SourceLabel(source) + "'s files: its manifest's market_source is " + p.Market + ")"
		}
		return sp
	}
	q := &sp.Fields[head]
	sp.Quote, sp.Cents, sp.Day, sp.Stale, sp.Origin.Field = q, q.Cents, q.Day, q.Stale, q.Field
	return sp
}

// lastPoint is the last point on or before asOf of source's history of
// printing finish and grade g, as a quote of its field.
func lastPoint(p Provenance, source string, finish int, g snapshots.Grade, asOf snapshots.Day) (snapshots.Quote, bool) {
	if p.Sources == nil {
		return snapshots.Quote{}, false
	}
	for _, h := range p.Sources.History {
		if h.Source != source || int(h.Finish) != finish || h.Grade != g {
			continue
		}
		for i := len(h.Points) - 1; i >= 0; i-- {
			if pt := h.Points[i]; pt.Day <= asOf {
				return snapshots.Quote{Source: source, Finish: h.Finish, Grade: g, Field: h.Field, Day: pt.Day, Cents: pt.Cents, Amount: pt.Amount,
					Currency: h.Currency, RateDay: pt.RateDay, Stale: p.SourceStale(source) || int(asOf-pt.Day) > snapshots.StaleAfterDays}, true
			}
		}
	}
	return snapshots.Quote{}, false
}

func headlineName(source string) string {
	if f, ok := headlineFields[source]; ok {
		return f
	}
	return "guide"
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
		return SourcePrice{Estimate: &e, Note: "no fmv: no verified " + g.Name() + " sale of this printing yet"}, nil
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
			return SourcePrice{Cents: s.PriceCents, Day: s.Day, Stale: int(asOf-s.Day) > snapshots.StaleAfterDays}
		}
	}
	return SourcePrice{Note: "no partner price-feed row for " + g.Name() + " of this printing (the feed covers Raw, near mint of cards listed on the partner marketplace)"}
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
	return SourcePrice{Note: "no verified " + g.Name() + " sale of this printing"}
}

// FMV is card c's fmv in grade g of its base printing as of asOf (Own; 0
// when it has none, or at confidence none): what a collection's holding is
// valued at.
func FMV(r snapshots.Reader, c *snapshots.Card, g snapshots.Grade, asOf snapshots.Day) (int64, error) {
	sp, err := Own(r, c, snapshots.BasePrinting(c), g, asOf)
	return sp.Cents, err
}
