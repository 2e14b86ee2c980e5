package resolve

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// Play is the API shape of a card's gameplay facts (snapshots.Play), as card
// detail, the card list and MCP search return them under "play": the
// object of the card's game, with null where the catalog has no value (the
// catalog's own shape), or null for a card without facts. Its JSON is
// PokemonPlay's or OnePiecePlay's; OneOf names both for the OpenAPI
// document.
type Play struct {
	Pokemon  *PokemonPlay
	OnePiece *OnePiecePlay
}

// PokemonPlay is the "play" object of a Pokémon card.
type PokemonPlay struct {
	HP             *int           `json:"hp"`
	Types          []string       `json:"types"`
	EvolvesFrom    *string        `json:"evolves_from"`
	Level          *string        `json:"level"`
	Abilities      []PlayAbility  `json:"abilities"`
	Attacks        []PlayAttack   `json:"attacks"`
	Weaknesses     []PlayModifier `json:"weaknesses"`
	Resistances    []PlayModifier `json:"resistances"`
	Retreat        *int           `json:"retreat"`
	Artist         *string        `json:"artist"`
	RegulationMark *string        `json:"regulation_mark"`
	Legalities     PlayLegalities `json:"legalities"`
}

// PlayAbility is an ability: its name and kind as printed.
type PlayAbility struct {
	Name *string `json:"name"`
	Type *string `json:"type"`
}

// PlayAttack is an attack: its name, energy cost (one type per symbol) and
// damage as printed ("30+").
type PlayAttack struct {
	Name   *string  `json:"name"`
	Cost   []string `json:"cost"`
	Damage *string  `json:"damage"`
}

// PlayModifier is a weakness or resistance: an energy type and its value as
// printed ("×2", "-30").
type PlayModifier struct {
	Type  string  `json:"type"`
	Value *string `json:"value"`
}

// PlayLegalities is the legality per format: legal, banned, not_legal, or
// null when the catalog does not say.
type PlayLegalities struct {
	Standard  *string `json:"standard"`
	Expanded  *string `json:"expanded"`
	Unlimited *string `json:"unlimited"`
}

// OnePiecePlay is the "play" object of a One Piece card: null where the
// card prints no such number.
type OnePiecePlay struct {
	Life       *int     `json:"life"`
	Cost       *int     `json:"cost"`
	Power      *int     `json:"power"`
	Counter    *int     `json:"counter"`
	Attributes []string `json:"attributes"`
	Block      *int     `json:"block"`
}

// NewPlay is the API shape of p; nil when p has no part.
func NewPlay(p snapshots.Play) *Play {
	switch {
	case p.Pokemon != nil:
		s := p.Pokemon
		out := &PokemonPlay{
			HP: s.HP, Types: jsontext.NonNil(s.Types), EvolvesFrom: jsontext.StrOrNil(s.EvolvesFrom), Level: jsontext.StrOrNil(s.Level),
			Abilities: make([]PlayAbility, len(s.Abilities)), Attacks: make([]PlayAttack, len(s.Attacks)),
			Weaknesses: modifiers(s.Weaknesses), Resistances: modifiers(s.Resistances), Retreat: s.Retreat,
			Artist: jsontext.StrOrNil(s.Artist), RegulationMark: jsontext.StrOrNil(s.RegulationMark),
			Legalities: PlayLegalities{
				Standard: jsontext.StrOrNil(s.Legalities.Standard), Expanded: jsontext.StrOrNil(s.Legalities.Expanded), Unlimited: jsontext.StrOrNil(s.Legalities.Unlimited),
			},
		}
		for i, a := range s.Abilities {
			out.Abilities[i] = PlayAbility{Name: jsontext.StrOrNil(a.Name), Type: jsontext.StrOrNil(a.Type)}
		}
		for i, a := range s.Attacks {
			out.Attacks[i] = PlayAttack{Name: jsontext.StrOrNil(a.Name), Cost: jsontext.NonNil(a.Cost), Damage: jsontext.StrOrNil(a.Damage)}
		}
		return &Play{Pokemon: out}
	case p.OnePiece != nil:
		s := p.OnePiece
		return &Play{OnePiece: &OnePiecePlay{
			Life: s.Life, Cost: s.Cost, Power: s.Power, Counter: s.Counter, Attributes: jsontext.NonNil(s.Attributes), Block: s.Block,
		}}
	}
	return nil
}

func modifiers(ms []snapshots.TypeModifier) []PlayModifier {
	out := make([]PlayModifier, len(ms))
	for i, m := range ms {
		out[i] = PlayModifier{Type: m.Type, Value: jsontext.StrOrNil(m.Value)}
	}
	return out
}

// MarshalJSON writes the object of the card's game (null for none). It
// leaves HTML characters unescaped: the encoder that calls it escapes them
// or not, as it is set.
func (p *Play) MarshalJSON() ([]byte, error) {
	var v any
	switch {
	case p == nil:
		return []byte("null"), nil
	case p.Pokemon != nil:
		v = p.Pokemon
	case p.OnePiece != nil:
		v = p.OnePiece
	default:
		return []byte("null"), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// OneOf returns a value of each shape Play's JSON takes, for the OpenAPI
// document (which adds null).
func (*Play) OneOf() []any { return []any{PokemonPlay{}, OnePiecePlay{}} }

// AppendPlay appends the JSON of NewPlay(p) (as encoding/json writes it,
// SetEscapeHTML(false)) without making it: the object of the card's game,
// null where the catalog has no value, or null. The edge writes every
// card's object with it once per snapshot.
func AppendPlay(b []byte, p snapshots.Play) []byte {
	appendInt := func(b []byte, v *int) []byte {
		if v == nil {
			return append(b, "null"...)
		}
		return strconv.AppendInt(b, int64(*v), 10)
	}
	switch {
	case p.Pokemon != nil:
		s := p.Pokemon
		b = append(b, `{"hp":`...)
		b = appendInt(b, s.HP)
		b = append(b, `,"types":`...)
		b = jsontext.AppendStrs(b, jsontext.NonNil(s.Types))
		b = append(b, `,"evolves_from":`...)
		b = jsontext.AppendStrOrNull(b, s.EvolvesFrom)
		b = append(b, `,"level":`...)
		b = jsontext.AppendStrOrNull(b, s.Level)
		b = append(b, `,"abilities":[`...)
		for i, a := range s.Abilities {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = jsontext.AppendStrOrNull(b, a.Name)
			b = append(b, `,"type":`...)
			b = jsontext.AppendStrOrNull(b, a.Type)
			b = append(b, '}')
		}
		b = append(b, `],"attacks":[`...)
		for i, a := range s.Attacks {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = jsontext.AppendStrOrNull(b, a.Name)
			b = append(b, `,"cost":`...)
			b = jsontext.AppendStrs(b, jsontext.NonNil(a.Cost))
			b = append(b, `,"damage":`...)
			b = jsontext.AppendStrOrNull(b, a.Damage)
			b = append(b, '}')
		}
		b = append(b, `],"weaknesses":`...)
		b = appendModifiers(b, s.Weaknesses)
		b = append(b, `,"resistances":`...)
		b = appendModifiers(b, s.Resistances)
		b = append(b, `,"retreat":`...)
		b = appendInt(b, s.Retreat)
		b = append(b, `,"artist":`...)
		b = jsontext.AppendStrOrNull(b, s.Artist)
		b = append(b, `,"regulation_mark":`...)
		b = jsontext.AppendStrOrNull(b, s.RegulationMark)
		b = append(b, `,"legalities":{"standard":`...)
		b = jsontext.AppendStrOrNull(b, s.Legalities.Standard)
		b = append(b, `,"expanded":`...)
		b = jsontext.AppendStrOrNull(b, s.Legalities.Expanded)
		b = append(b, `,"unlimited":`...)
		b = jsontext.AppendStrOrNull(b, s.Legalities.Unlimited)
		return append(b, "}}"...)
	case p.OnePiece != nil:
		s := p.OnePiece
		b = append(b, `{"life":`...)
		b = appendInt(b, s.Life)
		b = append(b, `,"cost":`...)
		b = appendInt(b, s.Cost)
		b = append(b, `,"power":`...)
		b = appendInt(b, s.Power)
		b = append(b, `,"counter":`...)
		b = appendInt(b, s.Counter)
		b = append(b, `,"attributes":`...)
		b = jsontext.AppendStrs(b, jsontext.NonNil(s.Attributes))
		b = append(b, `,"block":`...)
		b = appendInt(b, s.Block)
		return append(b, '}')
	}
	return append(b, "null"...)
}

func appendModifiers(b []byte, ms []snapshots.TypeModifier) []byte {
	b = append(b, '[')
	for i, m := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":`...)
		b = jsontext.AppendStr(b, m.Type)
		b = append(b, `,"value":`...)
		b = jsontext.AppendStrOrNull(b, m.Value)
		b = append(b, '}')
	}
	return append(b, ']')
}
