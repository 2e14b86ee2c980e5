package pokemontcg

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/snapshots"
)

// Game and Language are the cards /v2 serves: English Pokémon cards.
const (
	Game     = "pokemon"
	Language = "en"
)

// Options configure a Catalog.
type Options struct {
	// ImageURL is the template of image URLs: {set} is replaced by the set
	// id, {image} by the image's name ("4", "4_hires", "symbol", "logo"),
	// each escaped as a path segment. "" is DefaultImageURL
	// (pokemontcg.io's own images); an operator may point it at a mirror.
	ImageURL string
	// AsOf is the snapshot's day: the sets' updatedAt (its midnight).
	AsOf snapshots.Day
}

// Catalog is the /v2 view of a snapshot's catalog: its English Pokémon
// sets and cards as pokemontcg.io's objects, the lists of types,
// subtypes, supertypes and rarities, and the sort orders of orderBy
// (computed on first use). It is immutable and safe for concurrent use;
// build one per snapshot.
type Catalog struct {
	imageTmpl  string
	imageParts []string // imageTmpl split at its placeholders
	updatedAt  string

	sets     []*Set                     // catalog order
	setByID  map[string]*Set            // lower-case /v2 set id
	setOf    map[string]*Set            // snapshot set id
	cards    []*snapshots.Card          // English Pokémon cards, catalog order
	cardByID map[string]*snapshots.Card // lower-case /v2 card id
	byOrd    []*snapshots.Card          // the cards by ordinal (nil: not a /v2 card)
	maxOrd   uint32                     // largest ordinal of cards, plus one
	// prices and encoded are each card's price objects and its object
	// encoded whole (select all), by ordinal, filled by Load (nil: none,
	// or a catalog made by NewCatalog alone).
	prices    []*cardPrices
	encoded   [][]byte
	lists     map[string][]string // types, subtypes, supertypes, rarities
	sortMu    sync.Mutex
	sortRanks map[string]*ranks // by orderBy field
}

// NewCatalog returns the /v2 catalog of a snapshot's sets and cards (of
// any game and language: it keeps the English Pokémon ones). Cards must
// carry their Ordinal; sets are listed in the order given. Errors: a bad
// image URL template, two cards or sets with one /v2 id.
func NewCatalog(sets []*snapshots.Set, cards []*snapshots.Card, opts Options) (*Catalog, error) {
	tmpl := opts.ImageURL
	if tmpl == "" {
		tmpl = DefaultImageURL
	}
	if !strings.Contains(tmpl, "{image}") {
		return nil, fmt.Errorf("pokemontcg: image URL template %q has no {image}", tmpl)
	}
	cat := &Catalog{
		imageTmpl: tmpl, imageParts: templateParts(tmpl), updatedAt: opts.AsOf.Time().Format("2006/01/02 15:04:05"),
		setByID: map[string]*Set{}, setOf: map[string]*Set{}, cardByID: map[string]*snapshots.Card{},
		sortRanks: map[string]*ranks{},
	}
	setCards := map[string][]*snapshots.Card{}
	for _, c := range cards {
		if c.Game != Game || c.Language != Language {
			continue
		}
		k := strings.ToLower(c.SourceID)
		if cat.cardByID[k] != nil {
			return nil, fmt.Errorf("pokemontcg: two cards have id %q", c.SourceID)
		}
		cat.cardByID[k] = c
		cat.cards = append(cat.cards, c)
		cat.maxOrd = max(cat.maxOrd, c.Ordinal+1)
		setCards[c.SetID] = append(setCards[c.SetID], c)
	}
	for _, s := range sets {
		if s.Game != Game || s.Language != Language {
			continue
		}
		k := strings.ToLower(s.SourceID)
		if cat.setByID[k] != nil {
			return nil, fmt.Errorf("pokemontcg: two sets have id %q", s.SourceID)
		}
		v := cat.newSet(s, setCards[s.ID])
		cat.sets = append(cat.sets, v)
		cat.setByID[k] = v
		cat.setOf[s.ID] = v
	}
	kept := cat.cards[:0]
	for _, c := range cat.cards {
		if cat.setOf[c.SetID] != nil { // a card of an unknown set has no set object
			kept = append(kept, c)
		} else {
			delete(cat.cardByID, strings.ToLower(c.SourceID))
		}
	}
	cat.cards = kept
	cat.byOrd = make([]*snapshots.Card, cat.maxOrd)
	for _, c := range cat.cards {
		cat.byOrd[c.Ordinal] = c
	}
	cat.lists = map[string][]string{}
	for _, c := range cat.cards {
		add := func(list string, v ...string) { cat.lists[list] = append(cat.lists[list], v...) }
		if p := c.Play.Pokemon; p != nil {
			add("types", p.Types...)
		}
		add("subtypes", c.Subtypes...)
		add("supertypes", c.Supertype)
		add("rarities", c.Rarity)
	}
	for k, v := range cat.lists {
		v = slices.DeleteFunc(v, func(s string) bool { return s == "" })
		slices.Sort(v)
		cat.lists[k] = slices.Compact(v)
	}
	return cat, nil
}

// Cards returns the English Pokémon cards, in catalog order. The slice is
// the catalog's: do not modify it.
func (cat *Catalog) Cards() []*snapshots.Card { return cat.cards }

// Sets returns the sets, in catalog order. The slice and sets are the
// catalog's: do not modify them.
func (cat *Catalog) Sets() []*Set { return cat.sets }

// CardByID returns the card of a /v2 id (base1-4; case ignored); ok is
// false for an id that is not an English Pokémon card.
func (cat *Catalog) CardByID(id string) (c *snapshots.Card, ok bool) {
	c = cat.cardByID[strings.ToLower(id)]
	return c, c != nil
}

// SetByID returns the set of a /v2 id (base1; case ignored).
func (cat *Catalog) SetByID(id string) (s *Set, ok bool) {
	s = cat.setByID[strings.ToLower(id)]
	return s, s != nil
}

// Card returns the /v2 card object of c, a card of Cards (nil for another
// card). It is built on each call (the caller caches encoded bodies).
func (cat *Catalog) Card(c *snapshots.Card) *Card {
	s := cat.setOf[c.SetID]
	if s == nil || c.Game != Game || c.Language != Language {
		return nil
	}
	return cat.newCard(c, s)
}

// Types, Subtypes, Supertypes and Rarities are the values of the
// catalog's cards, sorted (GET /v2/types ...).
func (cat *Catalog) Types() []string      { return cat.lists["types"] }
func (cat *Catalog) Subtypes() []string   { return cat.lists["subtypes"] }
func (cat *Catalog) Supertypes() []string { return cat.lists["supertypes"] }
func (cat *Catalog) Rarities() []string   { return cat.lists["rarities"] }

// CardQuery is the tree that selects q's cards among the index's Pokémon
// cards: q (parsed with syntax.Cards) on the English ones only.
func CardQuery(q *syntax.Query) *syntax.Node {
	lang := &syntax.Node{Kind: syntax.NodeTerm, Term: syntax.Term{Field: syntax.FieldLang, Value: Language}}
	switch {
	case q == nil || q.Root == nil:
		return lang
	case q.Root.Kind == syntax.NodeAnd: // an "and" has no "and" child
		return &syntax.Node{Kind: syntax.NodeAnd, Nodes: append([]*syntax.Node{lang}, q.Root.Nodes...)}
	}
	return &syntax.Node{Kind: syntax.NodeAnd, Nodes: []*syntax.Node{lang, q.Root}}
}
