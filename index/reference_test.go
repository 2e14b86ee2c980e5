package index_test

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/snapshots"
)

// The reference evaluator of the search syntax's field terms: each term
// evaluated on a card straight from the catalog's fields, by the rules the
// syntax documents (syntax.Kind, syntax.LuceneDoc), with none of the
// index's terms. The index's answers (Match, Search) are checked against
// it on the whole catalog.

// refSets is what the set fields of the reference need, per set.
type refSet struct {
	set   *snapshots.Set
	legal map[string]bool // format -> at least half of the set's cards are legal or banned there
	total int
}

var (
	refOnce   sync.Once
	refSetsBy map[string]*refSet // game/set id
)

func refSetOf(tb testing.TB, c *snapshots.Card) *refSet {
	tb.Helper()
	refOnce.Do(func() {
		sets, cards := catalog(tb)
		refSetsBy = map[string]*refSet{}
		for _, s := range sets {
			refSetsBy[s.Game+"/"+s.ID] = &refSet{set: s, legal: map[string]bool{}}
		}
		count := map[string]map[string]int{}
		n := map[string]int{}
		for _, c := range cards {
			k := c.Game + "/" + c.SetID
			n[k]++
			if count[k] == nil {
				count[k] = map[string]int{}
			}
			if p := c.Play.Pokemon; p != nil {
				for _, f := range []string{"standard", "expanded", "unlimited"} {
					if l := p.Legalities.Of(f); l == "legal" || l == "banned" {
						count[k][f]++
					}
				}
			}
		}
		for k, rs := range refSetsBy {
			rs.total = rs.set.CardCountTotal
			if rs.total == 0 {
				rs.total = n[k]
			}
			for f, x := range count[k] {
				rs.legal[f] = 2*x >= n[k]
			}
		}
	})
	return refSetsBy[c.Game+"/"+c.SetID]
}

// refMatch evaluates the tree n of field terms on card c; ok is false for
// a tree with plain words, which it does not evaluate.
func refMatch(tb testing.TB, c *snapshots.Card, n *syntax.Node) (match, ok bool) {
	switch n.Kind {
	case syntax.NodeAnd, syntax.NodeOr:
		all, anyOf := true, false
		for _, x := range n.Nodes {
			m, ok := refMatch(tb, c, x)
			if !ok {
				return false, false
			}
			all, anyOf = all && m, anyOf || m
		}
		if n.Kind == syntax.NodeAnd {
			return all, true
		}
		return anyOf, true
	case syntax.NodeNot:
		m, ok := refMatch(tb, c, n.Nodes[0])
		return !m, ok
	}
	t := n.Term
	if t.Field == "" {
		return false, false
	}
	f, _ := syntax.LookupField(t.Field)
	vals := refValues(tb, c, f.Name)
	var m bool
	switch {
	case t.Wildcard && t.Value == "*":
		m = len(vals) > 0
	case t.Wildcard:
		m = refGlob(tb, c, f, t, vals)
	case t.Op == syntax.OpRange || f.Kind == syntax.KindNumber || f.Kind == syntax.KindDate:
		return refCompare(f, t, vals), true // "!=" included
	case t.Exact && f.Kind == syntax.KindText && f.Name != syntax.FieldSet && f.Name != syntax.FieldReg && f.Name != syntax.FieldIs:
		m = slices.ContainsFunc(vals, func(v string) bool { return norm(v) != "" && norm(v) == norm(t.Value) })
	default:
		m = refValue(tb, c, f, t.Value, vals)
	}
	if t.Op == syntax.OpNe {
		m = !m
	}
	return m, true
}

func norm(s string) string { return index.NormalizeText(s) }

// refValues are a card's values of a field, as the catalog has them.
func refValues(tb testing.TB, c *snapshots.Card, field string) []string {
	pk, op := c.Play.Pokemon, c.Play.OnePiece
	if pk == nil {
		pk = &snapshots.PokemonPlay{}
	}
	if op == nil {
		op = &snapshots.OnePiecePlay{}
	}
	rs := refSetOf(tb, c)
	str := func(v ...string) []string {
		var out []string
		for _, s := range v {
			if strings.TrimSpace(s) != "" {
				out = append(out, s)
			}
		}
		return out
	}
	num := func(v *int) []string {
		if v == nil {
			return nil
		}
		return []string{strconv.Itoa(*v)}
	}
	var out []string
	switch field {
	case "name":
		return str(c.Name)
	case "artist":
		return str(pk.Artist)
	case "type":
		return str(append(append([]string{c.Supertype}, c.Subtypes...), pk.Types...)...)
	case "color":
		return str(c.Colors...)
	case "hp":
		return num(pk.HP)
	case "retreat":
		return num(pk.Retreat)
	case "cost":
		return num(op.Cost)
	case "power":
		return num(op.Power)
	case "counter":
		return num(op.Counter)
	case "life":
		return num(op.Life)
	case "attack", "attacks.text", "attacks.cost", "attacks.damage", "attacks.convertedEnergyCost":
		for _, a := range pk.Attacks {
			switch field {
			case "attack":
				out = append(out, a.Name)
			case "attacks.text":
				if a.Text != nil {
					out = append(out, *a.Text)
				}
			case "attacks.cost":
				out = append(out, a.Cost...)
			case "attacks.damage":
				out = append(out, a.Damage)
			default:
				n := 0
				for _, e := range a.Cost {
					if e != "Free" {
						n++
					}
				}
				out = append(out, strconv.Itoa(n))
			}
		}
		return str(out...)
	case "ability", "abilities.text", "abilities.type":
		for _, a := range pk.Abilities {
			switch {
			case field == "ability":
				out = append(out, a.Name)
			case field == "abilities.type":
				out = append(out, a.Type)
			case a.Text != nil:
				out = append(out, *a.Text)
			}
		}
		return str(out...)
	case "attribute":
		return str(op.Attributes...)
	case "legal", "banned":
		for _, f := range []string{"standard", "expanded", "unlimited"} {
			if pk.Legalities.Of(f) == field { // "legal", "banned"
				out = append(out, f)
			}
		}
		return out
	case "legalities.standard", "legalities.expanded", "legalities.unlimited":
		l := pk.Legalities.Of(strings.TrimPrefix(field, "legalities."))
		if l == "legal" || l == "banned" {
			return []string{l}
		}
		return nil
	case "reg":
		return str(pk.RegulationMark)
	case "set":
		if rs == nil {
			return nil
		}
		return str(rs.set.ID, rs.set.SourceID, rs.set.Abbreviation, rs.set.Name)
	case "rarity":
		return str(c.Rarity)
	case "lang":
		return str(c.Language)
	case "is":
		return str(c.Variants...)
	case "id":
		ids := str(c.ID, c.SourceID)
		if c.PartnerProductID > 0 {
			ids = append(ids, strconv.FormatInt(c.PartnerProductID, 10))
		}
		return ids
	case "supertype":
		return str(c.Supertype)
	case "subtypes":
		return str(c.Subtypes...)
	case "types":
		return str(pk.Types...)
	case "level":
		return str(pk.Level)
	case "evolvesFrom":
		return str(pk.EvolvesFrom)
	case "evolvesTo":
		return str(pk.EvolvesTo...)
	case "number":
		return str(c.Number)
	case "nationalPokedexNumbers":
		for _, n := range c.NationalDex {
			out = append(out, strconv.Itoa(n))
		}
		return out
	case "rules":
		return str(pk.Rules...)
	case "flavorText":
		return str(pk.FlavorText)
	case "ancientTrait.name", "ancientTrait.text":
		if pk.AncientTrait == nil {
			return nil
		}
		if field == "ancientTrait.name" {
			return str(pk.AncientTrait.Name)
		}
		return str(pk.AncientTrait.Text)
	case "weaknesses.type", "weaknesses.value", "resistances.type", "resistances.value":
		mods := pk.Weaknesses
		if strings.HasPrefix(field, "resistances") {
			mods = pk.Resistances
		}
		for _, m := range mods {
			if strings.HasSuffix(field, ".type") {
				out = append(out, m.Type)
			} else {
				out = append(out, m.Value)
			}
		}
		return str(out...)
	case "retreatCost":
		if pk.Retreat != nil {
			for range *pk.Retreat {
				out = append(out, "Colorless")
			}
		}
		return out
	}
	if rs == nil {
		return nil
	}
	s := rs.set
	switch field {
	case "set.id":
		return str(s.ID, s.SourceID)
	case "set.name":
		return str(s.Name)
	case "set.series":
		return str(s.Series)
	case "set.ptcgoCode":
		return str(s.Abbreviation)
	case "set.releaseDate":
		return str(strings.ReplaceAll(s.ReleaseDate, "-", "/"))
	case "set.printedTotal":
		return []string{strconv.Itoa(s.CardCountPrinted)}
	case "set.total":
		return []string{strconv.Itoa(rs.total)}
	case "set.legalities.standard", "set.legalities.expanded", "set.legalities.unlimited":
		if rs.legal[strings.TrimPrefix(field, "set.legalities.")] {
			return []string{"legal"}
		}
		return nil
	}
	tb.Fatalf("refValues: unknown field %q", field)
	return nil
}

// refWords reports whether the words of v are words of one of vals side by
// side: a phrase of up to four words anywhere, a longer one as the whole
// value.
func refWords(vals []string, v string) bool {
	want := strings.Fields(norm(v))
	if len(want) == 0 {
		return false
	}
	for _, x := range vals {
		have := strings.Fields(norm(x))
		if len(want) > 4 && len(want) != len(have) {
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

// refValue evaluates field:v (plain, not a wildcard).
func refValue(tb testing.TB, c *snapshots.Card, f syntax.Field, v string, vals []string) bool {
	switch f.Name {
	case "name":
		// Every analyzed term of v is a term of the name (or of the name
		// without spaces), or v is the whole name.
		if norm(v) != "" && (norm(v) == norm(c.Name) || norm(v) == strings.ReplaceAll(norm(c.Name), " ", "")) {
			return true
		}
		terms := index.Analyze("text", c.Name)
		terms = append(terms, strings.ReplaceAll(norm(c.Name), " ", ""))
		want := index.Analyze("query", v)
		if len(want) == 0 {
			return false
		}
		for _, w := range want {
			if !slices.Contains(terms, w) {
				return false
			}
		}
		return true
	case "set":
		rs := refSetOf(tb, c)
		if rs == nil {
			return false
		}
		s := rs.set
		ids := []string{index.NormKeyword(s.ID), index.NormKeyword(s.SourceID)}
		codes := []string{index.NormalizeID(s.ID), index.NormalizeID(s.SourceID), compactRef(s.SourceID), index.NormalizeID(s.Abbreviation), compactRef(s.Abbreviation)}
		names := []string{norm(s.Name)}
		if s.Language == "en" && !strings.HasSuffix(norm(s.Name), " set") {
			names = append(names, norm(s.Name)+" set")
		}
		return slices.Contains(ids, index.NormKeyword(v)) || (v != "" && slices.Contains(codes, index.NormalizeID(v))) ||
			(compactRef(v) != "" && slices.Contains(codes, compactRef(v))) || (norm(v) != "" && slices.Contains(names, norm(v)))
	case "reg":
		return slices.ContainsFunc(vals, func(x string) bool { return norm(x) == norm(v) })
	case "lang", "legal", "banned", "legalities.standard", "legalities.expanded", "legalities.unlimited",
		"set.legalities.standard", "set.legalities.expanded", "set.legalities.unlimited":
		return slices.Contains(vals, strings.ToLower(v))
	case "is":
		want := index.NormKeyword(v)
		if a, ok := map[string]string{"1st": "1st-edition", "reverse-holo": "reverse", "alt": "alternate-art", "foil": "holo"}[want]; ok {
			want = a
		}
		for _, x := range vals {
			if index.NormKeyword(x) == want || slices.ContainsFunc(strings.Split(x, "/"), func(p string) bool { return index.NormKeyword(p) == want }) {
				return true
			}
		}
		return false
	}
	if f.Name == "set.id" { // ids compare as the set filter does: spaces, - and _ alike
		return slices.ContainsFunc(vals, func(x string) bool { return index.NormKeyword(x) == index.NormKeyword(v) })
	}
	if f.Kind == syntax.KindKeyword {
		return slices.ContainsFunc(vals, func(x string) bool { return index.NormalizeID(x) == index.NormalizeID(v) })
	}
	return refWords(vals, v)
}

// compactRef keeps the letters and digits of a normalized id.
func compactRef(s string) string {
	var b strings.Builder
	for _, r := range index.NormalizeID(s) {
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || r >= 0x80 {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// refRuns returns the word runs of a value: every run of up to four words,
// and the whole value when longer.
func refRuns(v string) []string {
	w := strings.Fields(norm(v))
	var out []string
	for i := range w {
		for n := 1; n <= 4 && i+n <= len(w); n++ {
			out = append(out, strings.Join(w[i:i+n], " "))
		}
	}
	if len(w) > 4 {
		out = append(out, strings.Join(w, " "))
	}
	return out
}

// refGlob evaluates a wildcard term: text fields' word runs (whole values
// with "!"), keyword fields' whole values.
func refGlob(tb testing.TB, c *snapshots.Card, f syntax.Field, t syntax.Term, vals []string) bool {
	glob := func(norm func(string) string, cands []string) bool {
		pieces := strings.Split(t.Value, "*")
		for i, p := range pieces {
			pieces[i] = regexp.QuoteMeta(norm(p))
		}
		re := regexp.MustCompile(`^(?:` + strings.Join(pieces, ".*") + `)$`)
		return slices.ContainsFunc(cands, func(c string) bool { return c != "" && re.MatchString(c) })
	}
	var cands []string
	each := func(norm func(string) string) []string {
		var out []string
		for _, v := range vals {
			out = append(out, norm(v))
		}
		return out
	}
	switch {
	case f.Name == "set": // set ids and codes, or whole set names
		rs := refSetOf(tb, c)
		if rs == nil {
			return false
		}
		s := rs.set
		codes := []string{index.NormalizeID(s.ID), index.NormalizeID(s.SourceID), compactRef(s.SourceID), index.NormalizeID(s.Abbreviation), compactRef(s.Abbreviation)}
		names := []string{norm(s.Name)}
		if s.Language == "en" && !strings.HasSuffix(norm(s.Name), " set") {
			names = append(names, norm(s.Name)+" set")
		}
		return glob(index.NormalizeID, codes) || glob(norm, names)
	case f.Name == "reg":
		return glob(norm, each(norm))
	case f.Name == "is":
		for _, v := range vals {
			cands = append(cands, index.NormKeyword(v))
			for _, p := range strings.Split(v, "/") {
				cands = append(cands, index.NormKeyword(p))
			}
		}
		return glob(index.NormKeyword, cands)
	case f.Name == "set.id":
		return glob(index.NormKeyword, each(index.NormKeyword))
	case f.Kind == syntax.KindKeyword:
		return glob(index.NormalizeID, each(index.NormalizeID))
	case t.Exact:
		return glob(norm, each(norm))
	}
	for _, v := range vals {
		cands = append(cands, refRuns(v)...)
	}
	return glob(norm, cands)
}

// refCompare evaluates a number or date term (a comparison or a range): one
// of the values must hold.
func refCompare(f syntax.Field, t syntax.Term, vals []string) bool {
	cmp := func(a, b string) int {
		if f.Kind == syntax.KindNumber {
			x, _ := strconv.Atoi(a)
			y, _ := strconv.Atoi(b)
			return x - y
		}
		return strings.Compare(a, b)
	}
	// The reference reads each operator as the signs of cmp(v, value) it
	// admits, and a range as its two ends, each admitting equality unless
	// exclusive: written apart from the index's switch, so that a slip in
	// one shows against the other.
	signs := map[syntax.Op][]int{
		syntax.OpNe: {-1, 1}, syntax.OpLt: {-1}, syntax.OpLe: {-1, 0},
		syntax.OpGt: {1}, syntax.OpGe: {0, 1},
	}
	sign := func(c int) int { return min(max(c, -1), 1) }
	end := func(v, bound string, excl bool, want int) bool {
		c := sign(cmp(v, bound))
		return bound == "" || c == want || c == 0 && !excl
	}
	for _, v := range vals {
		if t.Op == syntax.OpRange {
			if end(v, t.Range.Lo, t.Range.LoExcl, 1) && end(v, t.Range.Hi, t.Range.HiExcl, -1) {
				return true
			}
			continue
		}
		admit, ok := signs[t.Op]
		if !ok {
			admit = []int{0}
		}
		if slices.Contains(admit, sign(cmp(v, t.Value))) {
			return true
		}
	}
	return false
}
