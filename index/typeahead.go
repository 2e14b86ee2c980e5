package index

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Typeahead tuning. See doc.go for the structure.
const (
	// TopK is the number of ranked entries precomputed for a hot prefix and
	// the largest Lookup limit.
	TopK = 100
	// hotThreshold: a prefix whose keys carry more postings than this gets
	// precomputed top-K lists; any other prefix is answered by scanning at
	// most hotThreshold postings.
	hotThreshold = 256
	// exactKeyBoost multiplies the score of entries whose key equals the
	// whole query ("mew" ranks Mew before the more popular Mewtwo).
	exactKeyBoost = 3

	nScopes = 1 + 4 // all, then snapshots.Languages order
)

// Key weights: how well a kind of key stands for its entity.
const (
	wName     = 1.0  // the name, normalized
	wCompact  = 0.9  // the name without spaces ("hooh", "mrmime")
	wTranslit = 0.9  // romaji / pinyin of a Japanese / Chinese name
	wID       = 0.8  // card id, set id, source id, set code
	wSuffix   = 0.6  // a later word of the name ("vmax" of "Umbreon VMAX")
	wSetCode  = 0.5  // set id, source id, abbreviation ("mew" is also the code of the 151 set)
	wLinkedEN = 0.55 // English name of the linked English card
)

// langScope maps a card language to its scope (1..4); 0 = none.
func langScope(l string) uint8 {
	switch l {
	case "en":
		return 1
	case "ja":
		return 2
	case "zh-cn":
		return 3
	case "zh-tw":
		return 4
	}
	return 0
}

var scopeNames = [nScopes]string{"", "en", "ja", "zh-cn", "zh-tw"}

// scopeOf maps a Lookup language argument to a scope: "" and "all" mean
// every language.
func scopeOf(language string) (int, bool) {
	if language == "" || language == "all" {
		return 0, true
	}
	if s := langScope(language); s != 0 {
		return int(s), true
	}
	return 0, false
}

const (
	kindCard uint8 = 0
	kindSet  uint8 = 1
)

// table is the decoded typeahead.bin: the entity table (cards first, in row
// order, then sets), the per-card search data, and one prefix structure per
// game.
type table struct {
	nCards int
	kind   []uint8
	lang   []uint8   // scope 0..4
	score  []float32 // 1 + popularity (see popularity)
	boost  []float32 // cards only: popularity normalized to [0,1] per game
	group  []uint32  // cards only: collapse group ((game, set, number))
	price  []int64   // cards only: PriceCents (0 = unpriced), for the price filter
	strs   string
	strOff []uint32 // 4 strings per entity: id, label, detail, set id

	// json holds every entity's display members as encoding/json writes
	// them (kind through set_id, see Suggestion.AppendJSONMembers); entity
	// e's are json[jsonOff[e]:jsonOff[e+1]]. Computed by decodeTable, not
	// stored in typeahead.bin.
	json    string
	jsonOff []uint32
	// disp gathers what a suggestion shows of each entity in one record,
	// so that answering reads one place per entity instead of five arrays
	// (computed by decodeTable).
	disp []entDisp

	games   []gameTable
	gameIdx map[string]int
}

const (
	sID = iota
	sLabel
	sDetail
	sSetID
	nStrs
)

func (t *table) str(ent uint32, which int) string {
	i := int(ent)*nStrs + which
	return t.strs[t.strOff[i]:t.strOff[i+1]]
}

// gameTable is the prefix structure of one game.
type gameTable struct {
	name string

	// keys sorted bytewise; postings of key i are postEnt[postOff[i]:postOff[i+1]],
	// best first.
	keys      string
	keyOff    []uint32
	postOff   []uint32
	postEnt   []uint32
	postScore []float32

	// hot prefixes sorted; the top list of hot prefix h for scope s is
	// hotPost[hotStart[h*nScopes+s]:hotStart[h*nScopes+s+1]] (posting indices).
	hot      string
	hotOff   []uint32
	hotStart []uint32
	hotPost  []uint32

	// Computed by decodeTable (typeahead_hash.go), not stored: the key of
	// each hot posting, hash tables of the hot prefixes and of the exact
	// ids, and each hot prefix's key range.
	hotPostKey   []uint32
	hotSet       strSet
	hotLo, hotHi []uint32
	exactSet     strSet

	// exact ids sorted (key, then rank): exactEnt[i] is the entity of exact key i.
	exact    string
	exactOff []uint32
	exactEnt []uint32
}

func (g *gameTable) key(i int) string    { return g.keys[g.keyOff[i]:g.keyOff[i+1]] }
func (g *gameTable) hotKey(i int) string { return g.hot[g.hotOff[i]:g.hotOff[i+1]] }
func (g *gameTable) exKey(i int) string  { return g.exact[g.exactOff[i]:g.exactOff[i+1]] }
func (g *gameTable) nKeys() int          { return len(g.keyOff) - 1 }

// keyOfPosting returns the index of the key that posting p belongs to.
func (g *gameTable) keyOfPosting(p uint32) int {
	return sort.Search(g.nKeys(), func(i int) bool { return g.postOff[i+1] > p })
}

// Suggestion is one typeahead answer.
type Suggestion struct {
	Kind     string  `json:"kind"` // "card" or "set"
	ID       string  `json:"id"`
	Label    string  `json:"label"`            // card or set name as printed
	Detail   string  `json:"detail,omitempty"` // card: "<set name> · <number>"; set: "<code> · <release date> · <n> cards"
	Language string  `json:"language"`
	SetID    string  `json:"set_id,omitempty"` // cards: their set
	Score    float64 `json:"score"`            // rank score; higher first (exact resolutions come first whatever it is)
	Match    string  `json:"match"`            // the normalized key that matched, e.g. "rizadon" or "en:base1-4"
	Exact    bool    `json:"exact,omitempty"`  // resolved by an exact card id, set id or partner product id
	// PriceCents is a card's PriceCents as the builder gave it (raw
	// near-mint fmv; 0: unpriced, and always 0 for a set), so callers show a
	// price without reading the card.
	PriceCents int64 `json:"-"`

	// json is the entity's display members (Kind through SetID) encoded
	// once by Open; "" for a Suggestion made elsewhere.
	json string
}

type cand struct {
	rank  uint64 // rankOf(score, kind, ent): ascending is rank order
	ent   uint32
	post  uint32 // posting index, or ^0 for none
	score float32
	key   int32 // index of the posting's key, or -1 when not known yet
}

// rankOf packs compare's order into one integer, ascending in rank order:
// the score descending (its bits turned into an unsigned order), then sets
// before cards, then entity order. validate ensures kind <= 1 and entity
// numbers below 2^31.
func (t *table) rankOf(score float32, ent uint32) uint64 {
	b := math.Float32bits(score)
	if b&(1<<31) != 0 {
		b = ^b // negative: larger magnitude is smaller
	} else {
		b |= 1 << 31
	}
	return uint64(^b)<<32 | uint64(1-t.kind[ent])<<31 | uint64(ent)
}

var candPool = sync.Pool{New: func() any { s := make([]cand, 0, 512); return &s }}

// lookup answers one typeahead query; see Index.Lookup.
func (t *table) lookup(game, q, language string, limit int) []Suggestion {
	return t.appendLookup(nil, game, q, language, limit)
}

// lookupRequest is a typeahead query read: the game's table, the language scope,
// the limit clamped to 1..TopK, q normalized as text and as an id.
type lookupRequest struct {
	g        *gameTable
	scope    int
	limit    int
	text, id string
}

// readLookup reads a lookup's request; false when it answers nothing (an
// unknown game or language, or q empty once normalized).
func (t *table) readLookup(game, q, language string, limit int) (lookupRequest, bool) {
	gi, ok := t.gameIdx[game]
	if !ok {
		return lookupRequest{}, false
	}
	scope, ok := scopeOf(language)
	if !ok {
		return lookupRequest{}, false
	}
	if limit <= 0 {
		limit = DefaultLookupLimit
	}
	l := lookupRequest{g: &t.games[gi], scope: scope, limit: min(limit, TopK), text: normalizeText(q), id: normalizeID(q)}
	return l, l.text != "" || l.id != ""
}

// appendLookup appends the answer of one typeahead query to dst.
//
// Every source of candidates is a run already ranked at build time: the
// top list of a hot prefix, or the postings of one key (best first, one per
// entity). A run's entries are distinct entities, so only its first limit
// entries in scope can be among the first limit distinct entities of the
// merged ranking: collect takes no more. The candidates (a few times limit)
// are then heap-ordered and popped until limit distinct entities are taken,
// which gives the order of a full sort without paying for one.
func (t *table) appendLookup(dst []Suggestion, game, q, language string, limit int) []Suggestion {
	l, ok := t.readLookup(game, q, language, limit)
	if !ok {
		return dst
	}
	g, scope, limit, tn, in := l.g, l.scope, l.limit, l.text, l.id
	base := len(dst)
	if cap(dst)-base < limit {
		dst = slices.Grow(dst, limit)
	}
	var takenBuf [TopK]uint32 // entities already answered: no allocation for the dedup
	taken := takenBuf[:0]

	// 1. Exact ids resolve first.
	if lo, ok := g.exactFirst(in); ok {
		for i := lo; i < len(g.exactEnt) && g.exKey(i) == in && len(dst)-base < limit; i++ {
			e := g.exactEnt[i]
			if scope != 0 && int(t.lang[e]) != scope {
				continue
			}
			s := t.suggestion(e, float64(t.score[e])*exactKeyBoost, in)
			s.Exact = true
			dst = append(dst, s)
			taken = append(taken, e)
		}
	}

	// 2. Ranked prefix matches over the text form and, when it differs, the
	// id form of the query.
	bp := candPool.Get().(*[]cand)
	cands := (*bp)[:0]
	if tn != "" {
		cands = t.collect(g, cands, tn, scope, limit)
	}
	if in != "" && in != tn {
		cands = t.collect(g, cands, in, scope, limit)
	}
	h := candHeap{t: t, c: cands}
	h.init()
	for len(dst)-base < limit && len(h.c) > 0 {
		c := h.pop()
		if slices.Contains(taken, c.ent) {
			continue
		}
		taken = append(taken, c.ent)
		match := ""
		if c.key >= 0 {
			match = g.key(int(c.key))
		} else if c.post != ^uint32(0) {
			match = g.key(g.keyOfPosting(c.post))
		}
		dst = append(dst, t.suggestion(c.ent, float64(c.score), match))
	}
	*bp = cands[:0]
	candPool.Put(bp)
	return dst
}

// candHeap is a min-heap of candidates in rank order (the best at the
// root): score descending, sets before cards, entity order, then posting
// order (one entity under two keys: a stable Match).
type candHeap struct {
	t *table
	c []cand
}

func (h *candHeap) less(i, j int) bool {
	a, b := &h.c[i], &h.c[j]
	return a.rank < b.rank || a.rank == b.rank && a.post < b.post
}

func (h *candHeap) init() {
	for i := len(h.c)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *candHeap) down(i int) {
	n := len(h.c)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h.c[i], h.c[m] = h.c[m], h.c[i]
		i = m
	}
}

func (h *candHeap) pop() cand {
	top := h.c[0]
	n := len(h.c) - 1
	h.c[0] = h.c[n]
	h.c = h.c[:n]
	h.down(0)
	return top
}

// compare orders ranked entries: score descending, then sets before cards,
// then entity order (catalog order).
func (t *table) compare(as float32, ae uint32, bs float32, be uint32) int {
	if as != bs {
		if as > bs {
			return -1
		}
		return 1
	}
	if t.kind[ae] != t.kind[be] {
		return -cmp.Compare(t.kind[ae], t.kind[be])
	}
	return cmp.Compare(ae, be)
}

// collect appends the candidates for prefix p in scope to cands: of each
// ranked run (a hot prefix's top list, the postings of one key) only its
// first limit entries in scope (see appendLookup).
func (t *table) collect(g *gameTable, cands []cand, p string, scope, limit int) []cand {
	// run appends the first limit postings in scope of key k.
	run := func(cands []cand, k int, boost float32) []cand {
		found := 0
		for post := g.postOff[k]; post < g.postOff[k+1] && found < limit; post++ {
			if e := g.postEnt[post]; scope == 0 || int(t.lang[e]) == scope {
				sc := g.postScore[post] * boost
				cands = append(cands, cand{rank: t.rankOf(sc, e), ent: e, post: post, score: sc, key: int32(k)})
				found++
			}
		}
		return cands
	}

	if h, ok := g.hotOf(p); ok {
		i := h*nScopes + scope
		from, to := int(g.hotStart[i]), int(g.hotStart[i+1])
		to = min(to, from+limit)
		for j := from; j < to; j++ {
			post := g.hotPost[j]
			e, sc := g.postEnt[post], g.postScore[post]
			cands = append(cands, cand{rank: t.rankOf(sc, e), ent: e, post: post, score: sc, key: int32(g.hotPostKey[j])})
		}
		if lo := int(g.hotLo[h]); lo < int(g.hotHi[h]) && g.key(lo) == p {
			cands = run(cands, lo, exactKeyBoost)
		}
		return cands
	}
	lo, hi := g.keyRange(p)
	for k := lo; k < hi; k++ {
		boost := float32(1)
		if k == lo && g.key(k) == p {
			boost = exactKeyBoost
		}
		cands = run(cands, k, boost)
	}
	return cands
}

func kindName(k uint8) string {
	if k == kindSet {
		return "set"
	}
	return "card"
}

// suggestion makes the answer for entity e. Its score is shown to 4
// decimals: the float32 rank scores have about 7 significant digits, and
// printed as float64 they showed 17 of noise (14.840437889099121); the
// ranking itself is done before, on the full values.
func (t *table) suggestion(e uint32, score float64, match string) Suggestion {
	score = math.Round(score*1e4) / 1e4
	if t.disp != nil {
		// one record read per entity (see entDisp)
		d := &t.disp[e]
		return Suggestion{
			Kind:       kindName(d.kind),
			ID:         t.strs[d.str[sID]:d.str[sID+1]],
			Label:      t.strs[d.str[sLabel]:d.str[sLabel+1]],
			Detail:     t.strs[d.str[sDetail]:d.str[sDetail+1]],
			Language:   scopeNames[d.lang],
			SetID:      t.strs[d.str[sSetID]:d.str[sSetID+1]],
			Score:      score,
			Match:      match,
			PriceCents: d.price,
			json:       t.json[d.json[0]:d.json[1]],
		}
	}
	s := Suggestion{
		Kind:     kindName(t.kind[e]),
		ID:       t.str(e, sID),
		Label:    t.str(e, sLabel),
		Detail:   t.str(e, sDetail),
		Language: scopeNames[t.lang[e]],
		SetID:    t.str(e, sSetID),
		Score:    score,
		Match:    match,
	}
	if int(e) < t.nCards {
		s.PriceCents = t.price[e]
	}
	return s
}

// ---- building ----

// taEntity is an entity while the table is being built.
type taEntity struct {
	kind                     uint8
	lang                     uint8
	game                     string
	id, label, detail, setID string
	score                    float32
	boost                    float32
	group                    uint32
	price                    int64
	keys                     []taKey
	exact                    []string
}

type taKey struct {
	key    string
	weight float32
}

type posting struct {
	ent   uint32
	score float32
}

// buildTable turns entities (cards first, then sets) into a table.
func buildTable(ents []taEntity, nCards int, games []string) *table {
	t := &table{nCards: nCards, gameIdx: map[string]int{}}
	t.kind = make([]uint8, len(ents))
	t.lang = make([]uint8, len(ents))
	t.score = make([]float32, len(ents))
	t.boost = make([]float32, nCards)
	t.group = make([]uint32, nCards)
	t.price = make([]int64, nCards)
	t.strOff = make([]uint32, 0, len(ents)*nStrs+1)
	var sb strings.Builder
	for i := range ents {
		e := &ents[i]
		t.kind[i], t.lang[i], t.score[i] = e.kind, e.lang, e.score
		if i < nCards {
			t.boost[i], t.group[i], t.price[i] = e.boost, e.group, e.price
		}
		for _, s := range [nStrs]string{e.id, e.label, e.detail, e.setID} {
			t.strOff = append(t.strOff, uint32(sb.Len()))
			sb.WriteString(s)
		}
	}
	t.strOff = append(t.strOff, uint32(sb.Len()))
	t.strs = sb.String()

	for gi, name := range games {
		t.gameIdx[name] = gi
		t.games = append(t.games, t.buildGame(name, ents))
	}
	return t
}

func (t *table) buildGame(name string, ents []taEntity) gameTable {
	g := gameTable{name: name}
	byKey := map[string][]posting{}
	type exactPair struct {
		key string
		ent uint32
	}
	var exact []exactPair
	for i := range ents {
		e := &ents[i]
		if e.game != name {
			continue
		}
		for _, k := range e.keys {
			if k.key == "" {
				continue
			}
			byKey[k.key] = append(byKey[k.key], posting{ent: uint32(i), score: e.score * k.weight})
		}
		for _, x := range e.exact {
			if x != "" {
				exact = append(exact, exactPair{x, uint32(i)})
			}
		}
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	slices.Sort(keys)

	var kb strings.Builder
	g.keyOff = make([]uint32, 0, len(keys)+1)
	g.postOff = make([]uint32, 0, len(keys)+1)
	for _, k := range keys {
		ps := byKey[k]
		// best first; one posting per entity (its best weight)
		slices.SortFunc(ps, func(a, b posting) int {
			if a.ent != b.ent {
				return cmp.Compare(a.ent, b.ent)
			}
			return -cmp.Compare(a.score, b.score)
		})
		ps = slices.CompactFunc(ps, func(a, b posting) bool { return a.ent == b.ent })
		slices.SortFunc(ps, func(a, b posting) int { return t.compare(a.score, a.ent, b.score, b.ent) })
		g.keyOff = append(g.keyOff, uint32(kb.Len()))
		kb.WriteString(k)
		g.postOff = append(g.postOff, uint32(len(g.postEnt)))
		for _, p := range ps {
			g.postEnt = append(g.postEnt, p.ent)
			g.postScore = append(g.postScore, p.score)
		}
	}
	g.keyOff = append(g.keyOff, uint32(kb.Len()))
	g.postOff = append(g.postOff, uint32(len(g.postEnt)))
	g.keys = kb.String()

	t.buildHot(&g)

	slices.SortFunc(exact, func(a, b exactPair) int {
		if c := strings.Compare(a.key, b.key); c != 0 {
			return c
		}
		return t.compare(t.score[a.ent], a.ent, t.score[b.ent], b.ent)
	})
	exact = slices.Compact(exact)
	var xb strings.Builder
	for _, x := range exact {
		g.exactOff = append(g.exactOff, uint32(xb.Len()))
		xb.WriteString(x.key)
		g.exactEnt = append(g.exactEnt, x.ent)
	}
	g.exactOff = append(g.exactOff, uint32(xb.Len()))
	g.exact = xb.String()
	return g
}

// buildHot finds every prefix (of any length, in runes) whose keys carry
// more than hotThreshold postings and stores its top-K entities per scope.
// A prefix can only be hot if its one-rune-shorter prefix is, so each depth
// only looks inside the hot ranges of the previous one.
func (t *table) buildHot(g *gameTable) {
	type rng struct{ lo, hi int }
	n := g.nKeys()
	type hotEntry struct {
		prefix string
		lists  [nScopes][]uint32
	}
	var hot []hotEntry
	stamp := make([]uint32, len(t.kind))
	best := make([]float32, len(t.kind))
	epoch := uint32(0)
	heaps := [nScopes]topHeap{}
	for s := range heaps {
		heaps[s].t = t
		heaps[s].g = g
	}

	ranges := []rng{{0, n}}
	for d := 1; len(ranges) > 0; d++ {
		var next []rng
		for _, r := range ranges {
			i := r.lo
			for i < r.hi {
				k := g.key(i)
				p := firstRunes(k, d)
				if len(p) == len(k) && runeLen(k) < d {
					i++
					continue
				}
				j := i
				for j < r.hi && strings.HasPrefix(g.key(j), p) {
					j++
				}
				if int(g.postOff[j]-g.postOff[i]) > hotThreshold {
					next = append(next, rng{i, j})
					// best score per entity over the range
					epoch++
					for post := g.postOff[i]; post < g.postOff[j]; post++ {
						e := g.postEnt[post]
						if stamp[e] != epoch || g.postScore[post] > best[e] {
							stamp[e], best[e] = epoch, g.postScore[post]
						}
					}
					epoch++
					for s := range heaps {
						heaps[s].items = heaps[s].items[:0]
					}
					for post := g.postOff[i]; post < g.postOff[j]; post++ {
						e := g.postEnt[post]
						if stamp[e] == epoch || g.postScore[post] != best[e] {
							continue // not the entity's best posting, or already taken
						}
						stamp[e] = epoch
						heaps[0].push(post)
						if l := t.lang[e]; l != 0 {
							heaps[l].push(post)
						}
					}
					h := hotEntry{prefix: p}
					for s := range heaps {
						h.lists[s] = heaps[s].sorted()
					}
					hot = append(hot, h)
				}
				i = j
			}
		}
		ranges = next
	}
	slices.SortFunc(hot, func(a, b hotEntry) int { return strings.Compare(a.prefix, b.prefix) })
	var hb strings.Builder
	for _, h := range hot {
		g.hotOff = append(g.hotOff, uint32(hb.Len()))
		hb.WriteString(h.prefix)
		for s := 0; s < nScopes; s++ {
			g.hotStart = append(g.hotStart, uint32(len(g.hotPost)))
			g.hotPost = append(g.hotPost, h.lists[s]...)
		}
	}
	g.hotOff = append(g.hotOff, uint32(hb.Len()))
	g.hotStart = append(g.hotStart, uint32(len(g.hotPost)))
	g.hot = hb.String()
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// topHeap keeps the TopK best postings (a min-heap on rank: the root is the
// worst kept).
type topHeap struct {
	t     *table
	g     *gameTable
	items []uint32
}

// worse reports whether posting a ranks after posting b.
func (h *topHeap) worse(a, b uint32) bool {
	return h.t.compare(h.g.postScore[a], h.g.postEnt[a], h.g.postScore[b], h.g.postEnt[b]) > 0
}

func (h *topHeap) push(p uint32) {
	if len(h.items) < TopK {
		h.items = append(h.items, p)
		for i := len(h.items) - 1; i > 0; {
			parent := (i - 1) / 2
			if !h.worse(h.items[i], h.items[parent]) {
				break
			}
			h.items[i], h.items[parent] = h.items[parent], h.items[i]
			i = parent
		}
		return
	}
	if !h.worse(h.items[0], p) {
		return
	}
	h.items[0] = p
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h.items) && h.worse(h.items[l], h.items[m]) {
			m = l
		}
		if r < len(h.items) && h.worse(h.items[r], h.items[m]) {
			m = r
		}
		if m == i {
			break
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
}

func (h *topHeap) sorted() []uint32 {
	out := slices.Clone(h.items)
	slices.SortFunc(out, func(a, b uint32) int {
		return h.t.compare(h.g.postScore[a], h.g.postEnt[a], h.g.postScore[b], h.g.postEnt[b])
	})
	return out
}

// ---- encoding ----

const (
	taMagic   = "CETYPEAH"
	taVersion = 1
)

// ErrFormat means typeahead.bin is damaged or was written by another format
// version.
var ErrFormat = errors.New("index: bad typeahead file")

type encoder struct{ b []byte }

func (e *encoder) u32(v uint32) { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *encoder) str(s string) { e.u32(uint32(len(s))); e.b = append(e.b, s...) }
func (e *encoder) bytes(v []uint8) {
	e.u32(uint32(len(v)))
	e.b = append(e.b, v...)
}
func (e *encoder) u32s(v []uint32) {
	e.u32(uint32(len(v)))
	for _, x := range v {
		e.u32(x)
	}
}
func (e *encoder) f32s(v []float32) {
	e.u32(uint32(len(v)))
	for _, x := range v {
		e.u32(math.Float32bits(x))
	}
}

func (t *table) encode() []byte {
	e := &encoder{b: make([]byte, 0, 1<<20)}
	e.b = append(e.b, taMagic...)
	e.u32(taVersion)
	e.u32(uint32(t.nCards))
	e.bytes(t.kind)
	e.bytes(t.lang)
	e.f32s(t.score)
	e.f32s(t.boost)
	e.u32s(t.group)
	e.u32(uint32(len(t.price)))
	for _, p := range t.price {
		e.b = binary.LittleEndian.AppendUint64(e.b, uint64(p))
	}
	e.u32s(t.strOff)
	e.str(t.strs)
	e.u32(uint32(len(t.games)))
	for i := range t.games {
		g := &t.games[i]
		e.str(g.name)
		e.str(g.keys)
		e.u32s(g.keyOff)
		e.u32s(g.postOff)
		e.u32s(g.postEnt)
		e.f32s(g.postScore)
		e.str(g.hot)
		e.u32s(g.hotOff)
		e.u32s(g.hotStart)
		e.u32s(g.hotPost)
		e.str(g.exact)
		e.u32s(g.exactOff)
		e.u32s(g.exactEnt)
	}
	e.u32(crc32.ChecksumIEEE(e.b))
	return e.b
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) u32() uint32 {
	if d.err != nil || len(d.b) < 4 {
		d.fail("short data")
		return 0
	}
	v := binary.LittleEndian.Uint32(d.b)
	d.b = d.b[4:]
	return v
}

func (d *decoder) fail(msg string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrFormat, msg)
	}
}

func (d *decoder) take(n int) []byte {
	if d.err != nil || n < 0 || len(d.b) < n {
		d.fail("short data")
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) str() string    { return string(d.take(int(d.u32()))) }
func (d *decoder) bytes() []uint8 { return slices.Clone(d.take(int(d.u32()))) }
func (d *decoder) u32s() []uint32 { return decodeU32s(d.take(4 * int(d.u32()))) }
func (d *decoder) f32s() []float32 {
	raw := d.take(4 * int(d.u32()))
	out := make([]float32, len(raw)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return out
}

func decodeU32s(raw []byte) []uint32 {
	out := make([]uint32, len(raw)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(raw[4*i:])
	}
	return out
}

func decodeTable(b []byte) (*table, error) {
	if len(b) < len(taMagic)+8 || string(b[:len(taMagic)]) != taMagic {
		return nil, fmt.Errorf("%w: bad magic", ErrFormat)
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrFormat)
	}
	d := &decoder{b: body[len(taMagic):]}
	if v := d.u32(); v != taVersion {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrFormat, v, taVersion)
	}
	t := &table{gameIdx: map[string]int{}}
	t.nCards = int(d.u32())
	t.kind = d.bytes()
	t.lang = d.bytes()
	t.score = d.f32s()
	t.boost = d.f32s()
	t.group = d.u32s()
	raw := d.take(8 * int(d.u32()))
	t.price = make([]int64, len(raw)/8)
	for i := range t.price {
		t.price[i] = int64(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	t.strOff = d.u32s()
	t.strs = d.str()
	ng := int(d.u32())
	for i := 0; i < ng && d.err == nil; i++ {
		var g gameTable
		g.name = d.str()
		g.keys = d.str()
		g.keyOff = d.u32s()
		g.postOff = d.u32s()
		g.postEnt = d.u32s()
		g.postScore = d.f32s()
		g.hot = d.str()
		g.hotOff = d.u32s()
		g.hotStart = d.u32s()
		g.hotPost = d.u32s()
		g.exact = d.str()
		g.exactOff = d.u32s()
		g.exactEnt = d.u32s()
		t.gameIdx[g.name] = len(t.games)
		t.games = append(t.games, g)
	}
	if d.err != nil {
		return nil, d.err
	}
	if err := t.validate(); err != nil {
		return nil, err
	}
	for i := range t.games {
		t.games[i].buildHash()
	}
	t.buildJSON()
	return t, nil
}

// validate checks the invariants lookups rely on, so that a damaged file is
// an error at Open and never a panic later.
func (t *table) validate() error {
	n := len(t.kind)
	bad := func(what string) error { return fmt.Errorf("%w: %s", ErrFormat, what) }
	if len(t.lang) != n || len(t.score) != n || t.nCards > n || len(t.boost) != t.nCards || len(t.group) != t.nCards || len(t.price) != t.nCards {
		return bad("entity arrays")
	}
	if len(t.strOff) != n*nStrs+1 || !offsetsOK(t.strOff, len(t.strs)) {
		return bad("entity strings")
	}
	if n >= 1<<31 {
		return bad("entity count")
	}
	for _, l := range t.lang {
		if l >= nScopes {
			return bad("language")
		}
	}
	for _, k := range t.kind {
		if k > kindSet {
			return bad("kind")
		}
	}
	for i := range t.games {
		g := &t.games[i]
		nk := len(g.keyOff) - 1
		if nk < 0 || len(g.postOff) != nk+1 || !offsetsOK(g.keyOff, len(g.keys)) || !offsetsOK(g.postOff, len(g.postEnt)) ||
			len(g.postScore) != len(g.postEnt) {
			return bad("keys of " + g.name)
		}
		nh := len(g.hotOff) - 1
		if nh < 0 || !offsetsOK(g.hotOff, len(g.hot)) || len(g.hotStart) != nh*nScopes+1 || !offsetsOK(g.hotStart, len(g.hotPost)) {
			return bad("hot prefixes of " + g.name)
		}
		if len(g.exactOff) != len(g.exactEnt)+1 || !offsetsOK(g.exactOff, len(g.exact)) {
			return bad("exact ids of " + g.name)
		}
		for _, e := range g.postEnt {
			if int(e) >= n {
				return bad("posting entity")
			}
		}
		for _, p := range g.hotPost {
			if int(p) >= len(g.postEnt) {
				return bad("hot posting")
			}
		}
		for _, e := range g.exactEnt {
			if int(e) >= n {
				return bad("exact entity")
			}
		}
	}
	return nil
}

// offsetsOK reports whether off is non-decreasing, starts at 0 and ends at
// end.
func offsetsOK(off []uint32, end int) bool {
	if len(off) == 0 || off[0] != 0 || int(off[len(off)-1]) != end {
		return false
	}
	for i := 1; i < len(off); i++ {
		if off[i] < off[i-1] {
			return false
		}
	}
	return true
}
