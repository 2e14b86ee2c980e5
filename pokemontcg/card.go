package pokemontcg

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/snapshots"
)

// Card is pokemontcg.io's card object, its fields in its order
// (docs/api-reference/cards/card-object.md of pokemon-tcg-api-docs; the
// SDKs' Card). A field the card lacks is left out, as theirs are; hp and
// level are strings. The text fields (Rules, AncientTrait, FlavorText,
// EvolvesTo and the text of abilities and attacks) are there only for a
// snapshot built from a pokemon-tcg-data clone (abilities[].text is then
// ""). TCGPlayer and Cardmarket are the snapshot's prices (prices.go), nil
// without any. Cardedge is cardedge's own, last: the SDKs ignore keys they
// do not know.
type Card struct {
	ID                     string          `json:"id"`
	Name                   string          `json:"name"`
	Supertype              string          `json:"supertype"`
	Subtypes               []string        `json:"subtypes,omitempty"`
	Level                  string          `json:"level,omitempty"`
	HP                     string          `json:"hp,omitempty"`
	Types                  []string        `json:"types,omitempty"`
	EvolvesFrom            string          `json:"evolvesFrom,omitempty"`
	EvolvesTo              []string        `json:"evolvesTo,omitempty"`
	Rules                  []string        `json:"rules,omitempty"`
	AncientTrait           *AncientTrait   `json:"ancientTrait,omitempty"`
	Abilities              []Ability       `json:"abilities,omitempty"`
	Attacks                []Attack        `json:"attacks,omitempty"`
	Weaknesses             []TypeModifier  `json:"weaknesses,omitempty"`
	Resistances            []TypeModifier  `json:"resistances,omitempty"`
	RetreatCost            []string        `json:"retreatCost,omitempty"`
	ConvertedRetreatCost   *int            `json:"convertedRetreatCost,omitempty"`
	Set                    *Set            `json:"set"`
	Number                 string          `json:"number"`
	Artist                 string          `json:"artist,omitempty"`
	Rarity                 string          `json:"rarity,omitempty"`
	FlavorText             string          `json:"flavorText,omitempty"`
	NationalPokedexNumbers []int           `json:"nationalPokedexNumbers,omitempty"`
	Legalities             Legalities      `json:"legalities"`
	RegulationMark         string          `json:"regulationMark,omitempty"`
	Images                 CardImages      `json:"images"`
	TCGPlayer              *TCGPlayer      `json:"tcgplayer,omitempty"`
	Cardmarket             *Cardmarket     `json:"cardmarket,omitempty"`
	Cardedge               *CardedgeFields `json:"cardedge,omitempty"`
}

// AncientTrait is a card's ancient trait.
type AncientTrait struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// Ability is a card's ability. Text is always there (the Python SDK's
// Ability requires it): "" without card text.
type Ability struct {
	Name string `json:"name"`
	Text string `json:"text"`
	Type string `json:"type"`
}

// Attack is a card's attack: Cost is [] for an attack that costs nothing,
// Damage "" for one that prints none (as theirs); Text is nil without card
// text.
type Attack struct {
	Name                string   `json:"name"`
	Cost                []string `json:"cost"`
	ConvertedEnergyCost int      `json:"convertedEnergyCost"`
	Damage              string   `json:"damage"`
	Text                *string  `json:"text,omitempty"`
}

// TypeModifier is a weakness or a resistance.
type TypeModifier struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// Legalities are the formats a card or set is legal (or banned) in, as
// pokemontcg.io writes them: "Legal" or "Banned", a format where it is
// neither left out; the order is theirs.
type Legalities struct {
	Unlimited string `json:"unlimited,omitempty"`
	Standard  string `json:"standard,omitempty"`
	Expanded  string `json:"expanded,omitempty"`
}

// CardImages are a card's image URLs.
type CardImages struct {
	Small string `json:"small"`
	Large string `json:"large"`
}

// TCGPlayer is TCGplayer's prices of a card's TCGplayer product, in USD
// (prices.go).
type TCGPlayer struct {
	URL       string          `json:"url"`
	UpdatedAt string          `json:"updatedAt"` // YYYY/MM/DD
	Prices    TCGPlayerPrices `json:"prices"`
}

// TCGPlayerPrices are TCGplayer's prices by printing (TCGplayer's
// subTypeName in lower camel case, as pokemontcg.io names them).
type TCGPlayerPrices struct {
	Normal               *TCGPrice `json:"normal,omitempty"`
	Holofoil             *TCGPrice `json:"holofoil,omitempty"`
	ReverseHolofoil      *TCGPrice `json:"reverseHolofoil,omitempty"`
	FirstEditionHolofoil *TCGPrice `json:"1stEditionHolofoil,omitempty"`
	FirstEditionNormal   *TCGPrice `json:"1stEditionNormal,omitempty"`
	UnlimitedHolofoil    *TCGPrice `json:"unlimitedHolofoil,omitempty"`
}

// TCGPrice is one printing's TCGplayer prices; nil is null.
type TCGPrice struct {
	Low       *float64 `json:"low"`
	Mid       *float64 `json:"mid"`
	High      *float64 `json:"high"`
	Market    *float64 `json:"market"`
	DirectLow *float64 `json:"directLow"`
}

// Cardmarket is Cardmarket's price guide of a card's Cardmarket product, in
// EUR (prices.go).
type Cardmarket struct {
	URL       string            `json:"url"`
	UpdatedAt string            `json:"updatedAt"` // YYYY/MM/DD
	Prices    *CardmarketPrices `json:"prices"`
}

// CardmarketPrices are Cardmarket's price guide of a card; nil is null
// (germanProLow, suggestedPrice and lowPriceExPlus always: the public price
// guide does not have them).
type CardmarketPrices struct {
	AverageSellPrice *float64 `json:"averageSellPrice"`
	LowPrice         *float64 `json:"lowPrice"`
	TrendPrice       *float64 `json:"trendPrice"`
	GermanProLow     *float64 `json:"germanProLow"`
	SuggestedPrice   *float64 `json:"suggestedPrice"`
	ReverseHoloSell  *float64 `json:"reverseHoloSell"`
	ReverseHoloLow   *float64 `json:"reverseHoloLow"`
	ReverseHoloTrend *float64 `json:"reverseHoloTrend"`
	LowPriceExPlus   *float64 `json:"lowPriceExPlus"`
	Avg1             *float64 `json:"avg1"`
	Avg7             *float64 `json:"avg7"`
	Avg30            *float64 `json:"avg30"`
	ReverseHoloAvg1  *float64 `json:"reverseHoloAvg1"`
	ReverseHoloAvg7  *float64 `json:"reverseHoloAvg7"`
	ReverseHoloAvg30 *float64 `json:"reverseHoloAvg30"`
}

// CardedgeFields are cardedge's own fields of a /v2 card: its id in
// cardedge, the path of its /api/v3 detail and where its tcgplayer and
// cardmarket numbers come from (PriceSources, PriceSynthetic; "" without
// prices).
type CardedgeFields struct {
	ID          string `json:"id"`     // en:base1-4
	Detail      string `json:"detail"` // /api/v3/cards/en:base1-4
	PriceSource string `json:"priceSource,omitempty"`
}

// DetailPath is the path of a card's /api/v3 detail.
func DetailPath(cardID string) string { return "/api/v3/cards/" + url.PathEscape(cardID) }

// newCard builds the card object of c, an English Pokémon card of set s
// (its /v2 set object).
func (cat *Catalog) newCard(c *snapshots.Card, s *Set) *Card {
	p := c.Play.Pokemon
	if p == nil {
		p = &snapshots.PokemonPlay{}
	}
	out := &Card{
		ID: c.SourceID, Name: c.Name, Supertype: c.Supertype, Subtypes: c.Subtypes,
		Level: p.Level, Types: p.Types, EvolvesFrom: p.EvolvesFrom, EvolvesTo: p.EvolvesTo, Rules: p.Rules,
		Set: s, Number: c.Number, Artist: p.Artist, Rarity: c.Rarity, FlavorText: p.FlavorText,
		NationalPokedexNumbers: c.NationalDex, Legalities: legalities(p.Legalities), RegulationMark: p.RegulationMark,
		Images:   cat.cardImages(s.ID, c.Number),
		Cardedge: &CardedgeFields{ID: c.ID, Detail: DetailPath(c.ID)},
	}
	if p := cat.pricesOf(c); p != nil {
		out.TCGPlayer, out.Cardmarket, out.Cardedge.PriceSource = p.tcgplayer, p.cardmarket, p.source
	}
	if p.HP != nil {
		out.HP = strconv.Itoa(*p.HP)
	}
	if t := p.AncientTrait; t != nil {
		out.AncientTrait = &AncientTrait{Name: t.Name, Text: t.Text}
	}
	for _, a := range p.Abilities {
		out.Abilities = append(out.Abilities, Ability{Name: a.Name, Text: deref(a.Text), Type: a.Type})
	}
	for _, a := range p.Attacks {
		cost := a.Cost
		if cost == nil {
			cost = []string{}
		}
		out.Attacks = append(out.Attacks, Attack{Name: a.Name, Cost: cost, ConvertedEnergyCost: a.ConvertedEnergyCost(), Damage: a.Damage, Text: a.Text})
	}
	for _, m := range p.Weaknesses {
		out.Weaknesses = append(out.Weaknesses, TypeModifier{Type: m.Type, Value: m.Value})
	}
	for _, m := range p.Resistances {
		out.Resistances = append(out.Resistances, TypeModifier{Type: m.Type, Value: m.Value})
	}
	if p.Retreat != nil {
		n := *p.Retreat
		out.RetreatCost = p.RetreatCost()
		out.ConvertedRetreatCost = &n
	}
	return out
}

// legalities writes snapshot legalities as pokemontcg.io does.
func legalities(l snapshots.Legalities) Legalities {
	word := func(v string) string {
		switch v {
		case snapshots.LegalityLegal:
			return "Legal"
		case snapshots.LegalityBanned:
			return "Banned"
		}
		return ""
	}
	return Legalities{Unlimited: word(l.Unlimited), Standard: word(l.Standard), Expanded: word(l.Expanded)}
}

// DefaultImageURL is the image URL template of pokemontcg.io's own images
// (https://images.pokemontcg.io/base1/4.png, 4_hires.png, symbol.png,
// logo.png): {set} is the set id, {image} the image's name (the card
// number, the number and "_hires", symbol or logo).
const DefaultImageURL = "https://images.pokemontcg.io/{set}/{image}.png"

// imageURL fills the template with the set id and image name, each
// escaped as a path segment.
func (cat *Catalog) imageURL(set, image string) string {
	var b strings.Builder
	b.Grow(len(cat.imageTmpl) + len(set) + len(image))
	for _, part := range cat.imageParts {
		switch part {
		case "{set}":
			b.WriteString(url.PathEscape(set))
		case "{image}":
			b.WriteString(url.PathEscape(image))
		default:
			b.WriteString(part)
		}
	}
	return b.String()
}

// templateParts splits an image URL template into literal parts and the
// placeholders {set} and {image}.
func templateParts(tmpl string) []string {
	var parts []string
	for tmpl != "" {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			return append(parts, tmpl)
		}
		switch {
		case strings.HasPrefix(tmpl[i:], "{set}"):
			parts = append(parts, tmpl[:i], "{set}")
			tmpl = tmpl[i+len("{set}"):]
		case strings.HasPrefix(tmpl[i:], "{image}"):
			parts = append(parts, tmpl[:i], "{image}")
			tmpl = tmpl[i+len("{image}"):]
		default:
			parts = append(parts, tmpl[:i+1])
			tmpl = tmpl[i+1:]
		}
	}
	return parts
}

func (cat *Catalog) cardImages(set, number string) CardImages {
	return CardImages{Small: cat.imageURL(set, number), Large: cat.imageURL(set, number+"_hires")}
}
