package pricing

import "github.com/cardedge/cardedge/snapshots"

// A card's market as every card view shows it (REST's card market object
// and its by_finish, MCP show_cards' printings, the dashboard's card page):
// each printing's raw near-mint estimate and the value it shows, and the
// printing priced.

// PrintingMarket is one printing's raw near-mint market: its estimate, the
// value shown (Estimate.Shown: 0 at confidence none) and, when that is 0,
// the note saying why (NoteNone).
type PrintingMarket struct {
	Printing *snapshots.Printing
	Estimate snapshots.Estimate
	Cents    int64
	Note     string
	// Origin is where the price comes from (zero until WithProvenance).
	Origin Origin
}

// NewPrintingMarket is printing p's raw near-mint market.
func NewPrintingMarket(p *snapshots.Printing) PrintingMarket {
	e, _ := EstimateOf(p, snapshots.RawNearMint)
	cents, note := Shown(e)
	return PrintingMarket{Printing: p, Estimate: e, Cents: cents, Note: note}
}

// MarketView is a card's market priced in one printing.
type MarketView struct {
	Finish int            // the printing priced
	Priced PrintingMarket // its market (a printing without a row of its own: no estimate)
	// PriceDay is the day of the price: the last point of the printing's
	// raw near-mint series as of as_of.
	PriceDay  snapshots.Day
	Printings []PrintingMarket // every printing's, in order
}

// NewMarketView is card c's market priced in printing finish, from its
// printings (snapshots.Reader.Printings) and the day of that printing's
// price.
func NewMarketView(printings []snapshots.Printing, finish int, priceDay snapshots.Day) MarketView {
	v := MarketView{Finish: finish, PriceDay: priceDay, Printings: make([]PrintingMarket, 0, len(printings))}
	v.Priced = NewPrintingMarket(&snapshots.Printing{Finish: uint8(finish)})
	for i := range printings {
		pm := NewPrintingMarket(&printings[i])
		if int(printings[i].Finish) == finish {
			v.Priced = pm
		}
		v.Printings = append(v.Printings, pm)
	}
	return v
}

// WithProvenance is v with each printing's origin: its raw near-mint
// series' in p.
func (v MarketView) WithProvenance(p Provenance) MarketView {
	v.Priced.Origin = p.SeriesOrigin(v.Finish, snapshots.RawNearMint)
	for i := range v.Printings {
		v.Printings[i].Origin = p.SeriesOrigin(int(v.Printings[i].Printing.Finish), snapshots.RawNearMint)
	}
	return v
}

// ReadMarketView reads card c's market priced in printing finish as of
// asOf, with its provenance: the base printing's price day is the card's
// (Card.PriceDay), another printing's is read off its series.
func ReadMarketView(r snapshots.Reader, c *snapshots.Card, finish int, asOf snapshots.Day) (MarketView, error) {
	printings, err := r.Printings(c.Game, c.ID)
	if err != nil {
		return MarketView{}, err
	}
	day := c.PriceDay
	if finish != snapshots.BasePrinting(c) {
		series, err := r.PrintingSeries(c.Game, c.ID, finish)
		if err != nil {
			return MarketView{}, err
		}
		p, _ := snapshots.PointAt(snapshots.SeriesOf(series, snapshots.RawNearMint), asOf)
		day = p.Day
	}
	prov, err := ReadProvenance(r, c)
	if err != nil {
		return MarketView{}, err
	}
	return NewMarketView(printings, finish, day).WithProvenance(prov), nil
}
