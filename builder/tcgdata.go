package builder

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cardedge/cardedge/snapshots"
)

// The pokemon-tcg-data catalog source: a local clone of
// github.com/PokemonTCG/pokemon-tcg-data (the data behind pokemontcg.io),
// read in its own layout, gives the English Pokémon cards their text:
// rules, ability and attack text, flavor text, the ancient trait, and
// evolvesTo. cardedge ships no card text (it is the publisher's): an
// operator who may use it builds with
// cardbuild build --catalog-source pokemon-tcg-data=DIR.

// TCGData is the card text of a pokemon-tcg-data clone, by card id
// (base1-4, the catalog's source_id of English cards).
type TCGData struct {
	Cards  map[string]*TCGDataCard
	Digest string // SHA-256 of the files read, in the order read
}

// TCGDataCard is the part of a card of pokemon-tcg-data's
// cards/en/<set>.json that cardedge takes.
type TCGDataCard struct {
	ID           string                  `json:"id"`
	Name         string                  `json:"name"`
	EvolvesTo    []string                `json:"evolvesTo"`
	Rules        []string                `json:"rules"`
	AncientTrait *snapshots.AncientTrait `json:"ancientTrait"`
	Abilities    []tcgDataText           `json:"abilities"`
	Attacks      []tcgDataText           `json:"attacks"`
	FlavorText   string                  `json:"flavorText"`
}

// tcgDataText is an ability or attack: its name and text.
type tcgDataText struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// ReadTCGData reads a pokemon-tcg-data clone in dir: sets/en.json (an
// array of sets; their ids name the card files) and cards/en/<id>.json
// for each set (an array of cards). Fields cardedge does not take are
// ignored, as its layout grows. Errors name the file: a missing or
// malformed file, a card without an id, a card id twice.
func ReadTCGData(dir string) (*TCGData, error) {
	h := sha256.New()
	read := func(rel string, v any) error {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("pokemon-tcg-data: %w", err)
		}
		h.Write([]byte(rel + "\n"))
		h.Write(b)
		dec := json.NewDecoder(bytes.NewReader(b))
		if err := dec.Decode(v); err != nil {
			return fmt.Errorf("pokemon-tcg-data: %s: %w", path, err)
		}
		return nil
	}
	var sets []struct {
		ID string `json:"id"`
	}
	if err := read("sets/en.json", &sets); err != nil {
		return nil, err
	}
	data := &TCGData{Cards: map[string]*TCGDataCard{}}
	for i, s := range sets {
		if s.ID == "" || strings.ContainsAny(s.ID, `/\`) || s.ID == "." || s.ID == ".." {
			return nil, fmt.Errorf("pokemon-tcg-data: %s: set %d: id %q is not a set id", filepath.Join(dir, "sets", "en.json"), i, s.ID)
		}
		var cards []*TCGDataCard
		rel := "cards/en/" + s.ID + ".json"
		if err := read(rel, &cards); err != nil {
			return nil, err
		}
		for j, c := range cards {
			if c == nil || c.ID == "" {
				return nil, fmt.Errorf("pokemon-tcg-data: %s: card %d: no id", filepath.Join(dir, filepath.FromSlash(rel)), j)
			}
			if data.Cards[c.ID] != nil {
				return nil, fmt.Errorf("pokemon-tcg-data: %s: card %q twice", filepath.Join(dir, filepath.FromSlash(rel)), c.ID)
			}
			data.Cards[c.ID] = c
		}
	}
	if len(data.Cards) == 0 {
		return nil, errors.New("pokemon-tcg-data: " + dir + ": no cards")
	}
	data.Digest = hex.EncodeToString(h.Sum(nil))
	return data, nil
}

// Join gives the English Pokémon cards of cards the text of the
// pokemon-tcg-data card of their source_id, and returns how many it
// joined. An ability's or attack's text goes to the one of the same name
// (at the same position first); one the clone does not name keeps no text
// (nil: unknown).
func (d *TCGData) Join(cards []*snapshots.Card) int {
	n := 0
	for _, c := range cards {
		p := c.Play.Pokemon
		if c.Game != "pokemon" || c.Language != "en" || p == nil {
			continue
		}
		src := d.Cards[c.SourceID]
		if src == nil {
			continue
		}
		n++
		p.EvolvesTo = nilIfEmpty(src.EvolvesTo)
		p.Rules = nilIfEmpty(src.Rules)
		p.AncientTrait = src.AncientTrait
		p.FlavorText = src.FlavorText
		for i := range p.Abilities {
			p.Abilities[i].Text = textOf(src.Abilities, i, p.Abilities[i].Name)
		}
		for i := range p.Attacks {
			p.Attacks[i].Text = textOf(src.Attacks, i, p.Attacks[i].Name)
		}
	}
	return n
}

// textOf returns the text of the ability or attack named name among src:
// the one at position i when its name is name, else the first of that
// name (case ignored); nil when there is none.
func textOf(src []tcgDataText, i int, name string) *string {
	if i < len(src) && strings.EqualFold(src[i].Name, name) {
		t := src[i].Text
		return &t
	}
	for _, x := range src {
		if strings.EqualFold(x.Name, name) {
			t := x.Text
			return &t
		}
	}
	return nil
}
