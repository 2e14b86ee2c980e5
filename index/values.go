package index

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/index/syntax"
)

// MatchValues evaluates the syntax tree n on a record that is not in the
// index (a set of pokemontcg.io's /v2/sets), whose fields values returns:
// text and keyword values as printed, numbers in decimal, dates as
// YYYY/MM/DD, enum values in lower case; nil for a field the record does
// not have. Fields compare as their Kind in schema says, as Match compares
// card fields of the same kinds (syntax.LuceneDoc): words of a text value
// side by side (up to maxRun words, or the whole value), "!" a whole value,
// wildcards over word runs or whole values, keywords whole, numbers and
// dates by value. A plain word matches the words of any text value or a
// whole keyword value. A nil tree matches.
func MatchValues(n *syntax.Node, schema *syntax.Schema, values func(field string) []string) bool {
	if n == nil {
		return true
	}
	switch n.Kind {
	case syntax.NodeAnd:
		for _, x := range n.Nodes {
			if !MatchValues(x, schema, values) {
				return false
			}
		}
		return true
	case syntax.NodeOr:
		for _, x := range n.Nodes {
			if MatchValues(x, schema, values) {
				return true
			}
		}
		return false
	case syntax.NodeNot:
		return !MatchValues(n.Nodes[0], schema, values)
	}
	t := n.Term
	if t.Field == "" {
		for _, f := range schema.Fields() {
			vals := values(f.Name)
			if f.Kind == syntax.KindText && wordsIn(vals, t.Value) ||
				f.Kind == syntax.KindKeyword && slices.ContainsFunc(vals, func(v string) bool { return normalizeID(v) == normalizeID(t.Value) }) {
				return true
			}
		}
		return false
	}
	f, ok := schema.Lookup(t.Field)
	if !ok {
		return false
	}
	vals := values(f.Name)
	var m bool
	switch {
	case t.Wildcard && t.Value == "*":
		m = len(vals) > 0
	case t.Wildcard:
		m = globIn(f, t, vals)
	case t.Op == syntax.OpRange || f.Kind == syntax.KindNumber || f.Kind == syntax.KindDate:
		return compareIn(f, t, vals) // "!=" included
	case f.Kind == syntax.KindText && t.Exact:
		m = slices.ContainsFunc(vals, func(v string) bool { return normalizeText(v) != "" && normalizeText(v) == normalizeText(t.Value) })
	case f.Kind == syntax.KindText:
		m = wordsIn(vals, t.Value)
	case f.Kind == syntax.KindKeyword:
		m = slices.ContainsFunc(vals, func(v string) bool { return normalizeID(v) == normalizeID(t.Value) })
	default: // KindEnum
		m = slices.Contains(vals, strings.ToLower(t.Value))
	}
	if t.Op == syntax.OpNe {
		return !m
	}
	return m
}

// wordsIn reports whether the words of v are words of one of vals side by
// side, as the word runs of the index match them.
func wordsIn(vals []string, v string) bool {
	want := strings.Fields(normalizeText(v))
	if len(want) == 0 {
		return false
	}
	for _, x := range vals {
		have := strings.Fields(normalizeText(x))
		if len(want) > maxRun && len(want) != len(have) {
			continue
		}
		for i := 0; i+len(want) <= len(have); i++ {
			if slices.Equal(have[i:i+len(want)], want) {
				return true
			}
		}
	}
	return false
}

// globIn evaluates a wildcard term of field f on vals: text values' word
// runs (whole values with "!"), keyword values whole.
func globIn(f syntax.Field, t syntax.Term, vals []string) bool {
	norm := normalizeText
	var cands []string
	switch {
	case f.Kind == syntax.KindKeyword:
		norm = normalizeID
		for _, v := range vals {
			cands = append(cands, normalizeID(v))
		}
	case t.Exact:
		for _, v := range vals {
			cands = append(cands, normalizeText(v))
		}
	default:
		for _, v := range vals {
			cands = appendRuns(cands, "", v)
		}
	}
	re, err := regexp.Compile("^(?:" + globRegexp("", t.Value, norm) + ")$")
	if err != nil {
		return false // unreachable: the pieces are quoted
	}
	return slices.ContainsFunc(cands, func(c string) bool { return c != "" && re.MatchString(c) })
}

// compareIn evaluates a number or date term (comparison or range) on vals:
// one value must hold.
func compareIn(f syntax.Field, t syntax.Term, vals []string) bool {
	cmp := func(a, b string) int {
		if f.Kind == syntax.KindNumber {
			x, _ := strconv.Atoi(a)
			y, _ := strconv.Atoi(b)
			return x - y
		}
		return strings.Compare(a, b)
	}
	for _, v := range vals {
		var ok bool
		switch t.Op {
		case syntax.OpRange:
			r := t.Range
			ok = (r.Lo == "" || cmp(v, r.Lo) > 0 || !r.LoExcl && cmp(v, r.Lo) == 0) &&
				(r.Hi == "" || cmp(v, r.Hi) < 0 || !r.HiExcl && cmp(v, r.Hi) == 0)
		case syntax.OpNe:
			ok = cmp(v, t.Value) != 0
		case syntax.OpLt:
			ok = cmp(v, t.Value) < 0
		case syntax.OpLe:
			ok = cmp(v, t.Value) <= 0
		case syntax.OpGt:
			ok = cmp(v, t.Value) > 0
		case syntax.OpGe:
			ok = cmp(v, t.Value) >= 0
		default:
			ok = cmp(v, t.Value) == 0
		}
		if ok {
			return true
		}
	}
	return false
}
