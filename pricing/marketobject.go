package pricing

import (
	"strconv"

	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// A card's market object (REST's card-gold.v3 market, the card list's and
// batch's): the price of one printing (the base printing unless the request
// names a finish), what stands behind it and where it comes from, and every
// printing's price in by_finish. The edge encodes the default object of
// every card once per snapshot, with AppendJSON (byte for byte what
// encoding/json writes; TestCardDetail_AppendJSON compares them).

// MarketObject is a card's market.
type MarketObject struct {
	PriceUSD   *float64 `json:"price_usd"`
	PriceBasis string   `json:"price_basis"`
	PriceDate  *string  `json:"price_date"`
	// Source is where the price comes from: tcgplayer, cardmarket or
	// pricecharting (a source's file: a snapshot built from real sources),
	// observed (the estimator over verified sales) or synthetic (the
	// synthetic market); Synthetic says whether it is synthesized.
	Source    string `json:"source" enum:"tcgplayer,cardmarket,pricecharting,observed,synthetic" example:"tcgplayer"`
	Synthetic bool   `json:"synthetic"`
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
	ByFinish     []FinishMarket `json:"by_finish"`
}

// FinishMarket is one printing of a card in market.by_finish.
type FinishMarket struct {
	Finish   *string  `json:"finish"`
	Base     bool     `json:"base"`
	PriceUSD *float64 `json:"price_usd"`
	// Source and Synthetic: as the market's, for this printing's price.
	Source       string   `json:"source" enum:"tcgplayer,cardmarket,pricecharting,observed,synthetic" example:"tcgplayer"`
	Synthetic    bool     `json:"synthetic"`
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

// PriceBasisRawFMV is the market's price basis when verified sales make the
// price (observed or synthetic).
const PriceBasisRawFMV = "fmv of the raw:near_mint verified sales of the printing named in finish (the card's base printing unless finish is given): " +
	"exponentially smoothed daily medians, outliers set aside, one sale moving it by a bounded step (see /api/v3/methodology); " +
	"null with a note at confidence none (no accepted sale in the sample window)"

// MarketBasis is the price basis of a price of origin o.
func MarketBasis(o Origin) string {
	if o.Field == "" {
		return PriceBasisRawFMV
	}
	return feedBasis(o)
}

// NewMarketObject is card c's market object of its market view v (the
// printing priced and every printing's, with their origins).
func NewMarketObject(c *snapshots.Card, v MarketView) MarketObject {
	m := MarketObject{PriceBasis: MarketBasis(v.Priced.Origin), Source: v.Priced.Origin.Source, Synthetic: v.Priced.Origin.Synthetic,
		Finish: jsontext.StrOrNil(PrintingName(c, v.Finish)), BaseFinish: v.Finish == snapshots.BasePrinting(c),
		Volume30dUSD: snapshots.USD(c.Volume30dCents), Sales30d: c.Sales30d, SalesAll: c.SalesAll, Listings: c.Listings,
		ByFinish: make([]FinishMarket, 0, len(v.Printings))}
	for _, pm := range v.Printings {
		p, e := pm.Printing, pm.Estimate
		m.ByFinish = append(m.ByFinish, FinishMarket{Finish: jsontext.StrOrNil(p.Name), Base: p.Base, PriceUSD: snapshots.USDOrNil(pm.Cents),
			Source: pm.Origin.Source, Synthetic: pm.Origin.Synthetic,
			SampleSize: int(e.SampleSize), LastSaleDate: LastSaleDate(e), Confidence: e.Confidence.String(), Flags: FlagNames(e.Flags), Note: pm.Note,
			Volume30dUSD: snapshots.USD(p.Volume30dCents), Sales30d: p.Sales30d, SalesAll: p.SalesAll, Listings: p.Listings})
	}
	e := v.Priced.Estimate
	m.SampleSize, m.LastSaleDate, m.Confidence, m.Flags = int(e.SampleSize), LastSaleDate(e), e.Confidence.String(), FlagNames(e.Flags)
	m.PriceUSD, m.Note = snapshots.USDOrNil(v.Priced.Cents), v.Priced.Note
	if v.Priced.Cents > 0 {
		d := v.PriceDay.String()
		m.PriceDate = &d
	}
	return m
}

// ReadMarketObject is c's market object in printing finish, read from r as
// of asOf (ReadMarketView).
func ReadMarketObject(r snapshots.Reader, c *snapshots.Card, finish int, asOf snapshots.Day) (*MarketObject, error) {
	v, err := ReadMarketView(r, c, finish, asOf)
	if err != nil {
		return nil, err
	}
	m := NewMarketObject(c, v)
	return &m, nil
}

// DefaultMarketObject is c's market in its base printing, read from r.
func DefaultMarketObject(r snapshots.Reader, c *snapshots.Card) (*MarketObject, error) {
	return ReadMarketObject(r, c, snapshots.BasePrinting(c), 0) // the base printing's price day is the card's
}

// The long constant strings of the market object, quoted once.
var quotedPriceBasisRawFMV = jsontext.AppendStr(nil, PriceBasisRawFMV)

// AppendJSON writes m as encoding/json (SetEscapeHTML(false)) does.
func (m *MarketObject) AppendJSON(b []byte) []byte {
	b = append(b, `{"price_usd":`...)
	b = jsontext.AppendNumberPtr(b, m.PriceUSD)
	b = append(b, `,"price_basis":`...)
	if m.PriceBasis == PriceBasisRawFMV {
		b = append(b, quotedPriceBasisRawFMV...)
	} else {
		b = jsontext.AppendStr(b, m.PriceBasis)
	}
	b = append(b, `,"price_date":`...)
	b = jsontext.AppendStrPtr(b, m.PriceDate)
	b = appendOrigin(b, m.Source, m.Synthetic)
	b = append(b, `,"finish":`...)
	b = jsontext.AppendStrPtr(b, m.Finish)
	b = append(b, `,"base_finish":`...)
	b = strconv.AppendBool(b, m.BaseFinish)
	b = appendEstimateTail(b, m.SampleSize, m.LastSaleDate, m.Confidence, m.Flags, m.Note)
	b = appendCounts(b, m.Volume30dUSD, m.Sales30d, m.SalesAll, m.Listings)
	b = append(b, `,"by_finish":`...)
	if m.ByFinish == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range m.ByFinish {
			if i > 0 {
				b = append(b, ',')
			}
			b = m.ByFinish[i].AppendJSON(b)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// AppendJSON writes f as encoding/json (SetEscapeHTML(false)) does.
func (f *FinishMarket) AppendJSON(b []byte) []byte {
	b = append(b, `{"finish":`...)
	b = jsontext.AppendStrPtr(b, f.Finish)
	b = append(b, `,"base":`...)
	b = strconv.AppendBool(b, f.Base)
	b = append(b, `,"price_usd":`...)
	b = jsontext.AppendNumberPtr(b, f.PriceUSD)
	b = appendOrigin(b, f.Source, f.Synthetic)
	b = appendEstimateTail(b, f.SampleSize, f.LastSaleDate, f.Confidence, f.Flags, f.Note)
	b = appendCounts(b, f.Volume30dUSD, f.Sales30d, f.SalesAll, f.Listings)
	return append(b, '}')
}

// appendOrigin writes source and synthetic, each after a comma.
func appendOrigin(b []byte, source string, synthetic bool) []byte {
	b = append(b, `,"source":`...)
	b = jsontext.AppendStr(b, source)
	b = append(b, `,"synthetic":`...)
	return strconv.AppendBool(b, synthetic)
}

// appendEstimateTail writes sample_size, last_sale_date, confidence, flags
// and a non-empty note, each after a comma.
func appendEstimateTail(b []byte, sample int, last *string, confidence string, flags []string, note string) []byte {
	b = append(b, `,"sample_size":`...)
	b = strconv.AppendInt(b, int64(sample), 10)
	b = append(b, `,"last_sale_date":`...)
	b = jsontext.AppendStrPtr(b, last)
	b = append(b, `,"confidence":`...)
	b = jsontext.AppendStr(b, confidence)
	b = append(b, `,"flags":`...)
	b = jsontext.AppendStrs(b, flags)
	if note != "" {
		b = append(b, `,"note":`...)
		b = jsontext.AppendStr(b, note)
	}
	return b
}

// appendCounts writes volume_30d_usd, sales_30d, sales_all and listings,
// each after a comma.
func appendCounts(b []byte, volume float64, sales30d, salesAll, listings int) []byte {
	b = append(b, `,"volume_30d_usd":`...)
	b = jsontext.AppendNumber(b, volume)
	b = append(b, `,"sales_30d":`...)
	b = strconv.AppendInt(b, int64(sales30d), 10)
	b = append(b, `,"sales_all":`...)
	b = strconv.AppendInt(b, int64(salesAll), 10)
	b = append(b, `,"listings":`...)
	return strconv.AppendInt(b, int64(listings), 10)
}

// AppendMarketLinks writes links (snapshots.MarketLinks) as encoding/json
// (SetEscapeHTML(false)) does.
func AppendMarketLinks(b []byte, links []snapshots.MarketLink) []byte {
	if links == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range links {
		l := &links[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"variant":`...)
		b = jsontext.AppendStrPtr(b, l.Variant)
		b = append(b, `,"cardmarket":`...)
		b = jsontext.AppendIntPtr(b, l.Cardmarket)
		b = append(b, `,"cardmarket_url":`...)
		b = jsontext.AppendStrPtr(b, l.CardmarketURL)
		b = append(b, `,"tcgplayer":`...)
		b = jsontext.AppendIntPtr(b, l.TCGplayer)
		b = append(b, `,"tcgplayer_url":`...)
		b = jsontext.AppendStrPtr(b, l.TCGplayerURL)
		b = append(b, '}')
	}
	return append(b, ']')
}
