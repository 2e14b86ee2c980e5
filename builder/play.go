package builder

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cardedge/cardedge/snapshots"
)

// The "play" object of a cards.jsonl row (see builder/catalog/README.md):
// its fields depend on the row's game, and are decoded as strictly as the
// row (an unknown field, or a field of the other game, is an error).

type pokemonPlayRow struct {
	HP          *int      `json:"hp"`
	Types       []string  `json:"types"`
	EvolvesFrom *string   `json:"evolves_from"`
	Level       *string   `json:"level"`
	Abilities   []nameRow `json:"abilities"`
	Attacks     []struct {
		Name   *string  `json:"name"`
		Cost   []string `json:"cost"`
		Damage *string  `json:"damage"`
	} `json:"attacks"`
	Weaknesses     []modifierRow     `json:"weaknesses"`
	Resistances    []modifierRow     `json:"resistances"`
	Retreat        *int              `json:"retreat"`
	Artist         *string           `json:"artist"`
	RegulationMark *string           `json:"regulation_mark"`
	Legalities     map[string]string `json:"legalities"`
}

type nameRow struct {
	Name *string `json:"name"`
	Type *string `json:"type"`
}

type modifierRow struct {
	Type  string  `json:"type"`
	Value *string `json:"value"`
}

type onePiecePlayRow struct {
	Life       *int     `json:"life"`
	Cost       *int     `json:"cost"`
	Power      *int     `json:"power"`
	Counter    *int     `json:"counter"`
	Attributes []string `json:"attributes"`
	Block      *int     `json:"block"`
}

// decodePlay decodes the play object of a card of game; null or absent
// (raw empty) gives the zero Play. Errors are *FeedError with the field
// as "play.<name>".
func decodePlay(game string, raw json.RawMessage) (snapshots.Play, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return snapshots.Play{}, nil
	}
	switch game {
	case "pokemon":
		var r pokemonPlayRow
		if err := decodeRow(raw, &r); err != nil {
			return snapshots.Play{}, playErr(err)
		}
		p, err := r.play()
		if err != nil {
			return snapshots.Play{}, playErr(err)
		}
		return snapshots.Play{Pokemon: p}, nil
	case "onepiece":
		var r onePiecePlayRow
		if err := decodeRow(raw, &r); err != nil {
			return snapshots.Play{}, playErr(err)
		}
		p, err := r.play()
		if err != nil {
			return snapshots.Play{}, playErr(err)
		}
		return snapshots.Play{OnePiece: p}, nil
	}
	return snapshots.Play{}, &FeedError{Field: "play", Err: fmt.Errorf("no play fields known for game %q", game)}
}

// playErr prefixes the field of a *FeedError with "play.".
func playErr(err error) error {
	var fe *FeedError
	if errors.As(err, &fe) {
		if fe.Field == "" {
			fe.Field = "play"
		} else {
			fe.Field = "play." + fe.Field
		}
		return fe
	}
	return &FeedError{Field: "play", Err: err}
}

func (r *pokemonPlayRow) play() (*snapshots.PokemonPlay, error) {
	for _, f := range []struct {
		name string
		v    *int
	}{{"hp", r.HP}, {"retreat", r.Retreat}} {
		if f.v != nil && *f.v < 0 {
			return nil, &FeedError{Field: f.name, Err: errors.New("must be >= 0")}
		}
	}
	p := &snapshots.PokemonPlay{
		HP: r.HP, Types: nilIfEmpty(r.Types), EvolvesFrom: deref(r.EvolvesFrom), Level: deref(r.Level),
		Retreat: r.Retreat, Artist: deref(r.Artist), RegulationMark: deref(r.RegulationMark),
	}
	// A few Asian rows have an ability or attack without a name (null): it
	// is kept, its other facts being printed.
	for _, a := range r.Abilities {
		p.Abilities = append(p.Abilities, snapshots.Ability{Name: deref(a.Name), Type: deref(a.Type)})
	}
	for _, a := range r.Attacks {
		p.Attacks = append(p.Attacks, snapshots.Attack{Name: deref(a.Name), Cost: nilIfEmpty(a.Cost), Damage: deref(a.Damage)})
	}
	for _, m := range r.Weaknesses {
		p.Weaknesses = append(p.Weaknesses, snapshots.TypeModifier{Type: m.Type, Value: deref(m.Value)})
	}
	for _, m := range r.Resistances {
		p.Resistances = append(p.Resistances, snapshots.TypeModifier{Type: m.Type, Value: deref(m.Value)})
	}
	for format, v := range r.Legalities {
		switch v {
		case snapshots.LegalityLegal, snapshots.LegalityBanned, snapshots.LegalityNotLegal:
		default:
			return nil, &FeedError{Field: "legalities." + format, Err: fmt.Errorf("%q is not legal, banned or not_legal", v)}
		}
		switch format {
		case "standard":
			p.Legalities.Standard = v
		case "expanded":
			p.Legalities.Expanded = v
		case "unlimited":
			p.Legalities.Unlimited = v
		default:
			return nil, &FeedError{Field: "legalities." + format, Err: errors.New("unknown format (standard, expanded, unlimited)")}
		}
	}
	return p, nil
}

func (r *onePiecePlayRow) play() (*snapshots.OnePiecePlay, error) {
	for _, f := range []struct {
		name string
		v    *int
	}{{"life", r.Life}, {"cost", r.Cost}, {"power", r.Power}, {"counter", r.Counter}, {"block", r.Block}} {
		if f.v != nil && *f.v < 0 {
			return nil, &FeedError{Field: f.name, Err: errors.New("must be >= 0")}
		}
	}
	return &snapshots.OnePiecePlay{
		Life: r.Life, Cost: r.Cost, Power: r.Power, Counter: r.Counter, Attributes: nilIfEmpty(r.Attributes), Block: r.Block,
	}, nil
}

// nilIfEmpty returns nil for an empty list, so that a decoded card equals
// the card the snapshot stores (empty lists are omitted there).
func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}
