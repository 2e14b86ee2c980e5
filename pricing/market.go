package pricing

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/snapshots"
)

// Midprice statuses. Only ok and thin are usable. A midprice is the fmv
// of one printing and grade (package estimate); its status reads the
// estimate's confidence and thin flag, one rule (estimate.Methodology.Judge):
// ok at high or medium confidence when not thin, thin at low confidence or
// when thin (fewer sales in the sample than the thin rule asks), stale at
// none (an fmv whose sales are older than estimate.Default.SampleDays days),
// none when the printing and grade never sold. A status ok never sits
// beside a thin flag.
const (
	StatusOK    = "ok"
	StatusThin  = "thin"
	StatusStale = "stale"
	StatusNone  = "none"
)

// Labels of a quoted price.
const (
	LabelMidprice = "Midprice"
	LabelLast     = "Last"
	LabelAsk      = "Ask"
)

// UngradedOrder is the grades an ungraded quote tries, in order: the top
// grade of the first grader, then raw near-mint.
var UngradedOrder = []snapshots.Grade{snapshots.GradedGrade(0, 10), snapshots.RawNearMint}

// Finish selects the sales and listings of some of a card's variants. The
// zero Finish selects everything.
type Finish struct {
	// Asked is the finish as the caller wrote it ("" for any).
	Asked string
	// Variants are the card's variants it matches.
	Variants []string
	idx      []bool // by variant index
}

// Any reports whether f selects every finish.
func (f Finish) Any() bool { return f.Asked == "" }

// MatchFinish matches a finish against card c's variants: a whole variant
// ("holo/shadowless") or one '/'-separated part of variants ("1st-edition",
// "reverse"), in any case. An empty finish selects everything. A finish the
// card does not have is EINVALID, naming the card's variants.
func MatchFinish(c *snapshots.Card, finish string) (Finish, error) {
	finish = strings.ToLower(strings.TrimSpace(finish))
	if finish == "" {
		return Finish{}, nil
	}
	f := Finish{Asked: finish, idx: make([]bool, len(c.Variants))}
	for i, v := range c.Variants {
		lv := strings.ToLower(v)
		if lv == finish {
			f = Finish{Asked: finish, Variants: []string{v}, idx: make([]bool, len(c.Variants))}
			f.idx[i] = true
			return f, nil
		}
		if slices.Contains(strings.Split(lv, "/"), finish) {
			f.idx[i] = true
			f.Variants = append(f.Variants, v)
		}
	}
	if len(f.Variants) == 0 {
		if len(c.Variants) == 0 {
			return Finish{}, apperr.Errorf(apperr.EINVALID, "finish %q: card %s has no known variants; leave finish out", finish, c.ID)
		}
		return Finish{}, apperr.Errorf(apperr.EINVALID, "finish %q is not a variant of card %s; its variants are %s", finish, c.ID, strings.Join(c.Variants, ", "))
	}
	return f, nil
}

// Sale reports whether f selects sale s.
func (f Finish) Sale(s *snapshots.Sale) bool {
	return f.Any() || (int(s.Finish) < len(f.idx) && f.idx[s.Finish])
}

// Listing reports whether f selects listing l.
func (f Finish) Listing(l *snapshots.Listing) bool {
	if f.Any() {
		return true
	}
	for _, v := range f.Variants {
		if strings.EqualFold(v, l.Finish) {
			return true
		}
	}
	return false
}

// CardMarket is one card's market data, read once for several grades and
// printings.
type CardMarket struct {
	Card      *snapshots.Card
	AsOf      snapshots.Day
	Printings []snapshots.Printing // Reader.Printings
	Sales     []snapshots.Sale     // newest first
	Listings  []snapshots.Listing  // cheapest first
	// Series are the price series of each printing read so far (by
	// finish); Market reads a printing's when it needs them.
	Series map[int][]snapshots.PriceSeries
	// Prov is where the card's numbers come from.
	Prov   Provenance
	reader snapshots.Reader
}

// LoadCardMarket reads card c's printings, sales and listings.
func LoadCardMarket(r snapshots.Reader, c *snapshots.Card, asOf snapshots.Day) (*CardMarket, error) {
	m := &CardMarket{Card: c, AsOf: asOf, reader: r, Series: map[int][]snapshots.PriceSeries{}}
	var err error
	if m.Printings, err = r.Printings(c.Game, c.ID); err != nil && apperr.ErrorCode(err) != apperr.ENOTFOUND {
		return nil, err
	}
	if m.Sales, err = r.Sales(c.Game, c.ID); err != nil && apperr.ErrorCode(err) != apperr.ENOTFOUND {
		return nil, err
	}
	if m.Listings, err = r.Listings(c.Game, c.ID); err != nil && apperr.ErrorCode(err) != apperr.ENOTFOUND {
		return nil, err
	}
	if m.Prov, err = ReadProvenance(r, c); err != nil {
		return nil, err
	}
	return m, nil
}

// Market is what the quote rule looks at for one card, printing and grade.
// Amounts are cents; 0 means none.
type Market struct {
	Grade  snapshots.Grade
	Finish int // the printing: an index into the card's variants
	AsOf   snapshots.Day

	// The printing and grade's estimate (package estimate) as of AsOf.
	Estimate  snapshots.Estimate
	MidCents  int64         // the estimate's fmv, 0 at confidence none
	MidStatus string        // StatusOK, StatusThin, StatusStale, StatusNone
	MidDay    snapshots.Day // day of the fmv's last point
	MidSales  int           // the estimate's sample size: accepted sales of the trailing estimate.Default.SampleDays

	LastCents       int64
	LastDay         snapshots.Day
	LastMarketplace string
	LastTradeType   string

	AskCents         int64
	AskShippingCents int64
	AskPlatform      string
	AskDay           snapshots.Day

	// Where the midprice, the last sale and the ask come from.
	MidOrigin, LastOrigin, AskOrigin Origin
}

// StatusOf is the midprice status of an estimate (see StatusOK).
func StatusOf(e snapshots.Estimate, sold bool) string {
	switch {
	case e.Confidence >= estimate.ConfidenceMedium && e.Flags&estimate.FlagThin == 0 && e.FMVCents > 0:
		return StatusOK
	case e.Confidence >= estimate.ConfidenceLow && e.FMVCents > 0:
		return StatusThin
	case e.FMVCents > 0 || sold:
		return StatusStale
	}
	return StatusNone
}

// Market computes the market of grade g in printing finish (an index into
// the card's variants; see PrintingOf). Last and Ask are of that printing
// (a listing that names no known variant is the base printing's).
func (m *CardMarket) Market(g snapshots.Grade, finish int) Market {
	out := Market{Grade: g, Finish: finish, AsOf: m.AsOf, MidOrigin: m.Prov.SeriesOrigin(finish, g)}
	out.Estimate = snapshots.Estimate{Grade: g, LastSaleDay: snapshots.NoDay}
	for i := range m.Printings {
		if int(m.Printings[i].Finish) == finish {
			out.Estimate, _ = EstimateOf(&m.Printings[i], g)
		}
	}
	f := OnePrinting(m.Card, finish)
	for i := range m.Sales {
		s := &m.Sales[i]
		if s.Day > m.AsOf || s.Grade != g || s.Hidden() || !f.Sale(s) {
			continue
		}
		out.LastCents, out.LastDay = s.PriceCents, s.Day
		out.LastMarketplace, out.LastTradeType = s.Marketplace.String(), s.TradeType.String()
		out.LastOrigin = m.Prov.SaleOrigin(s)
		break
	}
	out.MidSales = int(out.Estimate.SampleSize)
	out.MidCents, _ = Shown(out.Estimate)
	out.MidStatus = StatusOf(out.Estimate, out.LastCents > 0)
	if out.MidCents > 0 {
		series, ok := m.Series[finish]
		if !ok && m.reader != nil {
			series, _ = m.reader.PrintingSeries(m.Card.Game, m.Card.ID, finish)
			m.Series[finish] = series
		}
		if p, ok := snapshots.PointAt(snapshots.SeriesOf(series, g), m.AsOf); ok {
			out.MidDay = p.Day
		} else {
			out.MidDay = out.Estimate.LastSaleDay
		}
	}
	gs := g.String()
	for i := range m.Listings {
		l := &m.Listings[i]
		if l.Grade == gs && ListingPrinting(m.Card, l) == finish && l.AskCents > 0 {
			out.AskCents, out.AskShippingCents, out.AskPlatform, out.AskDay = l.AskCents, l.ShippingCents, l.Platform, l.ListedDay
			out.AskOrigin = m.Prov.SalesOrigin()
			if l.Synthetic {
				out.AskOrigin = Origin{Source: snapshots.SourceSynthetic, Synthetic: true}
			}
			break
		}
	}
	return out
}

// Usable reports whether the midprice may be quoted: status ok or thin and
// above 0.
func (m Market) Usable() bool {
	return (m.MidStatus == StatusOK || m.MidStatus == StatusThin) && m.MidCents > 0
}

// Price is a quoted price: its label, amount, the day behind it and a basis
// sentence.
type Price struct {
	Grade snapshots.Grade
	Label string // LabelMidprice, LabelLast or LabelAsk
	Cents int64
	Day   snapshots.Day
	Basis string
	// Origin is where the price comes from.
	Origin Origin
}

// Pick applies the quote rule to one grade: the midprice when usable, else
// the last verified sale, else the cheapest ask. ok is false when the grade
// has none of them.
func (m Market) Pick() (p Price, ok bool) {
	g := m.Grade.Name()
	switch {
	case m.Usable():
		p = Price{Grade: m.Grade, Label: LabelMidprice, Cents: m.MidCents, Day: m.MidDay, Origin: m.MidOrigin}
		if o := m.MidOrigin; o.Field != "" {
			p.Basis = fmt.Sprintf("midprice: %s's %s price of %s of this printing from its file of %s, in force on %s: a marketplace's market price, not a sale; confidence %s (status %s)",
				SourceLabel(o.Source), o.Field, g, m.MidDay, m.AsOf, m.Estimate.Confidence, m.MidStatus)
			break
		}
		p.Basis = fmt.Sprintf("midprice: fmv of %s of this printing (exponentially smoothed daily medians of accepted verified sales, outliers set aside) in force on %s, last moved %s; "+
			"%s in the %d days to %s, confidence %s (status %s)",
			g, m.AsOf, m.MidDay, plural(m.MidSales, "accepted verified sale"), estimate.Default.SampleDays, m.AsOf, m.Estimate.Confidence, m.MidStatus)
	case m.LastCents > 0:
		p = Price{Grade: m.Grade, Label: LabelLast, Cents: m.LastCents, Day: m.LastDay, Origin: m.LastOrigin}
		p.Basis = fmt.Sprintf("last verified %s sale of this printing on %s (%s, %s), %s; no usable midprice (status %s): not a live market price",
			g, m.LastDay, m.LastMarketplace, m.LastTradeType, daysBefore(m.AsOf, m.LastDay), m.MidStatus)
	case m.AskCents > 0:
		p = Price{Grade: m.Grade, Label: LabelAsk, Cents: m.AskCents, Day: m.AskDay, Origin: m.AskOrigin}
		p.Basis = fmt.Sprintf("cheapest current %s ask of this printing on %s, listed %s, shipping $%.2f extra; an asking price, not a sale: no usable midprice and no verified sale",
			g, m.AskPlatform, m.AskDay, snapshots.USD(m.AskShippingCents))
	default:
		return Price{}, false
	}
	return p, true
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func daysBefore(asOf, d snapshots.Day) string {
	switch n := int(asOf - d); n {
	case 0:
		return "the as_of day"
	case 1:
		return "1 day before as_of"
	default:
		return fmt.Sprintf("%d days before as_of %s", n, asOf)
	}
}

// Choose applies the rule over grades in order (an ungraded quote passes the
// markets of UngradedOrder): the first grade with a price wins.
func Choose(markets []Market) (Price, bool) {
	for _, m := range markets {
		if p, ok := m.Pick(); ok {
			return p, true
		}
	}
	return Price{}, false
}
