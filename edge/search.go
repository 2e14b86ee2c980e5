package edge

import (
	"errors"
	"math"
	"slices"
	"strconv"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

func (s *Server) registerSearchRoutes() {
	s.router.add(&route{method: "GET", pattern: "/api/v3/search", name: "search", contract: "search.v1", cacheable: true, hasGame: true,
		summary: "Full-text card search", schema: "Search",
		params: []paramSpec{
			pStr("q", 256, "Free text: names in any language (accents and case ignored; pinyin and romaji work), set names and codes, numbers (4, 004, 4/102, OP01-001), ids, rarity; typos tolerated. Cards that match every word answer; when none do, cards that match all words but one, then cards that match any word; total counts the cards of the step that answered. Field terms of the search syntax filter them (see below).\n\n"+syntax.Doc),
			pEnum("language", "", languageEnum, "Only cards of this language."),
			pStr("set_id", 64, "A set id (en:base1) or a set code (base1: every language edition)."),
			pStr("rarity", 64, "Only this rarity (case-insensitive)."),
			pStr("variant", 64, "A variant (holo/1st-edition) or one part of one (1st-edition, reverse)."),
			pFloat("min_price", 0, 0, false, "Lowest raw near-mint fmv in USD (unpriced cards never match a price filter)."),
			pFloat("max_price", 0, 0, false, "Highest raw near-mint fmv in USD."),
			pEnum("sort", "relevance", []string{"relevance", "volume", "name", "price"}, "relevance: text relevance boosted by popularity."),
			pEnum("collapse", "", []string{"variants"}, "variants: one hit per printed card (parallels and reprints of a row fold into it)."),
			pIntMin("offset", 0, "0", "Rows to skip."),
			pInt("limit", 1, 100, "25", "Rows to return."),
			pEnum("grader", "", []string{"slab", "bgs", "cgc"}, "Only cards with verified sales graded by this grader within window."),
			pBool("slab_only", "false", "Only cards with verified slab-graded sales (of any printing) within window."),
			pBool("raw_only", "false", "Only cards with verified raw (ungraded) sales (of any printing) within window."),
			pEnum("window", "all", []string{"1w", "1m", "3m", "6m", "1y", "all"}, "Window of the grader, slab_only and raw_only filters, counted back from as_of."),
			gameParam(),
		},
		handle: handleSearch})
	s.router.add(&route{method: "GET", pattern: "/api/v3/lookup", name: "lookup", contract: "lookup.v1", cacheable: true, hasGame: true,
		summary: "Typeahead lookup; resolves card ids, set ids and partner product ids", schema: "Lookup",
		params: []paramSpec{
			pStr("q", 256, "What the user typed so far (prefix of names, set names, ids; from the first character)."),
			pEnum("language", "", languageEnum, "Only entries of this language."),
			pInt("limit", 1, 100, "25", "Suggestions to return."),
			gameParam(),
		},
		handle: handleLookup})
}

// parseQ parses q with the search syntax (README "Search syntax"). A term
// that does not parse is a 422 at ["query", "q"] whose msg names the term,
// its position and the known fields; ctx carries them too.
func parseQ(p *params) (*syntax.Query, error) {
	q := p.str("q")
	parsed, err := syntax.Parse(q)
	var se *syntax.Error
	if errors.As(err, &se) {
		return nil, validationErrors{queryError("q", "search syntax: "+se.Error(), "value_error", q,
			map[string]any{"term": se.Term, "position": se.Pos, "known_fields": se.Known()})}
	}
	return parsed, err
}

type searchItem struct {
	Card       pricing.CardGold    `json:"card"`
	Score      float64             `json:"score"`
	Highlights map[string][]string `json:"highlights"`
}

func handleSearch(r *request) (any, error) {
	p := r.p
	if p.has("min_price") && p.has("max_price") && p.num("min_price") > p.num("max_price") {
		return nil, validationErrors{queryError("max_price", "max_price must not be below min_price", "value_error", p.num("max_price"), nil)}
	}
	parsed, err := parseQ(p)
	if err != nil {
		return nil, err
	}
	req := index.SearchRequest{
		Game: r.game, Q: p.str("q"), Language: p.str("language"), SetID: p.str("set_id"), Rarity: p.str("rarity"), Variant: p.str("variant"),
		MinPriceCents: -1, MaxPriceCents: -1, Sort: p.str("sort"), CollapseVariants: p.str("collapse") == "variants",
		Offset: p.int("offset"), Limit: p.int("limit"),
	}
	if parsed.Structured() { // plain words go as they always have
		req.Query = parsed
	}
	if req.Sort == "relevance" {
		req.Sort = ""
	}
	if p.has("min_price") {
		req.MinPriceCents = int64(math.Round(p.num("min_price") * 100))
	}
	if p.has("max_price") {
		req.MaxPriceCents = int64(math.Round(p.num("max_price") * 100))
	}
	// The activity filters (grader, slab_only, raw_only) walk the ranked
	// matches (pricing.SearchActive).
	var hits []index.SearchHit
	total, lowerBound := 0, false
	if a := pricing.NewActivity(r.snap.AsOf, p.str("window"), p.str("grader"), p.flag("slab_only"), p.flag("raw_only")); a == nil {
		res, err := r.snap.Index.Search(r.ctx, req)
		if err != nil {
			return nil, err
		}
		hits, total = res.Hits, res.Total
	} else {
		act, err := pricing.SearchActive(r.ctx, r.view(), req, a)
		if err != nil {
			return nil, err
		}
		hits, total, lowerBound = act.Hits, act.Total, act.LowerBound
	}
	// Each card is copied from its object encoded when the snapshot opened
	// (snapshot.cardDetail): no market read and no reflection per hit.
	pg := &searchPage{Query: p.str("q"), Sort: p.str("sort"), Total: total, TotalIsLowerBound: lowerBound,
		Offset: p.int("offset"), Limit: p.int("limit"), items: make([]searchPageItem, 0, len(hits))}
	for _, h := range hits {
		c, err := r.snap.Card(r.game, h.CardID)
		if err != nil {
			continue // the index and the catalog come from one snapshot; never expected
		}
		pg.items = append(pg.items, searchPageItem{card: r.snap.cardDetail(c), score: snapshots.Round2(h.Score), highlights: h.Highlights})
	}
	if total == 0 && parsed.Structured() {
		// Say which field value keeps the query from matching (issue 34).
		if pg.Hints, err = r.snap.Index.Hints(r.ctx, r.game, parsed.Filter()); err != nil {
			return nil, err
		}
	}
	return pg, nil
}

// searchNote is the search payload's note.
const searchNote = "relevance = text relevance boosted by popularity; highlights mark matched text with <mark>"

// searchPayload is the search route's payload as the OpenAPI document
// describes it (schema.go); searchPage writes the same bytes.
type searchPayload struct {
	Query             string       `json:"query"`
	Sort              string       `json:"sort"`
	Items             []searchItem `json:"items"`
	Total             int          `json:"total"`
	TotalIsLowerBound bool         `json:"total_is_lower_bound"`
	Offset            int          `json:"offset"`
	Limit             int          `json:"limit"`
	Note              string       `json:"note"`
	// Hints, when the query matches no card because of a field term's
	// value, say which values the field has (index.Hints); left out
	// otherwise.
	Hints []index.Hint `json:"hints,omitempty"`
}

// searchPage is the search payload encoded without reflection: the bytes
// encoding/json writes for the searchPayload of the same hits (see
// jsonAppender; TestSearch_Encoding compares the two), each card copied
// from its encoded object.
type searchPage struct {
	Query, Sort          string
	Total, Offset, Limit int
	TotalIsLowerBound    bool
	Hints                []index.Hint
	items                []searchPageItem
}

// searchPageItem is one hit: its card, its rounded score and its
// highlights (nil: none).
type searchPageItem struct {
	card       pricing.CardDetail
	score      float64
	highlights map[string][]string
}

var _ jsonAppender = (*searchPage)(nil)

// AppendJSON implements jsonAppender.
func (pg *searchPage) AppendJSON(b []byte) []byte {
	n := 256
	for i := range pg.items {
		n += pg.items[i].card.SizeHint() + 64
		for _, frags := range pg.items[i].highlights {
			for _, f := range frags {
				n += len(f) + 16
			}
		}
	}
	b = slices.Grow(b, n)
	b = append(b, `{"query":`...)
	b = jsontext.AppendStr(b, pg.Query)
	b = append(b, `,"sort":`...)
	b = jsontext.AppendStr(b, pg.Sort)
	b = append(b, `,"items":[`...)
	for i := range pg.items {
		it := &pg.items[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"card":`...)
		b = it.card.AppendJSON(b)
		b = append(b, `,"score":`...)
		b = jsontext.AppendNumber(b, it.score)
		b = append(b, `,"highlights":`...)
		b = appendHighlights(b, it.highlights)
		b = append(b, '}')
	}
	b = append(b, `],"total":`...)
	b = strconv.AppendInt(b, int64(pg.Total), 10)
	b = append(b, `,"total_is_lower_bound":`...)
	b = strconv.AppendBool(b, pg.TotalIsLowerBound)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(pg.Offset), 10)
	b = append(b, `,"limit":`...)
	b = strconv.AppendInt(b, int64(pg.Limit), 10)
	b = append(b, `,"note":`...)
	b = jsontext.AppendStr(b, searchNote)
	if len(pg.Hints) > 0 { // rare (no match): encoding/json's own bytes
		if hints, err := jsontext.Marshal(pg.Hints); err == nil { // strings only: cannot fail
			b = append(b, `,"hints":`...)
			b = append(b, hints...)
		}
	}
	return append(b, '}')
}

// appendHighlights writes a hit's highlights as encoding/json writes the
// map: keys in order, nil as {}.
func appendHighlights(b []byte, hl map[string][]string) []byte {
	if len(hl) == 0 {
		return append(b, "{}"...)
	}
	var keysBuf [8]string
	keys := keysBuf[:0]
	for k := range hl {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsontext.AppendStr(b, k)
		b = append(b, ':')
		b = jsontext.AppendStrs(b, hl[k])
	}
	return append(b, '}')
}

// handleLookup is the typeahead (index.LookupAnswer: no card read, no
// reflection).
func handleLookup(r *request) (any, error) {
	return index.NewLookupAnswer(r.snap.Index, r.game, r.p.str("q"), r.p.str("language"), r.p.int("limit")), nil
}
