package index

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/highlight/highlighter/html"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/snapshots"
)

// Search limits and defaults.
const (
	DefaultLimit       = 25   // SearchRequest.Limit 0
	MaxLimit           = 100  // largest SearchRequest.Limit
	DefaultLookupLimit = 25   // Lookup limit <= 0
	CollapseWindow     = 1000 // ranked matches examined by CollapseVariants
	// PopularityWeight: the relevance score of a card is multiplied by
	// 1 + PopularityWeight × its popularity normalized to [0,1] in its game.
	PopularityWeight = 0.5
)

// Sorts of SearchRequest.Sort.
const (
	SortRelevance = "relevance"
	SortVolume    = "volume"
	SortName      = "name"
	SortPrice     = "price"
)

// Index is an open, read-only index. It is safe for concurrent use.
type Index struct {
	bleve bleve.Index
	t     *table
	qa    analysis.Analyzer
	// docRow maps Bleve's internal document number to the card row, for the
	// popularity boost; nil when the internal ids are not plain numbers (the
	// boost is then left out).
	docRow []uint32
	// rowGame and rowOrd map a card row to its game (by gameIdx) and its
	// ordinal in its game, gameCards counts each game's cards, for Match;
	// nil when docRow is.
	rowGame   []uint8
	rowOrd    []uint32
	gameCards []int
	// sets are the sets' values of the syntax's set fields (setfacts.go).
	sets []setFacts
	// fbits runs the syntax's filters as bitmaps (filterbits.go); nil when
	// docRow is. noFilterBits turns it off (tests compare the two ways).
	fbits        *filterBits
	noFilterBits bool
}

// Open opens the index Build wrote into dir, read-only. Errors wrap
// ErrFormat for a damaged typeahead.bin, and the Bleve error otherwise.
func Open(dir string) (*Index, error) {
	b, err := os.ReadFile(filepath.Join(dir, TypeaheadBin))
	if err != nil {
		return nil, fmt.Errorf("index: open %s: %w", dir, err)
	}
	t, err := decodeTable(b)
	if err != nil {
		return nil, fmt.Errorf("index: open %s: %w", filepath.Join(dir, TypeaheadBin), err)
	}
	bi, err := bleve.OpenUsing(filepath.Join(dir, BleveDir), map[string]interface{}{"read_only": true})
	if err != nil {
		return nil, fmt.Errorf("index: open %s: %w", filepath.Join(dir, BleveDir), err)
	}
	sets, err := readSetFacts(dir)
	if err != nil {
		bi.Close()
		return nil, fmt.Errorf("index: open %s: %w", dir, err)
	}
	ix := &Index{bleve: bi, t: t, sets: sets}
	ix.qa = bi.Mapping().AnalyzerNamed(queryAnalyzer)
	if ix.qa == nil {
		bi.Close()
		return nil, fmt.Errorf("index: open %s: %w: no query analyzer", dir, ErrFormat)
	}
	if ix.docRow, err = loadDocRows(bi, t.nCards); err != nil {
		bi.Close()
		return nil, fmt.Errorf("index: open %s: %w", dir, err)
	}
	if ix.rowGame, ix.rowOrd, ix.gameCards, err = loadOrdinals(ix); err != nil {
		bi.Close()
		return nil, fmt.Errorf("index: open %s: %w", dir, err)
	}
	ix.fbits = newFilterBits(ix)
	return ix, nil
}

// loadDocRows reads every document's row once, so that scoring a hit never
// touches stored fields.
func loadDocRows(bi bleve.Index, nCards int) ([]uint32, error) {
	adv, err := bi.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	dr, err := r.DocIDReaderAll()
	if err != nil {
		return nil, err
	}
	defer dr.Close()
	rows := make([]uint32, 0, nCards)
	for {
		id, err := dr.Next()
		if err != nil {
			return nil, err
		}
		if id == nil {
			return rows, nil
		}
		if len(id) != 8 {
			return nil, nil
		}
		num := binary.BigEndian.Uint64(id)
		if num > uint64(4*nCards+1024) {
			return nil, nil
		}
		ext, err := r.ExternalID(id)
		if err != nil {
			return nil, err
		}
		row, ok := rowOf(ext)
		if !ok || row >= nCards {
			return nil, fmt.Errorf("%w: document %q is not a card row", ErrFormat, ext)
		}
		for uint64(len(rows)) <= num {
			rows = append(rows, ^uint32(0))
		}
		rows[num] = uint32(row)
	}
}

// Close releases the index.
func (ix *Index) Close() error { return ix.bleve.Close() }

// Games returns the games of the index in the order Build met them.
func (ix *Index) Games() []string {
	out := make([]string, len(ix.t.games))
	for i := range ix.t.games {
		out[i] = ix.t.games[i].name
	}
	return out
}

// CardCount returns the number of indexed cards (all games).
func (ix *Index) CardCount() int { return ix.t.nCards }

// Lookup is the typeahead: it returns up to limit suggestions (cards and
// sets of game) for what the user has typed so far, best first, from the
// first character. language "" or "all" means every language; an unknown
// game or language gives nil. limit <= 0 means DefaultLookupLimit; limits
// above TopK are lowered to TopK.
//
// A query equal to a card id, a set id, a source id ("base1-4") or a
// partner product id resolves straight to its entities first (Exact).
// Then come prefix matches over the normalized names (every language, and
// the romaji of kana names and the pinyin of Chinese names), later words of
// names, the English name of linked English cards, set names, set codes and
// card and set ids, ranked by build-time popularity (Volume30dCents,
// Sales30d) times the key's weight, an exact key match weighing triple.
func (ix *Index) Lookup(game, q, language string, limit int) []Suggestion {
	return ix.t.lookup(game, q, language, limit)
}

// AppendLookup is Lookup appending to dst, so that a caller reusing dst
// makes a lookup allocate nothing. The strings of the suggestions point
// into the index's memory: they stay valid while the Index is in use (and
// after Close: the typeahead is never unmapped).
func (ix *Index) AppendLookup(dst []Suggestion, game, q, language string, limit int) []Suggestion {
	return ix.t.appendLookup(dst, game, q, language, limit)
}

// SearchRequest is one full-text search. Filters are exact and combine with
// AND; empty strings and -1 prices are unset.
type SearchRequest struct {
	Game string // required: a game of the index
	Q    string // free text: names, set names and codes, numbers, ids, rarity; "" matches every card
	// Query, when not nil, is q parsed with the search syntax
	// (syntax.Parse), and Q is ignored: its plain words at the top
	// (Query.Text) rank as Q does, and the rest of it (Query.Filter)
	// selects the cards, as a filter (see structured.go).
	Query    *syntax.Query
	Language string // en, ja, zh-cn, zh-tw
	SetID    string // a set id ("en:base1") or a set source id ("base1": every language edition)
	Rarity   string // rarity, compared after normKeyword ("rare holo" = "Rare Holo")
	Variant  string // a whole variant ("holo/1st-edition") or one part of one ("1st-edition", "reverse")

	// MinPriceCents and MaxPriceCents bound PriceCents inclusively; -1 is
	// unset. Unpriced cards never match a price filter.
	MinPriceCents, MaxPriceCents int64

	// Sort is relevance (default, ""), volume, name or price. Relevance is
	// text relevance boosted by popularity (volume order when Q is empty).
	// Ties are broken by catalog order.
	Sort string
	// Order is "asc" or "desc"; "" is desc for volume and price and asc for
	// name. Relevance ignores it. Unpriced cards come last in both price
	// orders.
	Order string

	// CollapseVariants (collapse=variants) returns one hit per printed card:
	// rows whose ids differ only by a variant suffix (from the first '_' or
	// '@': One Piece parallels "OP01-001_p1" and reprints "_r1", even when
	// filed under another product, Celebrations "cel25c-15_A1") form one
	// group with their base row, and the group's best-ranked row under Sort
	// stands for it. (Pokémon finishes are Variants of one row already.)
	// It looks at the first CollapseWindow ranked matches only; Total is then
	// the number of groups seen plus the matches beyond the window (exact
	// when Total <= CollapseWindow, an upper bound otherwise).
	CollapseVariants bool

	Offset int // >= 0
	Limit  int // 0 means DefaultLimit; at most MaxLimit
}

// SearchHit is one matching card.
type SearchHit struct {
	CardID string  `json:"card_id"`
	Score  float64 `json:"score"` // relevance × popularity boost (0..); with a field sort, the same score as a tie-break
	// Highlights maps a field (name, name_alt, name_en, set_name, number)
	// to HTML fragments of its stored value, matches wrapped in
	// <mark>..</mark> and the rest HTML-escaped. Empty when Q is empty.
	Highlights map[string][]string `json:"highlights,omitempty"`
}

// SearchResult is one page of hits and the number of matches.
type SearchResult struct {
	Hits []SearchHit `json:"hits"`
	// Total counts the cards that match Q as Search ranks them: those that
	// match every term of Q when there are any, else all terms but one,
	// else any term (see the package documentation, Relevance).
	Total int `json:"total"`
}

// Search runs a full-text search and returns card ids only (the caller
// hydrates them from the snapshot). It ranks the narrowest selection of
// the query's plan that finds cards: every term, all terms but one, any
// term (see the package documentation, Relevance). Errors: EINVALID for a
// bad request, ENOTFOUND for an unknown game, and the context's error.
func (ix *Index) Search(ctx context.Context, r SearchRequest) (SearchResult, error) {
	if _, ok := ix.t.gameIdx[r.Game]; !ok {
		if r.Game == "" {
			return SearchResult{}, apperr.Errorf(apperr.EINVALID, "game is required")
		}
		return SearchResult{}, apperr.Errorf(apperr.ENOTFOUND, "unknown game %q", r.Game)
	}
	if r.Offset < 0 {
		return SearchResult{}, apperr.Errorf(apperr.EINVALID, "offset must be >= 0")
	}
	if r.Limit == 0 {
		r.Limit = DefaultLimit
	}
	if r.Limit < 0 || r.Limit > MaxLimit {
		return SearchResult{}, apperr.Errorf(apperr.EINVALID, "limit must be 1..%d", MaxLimit)
	}
	if r.Language != "" && !snapshots.IsLanguage(r.Language) {
		return SearchResult{}, apperr.Errorf(apperr.EINVALID, "language must be one of %s", strings.Join(snapshots.Languages, ", "))
	}
	order, err := sortOrder(r.Sort, r.Order)
	if err != nil {
		return SearchResult{}, err
	}

	if (r.MinPriceCents >= 0 || r.MaxPriceCents >= 0) && ix.docRow == nil {
		return SearchResult{}, fmt.Errorf("index: search: price filter unavailable (unknown document numbering)")
	}

	text := r.Q
	if r.Query != nil {
		text = strings.Join(r.Query.Text(), " ")
	}
	plan, err := ix.textPlan(text)
	if err != nil {
		return SearchResult{}, searchErr(ctx, err)
	}
	// The syntax's filters and the request's run as one bitmap
	// (filterbits.go); without text, in relevance order, the page comes
	// straight from it.
	var set docSet
	if r.Query != nil && r.Query.Structured() && ix.fbits != nil && !ix.noFilterBits {
		gi := ix.t.gameIdx[r.Game]
		if set, err = ix.filterSet(ctx, gi, r); err != nil {
			return SearchResult{}, searchErr(ctx, err)
		}
		if plan.relevance == nil && (r.Sort == "" || r.Sort == SortRelevance) && r.MinPriceCents < 0 && r.MaxPriceCents < 0 {
			return ix.rankSet(gi, set, r), nil
		}
	}
	// A page highlights its hits as it ranks them; a collapsed window
	// would highlight hits it drops, so its page is highlighted after.
	size, from, highlight := r.Limit, r.Offset, plan.relevance != nil
	if r.CollapseVariants {
		size, from, highlight = CollapseWindow, 0, false
	}
	// The narrowest selection of the plan that finds cards is ranked: every
	// term, then all terms but one, then (the broad pass) any term.
	var res *bleve.SearchResult
	for _, sel := range append(plan.narrow, nil) {
		res, err = ix.rank(ctx, ix.searchQuery(r, plan.relevance, sel, set), order, size, from, highlight)
		if err != nil {
			return SearchResult{}, err
		}
		if res.Total > 0 {
			break
		}
	}

	if !r.CollapseVariants {
		out := SearchResult{Total: int(res.Total), Hits: make([]SearchHit, 0, len(res.Hits))}
		for _, h := range res.Hits {
			if hit, ok := ix.hit(h); ok {
				out.Hits = append(out.Hits, hit)
			}
		}
		return out, nil
	}

	// Collapse: rank a window, keep each group's first hit, then page.
	seen := make(map[uint32]bool, len(res.Hits))
	var kept []SearchHit
	for _, h := range res.Hits {
		row, ok := rowOf(h.ID)
		if !ok || row >= ix.t.nCards {
			continue
		}
		g := ix.t.group[row]
		if seen[g] {
			continue
		}
		seen[g] = true
		kept = append(kept, SearchHit{CardID: ix.t.str(uint32(row), sID), Score: h.Score})
	}
	out := SearchResult{Total: len(kept) + int(res.Total) - len(res.Hits), Hits: []SearchHit{}}
	if r.Offset < len(kept) {
		out.Hits = kept[r.Offset:min(len(kept), r.Offset+r.Limit)]
	}
	if plan.relevance != nil && len(out.Hits) > 0 {
		if err := ix.highlight(ctx, plan.relevance, out.Hits, res.Hits); err != nil {
			return SearchResult{}, err
		}
	}
	return out, nil
}

// searchQuery is the whole query of r: the text's relevance query (nil:
// every card of the game, in popularity order), restricted to the cards
// sel selects (nil: no restriction) and to r's filters (the syntax
// filter of r.Query among them; or, when set is not nil, to set, which
// holds them all), with the price filter and the popularity boost around
// it.
func (ix *Index) searchQuery(r SearchRequest, relevance, sel query.Query, set docSet) query.Query {
	// filters select without weighing: sel, the syntax's terms, the
	// request's filters.
	var filters []query.Query
	if sel != nil {
		filters = append(filters, sel)
	}
	structured := r.Query != nil && r.Query.Structured()
	if set != nil {
		filters = append(filters, docSetQuery{set})
		r.Language, r.SetID, r.Rarity, r.Variant = "", "", "", ""
	}
	var negated []query.Query // the syntax's negated conjuncts
	if structured && set == nil {
		var pos []query.Query
		pos, negated = ix.filterQueries(r.Query.Filter())
		filters = append(filters, pos...)
	}
	if r.Language != "" {
		filters = append(filters, termQ(fLanguage, r.Language, 0))
	}
	if r.SetID != "" {
		filters = append(filters, termQ(fSet, normKeyword(r.SetID), 0))
	}
	if r.Rarity != "" {
		filters = append(filters, termQ(fRarity, normKeyword(r.Rarity), 0))
	}
	if r.Variant != "" {
		filters = append(filters, termQ(fVariant, normKeyword(r.Variant), 0))
	}
	var q query.Query
	scorer := ix.popularityScore
	if relevance == nil && structured && ix.docRow != nil {
		// Syntax terms without text: nothing to weigh. The whole query
		// selects without scoring (Bleve intersects and unites the terms'
		// postings as bitmaps where it can) and the popularity boost alone
		// orders the cards, as it orders them under the game term's equal
		// scores below.
		q = query.NewConjunctionQuery(append([]query.Query{termQ(fGame, r.Game, 0)}, filters...))
		if set != nil { // set holds the game's cards only
			q = query.NewConjunctionQuery(filters)
		}
		if len(negated) > 0 {
			q = query.NewBooleanQuery([]query.Query{q}, nil, negated)
		}
		q = selectOnly{q}
		scorer = ix.popularityOnly
	} else {
		// Without text, the game term scores every card alike (a keyword
		// field of one value) and the popularity boost orders them.
		main, conj := relevance, []query.Query{selectOnly{termQ(fGame, r.Game, 0)}}
		if set != nil { // set holds the game's cards only
			conj = nil
		}
		if relevance == nil {
			main, conj = termQ(fGame, r.Game, 1), nil
		}
		// Filters are conjuncts that select without weighing, and the
		// conjunction advances through the rarest of them.
		for _, f := range filters {
			conj = append(conj, selectOnly{f})
		}
		if len(negated) > 0 {
			conj = append(conj, selectOnly{query.NewBooleanQuery([]query.Query{termQ(fGame, r.Game, 0)}, nil, negated)})
		}
		q = query.NewConjunctionQuery(append([]query.Query{main}, conj...))
	}
	if r.MinPriceCents >= 0 || r.MaxPriceCents >= 0 {
		lo, hi := max(r.MinPriceCents, 1), r.MaxPriceCents
		if hi < 0 {
			hi = math.MaxInt64
		}
		q = filtered{q, func(d *search.DocumentMatch) bool {
			row, ok := ix.rowOfDoc(d)
			if !ok {
				return false
			}
			p := ix.t.price[row]
			return p >= lo && p <= hi
		}}
	}
	if ix.docRow != nil {
		q = rescored{q, scorer}
	}
	return q
}

// popularityOnly scores a hit of a search without text by its popularity
// boost and the catalog-order tie-break alone.
func (ix *Index) popularityOnly(d *search.DocumentMatch) float64 {
	if row, ok := ix.rowOfDoc(d); ok {
		return (1 + PopularityWeight*float64(ix.t.boost[row])) * (1 - rowTieBreak*float64(row))
	}
	return 0
}

// rank runs q and returns size hits from from in order, with highlights of
// highlightFields when highlight is set.
func (ix *Index) rank(ctx context.Context, q query.Query, order search.SortOrder, size, from int, highlight bool) (*bleve.SearchResult, error) {
	req := bleve.NewSearchRequestOptions(q, size, from, false)
	req.SortByCustom(order)
	if highlight {
		req.Highlight = bleve.NewHighlightWithStyle(html.Name)
		req.Highlight.Fields = highlightFields
	}
	res, err := ix.bleve.SearchInContext(ctx, req)
	if err != nil {
		return nil, searchErr(ctx, err)
	}
	return res, nil
}

// highlight fills the highlights of hits, a collapsed page taken from the
// matches ranked, by running the relevance query again on the page's
// documents only (the conjunction advances it straight to each of them).
func (ix *Index) highlight(ctx context.Context, relevance query.Query, hits []SearchHit, ranked []*search.DocumentMatch) error {
	want := make(map[string]int, len(hits))
	for i, h := range hits {
		want[h.CardID] = i
	}
	ids := make([]string, 0, len(hits))
	for _, m := range ranked {
		if row, ok := rowOf(m.ID); ok && row < ix.t.nCards {
			if _, ok := want[ix.t.str(uint32(row), sID)]; ok {
				ids = append(ids, m.ID)
			}
		}
	}
	q := query.NewConjunctionQuery([]query.Query{relevance, selectOnly{query.NewDocIDQuery(ids)}})
	req := bleve.NewSearchRequestOptions(q, len(ids), 0, false)
	req.Highlight = bleve.NewHighlightWithStyle(html.Name)
	req.Highlight.Fields = highlightFields
	res, err := ix.bleve.SearchInContext(ctx, req)
	if err != nil {
		return searchErr(ctx, err)
	}
	for _, m := range res.Hits {
		if hit, ok := ix.hit(m); ok {
			if i, ok := want[hit.CardID]; ok {
				hits[i].Highlights = hit.Highlights
			}
		}
	}
	return nil
}

func (ix *Index) hit(h *search.DocumentMatch) (SearchHit, bool) {
	row, ok := rowOf(h.ID)
	if !ok || row >= ix.t.nCards {
		return SearchHit{}, false
	}
	hit := SearchHit{CardID: ix.t.str(uint32(row), sID), Score: h.Score}
	// Bleve returns a fragment of every requested field; keep those that
	// show a match.
	for f, frags := range h.Fragments {
		for _, fr := range frags {
			if strings.Contains(fr, "<mark>") {
				if hit.Highlights == nil {
					hit.Highlights = make(map[string][]string, len(h.Fragments))
				}
				hit.Highlights[f] = append(hit.Highlights[f], fr)
			}
		}
	}
	return hit, true
}

func searchErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("index: search: %w", err)
}

// rowTieBreak scales a score down by row × rowTieBreak, so that equal
// scores rank in catalog order (at most 2e-5 relative for 200k rows: it
// never outweighs a real difference of relevance or popularity).
const rowTieBreak = 1e-10

// popularityScore multiplies a hit's text score by its popularity boost and
// the catalog-order tie-break.
func (ix *Index) popularityScore(d *search.DocumentMatch) float64 {
	if row, ok := ix.rowOfDoc(d); ok {
		return d.Score * (1 + PopularityWeight*float64(ix.t.boost[row])) * (1 - rowTieBreak*float64(row))
	}
	return d.Score
}

// rowOfDoc returns the card row of a hit from its internal document number.
func (ix *Index) rowOfDoc(d *search.DocumentMatch) (int, bool) {
	return ix.rowOfID(d.IndexInternalID)
}

// rowOfID returns the card row of an internal document number.
func (ix *Index) rowOfID(id index.IndexInternalID) (int, bool) {
	if len(id) == 8 {
		if num := binary.BigEndian.Uint64(id); num < uint64(len(ix.docRow)) {
			if row := ix.docRow[num]; int(row) < ix.t.nCards {
				return int(row), true
			}
		}
	}
	return 0, false
}

func sortOrder(sortBy, order string) (search.SortOrder, error) {
	desc := true
	switch order {
	case "", "desc":
	case "asc":
		desc = false
	default:
		return nil, apperr.Errorf(apperr.EINVALID, "order must be asc or desc")
	}
	// The score carries a catalog-order tie-break (see popularityScore),
	// so no sort needs a row field.
	score := &search.SortScore{Desc: true}
	switch sortBy {
	case "", SortRelevance:
		return search.SortOrder{score}, nil
	case SortVolume:
		return search.SortOrder{
			&search.SortField{Field: fVolume, Type: search.SortFieldAsString, Desc: desc},
			score,
		}, nil
	case SortPrice:
		return search.SortOrder{
			&search.SortField{Field: fPrice, Type: search.SortFieldAsString, Desc: desc, Missing: search.SortFieldMissingLast},
			score,
		}, nil
	case SortName:
		if order == "" {
			desc = false
		}
		return search.SortOrder{
			&search.SortField{Field: fNameSort, Type: search.SortFieldAsString, Desc: desc},
			score,
		}, nil
	}
	return nil, apperr.Errorf(apperr.EINVALID, "sort must be relevance, volume, name or price")
}

func termQ(field, term string, boost float64) *query.TermQuery {
	q := query.NewTermQuery(term)
	q.SetField(field)
	q.SetBoost(boost)
	return q
}

// Query tuning: boosts of the clauses built for each query token.
const (
	bID        = 30 // card id, source id or product id
	bNameExact = 12 // a run of query words is the whole name
	bSetExact  = 6  // a run of query words is the whole set name
	bNumber    = 4  // a form of the collector number
	bSetCode   = 4  // a set id, source id or abbreviation
	bName      = 5
	bNameAlt   = 4
	bNameEN    = 1.5
	bSetName   = 2
	bTags      = 1
	bFuzzy     = 1.5
	bPrefix    = 1
)

// queryStopwords are words collectors add that no token needs to match
// ("charizard card", "base set"). Dropped from the token clauses unless they
// are the whole query; the phrase clauses keep them ("base set" is the exact
// name of the Base set, see set_exact).
var queryStopwords = map[string]bool{"card": true, "cards": true, "set": true}

// Phrase clauses: runs of up to maxShingle words among the first
// maxQueryWords words of a query.
const (
	maxShingle    = 4
	maxQueryWords = 8
)

// textPlan is the text part of a search: one query that scores, and the
// selections it ranks.
type textPlan struct {
	// relevance matches a card when any word or phrase clause of the query
	// does, and scores it; nil for a blank query.
	relevance query.Query
	// narrow are selections of the cards that match more of the query,
	// narrowest first, tried before the broad one (every card relevance
	// matches): the cards that match every term of the query, then those
	// that match all terms but one (from three terms on). Each also
	// selects the cards that match a phrase clause of two words or more.
	// Empty for a query of one term.
	narrow []query.Query
}

// textPlan builds the text queries of q.
//
// Each whitespace-separated word becomes one disjunction over: card ids,
// set codes, collector number forms, and, for each of its analyzed terms,
// the name, its romaji/pinyin forms, the linked English name, the set name
// and the tags, plus fuzzy matches of the name (typos) and a prefix match
// for the last word. The words' disjunctions and an exact-name clause are
// combined in one disjunction, with phrase clauses (see maxShingle), whose
// coordination factor ranks cards matching more words and phrases first:
// that is the relevance query.
//
// The narrow selections count terms: a term (one span of a word's analyzed
// terms: a possessive and its stem are one term, "噴火龍" is two) matches
// by its own clauses or by the whole-word clauses of its word (ids, set
// codes, numbers: "4/102" matches both terms of 4/102). Words without
// terms (punctuation) are left out.
func (ix *Index) textPlan(q string) (textPlan, error) {
	raw := queryWords(q)
	if len(raw) > 1 {
		kept := raw[:0]
		for _, t := range raw {
			if !queryStopwords[t] {
				kept = append(kept, t)
			}
		}
		if len(kept) > 0 {
			raw = kept
		}
	}
	if len(raw) == 0 {
		return textPlan{}, nil
	}
	dict, err := ix.openDictionary()
	if err != nil {
		return textPlan{}, err
	}
	defer dict.Close()
	var groups []query.Query // relevance: one disjunction per word, then the phrase clauses
	var terms []query.Query  // narrow: one disjunction per term
	for i, tok := range raw {
		last := i == len(raw)-1
		cl := wholeWordClauses(tok) // every clause of the word
		wholeWord := len(cl)        // cl[:wholeWord] match the word as a whole
		// termClauses[k] holds the clauses of the k-th span of the word's
		// terms; terms of one span (a possessive and its stem) share it.
		var termClauses [][]query.Query
		var lastStart, lastEnd int
		for k, t := range ix.qa.Analyze([]byte(tok)) {
			if k == 0 || t.Start != lastStart || t.End != lastEnd {
				termClauses = append(termClauses, nil)
				lastStart, lastEnd = t.Start, t.End
			}
			term := string(t.Term)
			tc := termMatchClauses(term)
			if t.Type != analysis.Ideographic && t.Type != analysis.Double && t.Type != analysis.Single && !isDigits(term) {
				// Typo tolerance for words the index does not have: a fuzzy
				// match costs a walk of the term dictionary, so a word that
				// one of its fields has already ("prize" of a set name) goes
				// without.
				if n := len(term); n >= 4 && !dict.hasAnywhere(term) {
					fuzziness, prefix := 1, 0
					if n >= 8 {
						fuzziness, prefix = 2, 1
					}
					fq, err := dict.fuzzy(fName, term, fuzziness, prefix, bFuzzy)
					if err != nil {
						return textPlan{}, err
					}
					tc = append(tc, fq)
				}
				if last && len(term) >= 3 {
					pq := query.NewPrefixQuery(term)
					pq.SetField(fName)
					pq.SetBoost(bPrefix)
					tc = append(tc, pq)
				}
			}
			cl = append(cl, tc...)
			termClauses[len(termClauses)-1] = append(termClauses[len(termClauses)-1], tc...)
		}
		groups = append(groups, query.NewDisjunctionQuery(cl))
		for _, tc := range termClauses {
			terms = append(terms, query.NewDisjunctionQuery(append(cl[:wholeWord:wholeWord], tc...)))
		}
	}
	// Whole-phrase matches: every run of up to maxShingle words of the query
	// against the exact (normalized) card names and set names, each its own
	// clause, so "charizard base set 4" finds the set named exactly "base set"
	// (Base, not Base Set 2) and the card named exactly "charizard".
	var oneWord, multiWord []query.Query // phrase clauses of one word, of two words or more
	words := strings.Fields(normalizeText(q))
	if len(words) > maxQueryWords {
		words = words[:maxQueryWords]
	}
	for n := 1; n <= min(len(words), maxShingle); n++ {
		for i := 0; i+n <= len(words); i++ {
			// a longer exact phrase is stronger evidence (weight n²)
			g, w := strings.Join(words[i:i+n], " "), float64(n*n)
			if n == 1 {
				oneWord = append(oneWord, termQ(fNameExact, g, bNameExact*w), termQ(fSetExact, g, bSetExact*w))
				continue
			}
			multiWord = append(multiWord, termQ(fNameExact, g, bNameExact*w), termQ(fSetExact, g, bSetExact*w),
				termQ(fNameExact, strings.Join(words[i:i+n], ""), bNameExact*w))
		}
	}
	groups = append(append(groups, oneWord...), multiWord...)
	plan := textPlan{relevance: query.NewDisjunctionQuery(groups)}
	// A narrow selection also selects the cards that match a phrase of two
	// words or more (one word is a term already).
	orPhrase := func(q query.Query) query.Query {
		return query.NewDisjunctionQuery(append([]query.Query{q}, multiWord...))
	}
	if len(terms) > 1 {
		plan.narrow = append(plan.narrow, orPhrase(query.NewConjunctionQuery(terms)))
	}
	if len(terms) > 2 {
		allButOne := query.NewDisjunctionQuery(terms)
		allButOne.SetMin(float64(len(terms) - 1))
		plan.narrow = append(plan.narrow, orPhrase(allButOne))
	}
	return plan, nil
}

// queryWords splits q into the words textPlan searches: normalizeID of
// each whitespace-separated word, trimmed of the punctuation around it,
// without duplicates.
func queryWords(q string) []string {
	raw := strings.Fields(normalizeID(q))
	for i, t := range raw {
		raw[i] = strings.Trim(t, ",;()[]{}\"")
	}
	return uniq(raw...)
}

// wholeWordClauses are the clauses that match a query word (normalizeID)
// as a whole: card ids, set codes and collector number forms.
func wholeWordClauses(tok string) []query.Query {
	cl := []query.Query{termQ(fIDs, tok, bID)}
	for _, c := range uniq(tok, compactID(tok)) {
		cl = append(cl, termQ(fSetCode, c, bSetCode))
	}
	if strings.ContainsAny(tok, "0123456789") {
		for _, f := range numberQueryForms(tok) {
			cl = append(cl, termQ(fNumber, f, bNumber))
		}
	}
	return cl
}

// termMatchClauses are the clauses that match one analyzed term of a query
// word: the name, its romaji/pinyin forms, the linked English name, the
// set name and the tags.
func termMatchClauses(term string) []query.Query {
	return []query.Query{
		termQ(fName, term, bName),
		termQ(fNameAlt, term, bNameAlt),
		termQ(fNameEN, term, bNameEN),
		termQ(fSetName, term, bSetName),
		termQ(fTags, term, bTags),
	}
}

// selectOnly is a query that selects cards without weighing them: its
// searcher runs without scoring (so its term readers skip frequencies and
// norms and jump through the postings bitmaps instead of stepping through
// them), and it adds nothing to the score or the query norm of the
// conjunction it is in. A search's filters and its narrow selections are
// selectOnly.
type selectOnly struct{ query.Query }

func (s selectOnly) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, _ search.SearcherOptions) (search.Searcher, error) {
	sr, err := s.Query.Searcher(ctx, r, m, search.SearcherOptions{Score: "none"})
	if err != nil {
		return nil, err
	}
	return weightless{sr}, nil
}

// weightless is a searcher that takes no part in query normalization.
type weightless struct{ search.Searcher }

func (weightless) Weight() float64      { return 0 }
func (weightless) SetQueryNorm(float64) {}

// dictionary answers textPlan's questions about the term dictionaries of
// the index: whether a field has a term, and which terms a fuzzy match
// finds.
type dictionary struct {
	r     index.IndexReader
	dicts map[string]index.FieldDictContains // by field; nil when the reader cannot tell
}

func (ix *Index) openDictionary() (*dictionary, error) {
	adv, err := ix.bleve.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	return &dictionary{r: r, dicts: map[string]index.FieldDictContains{}}, nil
}

// Close releases the index reader.
func (d *dictionary) Close() error { return d.r.Close() }

// has reports whether field has term; false when the reader cannot tell
// (every word then gets its fuzzy match).
func (d *dictionary) has(field, term string) bool {
	fd, ok := d.dicts[field]
	if !ok {
		if rc, ok := d.r.(index.IndexReaderContains); ok {
			fd, _ = rc.FieldDictContains(field)
		}
		d.dicts[field] = fd
	}
	if fd == nil {
		return false
	}
	has, err := fd.Contains([]byte(term))
	return err == nil && has
}

// hasAnywhere reports whether a text field that a query term is matched
// against has the term.
func (d *dictionary) hasAnywhere(term string) bool {
	for _, f := range []string{fName, fNameAlt, fSetName, fNameEN, fTags} {
		if d.has(f, term) {
			return true
		}
	}
	return false
}

// fuzzy returns a query for the terms of field within fuzziness edits of
// term that share its first prefix bytes (rounded up to a rune), scored as
// Bleve's FuzzyQuery scores them. The dictionary is walked here, once:
// every pass of a search and its highlights reuse the terms.
func (d *dictionary) fuzzy(field, term string, fuzziness, prefix int, boost float64) (query.Query, error) {
	rf, ok := d.r.(index.IndexReaderFuzzy)
	if !ok {
		fq := query.NewFuzzyQuery(term)
		fq.SetField(field)
		fq.SetFuzziness(fuzziness)
		fq.SetPrefix(prefix)
		fq.SetBoost(boost)
		return fq, nil
	}
	prefixTerm := term // as searcher.NewFuzzySearcher cuts it
	for i := range term {
		if i >= prefix {
			prefixTerm = term[:i]
			break
		}
	}
	fd, err := rf.FieldDictFuzzy(field, term, fuzziness, prefixTerm)
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	q := &fuzzyTerms{field: field, term: term, boost: boost}
	for {
		e, err := fd.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			return q, nil
		}
		q.terms = append(q.terms, e.Term)
		q.distances = append(q.distances, e.EditDistance)
	}
}

// fuzzyTerms is a fuzzy query whose terms dictionary.fuzzy found.
type fuzzyTerms struct {
	field, term string
	terms       []string
	distances   []uint8 // edit distance of each of terms
	boost       float64
}

func (q *fuzzyTerms) Searcher(ctx context.Context, r index.IndexReader, _ mapping.IndexMapping, options search.SearcherOptions) (search.Searcher, error) {
	if len(q.terms) == 0 || len(q.terms) == 1 && q.terms[0] == q.term {
		return searcher.NewTermSearcher(ctx, r, q.term, q.field, q.boost, options)
	}
	return searcher.NewMultiTermSearcherBoosted(ctx, r, q.terms, q.field, q.boost, q.distances, options, true)
}
