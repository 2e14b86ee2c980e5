package resolve

import (
	"context"
	"slices"
	"strings"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/snapshots"
)

// Understood is what a free-text reference was read as besides the card's
// words (snapshots.ReadWords, Words.CutSet): the grade, printing, art and
// set it names, and in Said each phrase with its reading, so that an answer
// can say what it understood.
type Understood struct {
	// Query is the words the index searched for the card.
	Query string `json:"query"`
	Grade string `json:"grade,omitempty"` // API form: "PSA 10" is slab:10
	// GradeName is Grade as people read it (snapshots.Grade.Name), and
	// GradeSaid the words it was read from ("psa10").
	GradeName string `json:"grade_name,omitempty"`
	GradeSaid string `json:"-"`
	Finish    string `json:"finish,omitempty"` // printing parts: 1st-edition, shadowless, reverse, unlimited
	Art       string `json:"art,omitempty"`    // alternate-art, full-art, special-illustration-rare ...
	// SetIDs are the sets whose name was said (their language editions),
	// SetName that name.
	SetIDs  []string `json:"set_ids,omitempty"`
	SetName string   `json:"set_name,omitempty"`
	// Said lists each phrase and how it was read ("psa 10: grade PSA 10").
	Said []string `json:"said"`
}

// artNames are the art kinds in words.
var artNames = map[string]string{
	snapshots.ArtAlternate: "alternate art", snapshots.ArtFull: "full art", snapshots.ArtSpecialIllustation: "special illustration rare",
	snapshots.ArtIllustration: "illustration rare", snapshots.ArtSecret: "secret rare", snapshots.ArtRainbow: "rainbow rare", snapshots.ArtHyper: "hyper rare",
}

// Read reads a free-text reference of game: its grade, printing and art
// words and a set name (snapshots.ReadWords and Words.CutSet over the
// game's sets). It returns nil when the reference says nothing but card
// words.
func Read(r snapshots.Reader, game, ref string) (*Understood, snapshots.Words) {
	w := snapshots.ReadWords(ref)
	if sets, err := r.Sets(game); err == nil {
		w.CutSet(snapshots.NewSetNames(sets))
	}
	if !w.HasGrade && w.Printing == "" && w.Art == "" && len(w.Sets) == 0 {
		return nil, w
	}
	u := &Understood{Query: w.Text, Said: []string{}}
	if w.HasGrade {
		u.Grade, u.GradeName, u.GradeSaid = w.Grade.String(), w.Grade.Name(), w.GradeSaid
		u.Said = append(u.Said, w.GradeSaid+": grade "+u.GradeName)
	}
	if w.Printing != "" {
		u.Finish = w.Printing
		u.Said = append(u.Said, w.PrintingSaid+": printing "+w.Printing)
	}
	if w.Art != "" {
		u.Art = w.Art
		u.Said = append(u.Said, w.ArtSaid+": "+artNames[w.Art])
	}
	if len(w.Sets) > 0 {
		u.SetName = w.Sets[0].Name
		ids := make([]string, len(w.Sets))
		for i, s := range w.Sets {
			ids[i] = s.ID
		}
		u.SetIDs = ids
		u.Said = append(u.Said, w.SetSaid+": set "+w.Sets[0].Name+" ("+strings.Join(ids, ", ")+")")
	}
	return u, w
}

// wordsLimit is how many matches a reference with printing, art or set
// words ranks before they narrow them.
const wordsLimit = 40

// searchWords ranks the cards of game matching the card words of a read
// reference, narrowed by what else it says: within its set (each edition
// in turn, English first, until one has matches), then to the cards of its
// art and of its printing when any match. Without a set, an art or a
// printing it is the index's ranking of the card words. limit bounds the
// hits returned.
func searchWords(ctx context.Context, src *live.View, game, language string, w snapshots.Words, limit int) ([]index.SearchHit, int, error) {
	q := w.Text
	narrow := w.Art != "" || w.Printing != ""
	n := limit
	if narrow {
		n = max(limit, wordsLimit)
	}
	sets := slices.Clone(w.Sets)
	slices.SortStableFunc(sets, func(a, b *snapshots.Set) int {
		switch {
		case a.Language == b.Language:
			return 0
		case a.Language == language || (language == "" && a.Language == "en"):
			return -1
		case b.Language == language || (language == "" && b.Language == "en"):
			return 1
		}
		return 0
	})
	var hits []index.SearchHit
	total := 0
	for _, s := range sets {
		sr, err := src.Index.Search(ctx, index.SearchRequest{Game: game, Q: q, SetID: s.ID, Language: language, Limit: n, MinPriceCents: -1, MaxPriceCents: -1})
		if err != nil {
			return nil, 0, err
		}
		if len(sr.Hits) > 0 {
			hits, total = sr.Hits, sr.Total
			break
		}
	}
	if hits == nil {
		sr, err := src.Index.Search(ctx, index.SearchRequest{Game: game, Q: q, Language: language, Limit: n, MinPriceCents: -1, MaxPriceCents: -1})
		if err != nil {
			return nil, 0, err
		}
		hits, total = sr.Hits, sr.Total
	}
	if w.Art != "" {
		if kept := keepHits(src.Reader, game, hits, artFilter(src.Reader, game, w.Art)); len(kept) > 0 {
			hits, total = kept, len(kept)
		}
	}
	if w.Printing != "" {
		if kept := keepHits(src.Reader, game, hits, func(c *snapshots.Card) bool { return hasPrinting(c, w.Printing) }); len(kept) > 0 {
			hits, total = kept, len(kept)
		}
	}
	return hits[:min(len(hits), limit)], total, nil
}

func keepHits(r snapshots.Reader, game string, hits []index.SearchHit, keep func(*snapshots.Card) bool) []index.SearchHit {
	var out []index.SearchHit
	for _, h := range hits {
		if c, err := r.Card(game, h.CardID); err == nil && keep(c) {
			out = append(out, h)
		}
	}
	return out
}

// artFilter selects the cards of an art kind: alternate arts by the
// catalog's rule (snapshots.AlternateArts over each card's set, or a
// variant named alternate-art), full arts the ultra rares that are not
// alternate arts, the others by rarity.
func artFilter(r snapshots.Reader, game, art string) func(*snapshots.Card) bool {
	altBySet := map[string]map[string]bool{}
	alt := func(c *snapshots.Card) bool {
		if snapshots.HasVariantPart(c.Variants, snapshots.ArtAlternate) {
			return true
		}
		m, ok := altBySet[c.SetID]
		if !ok {
			var sets []*snapshots.Set
			if s, err := r.Set(game, c.SetID); err == nil {
				sets = append(sets, s)
			}
			cards, _ := r.SetCards(game, c.SetID)
			m = snapshots.AlternateArts(cards, sets)
			altBySet[c.SetID] = m
		}
		return m[c.Game+"|"+c.ID]
	}
	rarities := snapshots.ArtRarities(art)
	return func(c *snapshots.Card) bool {
		switch art {
		case snapshots.ArtAlternate:
			return alt(c)
		case snapshots.ArtFull:
			return slices.Contains(rarities, c.Rarity) && !alt(c)
		}
		return slices.ContainsFunc(rarities, func(x string) bool { return strings.EqualFold(x, c.Rarity) })
	}
}

// hasPrinting reports whether card c has a variant with every part of
// printing ("1st-edition/shadowless").
func hasPrinting(c *snapshots.Card, printing string) bool {
	for _, v := range c.Variants {
		parts := strings.Split(strings.ToLower(strings.ReplaceAll(v, " ", "-")), "/")
		ok := true
		for _, p := range strings.Split(printing, "/") {
			if !slices.Contains(parts, p) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
