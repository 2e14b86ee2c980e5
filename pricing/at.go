package pricing

import (
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/snapshots"
)

// PriceSources are the sources PriceAt reads from a snapshot: the headline
// fmv (own), the partner feed, the latest verified sale, and the real-price
// sources' own numbers (TCGplayer's market, Cardmarket's trend in USD,
// PriceCharting's graded guide: a snapshot built without their files has
// none of theirs, and PriceAt then says so).
var PriceSources = []string{SourceOwn, SourcePartner, SourceObserved,
	snapshots.SourceTCGplayer, snapshots.SourceCardmarket, snapshots.SourcePriceCharting}

// maxAgeDays is how long an fmv stands after the last accepted sale behind
// it: past that its confidence is none (estimate.Default's lowest level).
var maxAgeDays = func() snapshots.Day {
	n := 0
	for _, l := range estimate.Default.Confidence {
		n = max(n, l.MaxAgeDays)
	}
	return snapshots.Day(n)
}()

// PriceAt is source's price of grade g of printing finish of card c in force
// on day, in a snapshot whose today is asOf (day <= asOf): what alerts and
// collection histories compare. On asOf the own price is Own's (the
// estimate); on an earlier day, the price series' point in force that day,
// none at confidence none or when its last sale is more than the
// methodology's longest age before day (Estimate then carries the point's
// confidence). Partner and observed are the feed row and the verified sale
// on or before day; a real-price source's is its headline number of the
// newest day on asOf, else its history's point in force on day. Cents 0
// means no price (Note says why). An unknown
// source is EINVALID; an unknown printing, EINVALID or ENOTFOUND.
func PriceAt(r snapshots.Reader, source string, c *snapshots.Card, finish int, g snapshots.Grade, asOf, day snapshots.Day) (SourcePrice, error) {
	if finish < 0 || finish >= c.Printings() {
		return SourcePrice{}, apperr.Errorf(apperr.EINVALID, "card %s has no printing %d", c.ID, finish)
	}
	switch source {
	case SourceOwn:
		if day >= asOf {
			return Own(r, c, finish, g, asOf)
		}
		series, err := r.PrintingSeries(c.Game, c.ID, finish)
		if err != nil {
			return SourcePrice{}, err
		}
		p, ok := snapshots.PointAt(snapshots.SeriesOf(series, g), day)
		if !ok || p.FMVCents == 0 || p.Confidence == estimate.ConfidenceNone || day-p.Day > maxAgeDays {
			return SourcePrice{Note: "no fmv of " + g.Name() + " of this printing in force on " + day.String()}, nil
		}
		e := snapshots.Estimate{Grade: g, FMVCents: p.FMVCents, TVWAPCents: p.TVWAPCents, MedianCents: p.MedianCents,
			SampleSize: p.Sample, LastSaleDay: p.Day, Confidence: p.Confidence, Flags: p.Flags}
		return SourcePrice{Cents: p.FMVCents, Day: p.Day, Estimate: &e}, nil
	case snapshots.SourceTCGplayer, snapshots.SourceCardmarket, snapshots.SourcePriceCharting:
		p, err := ReadProvenance(r, c)
		if err != nil {
			return SourcePrice{}, err
		}
		if day >= asOf {
			return FeedPrice(p, source, finish, g, asOf), nil
		}
		q, ok := lastPoint(p, source, finish, g, day)
		if !ok {
			return SourcePrice{Origin: Origin{Source: source}, Note: "no " + SourceLabel(source) + " price of " + g.String() + " of this printing on or before " + day.String()}, nil
		}
		return SourcePrice{Cents: q.Cents, Day: q.Day, Quote: &q, Stale: q.Stale, Origin: Origin{Source: source, Field: q.Field}}, nil
	case SourcePartner, SourceObserved:
		sales, err := r.Sales(c.Game, c.ID)
		if err != nil {
			return SourcePrice{}, err
		}
		f := OnePrinting(c, finish)
		if source == SourcePartner {
			return Partner(sales, g, f, day), nil
		}
		return Observed(sales, g, f, day), nil
	}
	return SourcePrice{}, apperr.Errorf(apperr.EINVALID, "unknown price source %q: want one of %s", source, strings.Join(PriceSources, ", "))
}
