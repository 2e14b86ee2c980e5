package source

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/cardedge/cardedge/snapshots"
)

// Catalog indexes the catalog's cards and sets for the sources' matching.
// It is read-only once built and safe for concurrent use.
type Catalog struct {
	Cards []*snapshots.Card
	Sets  []*snapshots.Set

	byProduct map[string]map[int64][]*snapshots.Card // market -> id -> cards, catalog order
	byNumber  map[string][]*snapshots.Card           // game|set id|number -> cards
	setByID   map[string]*snapshots.Set              // game|lower(id)
	setByName map[string][]*snapshots.Set            // game|language|FoldName(name) -> sets
	setByCode map[string][]*snapshots.Set            // game|language|FoldName(code) -> sets
	byName    map[string][]*snapshots.Card           // game|FoldName(name) -> cards
	byLangNum map[string][]*snapshots.Card           // game|language|number -> cards
	index     map[*snapshots.Card]int                // card -> its position in Cards

	fingerprint struct {
		once sync.Once
		sum  string
		err  error
	}
}

// NewCatalog indexes cards and sets (every game, catalog order).
func NewCatalog(cards []*snapshots.Card, sets []*snapshots.Set) *Catalog {
	c := &Catalog{Cards: cards, Sets: sets,
		byProduct: map[string]map[int64][]*snapshots.Card{snapshots.MarketIDCardmarket: {}, snapshots.MarketIDTCGplayer: {}},
		byNumber:  map[string][]*snapshots.Card{}, setByID: map[string]*snapshots.Set{},
		setByName: map[string][]*snapshots.Set{}, setByCode: map[string][]*snapshots.Set{},
		byName: map[string][]*snapshots.Card{}, byLangNum: map[string][]*snapshots.Card{},
		index: make(map[*snapshots.Card]int, len(cards)),
	}
	for _, s := range sets {
		c.setByID[s.Game+"|"+strings.ToLower(s.ID)] = s
		k := s.Game + "|" + s.Language + "|"
		if n := FoldName(s.Name); n != "" {
			c.setByName[k+n] = append(c.setByName[k+n], s)
		}
		for _, code := range []string{s.Abbreviation, s.SourceID} {
			if n := FoldName(code); n != "" && !containsSet(c.setByCode[k+n], s) {
				c.setByCode[k+n] = append(c.setByCode[k+n], s)
			}
		}
	}
	for i, card := range cards {
		c.index[card] = i
		for _, m := range card.MarketIDs {
			for market, id := range map[string]int64{snapshots.MarketIDCardmarket: m.Cardmarket, snapshots.MarketIDTCGplayer: m.TCGplayer} {
				if id == 0 {
					continue
				}
				if list := c.byProduct[market][id]; len(list) == 0 || list[len(list)-1] != card {
					c.byProduct[market][id] = append(list, card)
				}
			}
		}
		k := card.Game + "|" + strings.ToLower(card.SetID) + "|" + NormalizeNumber(card.Number)
		c.byNumber[k] = append(c.byNumber[k], card)
		nk := card.Game + "|" + FoldName(card.Name)
		c.byName[nk] = append(c.byName[nk], card)
		lk := card.Game + "|" + card.Language + "|" + NormalizeNumber(card.Number)
		c.byLangNum[lk] = append(c.byLangNum[lk], card)
	}
	return c
}

func containsSet(list []*snapshots.Set, s *snapshots.Set) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ByProduct returns the cards whose market_ids name product id at
// marketplace market (snapshots.MarketIDCardmarket or MarketIDTCGplayer),
// in catalog order: usually one; cards of two languages share the ids of
// one printing (the catalog gives Traditional Chinese cards those of their
// Japanese printing).
func (c *Catalog) ByProduct(market string, id int64) []*snapshots.Card {
	return c.byProduct[market][id]
}

// ByNumber returns the cards of set setID of game with collector number n
// (compared as NormalizeNumber compares them).
func (c *Catalog) ByNumber(game, setID, n string) []*snapshots.Card {
	return c.byNumber[game+"|"+strings.ToLower(setID)+"|"+NormalizeNumber(n)]
}

// ByLanguageNumber returns the cards of game in language with collector
// number n in any set (One Piece numbers name their set: OP01-001).
func (c *Catalog) ByLanguageNumber(game, language, n string) []*snapshots.Card {
	return c.byLangNum[game+"|"+language+"|"+NormalizeNumber(n)]
}

// ByName returns the cards of game whose name folds (FoldName) to name's.
func (c *Catalog) ByName(game, name string) []*snapshots.Card {
	return c.byName[game+"|"+FoldName(name)]
}

// Set returns a set by id (nil when none).
func (c *Catalog) Set(game, id string) *snapshots.Set {
	return c.setByID[game+"|"+strings.ToLower(id)]
}

// SetsByName returns the sets of game in language whose name folds to
// name's.
func (c *Catalog) SetsByName(game, language, name string) []*snapshots.Set {
	return c.setByName[game+"|"+language+"|"+FoldName(name)]
}

// SetsByCode returns the sets of game in language whose abbreviation or
// source id folds to code's.
func (c *Catalog) SetsByCode(game, language, code string) []*snapshots.Set {
	return c.setByCode[game+"|"+language+"|"+FoldName(code)]
}

// Index returns the position of card in Cards (ok false for a card of
// another catalog).
func (c *Catalog) Index(card *snapshots.Card) (int, bool) {
	i, ok := c.index[card]
	return i, ok
}

// Fingerprint is the SHA-256 (hex) of the catalog as the sources map onto
// it: every card and set, in order, as JSON. Two catalogs with the same
// fingerprint map a day to the same observations (with the same MapVersion);
// a mapped day kept for one catalog is refused for another. It is computed
// once.
func (c *Catalog) Fingerprint() (string, error) {
	f := &c.fingerprint
	f.once.Do(func() {
		h := sha256.New()
		enc := json.NewEncoder(h)
		fmt.Fprintf(h, "cards %d\n", len(c.Cards))
		for _, card := range c.Cards {
			if f.err = enc.Encode(card); f.err != nil {
				return
			}
		}
		fmt.Fprintf(h, "sets %d\n", len(c.Sets))
		for _, s := range c.Sets {
			if f.err = enc.Encode(s); f.err != nil {
				return
			}
		}
		f.sum = hex.EncodeToString(h.Sum(nil))
	})
	return f.sum, f.err
}

// NormalizeNumber is a collector number as the sources' numbers are
// compared with the catalog's: trimmed, lowercased, without a "/total" part
// or leading zeros ("004/102" -> "4"), as resolve compares numbers.
func NormalizeNumber(n string) string {
	n, _, _ = strings.Cut(strings.TrimSpace(n), "/")
	n = strings.TrimPrefix(strings.TrimSpace(n), "#")
	return strings.TrimLeft(strings.ToLower(n), "0")
}

// foldMarks drops combining marks after decomposition: "Pokémon" folds to
// "Pokemon".
var foldMarks = runes.Remove(runes.In(unicode.Mn))

// FoldName is a name as names are compared: lowercased, accents dropped,
// letters and digits kept as words separated by one space ("Pokémon
// Card 151" -> "pokemon card 151", "HS—Unleashed" -> "hs unleashed").
func FoldName(s string) string {
	if s == "" {
		return ""
	}
	t, _, err := transform.String(transform.Chain(norm.NFD, foldMarks, norm.NFC), s)
	if err == nil {
		s = t
	}
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '&'
	}), " ")
}
