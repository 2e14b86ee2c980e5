package index

import (
	"context"
	"fmt"
	"slices"
	"strings"

	index "github.com/blevesearch/bleve_index_api"

	"github.com/cardedge/cardedge/index/syntax"
)

// Hint limits.
const (
	// MaxHintValues bounds the values a Hint lists.
	MaxHintValues = 8
	// hintScan bounds the values of a field a hint examines, nearest
	// first (a field such as name has tens of thousands).
	hintScan = 4096
)

// Hint explains a field term that keeps a query from matching any card:
// its value matches none of the cards the rest of the query selects (none
// of the game's cards when the term stands alone), and Known lists the
// values the field has among those cards, nearest to the value first.
type Hint struct {
	Term    string `json:"term"`    // the term, in canonical form (syntax.Term.String)
	Field   string `json:"field"`   // the field's canonical name
	Value   string `json:"value"`   // the value as typed
	Message string `json:"message"` // the hint in a sentence
	// Known are values of the field among the cards the rest of the query
	// selects, as the field compares them (normalized: lower case, accents
	// and punctuation folded as the syntax ignores them), nearest first;
	// at most MaxHintValues. Each one, typed as the term's value (quoted
	// when it has spaces), matches.
	Known []string `json:"known_values"`
}

// Hints explains why the syntax tree n matches no card of game (a query
// that matches none): for each field term among n's conjuncts whose value
// matches none of the cards the other conjuncts select, a Hint with the
// field's values among those cards. Terms on numbers, dates and enums
// (whose values errors already list), negated terms and wildcards get
// none. Call it when a search found nothing; it returns no hint for a
// query that matches cards. Errors: as Match's.
func (ix *Index) Hints(ctx context.Context, game string, n *syntax.Node) ([]Hint, error) {
	conj := topNodes(n)
	var out []Hint
	for i, x := range conj {
		if x.Kind != syntax.NodeTerm {
			continue
		}
		t := x.Term
		f, ok := syntax.LookupField(t.Field)
		if !ok || t.Op != syntax.OpEq || t.Wildcard || (f.Kind != syntax.KindText && f.Kind != syntax.KindKeyword) {
			continue
		}
		prefix, field, normV, ok := hintTerms(f, t.Exact)
		if !ok && !setField(f.Name) {
			continue
		}
		rest := append(append([]*syntax.Node(nil), conj[:i]...), conj[i+1:]...)
		var restNode *syntax.Node
		switch len(rest) {
		case 0:
		case 1:
			restNode = rest[0]
		default:
			restNode = &syntax.Node{Kind: syntax.NodeAnd, Nodes: rest}
		}
		cand, err := ix.Match(ctx, game, restNode)
		if err != nil {
			return nil, err
		}
		if cand.Len() == 0 {
			continue // the rest selects nothing: this term is not the cause
		}
		this, err := ix.Match(ctx, game, x)
		if err != nil {
			return nil, err
		}
		if intersects(this, cand) {
			continue
		}
		var known []string
		if setField(f.Name) {
			known, err = ix.nearSetValues(ctx, game, f, t.Value, cand)
		} else {
			known, err = ix.nearValues(ctx, game, field, prefix, normV(t.Value), cand)
		}
		if err != nil {
			return nil, err
		}
		h := Hint{Term: t.String(), Field: f.Name, Value: t.Value, Known: known}
		where := "no " + game + " card"
		if restNode != nil {
			where = "none of the cards the rest of the query selects"
		}
		h.Message = fmt.Sprintf("%s matches %s", h.Term, where)
		if len(known) > 0 {
			h.Message += fmt.Sprintf("; %s values there: %s", f.Name, strings.Join(quoteAll(known), ", "))
		}
		out = append(out, h)
	}
	return out, nil
}

// hintTerms returns where the whole values of field f are (the Bleve
// field and the prefix of their terms) and how a typed value is
// normalized to compare with them; ok is false for a field without them.
func hintTerms(f syntax.Field, exact bool) (prefix, field string, norm func(string) string, ok bool) {
	key := factKey(f.Name)
	switch {
	case f.Name == syntax.FieldReg:
		return "", fReg, normalizeText, true
	case f.Name == syntax.FieldIs:
		return "", fVariant, normKeyword, true
	case f.Name == syntax.FieldSet: // the whole set names
		return "", fSetExact, normalizeText, true
	case f.Name == syntax.FieldID:
		return "", fIDs, normalizeID, true
	case f.Name == syntax.FieldSetID:
		return "", fSet, normKeyword, true
	case f.Kind == syntax.KindKeyword:
		return key + factWhole, fFacts, normalizeID, true
	case wholeFact(f):
		return key + factWhole, fFacts, normalizeText, true
	}
	return "", "", nil, false
}

func quoteAll(v []string) []string {
	out := make([]string, len(v))
	for i, s := range v {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

func intersects(a, b *CardSet) bool {
	if a.Len() > b.Len() {
		a, b = b, a
	}
	for _, o := range a.Ordinals() {
		if b.Has(o) {
			return true
		}
	}
	return false
}

// nearValues returns up to MaxHintValues values of the terms of field
// with prefix that some card of cand has, nearest to want first (see
// nearness), examining at most hintScan of the nearest.
func (ix *Index) nearValues(ctx context.Context, game, field, prefix, want string, cand *CardSet) ([]string, error) {
	gi := ix.t.gameIdx[game]
	adv, err := ix.bleve.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	dict, err := r.FieldDictPrefix(field, []byte(prefix))
	if err != nil {
		return nil, err
	}
	type scored struct {
		v string
		n int
	}
	var all []scored
	for {
		e, err := dict.Next()
		if err != nil {
			dict.Close()
			return nil, err
		}
		if e == nil {
			break
		}
		v := strings.TrimPrefix(e.Term, prefix)
		all = append(all, scored{v, nearness(v, want)})
	}
	if err := dict.Close(); err != nil {
		return nil, err
	}
	slices.SortFunc(all, func(a, b scored) int {
		if a.n != b.n {
			return b.n - a.n
		}
		return strings.Compare(a.v, b.v)
	})
	out := make([]string, 0, MaxHintValues) // [] rather than null
	for i, s := range all {
		if i == hintScan || len(out) == MaxHintValues {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ok, err := ix.termIn(ctx, r, field, prefix+s.v, gi, cand)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, s.v)
		}
	}
	return out, nil
}

// nearSetValues is nearValues for a set field: the values of the sets of
// game with a card in cand, nearest to want first.
func (ix *Index) nearSetValues(ctx context.Context, game string, f syntax.Field, want string, cand *CardSet) ([]string, error) {
	norm := normalizeText
	if f.Kind == syntax.KindKeyword {
		norm = normalizeID
	}
	want = norm(want)
	gi := ix.t.gameIdx[game]
	adv, err := ix.bleve.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	seen := map[string]bool{}
	var vals []string
	for i := range ix.sets {
		s := &ix.sets[i]
		if s.Game != game {
			continue
		}
		var fresh []string
		for _, v := range s.value(f.Name) {
			if n := norm(v); n != "" && !seen[n] {
				fresh = append(fresh, n)
			}
		}
		if len(fresh) == 0 {
			continue
		}
		ok, err := ix.termIn(ctx, r, fSet, normKeyword(s.ID), gi, cand)
		if err != nil {
			return nil, err
		}
		if ok {
			for _, n := range fresh {
				seen[n] = true
				vals = append(vals, n)
			}
		}
	}
	slices.SortFunc(vals, func(a, b string) int {
		if x, y := nearness(a, want), nearness(b, want); x != y {
			return y - x
		}
		return strings.Compare(a, b)
	})
	out := make([]string, 0, MaxHintValues)
	return append(out, vals[:min(len(vals), MaxHintValues)]...), nil
}

// termIn reports whether a card of cand (of game gi) has the term.
func (ix *Index) termIn(ctx context.Context, r index.IndexReader, field, term string, gi int, cand *CardSet) (bool, error) {
	tfr, err := r.TermFieldReader(ctx, []byte(term), field, false, false, false)
	if err != nil {
		return false, err
	}
	defer tfr.Close()
	var d index.TermFieldDoc
	for {
		next, err := tfr.Next(d.Reset())
		if err != nil {
			return false, err
		}
		if next == nil {
			return false, nil
		}
		if row, ok := ix.rowOfID(next.ID); ok && int(ix.rowGame[row]) == gi && cand.Has(ix.rowOrd[row]) {
			return true, nil
		}
	}
}

// nearness scores how near a value v of a field is to a typed value want
// (both normalized): the same, want a prefix of v, want a word run of v,
// want inside v, then by edit distance to v or (one more) to a word of v.
// Higher is nearer.
func nearness(v, want string) int {
	switch {
	case v == want:
		return 10000
	case strings.HasPrefix(v, want):
		return 9000 - (len(v) - len(want))
	case strings.Contains(" "+v+" ", " "+want+" "):
		return 8000 - (len(v) - len(want))
	case strings.Contains(v, want):
		return 7000 - (len(v) - len(want))
	}
	d := editDistance(v, want)
	for _, w := range strings.Fields(v) {
		d = min(d, editDistance(w, want)+1)
	}
	return 5000 - 10*d
}

// editDistance is the Levenshtein distance of a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
