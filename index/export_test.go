package index

import (
	"context"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"slices"
	"sort"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/cardedge/cardedge/snapshots"
)

// Hooks for the external tests (package index_test).

var (
	NormalizeText    = normalizeText
	NormalizeID      = normalizeID
	NormKeyword      = normKeyword
	NumberForms      = numberForms
	NumberQueryForms = numberQueryForms
)

// Romaji returns the short and long romaji of a name ("" when it has none).
func Romaji(name string) (short, long string) {
	s, l, _, _ := romaji(normalizeText(name))
	return s, l
}

// Pinyin returns the spaced and joined pinyin of a name.
func Pinyin(name string) (spaced, joined string) {
	s, j, _ := pinyinOf(normalizeText(name))
	return s, j
}

// Analyze runs the index ("text") or query ("query") analyzer on s.
func Analyze(which, s string) []string {
	analyzeOnce.Do(func() {
		m, err := newMapping()
		if err != nil {
			panic(err)
		}
		analyzers = [2]analysis.Analyzer{m.AnalyzerNamed(textAnalyzer), m.AnalyzerNamed(queryAnalyzer)}
	})
	a := analyzers[0]
	if which == "query" {
		a = analyzers[1]
	}
	var out []string
	for _, t := range a.Analyze([]byte(s)) {
		out = append(out, string(t.Term))
	}
	return out
}

var (
	analyzeOnce sync.Once
	analyzers   [2]analysis.Analyzer
)

// Typeahead is a typeahead table built without Bleve, for large-scale
// latency tests. It goes through encode and decode like the real file.
type Typeahead struct{ t *table }

func BuildTypeahead(sets []*snapshots.Set, cards []*snapshots.Card) (*Typeahead, int, error) {
	in, err := prepare(sets, cards)
	if err != nil {
		return nil, 0, err
	}
	b := buildTable(in.entities(), len(in.cards), in.games).encode()
	t, err := decodeTable(b)
	if err != nil {
		return nil, 0, err
	}
	return &Typeahead{t}, len(b), nil
}

func (ta *Typeahead) Lookup(game, q, language string, limit int) []Suggestion {
	return ta.t.lookup(game, q, language, limit)
}

func (ta *Typeahead) BruteLookup(game, q, language string, limit int) []Suggestion {
	return ta.t.bruteLookup(game, q, language, limit)
}

// BruteLookup answers like Lookup by ranking every posting of every key with
// the prefix: the reference the hot-prefix lists are checked against.
func (ix *Index) BruteLookup(game, q, language string, limit int) []Suggestion {
	return ix.t.bruteLookup(game, q, language, limit)
}

// HotPrefixes returns the number of precomputed prefixes of a game.
func (ix *Index) HotPrefixes(game string) int {
	return len(ix.t.games[ix.t.gameIdx[game]].hotOff) - 1
}

func (t *table) bruteLookup(game, q, language string, limit int) []Suggestion {
	l, ok := t.readLookup(game, q, language, limit)
	if !ok {
		return nil
	}
	g, scope, limit, tn, in := l.g, l.scope, l.limit, l.text, l.id
	var res []Suggestion
	seen := map[uint32]bool{}
	for i := range g.exactEnt {
		e := g.exactEnt[i]
		if g.exKey(i) == in && (scope == 0 || int(t.lang[e]) == scope) && len(res) < limit {
			s := t.suggestion(e, float64(t.score[e])*exactKeyBoost, in)
			s.Exact = true
			res = append(res, s)
			seen[e] = true
		}
	}
	best := map[uint32]cand{}
	for _, p := range uniqStrings(tn, in) {
		// every key with the prefix (sorted, so one range), every posting
		lo := sort.Search(g.nKeys(), func(i int) bool { return g.key(i) >= p })
		for k := lo; k < g.nKeys() && strings.HasPrefix(g.key(k), p); k++ {
			key := g.key(k)
			boost := float32(1)
			if key == p {
				boost = exactKeyBoost
			}
			for post := g.postOff[k]; post < g.postOff[k+1]; post++ {
				e := g.postEnt[post]
				if scope != 0 && int(t.lang[e]) != scope {
					continue
				}
				c := cand{ent: e, post: post, score: g.postScore[post] * boost}
				if b, ok := best[e]; !ok || t.compare(c.score, c.ent, b.score, b.ent) < 0 || c.score == b.score && c.post < b.post {
					best[e] = c
				}
			}
		}
	}
	var cands []cand
	for _, c := range best {
		if !seen[c.ent] {
			cands = append(cands, c)
		}
	}
	slices.SortFunc(cands, func(a, b cand) int { return t.compare(a.score, a.ent, b.score, b.ent) })
	for _, c := range cands {
		if len(res) >= limit {
			break
		}
		k := sort.Search(g.nKeys(), func(i int) bool { return g.postOff[i+1] > c.post })
		res = append(res, t.suggestion(c.ent, float64(c.score), g.key(k)))
	}
	return res
}

func uniqStrings(v ...string) []string { return uniq(v...) }

// SearchPasses runs the query of r (sorted by relevance, from r.Offset,
// r.Limit hits, without highlights) once per selection of its plan: the
// narrow ones, narrowest first, then the broad one, which is always last.
func (ix *Index) SearchPasses(ctx context.Context, r SearchRequest) ([]SearchResult, error) {
	plan, err := ix.textPlan(r.Q)
	if err != nil {
		return nil, err
	}
	order, err := sortOrder("", "")
	if err != nil {
		return nil, err
	}
	var out []SearchResult
	for _, sel := range append(plan.narrow, nil) {
		res, err := ix.rank(ctx, ix.searchQuery(r, plan.relevance, sel, nil), order, r.Limit, r.Offset, false)
		if err != nil {
			return nil, err
		}
		page := SearchResult{Total: int(res.Total)}
		for _, h := range res.Hits {
			if hit, ok := ix.hit(h); ok {
				page.Hits = append(page.Hits, hit)
			}
		}
		out = append(out, page)
	}
	return out, nil
}

// FuzzyScores runs a fuzzy match of term on the name field, as Bleve's
// FuzzyQuery does (viaDictionary false) or with the terms textPlan finds
// once (true), or the name term mew, and returns each matching card's
// score.
func (ix *Index) FuzzyScores(term string, fuzziness, prefix int, viaDictionary bool) (map[string]float64, error) {
	var q query.Query
	if viaDictionary {
		dict, err := ix.openDictionary()
		if err != nil {
			return nil, err
		}
		defer dict.Close()
		if q, err = dict.fuzzy(fName, term, fuzziness, prefix, bFuzzy); err != nil {
			return nil, err
		}
	} else {
		fq := query.NewFuzzyQuery(term)
		fq.SetField(fName)
		fq.SetFuzziness(fuzziness)
		fq.SetPrefix(prefix)
		fq.SetBoost(bFuzzy)
		q = fq
	}
	// With a second clause in the query norm, fuzzy term weights that were
	// all scaled alike would not cancel out.
	q = query.NewDisjunctionQuery([]query.Query{q, termQ(fName, "mew", 1)})
	res, err := ix.bleve.Search(bleve.NewSearchRequestOptions(q, ix.t.nCards, 0, false))
	if err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(res.Hits))
	for _, h := range res.Hits {
		if hit, ok := ix.hit(h); ok {
			out[hit.CardID] = hit.Score
		}
	}
	return out, nil
}

// CardValues returns the values of a card's fields as the facts field
// indexes them (cardValues.values), for MatchValues.
func CardValues(c *snapshots.Card, set *snapshots.Set, legal snapshots.Legalities, total int) func(string) []string {
	v := &cardValues{c: c, set: set, setLegal: legal, setTotal: total}
	return v.values
}

// AppendUSDOrNull is the lookup answer's writer of a price.
var AppendUSDOrNull = appendUSDOrNull

// EmptyLookupAnswer is an answer to q without suggestions.
func EmptyLookupAnswer(q string, limit int) *LookupAnswer {
	return &LookupAnswer{query: q, limit: limit}
}

// SetFilterBits turns the bitmap filters of the search syntax on or off
// (on after Open), so that tests compare the two ways.
func (ix *Index) SetFilterBits(on bool) { ix.noFilterBits = !on }
