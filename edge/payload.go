package edge

import (
	"github.com/cardedge/cardedge/edge/resolve"
	"math"

	"github.com/cardedge/cardedge/snapshots"
)

// The data payloads of the REST routes. Names are stable snake_case; money is
// *_usd with two decimals; dates are YYYY-MM-DD; every derived number says
// its basis and sample size.

func usd(cents int64) float64 { return math.Round(float64(cents)) / 100 }

// usdOrNil is null for zero (unknown) amounts.
func usdOrNil(cents int64) *float64 {
	if cents == 0 {
		return nil
	}
	v := usd(cents)
	return &v
}

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// pctOrNil is null for NaN.
func pctOrNil(f float64) *float64 {
	if math.IsNaN(f) {
		return nil
	}
	v := round2(f)
	return &v
}

type setRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type venueRef struct {
	Marketplace string `json:"marketplace"`
}

type cardMarket struct {
	PriceUSD     *float64 `json:"price_usd"`
	PriceBasis   string   `json:"price_basis"`
	PriceDate    *string  `json:"price_date"`
	Volume30dUSD float64  `json:"volume_30d_usd"`
	Sales30d     int      `json:"sales_30d"`
	SalesAll     int      `json:"sales_all"`
	Listings     int      `json:"listings"`
}

// cardGold is a card in card-gold.v3.
type cardGold struct {
	CardID           string        `json:"card_id"`
	Game             string        `json:"game"`
	Name             string        `json:"name"`
	NameLanguage     string        `json:"name_language"`
	Language         string        `json:"language"`
	Set              setRef        `json:"set"`
	Number           string        `json:"number"`
	Rarity           *string       `json:"rarity"`
	Supertype        *string       `json:"supertype"`
	Subtypes         []string      `json:"subtypes"`
	Colors           []string      `json:"colors"`
	NationalDex      []int         `json:"national_dex" nullable:"true"` // null: not a Pokémon card
	Variants         []string      `json:"variants" nullable:"true"`     // null: unknown
	ENCardID         *string       `json:"en_card_id"`
	ENMatch          *string       `json:"en_match"`
	PartnerProductID *int64        `json:"partner_product_id"`
	MarketSources    []string      `json:"market_sources"`
	Venues           []venueRef    `json:"venues"`
	Market           cardMarket    `json:"market"`
	Includes         *cardIncludes `json:"includes,omitempty"`
}

const priceBasisRawFMV = "fmv of raw:near_mint verified sales (exponentially smoothed daily medians); null when the card has no raw near-mint sale"

func newCardGold(c *snapshots.Card, set *snapshots.Set) cardGold {
	g := cardGold{
		CardID: c.ID, Game: c.Game, Name: c.Name, NameLanguage: c.NameLanguage, Language: c.Language,
		Set: setRef{ID: c.SetID}, Number: c.Number, Rarity: strOrNil(c.Rarity), Supertype: strOrNil(c.Supertype),
		Subtypes: nonNil(c.Subtypes), Colors: nonNil(c.Colors), NationalDex: c.NationalDex, Variants: c.Variants,
		ENCardID: strOrNil(c.ENCardID), ENMatch: strOrNil(c.ENMatch), MarketSources: nonNil(c.MarketSources),
		Venues: []venueRef{},
		Market: cardMarket{
			PriceUSD: usdOrNil(c.PriceCents), PriceBasis: priceBasisRawFMV,
			Volume30dUSD: usd(c.Volume30dCents), Sales30d: c.Sales30d, SalesAll: c.SalesAll, Listings: c.Listings,
		},
	}
	if set != nil {
		g.Set.Name = set.Name
	}
	if c.PartnerProductID != 0 {
		id := c.PartnerProductID
		g.PartnerProductID = &id
	}
	for _, v := range c.Venues {
		g.Venues = append(g.Venues, venueRef{Marketplace: v})
	}
	if c.PriceCents > 0 {
		d := c.PriceDay.String()
		g.Market.PriceDate = &d
	}
	return g
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// page is the shape of every list payload.
type page[T any] struct {
	Items  []T `json:"items"`
	Total  int `json:"total"`
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
}

// paginate cuts items[offset:offset+limit].
func paginate[T any](items []T, offset, limit int) page[T] {
	p := page[T]{Total: len(items), Offset: offset, Limit: limit, Items: []T{}}
	if offset < len(items) {
		p.Items = items[offset:min(len(items), offset+limit)]
	}
	return p
}

// saleRow is one sale in sales and marketplace-sales payloads: the shape
// the MCP get_sales tool shares (package resolve).
type saleRow = resolve.SaleRow

func newSaleRow(c *snapshots.Card, s snapshots.Sale) saleRow { return resolve.NewSaleRow(c, s) }

func saleID(id uint64) string { return resolve.SaleID(id) }
