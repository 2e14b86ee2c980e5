package pricing

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cardedge/cardedge/snapshots"
)

// Midprice rules.
const (
	// MidWindowDays is the trailing window (ending at as_of) whose verified
	// sales decide a midprice's status (and make the finish median).
	MidWindowDays = 90
	// OKSales is the least number of sales in the window for status ok;
	// fewer (but at least one) is thin.
	OKSales = 5
)

// Midprice statuses. Only ok and thin are usable.
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
			return Finish{}, snapshots.Errorf(snapshots.EINVALID, "finish %q: card %s has no known variants; leave finish out", finish, c.ID)
		}
		return Finish{}, snapshots.Errorf(snapshots.EINVALID, "finish %q is not a variant of card %s; its variants are %s", finish, c.ID, strings.Join(c.Variants, ", "))
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

// CardMarket is one card's market data, read once for several grades.
type CardMarket struct {
	Card     *snapshots.Card
	AsOf     snapshots.Day
	Series   []snapshots.PriceSeries
	Sales    []snapshots.Sale    // newest first
	Listings []snapshots.Listing // cheapest first
}

// LoadCardMarket reads card c's price series, sales and listings.
func LoadCardMarket(r snapshots.Reader, c *snapshots.Card, asOf snapshots.Day) (*CardMarket, error) {
	m := &CardMarket{Card: c, AsOf: asOf}
	var err error
	if m.Series, err = r.PriceSeries(c.Game, c.ID); err != nil && snapshots.ErrorCode(err) != snapshots.ENOTFOUND {
		return nil, err
	}
	if m.Sales, err = r.Sales(c.Game, c.ID); err != nil && snapshots.ErrorCode(err) != snapshots.ENOTFOUND {
		return nil, err
	}
	if m.Listings, err = r.Listings(c.Game, c.ID); err != nil && snapshots.ErrorCode(err) != snapshots.ENOTFOUND {
		return nil, err
	}
	return m, nil
}

// Market is what the quote rule looks at for one card, grade and finish.
// Amounts are cents; 0 means none.
type Market struct {
	Grade snapshots.Grade
	AsOf  snapshots.Day

	MidCents  int64
	MidStatus string        // StatusOK, StatusThin, StatusStale, StatusNone
	MidDay    snapshots.Day // day of the fmv point, or of the newest sale behind a finish median
	MidSales  int           // verified sales of the grade (and finish) in the trailing MidWindowDays
	// MidFinish is true when the midprice is the finish's sales median
	// rather than the grade's fmv.
	MidFinish bool

	LastCents       int64
	LastDay         snapshots.Day
	LastMarketplace string
	LastTradeType   string

	AskCents         int64
	AskShippingCents int64
	AskPlatform      string
	AskDay           snapshots.Day
}

// Market computes the market of grade g for the finish f.
func (m *CardMarket) Market(g snapshots.Grade, f Finish) Market {
	out := Market{Grade: g, AsOf: m.AsOf}
	from := m.AsOf - MidWindowDays + 1
	var window []int64
	for i := range m.Sales {
		s := &m.Sales[i]
		if s.Day > m.AsOf || s.Grade != g || s.Hidden() || !f.Sale(s) {
			continue
		}
		if out.LastCents == 0 {
			out.LastCents, out.LastDay = s.PriceCents, s.Day
			out.LastMarketplace, out.LastTradeType = s.Marketplace.String(), s.TradeType.String()
		}
		if s.Day < from {
			break // newest first: the rest is older
		}
		window = append(window, s.PriceCents)
	}
	out.MidSales = len(window)
	if f.Any() || len(m.Card.Variants) <= 1 {
		for i := range m.Series {
			if m.Series[i].Grade != g {
				continue
			}
			if p, ok := snapshots.PointAt(&m.Series[i], m.AsOf); ok {
				out.MidCents, out.MidDay = p.FMVCents, p.Day
			}
		}
	} else if len(window) > 0 {
		out.MidFinish = true
		out.MidCents, out.MidDay = snapshots.Median(window), out.LastDay
	}
	switch {
	case out.MidCents == 0 && out.LastCents == 0:
		out.MidStatus = StatusNone
	case out.MidCents == 0:
		out.MidStatus = StatusStale
	case out.MidSales >= OKSales:
		out.MidStatus = StatusOK
	case out.MidSales > 0:
		out.MidStatus = StatusThin
	default:
		out.MidStatus = StatusStale
	}
	gs := g.String()
	for i := range m.Listings {
		l := &m.Listings[i]
		if l.Grade == gs && f.Listing(l) && l.AskCents > 0 {
			out.AskCents, out.AskShippingCents, out.AskPlatform, out.AskDay = l.AskCents, l.ShippingCents, l.Platform, l.ListedDay
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
}

// Pick applies the quote rule to one grade: the midprice when usable, else
// the last verified sale, else the cheapest ask. ok is false when the grade
// has none of them.
func (m Market) Pick() (p Price, ok bool) {
	g := m.Grade.String()
	switch {
	case m.Usable():
		p = Price{Grade: m.Grade, Label: LabelMidprice, Cents: m.MidCents, Day: m.MidDay}
		if m.MidFinish {
			p.Basis = fmt.Sprintf("midprice: median of the %s of this finish in the %d days to %s (status %s)",
				plural(m.MidSales, "verified "+g+" sale"), MidWindowDays, m.AsOf, m.MidStatus)
		} else {
			p.Basis = fmt.Sprintf("midprice: fmv of %s (exponentially smoothed daily medians of verified sales) in force on %s, last moved %s; %s in the %d days to %s (status %s)",
				g, m.AsOf, m.MidDay, plural(m.MidSales, "verified sale"), MidWindowDays, m.AsOf, m.MidStatus)
		}
	case m.LastCents > 0:
		p = Price{Grade: m.Grade, Label: LabelLast, Cents: m.LastCents, Day: m.LastDay}
		p.Basis = fmt.Sprintf("last verified %s sale on %s (%s, %s), %s; no usable midprice (status %s): not a live market price",
			g, m.LastDay, m.LastMarketplace, m.LastTradeType, daysBefore(m.AsOf, m.LastDay), m.MidStatus)
	case m.AskCents > 0:
		p = Price{Grade: m.Grade, Label: LabelAsk, Cents: m.AskCents, Day: m.AskDay}
		p.Basis = fmt.Sprintf("cheapest current %s ask on %s, listed %s, shipping $%.2f extra; an asking price, not a sale: no usable midprice and no verified sale",
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
