package bulk

import (
	"encoding/json"
	"strconv"

	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// The rows of the four files. cards and sets are few and rich: encoding/json
// writes them (SetEscapeHTML(false)). prices and price-history are many and
// flat: they append themselves with jsontext, as encoding/json would write
// the same fields. Every row is checked against its schema by the tests.

// cardRow is one line of <game>-cards.
type cardRow struct {
	CardID           string   `json:"card_id"`
	Game             string   `json:"game"`
	Language         string   `json:"language"`
	SourceID         string   `json:"source_id"`
	Name             string   `json:"name"`
	NameLanguage     string   `json:"name_language"`
	Set              setRef   `json:"set"`
	Number           string   `json:"number"`
	Rarity           *string  `json:"rarity"`
	Supertype        *string  `json:"supertype"`
	Subtypes         []string `json:"subtypes"`
	Colors           []string `json:"colors"`
	NationalDex      []int    `json:"national_dex"`
	Variants         []string `json:"variants"`
	ENCardID         *string  `json:"en_card_id"`
	ENMatch          *string  `json:"en_match"`
	PartnerProductID *int64   `json:"partner_product_id"`
	// MarketIDs are the marketplaces' product ids and pages of each
	// printing.
	MarketIDs     []snapshots.MarketLink `json:"market_ids"`
	Play          *resolve.Play          `json:"play"`
	Source        string                 `json:"source"`
	MarketSources []string               `json:"market_sources"`
	Venues        []string               `json:"venues"`
	Market        cardMarket             `json:"market"`
	Printings     []printingRow          `json:"printings"`
}

type setRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// cardMarket is the card's market: the base printing's raw near-mint price,
// and sales, volume and listings of every printing.
type cardMarket struct {
	PriceUSD  *float64 `json:"price_usd"`
	PriceDate *string  `json:"price_date"`
	// Source is where price_usd comes from, Synthetic whether it is
	// synthesized (pricing.Origin).
	Source       string  `json:"source"`
	Synthetic    bool    `json:"synthetic"`
	Volume30dUSD float64 `json:"volume_30d_usd"`
	Sales30d     int     `json:"sales_30d"`
	SalesAll     int     `json:"sales_all"`
	Listings     int     `json:"listings"`
}

// printingRow is one printing of a card with its raw near-mint estimate.
type printingRow struct {
	Finish       *string  `json:"finish"`
	Base         bool     `json:"base"`
	PriceUSD     *float64 `json:"price_usd"`
	Source       string   `json:"source"`
	Synthetic    bool     `json:"synthetic"`
	SampleSize   int32    `json:"sample_size"`
	LastSaleDate *string  `json:"last_sale_date"`
	Confidence   string   `json:"confidence"`
	Flags        []string `json:"flags"`
	Volume30dUSD float64  `json:"volume_30d_usd"`
	Sales30d     int      `json:"sales_30d"`
	SalesAll     int      `json:"sales_all"`
	Listings     int      `json:"listings"`
	LowAskUSD    *float64 `json:"low_ask_usd"`
}

// setRow is one line of <game>-sets.
type setRow struct {
	SetID            string  `json:"set_id"`
	Game             string  `json:"game"`
	Language         string  `json:"language"`
	SourceID         string  `json:"source_id"`
	Name             string  `json:"name"`
	Series           *string `json:"series"`
	ReleaseDate      *string `json:"release_date"`
	Abbreviation     *string `json:"abbreviation"`
	CardCountPrinted *int    `json:"card_count_printed"`
	CardCountTotal   *int    `json:"card_count_total"`
	CardCount        int     `json:"card_count"`
	Volume30dUSD     float64 `json:"volume_30d_usd"`
	Sales30d         int     `json:"sales_30d"`
	Source           string  `json:"source"`
}

func intOrNil(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

func dayOrNil(d snapshots.Day) *string {
	if d == snapshots.NoDay || d == 0 {
		return nil
	}
	s := d.String()
	return &s
}

func newCardRow(c *snapshots.Card, set *snapshots.Set, ps []snapshots.Printing, prov pricing.Provenance) cardRow {
	row := cardRow{
		CardID: c.ID, Game: c.Game, Language: c.Language, SourceID: c.SourceID, Name: c.Name, NameLanguage: c.NameLanguage,
		Set: setRef{ID: c.SetID}, Number: c.Number, Rarity: jsontext.StrOrNil(c.Rarity), Supertype: jsontext.StrOrNil(c.Supertype),
		Subtypes: jsontext.NonNil(c.Subtypes), Colors: jsontext.NonNil(c.Colors), NationalDex: c.NationalDex, Variants: c.Variants,
		ENCardID: jsontext.StrOrNil(c.ENCardID), ENMatch: jsontext.StrOrNil(c.ENMatch), Play: resolve.NewPlay(c.Play), Source: c.Source,
		MarketSources: jsontext.NonNil(c.MarketSources), Venues: jsontext.NonNil(c.Venues), MarketIDs: snapshots.MarketLinks(c),
		Market:    cardMarket{Volume30dUSD: snapshots.USD(c.Volume30dCents), Sales30d: c.Sales30d, SalesAll: c.SalesAll, Listings: c.Listings},
		Printings: make([]printingRow, len(ps)),
	}
	if set != nil {
		row.Set.Name = set.Name
	}
	if c.PartnerProductID != 0 {
		id := c.PartnerProductID
		row.PartnerProductID = &id
	}
	for i := range ps {
		p := &ps[i]
		// A printing without raw near-mint sales has the zero estimate:
		// confidence none, no price, no flags.
		e, _ := pricing.EstimateOf(p, snapshots.RawNearMint)
		o := prov.SeriesOrigin(int(p.Finish), snapshots.RawNearMint)
		pr := printingRow{
			Finish: jsontext.StrOrNil(p.Name), Base: p.Base, PriceUSD: snapshots.USDOrNil(e.Shown()), Source: o.Source, Synthetic: o.Synthetic,
			SampleSize: e.SampleSize, LastSaleDate: pricing.LastSaleDate(e), Confidence: e.Confidence.String(), Flags: pricing.FlagNames(e.Flags),
			Volume30dUSD: snapshots.USD(p.Volume30dCents), Sales30d: p.Sales30d, SalesAll: p.SalesAll, Listings: p.Listings,
			LowAskUSD: snapshots.USDOrNil(p.LowAskCents),
		}
		row.Printings[i] = pr
		if p.Base {
			row.Market.Source, row.Market.Synthetic = o.Source, o.Synthetic
			if pr.PriceUSD != nil && c.PriceCents > 0 {
				row.Market.PriceUSD, row.Market.PriceDate = pr.PriceUSD, dayOrNil(c.PriceDay)
			}
		}
	}
	return row
}

func newSetRow(s *snapshots.Set) setRow {
	return setRow{
		SetID: s.ID, Game: s.Game, Language: s.Language, SourceID: s.SourceID, Name: s.Name, Series: jsontext.StrOrNil(s.Series),
		ReleaseDate: jsontext.StrOrNil(s.ReleaseDate), Abbreviation: jsontext.StrOrNil(s.Abbreviation),
		CardCountPrinted: intOrNil(s.CardCountPrinted), CardCountTotal: intOrNil(s.CardCountTotal), CardCount: s.CardCount,
		Volume30dUSD: snapshots.USD(s.Volume30dCents), Sales30d: s.Sales30d, Source: s.Source,
	}
}

// appendJSONRow appends v as encoding/json writes it without HTML escaping.
func appendJSONRow(b []byte, v any) ([]byte, error) {
	// json.Marshal escapes HTML; an Encoder does not when told, but writes
	// into a buffer of its own. Marshal and unescape is wrong for strings
	// that hold \u003c literally, so encode through a reused buffer.
	enc := rowEncoder{b: b}
	e := json.NewEncoder(&enc)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return b, err
	}
	return enc.b[:len(enc.b)-1], nil // without Encode's newline
}

type rowEncoder struct{ b []byte }

func (w *rowEncoder) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }

// The flat rows: keys in schema order.

// appendUSD appends cents as a JSON number of dollars (null for 0 when
// nullable), as encoding/json writes snapshots.USD.
func appendUSD(b []byte, cents int64, nullable bool) []byte {
	if cents == 0 && nullable {
		return append(b, "null"...)
	}
	return jsontext.AppendFloat(b, snapshots.USD(cents))
}

func appendStrOrNull(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return jsontext.AppendString(b, s, false)
}

func appendDayOrNull(b []byte, d snapshots.Day) []byte {
	if d == snapshots.NoDay || d == 0 {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = d.AppendFormat(b)
	return append(b, '"')
}

func appendFlags(b []byte, f estimate.Flags) []byte {
	b = append(b, '[')
	for i, n := range f.Names() {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsontext.AppendString(b, n, false)
	}
	return append(b, ']')
}

// appendSeriesHead appends the keys every prices and price-history row
// starts with: game, card_id, finish, base, grade.
func appendSeriesHead(b []byte, c *snapshots.Card, p *snapshots.Printing, g snapshots.Grade) []byte {
	b = append(b, `{"game":`...)
	b = jsontext.AppendString(b, c.Game, false)
	b = append(b, `,"card_id":`...)
	b = jsontext.AppendString(b, c.ID, false)
	b = append(b, `,"finish":`...)
	b = appendStrOrNull(b, p.Name)
	b = append(b, `,"base":`...)
	b = strconv.AppendBool(b, p.Base)
	b = append(b, `,"grade":`...)
	return jsontext.AppendString(b, g.String(), false)
}

// appendOrigin appends the keys every prices and price-history row ends
// with: source and synthetic.
func appendOrigin(b []byte, o pricing.Origin) []byte {
	b = append(b, `,"source":`...)
	b = jsontext.AppendString(b, o.Source, false)
	b = append(b, `,"synthetic":`...)
	return strconv.AppendBool(b, o.Synthetic)
}

// appendPriceRow appends one line of <game>-prices (without the newline):
// estimate e, from origin o.
func appendPriceRow(b []byte, c *snapshots.Card, p *snapshots.Printing, e *snapshots.Estimate, o pricing.Origin) []byte {
	b = appendSeriesHead(b, c, p, e.Grade)
	// At confidence none the API shows no value (the methodology's rule):
	// the last values are the series' last row in price-history.
	fmv, tvwap, median := e.FMVCents, e.TVWAPCents, e.MedianCents
	if e.Confidence == estimate.ConfidenceNone {
		fmv, tvwap, median = 0, 0, 0
	}
	b = append(b, `,"fmv_usd":`...)
	b = appendUSD(b, fmv, true)
	b = append(b, `,"tvwap_usd":`...)
	b = appendUSD(b, tvwap, true)
	b = append(b, `,"median_usd":`...)
	b = appendUSD(b, median, true)
	b = append(b, `,"sample_size":`...)
	b = strconv.AppendInt(b, int64(e.SampleSize), 10)
	b = append(b, `,"last_sale_date":`...)
	b = appendDayOrNull(b, e.LastSaleDay)
	b = append(b, `,"confidence":`...)
	b = jsontext.AppendString(b, e.Confidence.String(), false)
	b = append(b, `,"flags":`...)
	b = appendFlags(b, e.Flags)
	b = appendOrigin(b, o)
	return append(b, '}')
}

// appendHistoryRow appends one line of <game>-price-history (without the
// newline): the point pt shown on day (carried from pt.Day when they
// differ).
func appendHistoryRow(b []byte, c *snapshots.Card, p *snapshots.Printing, g snapshots.Grade, day snapshots.Day, pt *snapshots.PricePoint, o pricing.Origin) []byte {
	b = appendSeriesHead(b, c, p, g)
	b = append(b, `,"date":"`...)
	b = day.AppendFormat(b)
	b = append(b, `","fmv_usd":`...)
	b = appendUSD(b, pt.FMVCents, true)
	b = append(b, `,"tvwap_usd":`...)
	b = appendUSD(b, pt.TVWAPCents, true)
	b = append(b, `,"median_usd":`...)
	b = appendUSD(b, pt.MedianCents, true)
	b = append(b, `,"sales":`...)
	b = strconv.AppendInt(b, int64(pt.Sales), 10)
	b = append(b, `,"sample_size":`...)
	b = strconv.AppendInt(b, int64(pt.Sample), 10)
	b = append(b, `,"confidence":`...)
	b = jsontext.AppendString(b, pt.Confidence.String(), false)
	b = append(b, `,"flags":`...)
	b = appendFlags(b, pt.Flags)
	b = append(b, `,"carried_from":`...)
	if day != pt.Day {
		b = append(b, '"')
		b = pt.Day.AppendFormat(b)
		b = append(b, '"')
	} else {
		b = append(b, "null"...)
	}
	b = appendOrigin(b, o)
	return append(b, '}')
}
