package index

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"regexp"
	"strings"

	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/snapshots"
)

// The search syntax (package syntax) on the Bleve index. A parsed query's
// plain words at its top (Query.Text) rank as SearchRequest.Q does; the
// rest (Query.Filter) becomes one Bleve query that selects without
// scoring, a conjunct of the search like the request's other filters:
//
//   - field terms are term queries on keyword fields (artist, ptype, color,
//     attack, ability, attribute, legal, banned, reg, and the set, rarity,
//     language and variant fields the filters use) or term ranges over
//     numbers of ten digits (hp, retreat, cost, power, counter, life);
//   - a plain word matches as a whole (card id, set code, number form) or
//     when each of its analyzed terms is in the name, its romaji / pinyin,
//     the linked English name, the set name or the tags (no typo
//     tolerance, no prefix): the cards the narrowest pass of a one-word
//     search selects;
//   - and, or and not are conjunctions, disjunctions and boolean queries
//     (every card but); "!=" on a number is "less or greater", on a text
//     field "not equal".

// maxRun is the longest word run of a value the keyword fields of the
// syntax hold (longer values are also held whole).
const maxRun = 4

// wordRuns returns every run of up to maxRun consecutive words of the
// normalizeText form of each value, and each whole value.
func wordRuns(values ...string) []string {
	var out []string
	for _, v := range values {
		words := strings.Fields(normalizeText(v))
		for i := range words {
			for n := 1; n <= maxRun && i+n <= len(words); n++ {
				out = append(out, strings.Join(words[i:i+n], " "))
			}
		}
		if len(words) > maxRun {
			out = append(out, strings.Join(words, " "))
		}
	}
	return uniq(out...)
}

// numberTerm is the keyword of a number: ten digits, so that the terms
// sort as the numbers (the syntax's numbers are below 2^31).
func numberTerm(v int) string { return fmt.Sprintf("%010d", max(v, 0)) }

func num(v *int) *string {
	if v == nil {
		return nil
	}
	t := numberTerm(*v)
	return &t
}

// addPlay fills the syntax fields of d from card c.
func addPlay(d *doc, c *snapshots.Card) {
	d.Color = wordRuns(c.Colors...)
	types := []string{c.Supertype}
	types = append(types, c.Subtypes...)
	if p := c.Play.Pokemon; p != nil {
		types = append(types, p.Types...)
		d.Artist = wordRuns(p.Artist)
		names := make([]string, 0, len(p.Attacks))
		for _, a := range p.Attacks {
			names = append(names, a.Name)
		}
		d.Attack = wordRuns(names...)
		names = names[:0]
		for _, a := range p.Abilities {
			names = append(names, a.Name)
		}
		d.Ability = wordRuns(names...)
		for _, f := range snapshots.Formats {
			switch p.Legalities.Of(f) {
			case snapshots.LegalityLegal:
				d.Legal = append(d.Legal, f)
			case snapshots.LegalityBanned:
				d.Banned = append(d.Banned, f)
			}
		}
		if r := normalizeText(p.RegulationMark); r != "" {
			d.Reg = &r
		}
		d.HP, d.Retreat = num(p.HP), num(p.Retreat)
	}
	if p := c.Play.OnePiece; p != nil {
		d.Attribute = wordRuns(p.Attributes...)
		d.Cost, d.Power, d.Counter, d.Life = num(p.Cost), num(p.Power), num(p.Counter), num(p.Life)
	}
	d.Type = wordRuns(types...)
}

// numericFields are the Bleve fields of the syntax's number fields.
var numericFields = map[string]string{
	syntax.FieldHP: fHP, syntax.FieldRetreat: fRetreat, syntax.FieldCost: fCost,
	syntax.FieldPower: fPower, syntax.FieldCounter: fCounter, syntax.FieldLife: fLife,
}

// runFields are the Bleve fields of the syntax's fields matched against
// word runs.
var runFields = map[string]string{
	syntax.FieldArtist: fArtist, syntax.FieldType: fType, syntax.FieldColor: fColor,
	syntax.FieldAttack: fAttack, syntax.FieldAbility: fAbility, syntax.FieldAttribute: fAttribute,
}

// printingAliases are other names of printings (is:), in normKeyword form.
var printingAliases = map[string]string{
	"1st": "1st-edition", "first-edition": "1st-edition", "firstedition": "1st-edition", "1e": "1st-edition",
	"1st-ed": "1st-edition", "first": "1st-edition",
	"reverse-holo": "reverse", "reverseholo": "reverse", "rh": "reverse",
	"alt": "alternate-art", "alt-art": "alternate-art", "altart": "alternate-art", "alternate": "alternate-art",
	"parallel": "alternate-art", "aa": "alternate-art",
	"foil": "holo", "holofoil": "holo",
}

// compile returns the Bleve query of a syntax tree. It never fails: a term
// of a field the index does not know matches no card.
func (ix *Index) compile(n *syntax.Node) query.Query {
	switch n.Kind {
	case syntax.NodeAnd:
		pos, neg := splitNot(n.Nodes)
		return ix.andNot(ix.compileAll(pos), ix.compileAll(neg))
	case syntax.NodeOr:
		return query.NewDisjunctionQuery(ix.compileAll(n.Nodes))
	case syntax.NodeNot:
		return ix.andNot(nil, []query.Query{ix.compile(n.Nodes[0])})
	}
	return ix.termQuery(n.Term)
}

func (ix *Index) compileAll(ns []*syntax.Node) []query.Query {
	qs := make([]query.Query, len(ns))
	for i, n := range ns {
		qs[i] = ix.compile(n)
	}
	return qs
}

// splitNot splits the children of an "and" into the positive ones and the
// operands of the negated ones: -x gives x, a text term with "!=" the
// term with "=".
func splitNot(ns []*syntax.Node) (pos, neg []*syntax.Node) {
	for _, n := range ns {
		switch {
		case n.Kind == syntax.NodeNot:
			neg = append(neg, n.Nodes[0])
		case n.Kind == syntax.NodeTerm && n.Term.Op == syntax.OpNe && numericFields[n.Term.Field] == "":
			t := n.Term
			t.Op = syntax.OpEq
			neg = append(neg, &syntax.Node{Kind: syntax.NodeTerm, Term: t})
		default:
			pos = append(pos, n)
		}
	}
	return pos, neg
}

// topNodes returns the conjuncts of n: its children when it is an "and",
// else n alone (none for nil).
func topNodes(n *syntax.Node) []*syntax.Node {
	switch {
	case n == nil:
		return nil
	case n.Kind == syntax.NodeAnd:
		return n.Nodes
	}
	return []*syntax.Node{n}
}

// filterQueries are the filters of a search for the syntax tree n: the
// queries of its positive conjuncts and of the operands of its negated
// ones. The search runs them without scoring, the negated ones as the
// must-not part of a boolean query, so that Bleve skips through their
// postings rather than walking every card.
func (ix *Index) filterQueries(n *syntax.Node) (pos, neg []query.Query) {
	p, ng := splitNot(topNodes(n))
	return ix.compileAll(p), ix.compileAll(ng)
}

// andNot matches the cards that match every query of pos and none of
// neg. Bleve walks pos and skips through neg (a boolean query); with no
// pos, it walks every document.
func (ix *Index) andNot(pos, neg []query.Query) query.Query {
	if len(neg) == 0 {
		if len(pos) == 1 {
			return pos[0]
		}
		return query.NewConjunctionQuery(pos)
	}
	if len(pos) == 0 {
		pos = []query.Query{query.NewMatchAllQuery()}
	}
	return query.NewBooleanQuery(pos, nil, neg)
}

func (ix *Index) termQuery(t syntax.Term) query.Query {
	if t.Field == "" {
		return ix.wordsQuery(t.Value)
	}
	f, ok := syntax.LookupField(t.Field)
	if !ok {
		return query.NewMatchNoneQuery()
	}
	if setField(f.Name) {
		return ix.setFieldQuery(t)
	}
	key := factKey(f.Name)
	var q query.Query
	switch {
	case t.Wildcard && t.Value == "*" && alwaysHas(f.Name):
		q = query.NewMatchAllQuery()
	case t.Wildcard && t.Value == "*":
		q = termQ(fFacts, key+factHas, 0)
	case t.Wildcard:
		q = globQuery(f, t)
	case t.Op == syntax.OpRange:
		return rangeQuery(f, t.Range)
	case f.Kind == syntax.KindNumber || f.Kind == syntax.KindDate:
		return compareQuery(f, t) // "!=" included
	case t.Exact && f.Kind == syntax.KindText && wholeFact(f) && f.Name != syntax.FieldSet:
		q = termQ(fFacts, key+factWhole+normalizeText(t.Value), 0)
	default:
		q = ix.valueQuery(f, t.Value)
	}
	if t.Op == syntax.OpNe {
		return ix.andNot(nil, []query.Query{q})
	}
	return q
}

// valueQuery matches the cards whose field f has value v, as the field
// compares (see syntax.Kind): words of a text value, a whole keyword or
// enum value.
func (ix *Index) valueQuery(f syntax.Field, v string) query.Query {
	key := factKey(f.Name)
	switch f.Name {
	case syntax.FieldName:
		return ix.nameQuery(v)
	case syntax.FieldLegal:
		return termQ(fLegal, strings.ToLower(v), 0)
	case syntax.FieldBanned:
		return termQ(fBanned, strings.ToLower(v), 0)
	case syntax.FieldReg:
		return termQ(fReg, normalizeText(v), 0)
	case syntax.FieldSet:
		return query.NewDisjunctionQuery([]query.Query{
			termQ(fSet, normKeyword(v), 0),
			termQ(fSetCode, normalizeID(v), 0),
			termQ(fSetCode, compactID(v), 0),
			termQ(fSetExact, normalizeText(v), 0),
		})
	case syntax.FieldLang:
		return termQ(fLanguage, strings.ToLower(v), 0)
	case syntax.FieldID:
		return termQ(fIDs, normalizeID(v), 0)
	case syntax.FieldSetID:
		return termQ(fSet, normKeyword(v), 0)
	case syntax.FieldIs:
		v := normKeyword(v)
		if a, ok := printingAliases[v]; ok {
			v = a
		}
		return termQ(fVariant, v, 0)
	case syntax.FieldLegalStandard, syntax.FieldLegalExpanded, syntax.FieldLegalUnlimited:
		format := strings.TrimPrefix(f.Name, "legalities.")
		if strings.ToLower(v) == snapshots.LegalityBanned {
			return termQ(fBanned, format, 0)
		}
		return termQ(fLegal, format, 0)
	}
	if field, ok := runFields[f.Name]; ok {
		return termQ(field, normalizeText(v), 0)
	}
	switch f.Kind {
	case syntax.KindKeyword:
		return termQ(fFacts, key+factWhole+normalizeID(v), 0)
	case syntax.KindEnum:
		return termQ(fFacts, key+factWhole+strings.ToLower(v), 0)
	}
	return termQ(fFacts, key+factRun+normalizeText(v), 0)
}

// globQuery matches the cards with a value of f that the wildcard pattern
// of t matches: each piece between "*" normalized as the values it is
// matched against (see facts.go), each "*" any run of characters. A text
// field's pattern is matched against its word runs (against its whole
// values with "!"), a keyword field's against its whole values.
func globQuery(f syntax.Field, t syntax.Term) query.Query {
	key := factKey(f.Name)
	field, prefix, norm := fFacts, key+factRun, normalizeText
	switch {
	case f.Name == syntax.FieldSet: // set ids and codes, or whole set names
		codes := query.NewRegexpQuery(globRegexp("", t.Value, normalizeID))
		codes.SetField(fSetCode)
		names := query.NewRegexpQuery(globRegexp("", t.Value, normalizeText))
		names.SetField(fSetExact)
		return query.NewDisjunctionQuery([]query.Query{codes, names})
	case f.Name == syntax.FieldID:
		field, prefix, norm = fIDs, "", normalizeID
	case f.Name == syntax.FieldSetID:
		field, prefix, norm = fSet, "", normKeyword
	case f.Name == syntax.FieldReg:
		field, prefix = fReg, ""
	case f.Name == syntax.FieldIs:
		field, prefix, norm = fVariant, "", normKeyword
	case f.Kind == syntax.KindKeyword:
		prefix, norm = key+factWhole, normalizeID
	case t.Exact:
		prefix = key + factWhole
	case runFields[f.Name] != "":
		field, prefix = runFields[f.Name], ""
	}
	q := query.NewRegexpQuery(globRegexp(prefix, t.Value, norm))
	q.SetField(field)
	return q
}

// globRegexp is the regular expression of a term of prefix and wildcard
// pattern: each piece between "*" normalized by norm, each "*" any run of
// characters. Bleve matches it against whole terms.
func globRegexp(prefix, pattern string, norm func(string) string) string {
	pieces := strings.Split(pattern, "*")
	for i, p := range pieces {
		pieces[i] = regexp.QuoteMeta(norm(p))
	}
	return regexp.QuoteMeta(prefix) + strings.Join(pieces, ".*")
}

// rangeQuery matches the cards with a value of the number or date field f
// within r.
func rangeQuery(f syntax.Field, r syntax.Range) query.Query {
	field, prefix, end := sortTerms(f)
	lo, hi := prefix, end
	loIn, hiIn := true, false
	enc := func(s string, n int) string {
		if f.Kind == syntax.KindNumber {
			return prefix + numberTerm(n)
		}
		return prefix + s
	}
	if r.Lo != "" {
		lo, loIn = enc(r.Lo, r.LoNum), !r.LoExcl
	}
	if r.Hi != "" {
		hi, hiIn = enc(r.Hi, r.HiNum), !r.HiExcl
	}
	q := query.NewTermRangeInclusiveQuery(lo, hi, &loIn, &hiIn)
	q.SetField(field)
	return q
}

// compareQuery compares the number or date field f with t's value, by t's
// operator; "!=" matches the cards with the field and another value.
func compareQuery(f syntax.Field, t syntax.Term) query.Query {
	at := syntax.Range{Lo: t.Value, Hi: t.Value, LoNum: t.Num, HiNum: t.Num}
	below, above := at, at
	below.Lo, below.HiExcl = "", true
	above.Hi, above.LoExcl = "", true
	switch t.Op {
	case syntax.OpNe:
		return query.NewDisjunctionQuery([]query.Query{rangeQuery(f, below), rangeQuery(f, above)})
	case syntax.OpLt:
		return rangeQuery(f, below)
	case syntax.OpLe:
		below.HiExcl = false
		return rangeQuery(f, below)
	case syntax.OpGt:
		return rangeQuery(f, above)
	case syntax.OpGe:
		above.LoExcl = false
		return rangeQuery(f, above)
	}
	field, prefix, _ := sortTerms(f)
	if f.Kind == syntax.KindNumber {
		return termQ(field, prefix+numberTerm(t.Num), 0)
	}
	return termQ(field, prefix+t.Value, 0)
}

// sortTerms returns where the values of the number or date field f are:
// the Bleve field, the prefix of their terms and the term after the last
// of them ("" for a field of its own: open).
func sortTerms(f syntax.Field) (field, prefix, end string) {
	if field, ok := numericFields[f.Name]; ok {
		return field, "", ""
	}
	key := factKey(f.Name)
	return fFacts, key + factSort, key + factSortEnd
}

// nameQuery matches the cards whose name (or its romaji / pinyin forms, or
// the linked English name) is v, or has every analyzed term of v.
func (ix *Index) nameQuery(v string) query.Query {
	var terms []query.Query
	for _, span := range ix.spans(v) {
		var fs []query.Query
		for _, t := range span {
			fs = append(fs, termQ(fName, t, 0), termQ(fNameAlt, t, 0), termQ(fNameEN, t, 0))
		}
		terms = append(terms, query.NewDisjunctionQuery(fs))
	}
	exact := termQ(fNameExact, normalizeText(v), 0)
	if len(terms) == 0 {
		return exact
	}
	return query.NewDisjunctionQuery([]query.Query{exact, query.NewConjunctionQuery(terms)})
}

// spans analyzes s with the query analyzer and groups its terms by span:
// the terms of one span (a possessive and its stem) are alternatives.
func (ix *Index) spans(s string) [][]string {
	var out [][]string
	var lastStart, lastEnd int
	for k, t := range ix.qa.Analyze([]byte(s)) {
		if k == 0 || t.Start != lastStart || t.End != lastEnd {
			out = append(out, nil)
			lastStart, lastEnd = t.Start, t.End
		}
		out[len(out)-1] = append(out[len(out)-1], string(t.Term))
	}
	return out
}

// wordsQuery matches the cards that match every word of v (a word or a
// quoted phrase) as wordQuery does; a value without words matches every
// card.
func (ix *Index) wordsQuery(v string) query.Query {
	words := queryWords(v)
	if len(words) == 0 {
		return query.NewMatchAllQuery()
	}
	qs := make([]query.Query, len(words))
	for i, w := range words {
		qs[i] = ix.wordQuery(w)
	}
	if len(qs) == 1 {
		return qs[0]
	}
	return query.NewConjunctionQuery(qs)
}

// wordQuery matches the cards that match a query word (normalizeID form)
// as a whole, or that have each of its analyzed terms (see termMatchClauses).
func (ix *Index) wordQuery(tok string) query.Query {
	cl := wholeWordClauses(tok)
	var terms []query.Query
	for _, span := range ix.spans(tok) {
		var tc []query.Query
		for _, t := range span {
			tc = append(tc, termMatchClauses(t)...)
		}
		terms = append(terms, query.NewDisjunctionQuery(tc))
	}
	if len(terms) > 0 {
		cl = append(cl, query.NewConjunctionQuery(terms))
	}
	return query.NewDisjunctionQuery(cl)
}

// CardSet is a set of cards of one game, by ordinal (snapshots.Card.Ordinal).
type CardSet struct {
	ords []uint32 // ascending
	bits []uint64 // bit o set for each ordinal o
}

// Len returns the number of cards in s.
func (s *CardSet) Len() int { return len(s.ords) }

// Ordinals returns the ordinals of s in ascending (catalog) order. The
// slice is s's own: do not modify it.
func (s *CardSet) Ordinals() []uint32 { return s.ords }

// Has reports whether the card of ordinal ord is in s.
func (s *CardSet) Has(ord uint32) bool {
	w := int(ord / 64)
	return w < len(s.bits) && s.bits[w]&(1<<(ord%64)) != 0
}

// Match returns the cards of game that match the syntax tree n (nil: every
// card of the game), for callers that filter the catalog themselves (the
// card list). Plain words in n match as wordQuery does (see compile). The
// positive conjuncts of n run as one Bleve query walked without scoring;
// each negated conjunct runs alone and its cards are removed from a
// bitmap, so "-set:base1" costs the postings of set:base1, not a walk of
// every card. Errors: ENOTFOUND for an unknown game, the context's error,
// and an internal error when the index cannot map its documents to cards
// (see the package Caveats).
func (ix *Index) Match(ctx context.Context, game string, n *syntax.Node) (*CardSet, error) {
	gi, ok := ix.t.gameIdx[game]
	if !ok {
		return nil, apperr.Errorf(apperr.ENOTFOUND, "unknown game %q", game)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if ix.rowOrd == nil {
		return nil, fmt.Errorf("index: match: card ordinals unavailable (unknown document numbering)")
	}
	adv, err := ix.bleve.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	nCards := ix.gameCards[gi]
	words := (nCards + 63) / 64
	pos, neg := splitNot(topNodes(n))
	var set []uint64
	if len(pos) == 0 {
		set = make([]uint64, words)
		for i := range set {
			set[i] = ^uint64(0)
		}
		if tail := nCards % 64; tail != 0 {
			set[words-1] = 1<<tail - 1
		}
	} else if set, err = ix.collect(ctx, r, gi, ix.andNot(append([]query.Query{termQ(fGame, game, 0)}, ix.compileAll(pos)...), nil)); err != nil {
		return nil, err
	}
	for _, x := range neg {
		not, err := ix.collect(ctx, r, gi, ix.compile(x))
		if err != nil {
			return nil, err
		}
		for i := range set {
			set[i] &^= not[i]
		}
	}
	cs := &CardSet{bits: set}
	for w, word := range set {
		for ; word != 0; word &= word - 1 {
			cs.ords = append(cs.ords, uint32(w*64+bits.TrailingZeros64(word)))
		}
	}
	return cs, nil
}

// collect walks q without scoring and returns the bitmap of the ordinals
// of the cards of game gi it matches.
func (ix *Index) collect(ctx context.Context, r index.IndexReader, gi int, q query.Query) ([]uint64, error) {
	out := make([]uint64, (ix.gameCards[gi]+63)/64)
	err := ix.eachMatch(ctx, r, q, func(d *search.DocumentMatch) {
		if row, ok := ix.rowOfDoc(d); ok && int(ix.rowGame[row]) == gi {
			o := ix.rowOrd[row]
			out[o/64] |= 1 << (o % 64)
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// loadOrdinals maps each card row to its game (by gameIdx) and to its
// ordinal in its game (its position among the game's rows), from the game
// term's postings, and counts each game's cards; all nil when the document
// numbers do not map to rows.
func loadOrdinals(ix *Index) (rowGame []uint8, rowOrd []uint32, counts []int, err error) {
	if ix.docRow == nil || len(ix.t.games) > 255 {
		return nil, nil, nil, nil
	}
	adv, err := ix.bleve.Advanced()
	if err != nil {
		return nil, nil, nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, nil, nil, err
	}
	defer r.Close()
	gameOf := make([]int, ix.t.nCards)
	for i := range gameOf {
		gameOf[i] = -1
	}
	for gi := range ix.t.games {
		tfr, err := r.TermFieldReader(context.Background(), []byte(ix.t.games[gi].name), fGame, false, false, false)
		if err != nil {
			return nil, nil, nil, err
		}
		for {
			d, err := tfr.Next(nil)
			if err != nil {
				tfr.Close()
				return nil, nil, nil, err
			}
			if d == nil {
				break
			}
			if len(d.ID) != 8 {
				tfr.Close()
				return nil, nil, nil, nil
			}
			num := binary.BigEndian.Uint64(d.ID)
			if num >= uint64(len(ix.docRow)) || int(ix.docRow[num]) >= ix.t.nCards {
				tfr.Close()
				return nil, nil, nil, fmt.Errorf("%w: document %d is not a card row", ErrFormat, num)
			}
			gameOf[ix.docRow[num]] = gi
		}
		tfr.Close()
	}
	rowGame = make([]uint8, ix.t.nCards)
	rowOrd = make([]uint32, ix.t.nCards)
	counts = make([]int, len(ix.t.games))
	for row, gi := range gameOf {
		if gi < 0 {
			return nil, nil, nil, fmt.Errorf("%w: card row %d has no game", ErrFormat, row)
		}
		rowGame[row] = uint8(gi)
		rowOrd[row] = uint32(counts[gi])
		counts[gi]++
	}
	return rowGame, rowOrd, counts, nil
}
