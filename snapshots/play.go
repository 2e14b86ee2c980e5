package snapshots

// Play holds the gameplay facts of a card as the catalog prints them (the
// catalog's "play" object): facts only; the card's text (rules, ability and
// attack text, flavor text) only where the operator built from a local
// clone of pokemon-tcg-data (see PokemonPlay). A card has
// the part of its game: Pokemon for a Pokémon card, OnePiece for a One Piece
// card; both are nil when the catalog row has no play object.
type Play struct {
	Pokemon  *PokemonPlay  `json:"pokemon,omitempty"`
	OnePiece *OnePiecePlay `json:"onepiece,omitempty"`
}

// IsZero reports whether p has no part.
func (p Play) IsZero() bool { return p.Pokemon == nil && p.OnePiece == nil }

// PokemonPlay is the gameplay facts of a Pokémon card. Text fields are in
// the card's language; "" and nil mean the catalog has no value (null).
type PokemonPlay struct {
	HP             *int           `json:"hp,omitempty"`
	Types          []string       `json:"types,omitempty"` // energy types, e.g. "Fire"
	EvolvesFrom    string         `json:"evolves_from,omitempty"`
	Level          string         `json:"level,omitempty"` // as printed ("76", "X")
	Abilities      []Ability      `json:"abilities,omitempty"`
	Attacks        []Attack       `json:"attacks,omitempty"`
	Weaknesses     []TypeModifier `json:"weaknesses,omitempty"`
	Resistances    []TypeModifier `json:"resistances,omitempty"`
	Retreat        *int           `json:"retreat,omitempty"` // retreat cost in energies
	Artist         string         `json:"artist,omitempty"`
	RegulationMark string         `json:"regulation_mark,omitempty"`
	Legalities     Legalities     `json:"legalities"`

	// The card's text and its evolutions, read from a local clone of
	// pokemon-tcg-data (cardbuild build --catalog-source
	// pokemon-tcg-data=DIR) for the English cards it has; absent otherwise
	// (cardedge ships no card text: it is the publisher's).
	EvolvesTo    []string      `json:"evolves_to,omitempty"`
	Rules        []string      `json:"rules,omitempty"`
	AncientTrait *AncientTrait `json:"ancient_trait,omitempty"`
	FlavorText   string        `json:"flavor_text,omitempty"`
}

// AncientTrait is the ancient trait of a Pokémon card (from
// pokemon-tcg-data).
type AncientTrait struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// Ability is a Pokémon ability (or Poké-Power, Poké-Body ...): its name and
// kind, as printed.
type Ability struct {
	Name string `json:"name,omitempty"` // "" when the catalog has none (a few Asian rows)
	Type string `json:"type,omitempty"` // "Ability", "Poké-Power", ...; "" when unknown
	// Text is the ability's text from pokemon-tcg-data; nil when unknown.
	Text *string `json:"text,omitempty"`
}

// Attack is a Pokémon attack: its name, its energy cost and its damage as
// printed ("30+", "100×"; "" when it prints none).
type Attack struct {
	Name   string   `json:"name,omitempty"` // "" when the catalog has none (a few Asian rows)
	Cost   []string `json:"cost,omitempty"` // energy types, one per symbol
	Damage string   `json:"damage,omitempty"`
	// Text is the attack's text from pokemon-tcg-data ("" for an attack
	// that prints none); nil when unknown.
	Text *string `json:"text,omitempty"`
}

// ConvertedEnergyCost is the number of energies of the attack's cost (a
// "Free" symbol counts none), as pokemontcg.io's convertedEnergyCost.
func (a Attack) ConvertedEnergyCost() int {
	n := 0
	for _, e := range a.Cost {
		if e != "Free" {
			n++
		}
	}
	return n
}

// RetreatCost is the retreat cost as energy symbols (Colorless, one per
// energy), nil when the card prints none.
func (p *PokemonPlay) RetreatCost() []string {
	if p.Retreat == nil || *p.Retreat <= 0 {
		return nil
	}
	out := make([]string, *p.Retreat)
	for i := range out {
		out[i] = "Colorless"
	}
	return out
}

// TypeModifier is a weakness or resistance: an energy type and its value as
// printed ("×2", "-30"; "" when it prints none).
type TypeModifier struct {
	Type  string `json:"type"`
	Value string `json:"value,omitempty"`
}

// Legalities of a Pokémon card per format: LegalityLegal, LegalityBanned,
// LegalityNotLegal, or "" when the catalog does not say (Asian rows say
// nothing).
type Legalities struct {
	Standard  string `json:"standard,omitempty"`
	Expanded  string `json:"expanded,omitempty"`
	Unlimited string `json:"unlimited,omitempty"`
}

// Legality values of Legalities.
const (
	LegalityLegal    = "legal"
	LegalityBanned   = "banned"
	LegalityNotLegal = "not_legal"
)

// Formats are the play formats of Legalities, in API order.
var Formats = []string{"standard", "expanded", "unlimited"}

// Of returns the legality in format ("standard", "expanded" or "unlimited";
// "" for another format).
func (l Legalities) Of(format string) string {
	switch format {
	case "standard":
		return l.Standard
	case "expanded":
		return l.Expanded
	case "unlimited":
		return l.Unlimited
	}
	return ""
}

// SetLegalities returns the formats a set is legal in, from its cards: a
// format where at least half of them are legal or banned. A format where
// fewer are is left out: old sets hold a few basic energies and trainers
// reprinted since, legal in Standard, and a set that rotated keeps only
// its reprints. Values are LegalityLegal or "".
func SetLegalities(cards []*Card) Legalities {
	var n, std, exp, unl int
	count := func(v string) int {
		if v == LegalityLegal || v == LegalityBanned {
			return 1
		}
		return 0
	}
	for _, c := range cards {
		n++
		if p := c.Play.Pokemon; p != nil {
			std += count(p.Legalities.Standard)
			exp += count(p.Legalities.Expanded)
			unl += count(p.Legalities.Unlimited)
		}
	}
	legal := func(k int) string {
		if n > 0 && 2*k >= n {
			return LegalityLegal
		}
		return ""
	}
	return Legalities{Standard: legal(std), Expanded: legal(exp), Unlimited: legal(unl)}
}

// OnePiecePlay is the gameplay facts of a One Piece card; nil means the
// card prints no such value (a Character has no life, a Leader no cost).
type OnePiecePlay struct {
	Life       *int     `json:"life,omitempty"`
	Cost       *int     `json:"cost,omitempty"`
	Power      *int     `json:"power,omitempty"`
	Counter    *int     `json:"counter,omitempty"`
	Attributes []string `json:"attributes,omitempty"` // "Slash", "Strike", ...
	Block      *int     `json:"block,omitempty"`      // block icon (rotation group)
}
