package snapshots

// Play holds the gameplay facts of a card as the catalog prints them (the
// catalog's "play" object): facts only, no rules or flavor text. A card has
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
}

// Ability is a Pokémon ability (or Poké-Power, Poké-Body ...): its name and
// kind, as printed.
type Ability struct {
	Name string `json:"name,omitempty"` // "" when the catalog has none (a few Asian rows)
	Type string `json:"type,omitempty"` // "Ability", "Poké-Power", ...; "" when unknown
}

// Attack is a Pokémon attack: its name, its energy cost and its damage as
// printed ("30+", "100×"; "" when it prints none).
type Attack struct {
	Name   string   `json:"name,omitempty"` // "" when the catalog has none (a few Asian rows)
	Cost   []string `json:"cost,omitempty"` // energy types, one per symbol
	Damage string   `json:"damage,omitempty"`
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
