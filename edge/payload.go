package edge

import (
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots/jsontext"

	"github.com/cardedge/cardedge/snapshots"
)

type venueRef struct {
	Marketplace string `json:"marketplace"`
}

// cardGold is a card in card-gold.v3.
type cardGold struct {
	CardID           string         `json:"card_id"`
	Game             string         `json:"game"`
	Name             string         `json:"name"`
	NameLanguage     string         `json:"name_language"`
	Language         string         `json:"language"`
	Set              pricing.SetRef `json:"set"`
	Number           string         `json:"number"`
	Rarity           *string        `json:"rarity"`
	Supertype        *string        `json:"supertype"`
	Subtypes         []string       `json:"subtypes"`
	Colors           []string       `json:"colors"`
	NationalDex      []int          `json:"national_dex" nullable:"true"` // null: not a Pokémon card
	Variants         []string       `json:"variants" nullable:"true"`     // null: unknown
	ENCardID         *string        `json:"en_card_id"`
	ENMatch          *string        `json:"en_match"`
	Play             *resolve.Play  `json:"play"` // gameplay facts: the object of the card's game; null when the catalog has none
	PartnerProductID *int64         `json:"partner_product_id"`
	// MarketIDs are the marketplaces' product ids and pages of each
	// printing (Cardmarket's idProduct, TCGplayer's productId).
	MarketIDs     []snapshots.MarketLink `json:"market_ids"`
	MarketSources []string               `json:"market_sources"`
	Venues        []venueRef             `json:"venues"`
	Market        pricing.MarketObject   `json:"market"`
	Includes      *cardIncludes          `json:"includes,omitempty"`
}

// newCardGold is card c of set (nil when unknown) with market m.
func newCardGold(c *snapshots.Card, set *snapshots.Set, m *pricing.MarketObject) cardGold {
	g := cardGold{
		CardID: c.ID, Game: c.Game, Name: c.Name, NameLanguage: c.NameLanguage, Language: c.Language,
		Set: pricing.SetRef{ID: c.SetID}, Number: c.Number, Rarity: jsontext.StrOrNil(c.Rarity), Supertype: jsontext.StrOrNil(c.Supertype),
		Subtypes: jsontext.NonNil(c.Subtypes), Colors: jsontext.NonNil(c.Colors), NationalDex: c.NationalDex, Variants: c.Variants,
		ENCardID: jsontext.StrOrNil(c.ENCardID), ENMatch: jsontext.StrOrNil(c.ENMatch), Play: resolve.NewPlay(c.Play),
		MarketIDs: snapshots.MarketLinks(c), MarketSources: jsontext.NonNil(c.MarketSources), Venues: []venueRef{}, Market: *m,
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
	return g
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

// cardGold is card c with its default market (the base printing).
func (r *request) cardGold(c *snapshots.Card) (cardGold, error) {
	m, err := pricing.DefaultMarketObject(r.snap.Reader, c)
	if err != nil {
		return cardGold{}, err
	}
	return newCardGold(c, r.setOf(c), m), nil
}
