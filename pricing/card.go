package pricing

import (
	"slices"
	"strconv"

	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// A card as REST shows it (card-gold.v3: card detail, the card list's
// items, batch, search and a set's top cards): the catalog's fields, its
// gameplay facts, its marketplaces' ids and its market. CardGold is the
// published shape (the OpenAPI document reflects it; the lists and batch
// encode it with encoding/json); card detail and the card list write the
// same bytes with CardDetail.AppendJSON, without reflection, from the card
// or from its object encoded once per snapshot (CardObjects).
// TestCardDetail_AppendJSON compares the two for every card of a tiny
// snapshot with every include; change the type and AppendCardObject
// together.
//
// One difference: encoding/json refuses NaN and infinities (the request
// fails); the appenders write null. No payload here computes either.

// VenueRef is one venue of a card.
type VenueRef struct {
	Marketplace string `json:"marketplace"`
}

// CardGold is a card in card-gold.v3.
type CardGold struct {
	CardID           string        `json:"card_id"`
	Game             string        `json:"game"`
	Name             string        `json:"name"`
	NameLanguage     string        `json:"name_language"`
	Language         string        `json:"language"`
	Set              SetRef        `json:"set"`
	Number           string        `json:"number"`
	Rarity           *string       `json:"rarity"`
	Supertype        *string       `json:"supertype"`
	Subtypes         []string      `json:"subtypes"`
	Colors           []string      `json:"colors"`
	NationalDex      []int         `json:"national_dex" nullable:"true"` // null: not a Pokémon card
	Variants         []string      `json:"variants" nullable:"true"`     // null: unknown
	ENCardID         *string       `json:"en_card_id"`
	ENMatch          *string       `json:"en_match"`
	Play             *resolve.Play `json:"play"` // gameplay facts: the object of the card's game; null when the catalog has none
	PartnerProductID *int64        `json:"partner_product_id"`
	// MarketIDs are the marketplaces' product ids and pages of each
	// printing (Cardmarket's idProduct, TCGplayer's productId).
	MarketIDs     []snapshots.MarketLink `json:"market_ids"`
	MarketSources []string               `json:"market_sources"`
	Venues        []VenueRef             `json:"venues"`
	Market        MarketObject           `json:"market"`
	Includes      *CardIncludes          `json:"includes,omitempty"`
}

// NewCardGold is card c of set (nil when unknown) with market m.
func NewCardGold(c *snapshots.Card, set *snapshots.Set, m *MarketObject) CardGold {
	g := CardGold{
		CardID: c.ID, Game: c.Game, Name: c.Name, NameLanguage: c.NameLanguage, Language: c.Language,
		Set: SetRef{ID: c.SetID}, Number: c.Number, Rarity: jsontext.StrOrNil(c.Rarity), Supertype: jsontext.StrOrNil(c.Supertype),
		Subtypes: jsontext.NonNil(c.Subtypes), Colors: jsontext.NonNil(c.Colors), NationalDex: c.NationalDex, Variants: c.Variants,
		ENCardID: jsontext.StrOrNil(c.ENCardID), ENMatch: jsontext.StrOrNil(c.ENMatch), Play: resolve.NewPlay(c.Play),
		MarketIDs: snapshots.MarketLinks(c), MarketSources: jsontext.NonNil(c.MarketSources), Venues: []VenueRef{}, Market: *m,
	}
	if set != nil {
		g.Set.Name = set.Name
	}
	if c.PartnerProductID != 0 {
		id := c.PartnerProductID
		g.PartnerProductID = &id
	}
	for _, v := range c.Venues {
		g.Venues = append(g.Venues, VenueRef{Marketplace: v})
	}
	return g
}

// CardDetail is the card detail payload (card-gold.v3 with its includes),
// written straight from the card: the bytes encoding/json writes for
// NewCardGold(Card, Set, Market) with Includes, without building the
// CardGold.
type CardDetail struct {
	Card     *snapshots.Card
	Set      *snapshots.Set // nil: unknown set
	Includes *CardIncludes  // nil: none asked for
	// Object is the card's object as CardObjects holds it (nil: encode it
	// from Card, Set and Market).
	Object []byte
	Market *MarketObject
}

// AppendJSON appends the payload as encoding/json writes it.
func (d *CardDetail) AppendJSON(b []byte) []byte {
	b = slices.Grow(b, d.SizeHint())
	if d.Object != nil {
		b = append(b, d.Object...)
	} else {
		b = AppendCardObject(b, d.Card, d.Set, d.Market)
	}
	if d.Includes != nil {
		b = append(b, `,"includes":`...)
		b = d.Includes.AppendJSON(b)
	}
	return append(b, '}')
}

// AppendCardObject appends the card-gold.v3 object of c with market m,
// without includes and without its closing brace (card detail adds its
// includes there).
func AppendCardObject(b []byte, c *snapshots.Card, set *snapshots.Set, m *MarketObject) []byte {
	b = append(b, `{"card_id":`...)
	b = jsontext.AppendStr(b, c.ID)
	b = append(b, `,"game":`...)
	b = jsontext.AppendStr(b, c.Game)
	b = append(b, `,"name":`...)
	b = jsontext.AppendStr(b, c.Name)
	b = append(b, `,"name_language":`...)
	b = jsontext.AppendStr(b, c.NameLanguage)
	b = append(b, `,"language":`...)
	b = jsontext.AppendStr(b, c.Language)
	b = append(b, `,"set":{"id":`...)
	b = jsontext.AppendStr(b, c.SetID)
	b = append(b, `,"name":`...)
	if set != nil {
		b = jsontext.AppendStr(b, set.Name)
	} else {
		b = append(b, `""`...)
	}
	b = append(b, `},"number":`...)
	b = jsontext.AppendStr(b, c.Number)
	b = append(b, `,"rarity":`...)
	b = jsontext.AppendStrOrNull(b, c.Rarity)
	b = append(b, `,"supertype":`...)
	b = jsontext.AppendStrOrNull(b, c.Supertype)
	b = append(b, `,"subtypes":`...)
	b = jsontext.AppendStrs(b, jsontext.NonNil(c.Subtypes))
	b = append(b, `,"colors":`...)
	b = jsontext.AppendStrs(b, jsontext.NonNil(c.Colors))
	b = append(b, `,"national_dex":`...)
	if c.NationalDex == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, n := range c.NationalDex {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(n), 10)
		}
		b = append(b, ']')
	}
	b = append(b, `,"variants":`...)
	b = jsontext.AppendStrs(b, c.Variants)
	b = append(b, `,"en_card_id":`...)
	b = jsontext.AppendStrOrNull(b, c.ENCardID)
	b = append(b, `,"en_match":`...)
	b = jsontext.AppendStrOrNull(b, c.ENMatch)
	b = append(b, `,"play":`...)
	b = resolve.AppendPlay(b, c.Play)
	b = append(b, `,"partner_product_id":`...)
	if c.PartnerProductID == 0 {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, c.PartnerProductID, 10)
	}
	b = append(b, `,"market_ids":`...)
	b = AppendMarketLinks(b, snapshots.MarketLinks(c))
	b = append(b, `,"market_sources":`...)
	b = jsontext.AppendStrs(b, jsontext.NonNil(c.MarketSources))
	b = append(b, `,"venues":[`...)
	for i, v := range c.Venues {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"marketplace":`...)
		b = jsontext.AppendStr(b, v)
		b = append(b, '}')
	}
	b = append(b, `],"market":`...)
	return m.AppendJSON(b)
}

// SizeHint is about the encoded size of d (a little more for typical
// cards), so that a buffer grows once.
func (d *CardDetail) SizeHint() int {
	n := 900 + len(d.Card.Name) + 32*(len(d.Card.MarketSources)+len(d.Card.Venues)) + 300*len(d.Card.Variants)
	if d.Object != nil {
		n = len(d.Object) + 1
	}
	in := d.Includes
	if in == nil {
		return n
	}
	for _, h := range []*HistorySeries{in.PriceHistory, in.TVWAPHistory} {
		if h != nil {
			n += 160 + 110*len(h.Points)
		}
	}
	if in.TVWAPSlots != nil {
		n += 96 + 160*len(in.TVWAPSlots.Slots)
	}
	if in.GradeMomentum != nil {
		n += 64 + 160*len(in.GradeMomentum.Grades)
	}
	if in.RecentSales != nil {
		n += 64 + 256*len(in.RecentSales.Items)
	}
	if in.MarketSummary != nil {
		w := &in.MarketSummary.w
		// Measured: about 500 bytes and 16 per breakdown entry. An
		// overestimate makes the edge's render buffer (4 KiB) grow for a
		// detail that fits it, and fasthttp's buffer pool then drops the
		// grown buffer: keep it close.
		n += 520 + 17*(len(w.ByMarketplace)+len(w.ByGrade)+len(w.GradeMedian)+len(w.TradeTypes))
	}
	if in.GradeBreakdown != nil {
		n += 32 + 160*len(in.GradeBreakdown.Grades)
	}
	if in.PopulationOverview != nil {
		n += 160 + 72*len(in.PopulationOverview.Grades)
	}
	if in.GradingEconomics != nil {
		n += 384
	}
	return n
}
