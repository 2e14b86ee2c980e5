package index

import (
	"context"
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/cardedge/cardedge/index/syntax"
)

// The search syntax's filters as bitmaps (issue 35). A search with field
// terms used to hand Bleve one query per term and let its searchers step
// through every candidate, each range term unioning the postings of every
// value in range again, and the rescoring collector ranking every match.
// Now each term's cards are a bitmap over Bleve's document numbers,
// computed once per index (Bleve walks the term's query once, without
// scoring) and kept in a bounded cache; the tree of a query is and / or /
// and-not of those bitmaps, a few thousand words of work. The search then
// takes its page from the bitmap: without text, in popularity order (the
// order Bleve's rescoring gave), with text, as one conjunct Bleve advances
// through (docSetQuery) instead of the terms' searchers.

// filterCacheBytes bounds the term bitmaps an Index keeps: 32 MiB holds
// about 5,000 terms on the default snapshot (51k cards: 6.4 KB a term) and
// 1,300 on the large one. When full, the cache starts over.
const filterCacheBytes = 32 << 20

// docSet is a set of Bleve document numbers: bit n set for document n.
type docSet []uint64

func newDocSet(nDocs int) docSet { return make(docSet, (nDocs+63)/64) }

func (s docSet) add(n uint64)      { s[n/64] |= 1 << (n % 64) }
func (s docSet) has(n uint64) bool { return n/64 < uint64(len(s)) && s[n/64]&(1<<(n%64)) != 0 }

func (s docSet) and(o docSet) {
	for i := range s {
		s[i] &= o[i]
	}
}

func (s docSet) or(o docSet) {
	for i := range s {
		s[i] |= o[i]
	}
}

func (s docSet) andNot(o docSet) {
	for i := range s {
		s[i] &^= o[i]
	}
}

func (s docSet) count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// next returns the first member >= n, and false when there is none.
func (s docSet) next(n uint64) (uint64, bool) {
	w := n / 64
	if w >= uint64(len(s)) {
		return 0, false
	}
	word := s[w] &^ (1<<(n%64) - 1)
	for word == 0 {
		w++
		if w >= uint64(len(s)) {
			return 0, false
		}
		word = s[w]
	}
	return w*64 + uint64(bits.TrailingZeros64(word)), true
}

// filterBits is what an Index needs to run the syntax's filters as
// bitmaps: each game's documents and their popularity order, and the
// cache of term bitmaps. Nil when the document numbers do not map to rows
// (the filters then run as Bleve queries).
type filterBits struct {
	nDocs int
	games []docSet   // by gameIdx
	order [][]uint32 // by gameIdx: the game's documents, best popularityOnly first

	mu    sync.Mutex
	terms map[string]docSet
	bytes int
}

// newFilterBits builds the games' sets and orders (Open).
func newFilterBits(ix *Index) *filterBits {
	if ix.docRow == nil || ix.rowGame == nil {
		return nil
	}
	fb := &filterBits{nDocs: len(ix.docRow), terms: map[string]docSet{}}
	fb.games = make([]docSet, len(ix.t.games))
	fb.order = make([][]uint32, len(ix.t.games))
	for gi := range fb.games {
		fb.games[gi] = newDocSet(fb.nDocs)
		fb.order[gi] = make([]uint32, 0, ix.gameCards[gi])
	}
	score := make([]float64, fb.nDocs)
	for num, row := range ix.docRow {
		if int(row) >= ix.t.nCards {
			continue
		}
		gi := ix.rowGame[row]
		fb.games[gi].add(uint64(num))
		fb.order[gi] = append(fb.order[gi], uint32(num))
		score[num] = ix.popularityOfRow(int(row))
	}
	for _, o := range fb.order {
		// Bleve's collector ranks equal scores by document number.
		slices.SortStableFunc(o, func(a, b uint32) int {
			switch sa, sb := score[a], score[b]; {
			case sa > sb:
				return -1
			case sa < sb:
				return 1
			}
			return 0
		})
	}
	return fb
}

// popularityOfRow is popularityOnly's score of a card row.
func (ix *Index) popularityOfRow(row int) float64 {
	return (1 + PopularityWeight*float64(ix.t.boost[row])) * (1 - rowTieBreak*float64(row))
}

// cached returns the bitmap of key, computing it with make on a miss.
// The bitmaps are shared: callers never modify them.
func (fb *filterBits) cached(key string, make func() (docSet, error)) (docSet, error) {
	fb.mu.Lock()
	s, ok := fb.terms[key]
	fb.mu.Unlock()
	if ok {
		return s, nil
	}
	s, err := make()
	if err != nil {
		return nil, err
	}
	fb.mu.Lock()
	if fb.bytes+8*len(s) > filterCacheBytes {
		fb.terms, fb.bytes = map[string]docSet{}, 0
	}
	if _, ok := fb.terms[key]; !ok {
		fb.terms[key] = s
		fb.bytes += 8 * len(s)
	}
	fb.mu.Unlock()
	return s, nil
}

// walk returns the documents q matches (walked without scoring).
func (ix *Index) walk(ctx context.Context, r index.IndexReader, q query.Query) (docSet, error) {
	out := newDocSet(ix.fbits.nDocs)
	err := ix.eachMatch(ctx, r, q, func(d *search.DocumentMatch) {
		if len(d.IndexInternalID) == 8 {
			if num := binary.BigEndian.Uint64(d.IndexInternalID); num < uint64(ix.fbits.nDocs) {
				out.add(num)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachMatch walks q without scoring and calls visit with each document it
// matches (the match is returned to the pool after visit).
func (ix *Index) eachMatch(ctx context.Context, r index.IndexReader, q query.Query, visit func(*search.DocumentMatch)) error {
	s, err := q.Searcher(ctx, r, ix.bleve.Mapping(), search.SearcherOptions{Score: "none"})
	if err != nil {
		return searchErr(ctx, err)
	}
	defer s.Close()
	sctx := &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(s.DocumentMatchPoolSize(), 0), IndexReader: r}
	for i := 0; ; i++ {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		d, err := s.Next(sctx)
		if err != nil {
			return searchErr(ctx, err)
		}
		if d == nil {
			return nil
		}
		visit(d)
		sctx.DocumentMatchPool.Put(d)
	}
}

// filterSet returns the documents of game gi that match every filter of
// r: the syntax tree of r.Query and the request's language, set, rarity
// and variant. The result is the caller's own.
func (ix *Index) filterSet(ctx context.Context, gi int, r SearchRequest) (docSet, error) {
	adv, err := ix.bleve.Advanced()
	if err != nil {
		return nil, err
	}
	rd, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	out := slices.Clone(ix.fbits.games[gi])
	for _, f := range [][2]string{{fLanguage, r.Language}, {fSet, normKeyword(r.SetID)}, {fRarity, normKeyword(r.Rarity)}, {fVariant, normKeyword(r.Variant)}} {
		if f[1] == "" {
			continue
		}
		s, err := ix.fbits.cached("\x00"+f[0]+"\x00"+f[1], func() (docSet, error) { return ix.walk(ctx, rd, termQ(f[0], f[1], 0)) })
		if err != nil {
			return nil, err
		}
		out.and(s)
	}
	if r.Query != nil {
		if err := ix.andNode(ctx, rd, out, r.Query.Filter()); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// andNode keeps in dst the documents that match n (nil: every one), as
// compile's query of n matches them.
func (ix *Index) andNode(ctx context.Context, r index.IndexReader, dst docSet, n *syntax.Node) error {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case syntax.NodeAnd:
		pos, neg := splitNot(n.Nodes)
		for _, x := range pos {
			if err := ix.andNode(ctx, r, dst, x); err != nil {
				return err
			}
		}
		for _, x := range neg {
			s, err := ix.nodeSet(ctx, r, x)
			if err != nil {
				return err
			}
			dst.andNot(s)
		}
		return nil
	case syntax.NodeNot:
		s, err := ix.nodeSet(ctx, r, n.Nodes[0])
		if err != nil {
			return err
		}
		dst.andNot(s)
		return nil
	}
	s, err := ix.nodeSet(ctx, r, n)
	if err != nil {
		return err
	}
	dst.and(s)
	return nil
}

// nodeSet returns the documents (of every game) that match n; a term's
// set is the cache's (read-only), any other is new.
func (ix *Index) nodeSet(ctx context.Context, r index.IndexReader, n *syntax.Node) (docSet, error) {
	switch n.Kind {
	case syntax.NodeTerm:
		return ix.fbits.cached(n.Term.String(), func() (docSet, error) { return ix.walk(ctx, r, ix.termQuery(n.Term)) })
	case syntax.NodeOr:
		out := newDocSet(ix.fbits.nDocs)
		for _, x := range n.Nodes {
			s, err := ix.nodeSet(ctx, r, x)
			if err != nil {
				return nil, err
			}
			out.or(s)
		}
		return out, nil
	}
	// and, not: every document, narrowed.
	out := newDocSet(ix.fbits.nDocs)
	for i := range out {
		out[i] = ^uint64(0)
	}
	if err := ix.andNode(ctx, r, out, n); err != nil {
		return nil, err
	}
	return out, nil
}

// rankSet is the page of a search without text in relevance order: the
// documents of set in popularity order (the order and the scores the
// rescoring collector gives them), with collapse applied as Search applies
// it to the ranked window.
func (ix *Index) rankSet(gi int, set docSet, r SearchRequest) SearchResult {
	total := set.count()
	hitOf := func(num uint32) SearchHit {
		row := int(ix.docRow[num])
		return SearchHit{CardID: ix.t.str(uint32(row), sID), Score: ix.popularityOfRow(row)}
	}
	order := ix.fbits.order[gi]
	if !r.CollapseVariants {
		out := SearchResult{Total: total, Hits: make([]SearchHit, 0, max(0, min(r.Limit, total-r.Offset)))}
		seen := 0
		for _, num := range order {
			if len(out.Hits) == r.Limit || seen >= total {
				break
			}
			if !set.has(uint64(num)) {
				continue
			}
			if seen >= r.Offset {
				out.Hits = append(out.Hits, hitOf(num))
			}
			seen++
		}
		return out
	}
	// Collapse: the first CollapseWindow ranked matches, each group's
	// first, then the page.
	seenGroup := map[uint32]bool{}
	var kept []SearchHit
	window := 0
	for _, num := range order {
		if window == CollapseWindow || window >= total {
			break
		}
		if !set.has(uint64(num)) {
			continue
		}
		window++
		g := ix.t.group[ix.docRow[num]]
		if seenGroup[g] {
			continue
		}
		seenGroup[g] = true
		kept = append(kept, hitOf(num))
	}
	out := SearchResult{Total: len(kept) + total - window, Hits: []SearchHit{}}
	if r.Offset < len(kept) {
		out.Hits = kept[r.Offset:min(len(kept), r.Offset+r.Limit)]
	}
	return out
}

// docSetQuery selects the documents of a docSet, without weighing them: a
// conjunct that Bleve advances through in place of the filters' searchers.
type docSetQuery struct{ set docSet }

func (q docSetQuery) Searcher(context.Context, index.IndexReader, mapping.IndexMapping, search.SearcherOptions) (search.Searcher, error) {
	return &docSetSearcher{set: q.set, count: uint64(q.set.count())}, nil
}

// docSetSearcher walks a docSet in document order.
type docSetSearcher struct {
	set   docSet
	count uint64
	at    uint64 // the next document to look at
	id    [8]byte
}

func (s *docSetSearcher) match(ctx *search.SearchContext, num uint64) *search.DocumentMatch {
	s.at = num + 1
	d := ctx.DocumentMatchPool.Get()
	binary.BigEndian.PutUint64(s.id[:], num)
	d.IndexInternalID = append(d.IndexInternalID[:0], s.id[:]...)
	return d
}

func (s *docSetSearcher) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	num, ok := s.set.next(s.at)
	if !ok {
		s.at = uint64(len(s.set)) * 64
		return nil, nil
	}
	return s.match(ctx, num), nil
}

func (s *docSetSearcher) Advance(ctx *search.SearchContext, id index.IndexInternalID) (*search.DocumentMatch, error) {
	if len(id) == 8 {
		if num := binary.BigEndian.Uint64(id); num > s.at {
			s.at = num
		}
	}
	return s.Next(ctx)
}

func (s *docSetSearcher) Close() error               { return nil }
func (s *docSetSearcher) Weight() float64            { return 0 }
func (s *docSetSearcher) SetQueryNorm(float64)       {}
func (s *docSetSearcher) Count() uint64              { return s.count }
func (s *docSetSearcher) Min() int                   { return 0 }
func (s *docSetSearcher) Size() int                  { return 64 }
func (s *docSetSearcher) DocumentMatchPoolSize() int { return 1 }
