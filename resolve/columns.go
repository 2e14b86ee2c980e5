package resolve

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/snapshots"
)

// How a reference given as fields was resolved (Match.By), besides ByCardID
// and ByPartnerID.
const (
	BySetNumber = "set_number"
	BySetName   = "set_name"
	ByName      = "name"
)

// Fields is a reference given as separate fields, as a collection upload's
// row has them. Empty fields are not given.
type Fields struct {
	CardID   string // a card id or a partner product id (ByID)
	Name     string
	Set      string // a set id, source id, name, abbreviation or "<name> set"
	Number   string // a collector number ("4", "004/102")
	Language string // a language code (en, ja, zh-cn, zh-tw)
}

// Match is the outcome of resolving Fields.
type Match struct {
	Status string // Resolved, Ambiguous or NotFound
	Card   *snapshots.Card
	By     string // ByCardID, ByPartnerID, BySetNumber, BySetName or ByName
	// Candidates are an ambiguous reference's cards, best first, at most
	// MaxCandidates: by search relevance when the name matched no card
	// exactly, else by 30-day volume, then catalog order.
	Candidates []*snapshots.Card
	Reason     string   // why a reference is ambiguous or not found
	Warnings   []string // fields that disagree with the card found
}

// Columns resolves Fields against one game of a snapshot. Making one reads
// the game's cards and sets once; Resolve is then cheap per reference.
type Columns struct {
	src    *live.View
	game   string
	byName map[string][]*snapshots.Card // index.FoldKey(name) -> cards, catalog order
	sets   map[string][]*snapshots.Set  // folded id, source id, name, abbreviation -> sets
}

// NewColumns prepares the resolution of Fields in game.
func NewColumns(src *live.View, game string) (*Columns, error) {
	r := src.Reader
	cards, err := r.Cards(game)
	if err != nil {
		return nil, err
	}
	sets, err := r.Sets(game)
	if err != nil {
		return nil, err
	}
	cs := &Columns{src: src, game: game, byName: make(map[string][]*snapshots.Card, len(cards)), sets: map[string][]*snapshots.Set{}}
	for _, c := range cards {
		k := index.FoldKey(c.Name)
		cs.byName[k] = append(cs.byName[k], c)
	}
	for _, s := range sets {
		keys := []string{index.FoldKey(s.ID), index.FoldKey(s.SourceID), index.FoldKey(s.Name), index.FoldKey(s.Abbreviation)}
		if !strings.HasSuffix(keys[2], " set") {
			keys = append(keys, keys[2]+" set")
		}
		seen := map[string]bool{}
		for _, k := range keys {
			if k != "" && !seen[k] {
				seen[k] = true
				cs.sets[k] = append(cs.sets[k], s)
			}
		}
	}
	return cs, nil
}

// Resolve resolves f: by its id (ByID) when it has one that names a card,
// else by set and number, else by exact name (within the set and language
// when given), else the index's closest cards are its candidates. Fields
// that disagree with the card found are warnings. ctx bounds the index
// search.
func (cs *Columns) Resolve(ctx context.Context, f Fields) Match {
	var notes []string
	if f.CardID != "" {
		if c, by, err := ByID(cs.src.Reader, cs.game, f.CardID); err == nil {
			m := Match{Status: Resolved, Card: c, By: by}
			if f.Name != "" && index.FoldKey(f.Name) != index.FoldKey(c.Name) {
				m.Warnings = append(m.Warnings, fmt.Sprintf("the row's name %q differs from the card's %q", f.Name, c.Name))
			}
			return m
		}
		if f.Name == "" && (f.Set == "" || f.Number == "") {
			return Match{Status: NotFound, Reason: fmt.Sprintf("no card with id %q in %s", f.CardID, cs.game)}
		}
		notes = append(notes, fmt.Sprintf("no card with id %q; matched on the other columns", f.CardID))
	}
	m := cs.byFields(ctx, f)
	m.Warnings = append(notes, m.Warnings...)
	if m.Status == Ambiguous {
		m.Candidates = rankCandidates(m.Candidates, m.By == ByText)
		m.By = ""
	}
	return m
}

func (cs *Columns) setsOf(name, language string) []*snapshots.Set {
	var out []*snapshots.Set
	for _, s := range cs.sets[index.FoldKey(name)] {
		if language == "" || s.Language == language {
			out = append(out, s)
		}
	}
	return out
}

func filterLang(cards []*snapshots.Card, language string) []*snapshots.Card {
	if language == "" {
		return cards
	}
	var out []*snapshots.Card
	for _, c := range cards {
		if c.Language == language {
			out = append(out, c)
		}
	}
	return out
}

// byFields resolves f without its id. An ambiguous match from the index has
// By ByText (its candidates are in relevance order).
func (cs *Columns) byFields(ctx context.Context, f Fields) Match {
	name, set, number, language := f.Name, f.Set, f.Number, f.Language
	var sets []*snapshots.Set
	if set != "" {
		sets = cs.setsOf(set, language)
		if len(sets) == 0 && name == "" {
			return Match{Status: NotFound, Reason: fmt.Sprintf("unknown set %q in %s (give the set id, e.g. en:base1, its code or its name)", set, cs.game)}
		}
	}
	if len(sets) > 0 && number != "" {
		want := NormalizeNumber(number)
		var hits []*snapshots.Card
		for _, s := range sets {
			cards, err := cs.src.Reader.SetCards(cs.game, s.ID)
			if err != nil {
				continue
			}
			for _, c := range cards {
				if NormalizeNumber(c.Number) == want {
					hits = append(hits, c)
				}
			}
		}
		if name != "" && len(hits) > 1 {
			var named []*snapshots.Card
			for _, c := range hits {
				if index.FoldKey(c.Name) == index.FoldKey(name) {
					named = append(named, c)
				}
			}
			if len(named) > 0 {
				hits = named
			}
		}
		switch len(hits) {
		case 0:
			if name == "" {
				return Match{Status: NotFound, Reason: fmt.Sprintf("set %s has no card number %q", setIDs(sets), number)}
			}
		case 1:
			m := Match{Status: Resolved, Card: hits[0], By: BySetNumber}
			if name != "" && index.FoldKey(name) != index.FoldKey(hits[0].Name) {
				m.Warnings = append(m.Warnings, fmt.Sprintf("the row's name %q differs from the card's %q", name, hits[0].Name))
			}
			return m
		default:
			return Match{Status: Ambiguous, Candidates: hits, Reason: fmt.Sprintf("number %q is in %d sets matching %q; add language or the set id", number, len(hits), set)}
		}
	}
	if name == "" {
		return Match{Status: NotFound, Reason: "no card matches the row"}
	}
	exact := filterLang(cs.byName[index.FoldKey(name)], language)
	if len(sets) > 0 {
		var inSet []*snapshots.Card
		for _, c := range exact {
			for _, s := range sets {
				if strings.EqualFold(c.SetID, s.ID) {
					inSet = append(inSet, c)
				}
			}
		}
		exact = inSet
	}
	if number != "" && len(exact) > 1 {
		var numbered []*snapshots.Card
		for _, c := range exact {
			if NormalizeNumber(c.Number) == NormalizeNumber(number) {
				numbered = append(numbered, c)
			}
		}
		if len(numbered) > 0 {
			exact = numbered
		}
	}
	switch len(exact) {
	case 1:
		by := ByName
		if len(sets) > 0 {
			by = BySetName
		}
		return Match{Status: Resolved, Card: exact[0], By: by}
	case 0:
	default:
		return Match{Status: Ambiguous, Candidates: exact,
			Reason: fmt.Sprintf("%d cards are named %q; add set and number (or card_id) to pick one", len(exact), name)}
	}
	// No exact name: the index's closest cards.
	req := index.SearchRequest{Game: cs.game, Q: name, Language: language, Limit: MaxCandidates, MinPriceCents: -1, MaxPriceCents: -1}
	if len(sets) == 1 {
		req.SetID = sets[0].ID
	} else if set != "" && len(sets) == 0 {
		req.Q = name + " " + set
	}
	found, err := cs.src.Index.Search(ctx, req)
	var hits []*snapshots.Card
	if err == nil {
		for _, h := range found.Hits {
			if c, err := cs.src.Reader.Card(cs.game, h.CardID); err == nil {
				hits = append(hits, c)
			}
		}
	}
	where := ""
	if set != "" {
		where = fmt.Sprintf(" in set %q", set)
	}
	if len(hits) == 0 {
		return Match{Status: NotFound, Reason: fmt.Sprintf("no card named %q%s in %s", name, where, cs.game)}
	}
	return Match{Status: Ambiguous, Candidates: hits, By: ByText, Reason: fmt.Sprintf("no card is named exactly %q%s; the closest are listed", name, where)}
}

func setIDs(sets []*snapshots.Set) string {
	ids := make([]string, len(sets))
	for i, s := range sets {
		ids[i] = s.ID
	}
	return strings.Join(ids, ", ")
}

// rankCandidates keeps the first MaxCandidates cards: in the order given
// when byRelevance (the index ranked them), else by 30-day volume, then
// catalog order.
func rankCandidates(cards []*snapshots.Card, byRelevance bool) []*snapshots.Card {
	out := append([]*snapshots.Card{}, cards...)
	if !byRelevance {
		sort.SliceStable(out, func(i, j int) bool {
			if out[i].Volume30dCents != out[j].Volume30dCents {
				return out[i].Volume30dCents > out[j].Volume30dCents
			}
			return out[i].Ordinal < out[j].Ordinal
		})
	}
	return out[:min(len(out), MaxCandidates)]
}
