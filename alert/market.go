package alert

import (
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

// Market is what an evaluation reads of a snapshot: the live snapshot's
// view implements it (ReaderMarket does over a snapshots.Reader). Its
// methods are safe for concurrent use and their results do not alias the
// snapshot.
type Market interface {
	// SnapshotID names the snapshot; AsOf is its today.
	SnapshotID() string
	AsOf() snapshots.Day
	// Card returns a card by id (any case): snapshots.Reader's. ENOTFOUND.
	Card(game, id string) (*snapshots.Card, error)
	// SetCards returns the cards of a set: snapshots.Reader's. ENOTFOUND.
	SetCards(game, setID string) ([]*snapshots.Card, error)
	// Price is source's price of grade g of printing finish of card c in
	// force on day (AsOf, or a day before it for a move): Cents 0 when
	// there is none (at confidence none, no sale, no feed row). A source
	// the snapshot does not have is an error with a code (EINVALID).
	Price(source string, c *snapshots.Card, finish int, g snapshots.Grade, day snapshots.Day) (pricing.SourcePrice, error)
	// Activity counts the verified sales (all of the snapshot's history)
	// and the current listings of grade g of printing finish of card c.
	Activity(c *snapshots.Card, finish int, g snapshots.Grade) (Activity, error)
}

// Activity is the trade seen of one printing and grade.
type Activity struct {
	Sales       int   // verified sales, as of the snapshot
	Listings    int   // current listings
	LowAskCents int64 // the cheapest listing's ask (0: none)
}

// ReaderMarket is a Market over a snapshot's reader, with the sources
// pricing.PriceAt reads (own, partner, observed, tcgplayer, cardmarket,
// pricecharting).
type ReaderMarket struct {
	snapshots.Reader
	asOf snapshots.Day
}

var _ Market = (*ReaderMarket)(nil)

// NewReaderMarket returns the Market of snapshot r, whose today is asOf.
func NewReaderMarket(r snapshots.Reader, asOf snapshots.Day) *ReaderMarket {
	return &ReaderMarket{Reader: r, asOf: asOf}
}

// SnapshotID implements Market.
func (m *ReaderMarket) SnapshotID() string { return m.Manifest().SnapshotID }

// AsOf implements Market.
func (m *ReaderMarket) AsOf() snapshots.Day { return m.asOf }

// Price implements Market with pricing.PriceAt.
func (m *ReaderMarket) Price(source string, c *snapshots.Card, finish int, g snapshots.Grade, day snapshots.Day) (pricing.SourcePrice, error) {
	return pricing.PriceAt(m.Reader, source, c, finish, g, m.asOf, day)
}

// Activity implements Market.
func (m *ReaderMarket) Activity(c *snapshots.Card, finish int, g snapshots.Grade) (Activity, error) {
	var a Activity
	sales, err := m.Sales(c.Game, c.ID)
	if err != nil {
		return a, err
	}
	f := pricing.OnePrinting(c, finish)
	for i := range sales {
		s := &sales[i]
		if s.Grade == g && s.Day <= m.asOf && !s.Hidden() && f.Sale(s) {
			a.Sales++
		}
	}
	ls, err := m.Listings(c.Game, c.ID)
	if err != nil {
		return a, err
	}
	gs := g.String()
	for i := range ls {
		l := &ls[i]
		if l.Grade == gs && f.Listing(l) {
			a.Listings++
			if a.LowAskCents == 0 || l.AskCents < a.LowAskCents {
				a.LowAskCents = l.AskCents
			}
		}
	}
	return a, nil
}
