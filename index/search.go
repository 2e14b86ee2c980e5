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
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/highlight/highlighter/html"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

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
	ix := &Index{bleve: bi, t: t}
	ix.qa = bi.Mapping().AnalyzerNamed(queryAnalyzer)
	if ix.qa == nil {
		bi.Close()
		return nil, fmt.Errorf("index: open %s: %w: no query analyzer", dir, ErrFormat)
	}
	if ix.docRow, err = loadDocRows(bi, t.nCards); err != nil {
		bi.Close()
		return nil, fmt.Errorf("index: open %s: %w", dir, err)
	}
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
	Game     string // required: a game of the index
	Q        string // free text: names, set names and codes, numbers, ids, rarity; "" matches every card
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
	Hits  []SearchHit `json:"hits"`
	Total int         `json:"total"`
}

// Search runs a full-text search and returns card ids only (the caller
// hydrates them from the snapshot). Errors: EINVALID for a bad request,
// ENOTFOUND for an unknown game, and the context's error.
func (ix *Index) Search(ctx context.Context, r SearchRequest) (SearchResult, error) {
	if _, ok := ix.t.gameIdx[r.Game]; !ok {
		if r.Game == "" {
			return SearchResult{}, snapshots.Errorf(snapshots.EINVALID, "game is required")
		}
		return SearchResult{}, snapshots.Errorf(snapshots.ENOTFOUND, "unknown game %q", r.Game)
	}
	if r.Offset < 0 {
		return SearchResult{}, snapshots.Errorf(snapshots.EINVALID, "offset must be >= 0")
	}
	if r.Limit == 0 {
		r.Limit = DefaultLimit
	}
	if r.Limit < 0 || r.Limit > MaxLimit {
		return SearchResult{}, snapshots.Errorf(snapshots.EINVALID, "limit must be 1..%d", MaxLimit)
	}
	if r.Language != "" && !snapshots.IsLanguage(r.Language) {
		return SearchResult{}, snapshots.Errorf(snapshots.EINVALID, "language must be one of %s", strings.Join(snapshots.Languages, ", "))
	}
	order, err := sortOrder(r.Sort, r.Order)
	if err != nil {
		return SearchResult{}, err
	}

	text, err := ix.textQuery(r.Q)
	if err != nil {
		return SearchResult{}, searchErr(ctx, err)
	}
	filters := []query.Query{termQ(fGame, r.Game, 0)}
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
	// Without text, the game term scores every card alike (a keyword field
	// of one value) and the popularity boost orders them.
	var main query.Query = text
	if text == nil {
		main, filters = termQ(fGame, r.Game, 1), filters[1:]
	}
	// Filters are conjuncts with boost 0: they select without weighing, and
	// the conjunction advances through the rarest of them.
	var q query.Query = query.NewConjunctionQuery(append([]query.Query{main}, filters...))
	if r.MinPriceCents >= 0 || r.MaxPriceCents >= 0 {
		if ix.docRow == nil {
			return SearchResult{}, fmt.Errorf("index: search: price filter unavailable (unknown document numbering)")
		}
		lo, hi := max(r.MinPriceCents, 1), r.MaxPriceCents
		if hi < 0 {
			hi = math.MaxInt64
		}
		q = query.NewCustomFilterQueryWithFilter(q, func(_ context.Context, d *search.DocumentMatch) (bool, error) {
			row, ok := ix.rowOfDoc(d)
			if !ok {
				return false, nil
			}
			p := ix.t.price[row]
			return p >= lo && p <= hi, nil
		}, nil, nil)
	}
	if ix.docRow != nil {
		q = query.NewCustomScoreQueryWithScorer(q, ix.popularityScore, nil, nil)
	}

	if !r.CollapseVariants {
		req := bleve.NewSearchRequestOptions(q, r.Limit, r.Offset, false)
		req.SortByCustom(order)
		if text != nil {
			req.Highlight = bleve.NewHighlightWithStyle(html.Name)
			req.Highlight.Fields = highlightFields
		}
		res, err := ix.bleve.SearchInContext(ctx, req)
		if err != nil {
			return SearchResult{}, searchErr(ctx, err)
		}
		out := SearchResult{Total: int(res.Total), Hits: make([]SearchHit, 0, len(res.Hits))}
		for _, h := range res.Hits {
			if hit, ok := ix.hit(h); ok {
				out.Hits = append(out.Hits, hit)
			}
		}
		return out, nil
	}

	// Collapse: rank a window, keep each group's first hit, then page.
	req := bleve.NewSearchRequestOptions(q, CollapseWindow, 0, false)
	req.SortByCustom(order)
	res, err := ix.bleve.SearchInContext(ctx, req)
	if err != nil {
		return SearchResult{}, searchErr(ctx, err)
	}
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
	out := SearchResult{Total: len(kept) + int(res.Total) - len(res.Hits)}
	if r.Offset < len(kept) {
		out.Hits = kept[r.Offset:min(len(kept), r.Offset+r.Limit)]
	}
	if text != nil && len(out.Hits) > 0 {
		if err := ix.highlight(ctx, text, out.Hits, res.Hits); err != nil {
			return SearchResult{}, err
		}
	}
	if out.Hits == nil {
		out.Hits = []SearchHit{}
	}
	return out, nil
}

// highlight fills the highlights of a collapsed page by re-running the text
// query on the page's documents only.
func (ix *Index) highlight(ctx context.Context, text query.Query, hits []SearchHit, window []*search.DocumentMatch) error {
	want := map[string]int{}
	ids := make([]string, 0, len(hits))
	for i, h := range hits {
		want[h.CardID] = i
	}
	for _, m := range window {
		if row, ok := rowOf(m.ID); ok && row < ix.t.nCards {
			if i, ok := want[ix.t.str(uint32(row), sID)]; ok && hits[i].Highlights == nil {
				ids = append(ids, m.ID)
			}
		}
	}
	bq := query.NewBooleanQuery(nil, nil, nil)
	bq.AddMust(text)
	bq.AddFilter(query.NewDocIDQuery(ids))
	req := bleve.NewSearchRequestOptions(bq, len(ids), 0, false)
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
func (ix *Index) popularityScore(_ context.Context, d *search.DocumentMatch) (float64, error) {
	if row, ok := ix.rowOfDoc(d); ok {
		return d.Score * (1 + PopularityWeight*float64(ix.t.boost[row])) * (1 - rowTieBreak*float64(row)), nil
	}
	return d.Score, nil
}

// rowOfDoc returns the card row of a hit from its internal document number.
func (ix *Index) rowOfDoc(d *search.DocumentMatch) (int, bool) {
	if len(d.IndexInternalID) == 8 {
		if num := binary.BigEndian.Uint64(d.IndexInternalID); num < uint64(len(ix.docRow)) {
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
		return nil, snapshots.Errorf(snapshots.EINVALID, "order must be asc or desc")
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
	return nil, snapshots.Errorf(snapshots.EINVALID, "sort must be relevance, volume, name or price")
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

// textQuery builds the relevance query for q, or nil when q is blank.
//
// Each whitespace-separated token becomes one disjunction over: card ids,
// set codes, collector number forms, and, for each of its analyzed terms,
// the name, its romaji/pinyin forms, the linked English name, the set name
// and the tags, plus fuzzy matches of the name (typos) and a prefix match
// for the last token. The tokens' disjunctions and an exact-name clause are
// combined in one disjunction, with phrase clauses (see maxShingle), whose
// coordination factor ranks cards matching more tokens and phrases first.
func (ix *Index) textQuery(q string) (query.Query, error) {
	raw := strings.Fields(normalizeID(q))
	for i, t := range raw {
		raw[i] = strings.Trim(t, ",;()[]{}\"")
	}
	raw = uniq(raw...)
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
		return nil, nil
	}
	known, done, err := ix.termChecker()
	if err != nil {
		return nil, err
	}
	defer done()
	var groups []query.Query
	for i, tok := range raw {
		last := i == len(raw)-1
		var cl []query.Query
		cl = append(cl, termQ(fIDs, tok, bID))
		for _, c := range uniq(tok, compactID(tok)) {
			cl = append(cl, termQ(fSetCode, c, bSetCode))
		}
		if strings.ContainsAny(tok, "0123456789") {
			for _, f := range numberQueryForms(tok) {
				cl = append(cl, termQ(fNumber, f, bNumber))
			}
		}
		for _, t := range ix.qa.Analyze([]byte(tok)) {
			term := string(t.Term)
			cl = append(cl,
				termQ(fName, term, bName),
				termQ(fNameAlt, term, bNameAlt),
				termQ(fNameEN, term, bNameEN),
				termQ(fSetName, term, bSetName),
				termQ(fTags, term, bTags),
			)
			if t.Type == analysis.Ideographic || t.Type == analysis.Double || t.Type == analysis.Single || isDigits(term) {
				continue
			}
			// Typo tolerance for words the names do not have: a fuzzy
			// match costs a walk of the term dictionary, so a word that is
			// a name term already goes without.
			if n := len(term); n >= 4 && !known(fName, term) && !known(fNameAlt, term) {
				fz := 1
				if n >= 8 {
					fz = 2
				}
				fq := query.NewFuzzyQuery(term)
				fq.SetField(fName)
				fq.SetFuzziness(fz)
				if fz > 1 {
					fq.SetPrefix(1)
				}
				fq.SetBoost(bFuzzy)
				cl = append(cl, fq)
			}
			if last && len(term) >= 3 {
				pq := query.NewPrefixQuery(term)
				pq.SetField(fName)
				pq.SetBoost(bPrefix)
				cl = append(cl, pq)
			}
		}
		groups = append(groups, query.NewDisjunctionQuery(cl))
	}
	// Whole-phrase matches: every run of up to maxShingle words of the query
	// against the exact (normalized) card names and set names, each its own
	// clause, so "charizard base set 4" finds the set named exactly "base set"
	// (Base, not Base Set 2) and the card named exactly "charizard".
	words := strings.Fields(normalizeText(q))
	if len(words) > maxQueryWords {
		words = words[:maxQueryWords]
	}
	for n := 1; n <= min(len(words), maxShingle); n++ {
		for i := 0; i+n <= len(words); i++ {
			// a longer exact phrase is stronger evidence (weight n²)
			g, w := strings.Join(words[i:i+n], " "), float64(n*n)
			groups = append(groups, termQ(fNameExact, g, bNameExact*w), termQ(fSetExact, g, bSetExact*w))
			if n > 1 {
				groups = append(groups, termQ(fNameExact, strings.Join(words[i:i+n], ""), bNameExact*w))
			}
		}
	}
	return query.NewDisjunctionQuery(groups), nil
}

// termChecker returns a function that reports whether a field's dictionary
// has a term, and a function that releases it.
func (ix *Index) termChecker() (known func(field, term string) bool, done func(), err error) {
	adv, err := ix.bleve.Advanced()
	if err != nil {
		return nil, nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, nil, err
	}
	rc, ok := r.(index.IndexReaderContains)
	if !ok { // cannot tell: every word gets its fuzzy match
		r.Close()
		return func(string, string) bool { return false }, func() {}, nil
	}
	dicts := map[string]index.FieldDictContains{}
	known = func(field, term string) bool {
		d, ok := dicts[field]
		if !ok {
			d, _ = rc.FieldDictContains(field)
			dicts[field] = d
		}
		if d == nil {
			return false
		}
		has, err := d.Contains([]byte(term))
		return err == nil && has
	}
	return known, func() { r.Close() }, nil
}
