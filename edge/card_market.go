package edge

import (
	"strconv"

	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// A card's market object (card-gold.v3's market): the price of one printing
// (the base printing unless the request names a finish), what stands behind
// it, and every printing's price in by_finish. The default object of every
// card is encoded once when the snapshot opens (encodedCards); a request
// with a finish builds its own.

// cardMarket is a card's market.
type cardMarket struct {
	PriceUSD   *float64 `json:"price_usd"`
	PriceBasis string   `json:"price_basis"`
	PriceDate  *string  `json:"price_date"`
	// Finish is the printing priced (null for a card without variants) and
	// BaseFinish whether it is the card's base printing.
	Finish       *string  `json:"finish"`
	BaseFinish   bool     `json:"base_finish"`
	SampleSize   int      `json:"sample_size"`
	LastSaleDate *string  `json:"last_sale_date"`
	Confidence   string   `json:"confidence"`
	Flags        []string `json:"flags"`
	// Note says why price_usd is null (confidence none).
	Note string `json:"note,omitempty"`
	// Volume, sales and listings count every printing (by_finish has each
	// printing's).
	Volume30dUSD float64        `json:"volume_30d_usd"`
	Sales30d     int            `json:"sales_30d"`
	SalesAll     int            `json:"sales_all"`
	Listings     int            `json:"listings"`
	ByFinish     []finishMarket `json:"by_finish"`
}

// finishMarket is one printing of a card in market.by_finish.
type finishMarket struct {
	Finish       *string  `json:"finish"`
	Base         bool     `json:"base"`
	PriceUSD     *float64 `json:"price_usd"`
	SampleSize   int      `json:"sample_size"`
	LastSaleDate *string  `json:"last_sale_date"`
	Confidence   string   `json:"confidence"`
	Flags        []string `json:"flags"`
	Note         string   `json:"note,omitempty"`
	Volume30dUSD float64  `json:"volume_30d_usd"`
	Sales30d     int      `json:"sales_30d"`
	SalesAll     int      `json:"sales_all"`
	Listings     int      `json:"listings"`
}

const priceBasisRawFMV = "fmv of the raw:near_mint verified sales of the printing named in finish (the card's base printing unless finish is given): " +
	"exponentially smoothed daily medians, outliers set aside, one sale moving it by a bounded step (see /api/v3/methodology); " +
	"null with a note at confidence none (no accepted sale in the sample window)"

// newCardMarket is card c's market object of its market view v
// (pricing.MarketView: the printing priced and every printing's).
func newCardMarket(c *snapshots.Card, v pricing.MarketView) cardMarket {
	m := cardMarket{PriceBasis: priceBasisRawFMV, Finish: jsontext.StrOrNil(pricing.PrintingName(c, v.Finish)), BaseFinish: v.Finish == snapshots.BasePrinting(c),
		Volume30dUSD: snapshots.USD(c.Volume30dCents), Sales30d: c.Sales30d, SalesAll: c.SalesAll, Listings: c.Listings,
		ByFinish: make([]finishMarket, 0, len(v.Printings))}
	for _, pm := range v.Printings {
		p, e := pm.Printing, pm.Estimate
		m.ByFinish = append(m.ByFinish, finishMarket{Finish: jsontext.StrOrNil(p.Name), Base: p.Base, PriceUSD: snapshots.USDOrNil(pm.Cents),
			SampleSize: int(e.SampleSize), LastSaleDate: pricing.LastSaleDate(e), Confidence: e.Confidence.String(), Flags: pricing.FlagNames(e.Flags), Note: pm.Note,
			Volume30dUSD: snapshots.USD(p.Volume30dCents), Sales30d: p.Sales30d, SalesAll: p.SalesAll, Listings: p.Listings})
	}
	e := v.Priced.Estimate
	m.SampleSize, m.LastSaleDate, m.Confidence, m.Flags = int(e.SampleSize), pricing.LastSaleDate(e), e.Confidence.String(), pricing.FlagNames(e.Flags)
	m.PriceUSD, m.Note = snapshots.USDOrNil(v.Priced.Cents), v.Priced.Note
	if v.Priced.Cents > 0 {
		d := v.PriceDay.String()
		m.PriceDate = &d
	}
	return m
}

// marketOf is c's market object in printing finish, read from r as of asOf.
func marketOf(r snapshots.Reader, c *snapshots.Card, finish int, asOf snapshots.Day) (*cardMarket, error) {
	v, err := pricing.ReadMarketView(r, c, finish, asOf)
	if err != nil {
		return nil, err
	}
	m := newCardMarket(c, v)
	return &m, nil
}

// defaultMarket is c's market in its base printing, read from r.
func defaultMarket(r snapshots.Reader, c *snapshots.Card) (*cardMarket, error) {
	return marketOf(r, c, snapshots.BasePrinting(c), 0) // the base printing's price day is the card's
}

// cardGold is card c with its default market (the base printing).
func (r *request) cardGold(c *snapshots.Card) (cardGold, error) {
	m, err := defaultMarket(r.snap.Reader, c)
	if err != nil {
		return cardGold{}, err
	}
	return newCardGold(c, r.setOf(c), m), nil
}

// The long constant strings of the market object, quoted once.
var quotedPriceBasisRawFMV = appendJSONStr(nil, priceBasisRawFMV)

// appendJSON writes m as encoding/json does.
func (m *cardMarket) appendJSON(b []byte) []byte {
	b = append(b, `{"price_usd":`...)
	b = appendJSONNumPtr(b, m.PriceUSD)
	b = append(b, `,"price_basis":`...)
	if m.PriceBasis == priceBasisRawFMV {
		b = append(b, quotedPriceBasisRawFMV...)
	} else {
		b = appendJSONStr(b, m.PriceBasis)
	}
	b = append(b, `,"price_date":`...)
	b = appendJSONStrPtr(b, m.PriceDate)
	b = append(b, `,"finish":`...)
	b = appendJSONStrPtr(b, m.Finish)
	b = append(b, `,"base_finish":`...)
	b = strconv.AppendBool(b, m.BaseFinish)
	b = appendEstimateTail(b, m.SampleSize, m.LastSaleDate, m.Confidence, m.Flags, m.Note)
	b = append(b, `,"volume_30d_usd":`...)
	b = appendUSDFloat(b, m.Volume30dUSD)
	b = append(b, `,"sales_30d":`...)
	b = strconv.AppendInt(b, int64(m.Sales30d), 10)
	b = append(b, `,"sales_all":`...)
	b = strconv.AppendInt(b, int64(m.SalesAll), 10)
	b = append(b, `,"listings":`...)
	b = strconv.AppendInt(b, int64(m.Listings), 10)
	b = append(b, `,"by_finish":`...)
	if m.ByFinish == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range m.ByFinish {
			if i > 0 {
				b = append(b, ',')
			}
			b = m.ByFinish[i].appendJSON(b)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func (f *finishMarket) appendJSON(b []byte) []byte {
	b = append(b, `{"finish":`...)
	b = appendJSONStrPtr(b, f.Finish)
	b = append(b, `,"base":`...)
	b = strconv.AppendBool(b, f.Base)
	b = append(b, `,"price_usd":`...)
	b = appendJSONNumPtr(b, f.PriceUSD)
	b = appendEstimateTail(b, f.SampleSize, f.LastSaleDate, f.Confidence, f.Flags, f.Note)
	b = append(b, `,"volume_30d_usd":`...)
	b = appendUSDFloat(b, f.Volume30dUSD)
	b = append(b, `,"sales_30d":`...)
	b = strconv.AppendInt(b, int64(f.Sales30d), 10)
	b = append(b, `,"sales_all":`...)
	b = strconv.AppendInt(b, int64(f.SalesAll), 10)
	b = append(b, `,"listings":`...)
	b = strconv.AppendInt(b, int64(f.Listings), 10)
	return append(b, '}')
}

// appendEstimateTail writes sample_size, last_sale_date, confidence, flags
// and a non-empty note, each after a comma.
func appendEstimateTail(b []byte, sample int, last *string, confidence string, flags []string, note string) []byte {
	b = append(b, `,"sample_size":`...)
	b = strconv.AppendInt(b, int64(sample), 10)
	b = append(b, `,"last_sale_date":`...)
	b = appendJSONStrPtr(b, last)
	b = append(b, `,"confidence":`...)
	b = appendJSONStr(b, confidence)
	b = append(b, `,"flags":`...)
	b = appendJSONStrs(b, flags)
	if note != "" {
		b = append(b, `,"note":`...)
		b = appendJSONStr(b, note)
	}
	return b
}

// appendUSDFloat writes a dollar amount made by snapshots.USD as
// encoding/json does.
func appendUSDFloat(b []byte, usd float64) []byte { return appendJSONNum(b, usd) }
