package syntax_test

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/index/syntax"
)

// TestParse prints the tree of each query in canonical form, with the
// text and filter split the index uses.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		q, want      string // want: canonical print
		text, filter string // Text joined by "|", Filter printed
	}{
		{"", "", "", ""},
		{"   ", "", "", ""},
		{"charizard", "charizard", "charizard", ""},
		{"charizard base set 4", "charizard base set 4", "charizard|base|set|4", ""},
		{`a:"Mitsuhiro Arita" charizard`, `artist:"Mitsuhiro Arita" charizard`, "charizard", `artist:"Mitsuhiro Arita"`},
		{"t:water hp>=300 legal:standard", "type:water hp>=300 legal:standard", "", "type:water hp>=300 legal:standard"},
		{`attack:"Fire Spin"`, `attack:"Fire Spin"`, "", `attack:"Fire Spin"`},
		{"c:red cost=5 power>=7000", "color:red cost=5 power>=7000", "", "color:red cost=5 power>=7000"},
		{"charizard -set:base1", "charizard -set:base1", "charizard", "-set:base1"},
		{"HP:120 Cost<3 POW>5000 counter<=1000 retreat!=2 life=4", "hp=120 cost<3 power>5000 counter<=1000 retreat!=2 life=4", "", "hp=120 cost<3 power>5000 counter<=1000 retreat!=2 life=4"},
		{"LEGAL:Standard f:expanded banned:unlimited", "legal:standard legal:expanded banned:unlimited", "", "legal:standard legal:expanded banned:unlimited"},
		{"r:sr s:op-01 lang:JA is:1st-edition reg:G", "rarity:sr set:op-01 lang:ja is:1st-edition reg:G", "", "rarity:sr set:op-01 lang:ja is:1st-edition reg:G"},
		{"ability:\"Energy Burn\" attr:slash c!=red", "ability:\"Energy Burn\" attribute:slash color!=red", "", "ability:\"Energy Burn\" attribute:slash color!=red"},
		// or, parentheses, negation
		{"charizard or blastoise", "charizard or blastoise", "", "charizard or blastoise"},
		{"charizard OR blastoise Or venusaur", "charizard or blastoise or venusaur", "", "charizard or blastoise or venusaur"},
		{"a b or c", "a b or c", "", "a b or c"},
		{"(t:fire or t:water) hp>=200", "(type:fire or type:water) hp>=200", "", "(type:fire or type:water) hp>=200"},
		{"pikachu (t:fire or (t:water))", "pikachu (type:fire or type:water)", "pikachu", "type:fire or type:water"},
		{"((a b) c)", "a b c", "a|b|c", ""},
		{"-(a or b) c", "-(a or b) c", "c", "-(a or b)"},
		{"-(a b)", "-(a b)", "", "-(a b)"},
		{"--x", "--x", "", "--x"},
		{"-or", `-"or"`, "", `-"or"`},
		// quoted phrases and escapes
		{`"base set"`, `"base set"`, "base set", ""},
		{`"say \"hi\" \\ \x"`, `"say \"hi\" \\ \\x"`, `say "hi" \ \x`, ""},
		{`""`, `""`, "", ""},
		{`"a"b`, `a b`, "a|b", ""},
		// plain words that look like syntax
		{"en:base1-4", "en:base1-4", "en:base1-4", ""},
		{"ja:SV2a-025 zh-tw:SV2a-025", "ja:SV2a-025 zh-tw:SV2a-025", "ja:SV2a-025|zh-tw:SV2a-025", ""},
		{"Type: Null", "Type: Null", "Type:|Null", ""},
		{"Mr.1(Daz.Bonez)", "Mr.1(Daz.Bonez)", "Mr.1(Daz.Bonez)", ""},
		{`Eustass"Captain"Kid`, `Eustass"Captain"Kid`, `Eustass"Captain"Kid`, ""},
		{"<阿響的>凱羅斯", "<阿響的>凱羅斯", "<阿響的>凱羅斯", ""},
		{"charizard - base", "charizard - base", "charizard|-|base", ""},
		{"-4 base1-4 -30", "-4 base1-4 -30", "-4|base1-4|-30", ""},
		{"-(4) -(-4)", "-(4) --4", "", "-(4) --4"}, // a negated word that starts with a digit prints in parentheses
		{"4/102 #004 Us!!!!", "4/102 #004 Us!!!!", "4/102|#004|Us!!!!", ""},
		{"(Mr.1(Daz) x)", "Mr.1(Daz) x", "Mr.1(Daz)|x", ""}, // the word's ( and ) are its own
		{"(Mr.1(Daz x)", `"Mr.1(Daz" x`, "Mr.1(Daz|x", ""},  // the word's ( is its own; the group's ) closes
		{"name:Mr.1(Daz.Bonez)", "name:Mr.1(Daz.Bonez)", "", "name:Mr.1(Daz.Bonez)"},
		{"(t:fire)", "type:fire", "", "type:fire"},
		{"légal:standard", "légal:standard", "légal:standard", ""},
		// the Lucene forms of pokemontcg.io's q
		{"name:charizard subtypes:mega", "name:charizard subtypes:mega", "", "name:charizard subtypes:mega"},
		{`name:"venusaur v"`, `name:"venusaur v"`, "", `name:"venusaur v"`},
		{"name:charizard (subtypes:mega OR subtypes:vmax)", "name:charizard (subtypes:mega or subtypes:vmax)", "", "name:charizard (subtypes:mega or subtypes:vmax)"},
		{"subtypes:mega -types:water", "subtypes:mega -types:water", "", "subtypes:mega -types:water"},
		{"SET.ID:sm1 Set.Name:generations", "set.id:sm1 set.name:generations", "", "set.id:sm1 set.name:generations"},
		{"attacks.name:Spelunk abilities.NAME:x", "attack:Spelunk ability:x", "", "attack:Spelunk ability:x"},
		{"legalities.standard:Banned regulationMark:G", "legalities.standard:banned reg:G", "", "legalities.standard:banned reg:G"},
		{"name:char* name:char*der", "name:char* name:char*der", "", "name:char* name:char*der"},
		{`name:"char*"`, `name:"char*"`, "", `name:"char*"`}, // quoted: a literal *
		{"hp:* -evolvesFrom:*", "hp:* -evolvesFrom:*", "", "hp:* -evolvesFrom:*"},
		{"!name:charizard !rarity:\"rare holo\"", "!name:charizard !rarity:\"rare holo\"", "", "!name:charizard !rarity:\"rare holo\""},
		{"nationalPokedexNumbers:[1 TO 151]", "nationalPokedexNumbers:[1 TO 151]", "", "nationalPokedexNumbers:[1 TO 151]"},
		{"hp:[* TO 100] hp:[150 TO *] hp:{30 to 60] hp:[1 TO 2}", "hp:[* TO 100] hp:[150 TO *] hp:{30 TO 60] hp:[1 TO 2}", "", "hp:[* TO 100] hp:[150 TO *] hp:{30 TO 60] hp:[1 TO 2}"},
		{"set.releaseDate:[2020-01-01 TO *] set.releaseDate>=1999/01/09", "set.releaseDate:[2020/01/01 TO *] set.releaseDate>=1999/01/09", "", "set.releaseDate:[2020/01/01 TO *] set.releaseDate>=1999/01/09"},
		{"a AND b", "a b", "a|b", ""},
		{"pikachu AND (t:fire OR t:water) AND NOT hp>100", "pikachu (type:fire or type:water) -hp>100", "pikachu", "(type:fire or type:water) -hp>100"},
		{"and not x", "and not x", "and|not|x", ""}, // lower case: words
		{`"AND" -AND -"NOT"`, `"AND" -"AND" -"NOT"`, "AND", `-"AND" -"NOT"`},
		{"!x !name:", "!x !name:", "!x|!name:", ""},
		{"Mr.Mime e.g", "Mr.Mime e.g", "Mr.Mime|e.g", ""},
		{"number:TG01 id:base1-4 attacks.damage:30+", "number:TG01 id:base1-4 attacks.damage:30+", "", "number:TG01 id:base1-4 attacks.damage:30+"},
	} {
		t.Run(tc.q, func(t *testing.T) {
			q, err := syntax.Parse(tc.q)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.q, err)
			}
			got := []string{q.String(), strings.Join(q.Text(), "|"), q.Filter().String()}
			want := []string{tc.want, tc.text, tc.filter}
			if tc.filter == "" && q.Filter() != nil {
				t.Errorf("Filter() = %v, want nil", q.Filter())
			}
			if got[0] != want[0] || got[1] != want[1] || (q.Filter() != nil && got[2] != want[2]) {
				t.Errorf("Parse(%q): [print text filter] = %q, want %q", tc.q, got, want)
			}
			if q.Structured() != (tc.filter != "") {
				t.Errorf("Structured() = %v", q.Structured())
			}
			roundTrip(t, tc.q, q)
		})
	}
}

// TestParse_Terms checks the terms themselves: field, operator, value,
// number and position (in runes).
func TestParse_Terms(t *testing.T) {
	q := syntax.MustParse(`é a:"Mitsuhiro Arita" -hp>=120 (x or pow<7000)`)
	var got []syntax.Term
	q.Root.Terms(func(t syntax.Term) { got = append(got, t) })
	want := []syntax.Term{
		{Value: "é", Pos: 0},
		{Field: "artist", Op: syntax.OpEq, Value: "Mitsuhiro Arita", Pos: 2},
		{Field: "hp", Op: syntax.OpGe, Value: "120", Num: 120, Pos: 23},
		{Value: "x", Pos: 32},
		{Field: "power", Op: syntax.OpLt, Value: "7000", Num: 7000, Pos: 37},
	}
	if len(got) != len(want) {
		t.Fatalf("terms = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("term %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestParse_LuceneTerms checks the terms of the Lucene forms: exact,
// wildcard and range terms, with dates normalized.
func TestParse_LuceneTerms(t *testing.T) {
	q := syntax.MustParse(`!name:charizard name:char*der hp:{30 TO *] set.releaseDate:[1999-01-09 TO 2000/12/31} hp:*`)
	var got []syntax.Term
	q.Root.Terms(func(t syntax.Term) { got = append(got, t) })
	want := []syntax.Term{
		{Field: "name", Value: "charizard", Exact: true, Pos: 0},
		{Field: "name", Value: "char*der", Wildcard: true, Pos: 16},
		{Field: "hp", Op: syntax.OpRange, Range: syntax.Range{LoNum: 30, Lo: "30", LoExcl: true}, Pos: 30},
		{Field: "set.releaseDate", Op: syntax.OpRange, Range: syntax.Range{Lo: "1999/01/09", Hi: "2000/12/31", HiExcl: true}, Pos: 43},
		{Field: "hp", Value: "*", Wildcard: true, Pos: 86},
	}
	if len(got) != len(want) {
		t.Fatalf("terms = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("term %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestSets_Parse: the set schema names set fields without "set.", and its
// errors list its own fields.
func TestSets_Parse(t *testing.T) {
	q, err := syntax.Sets.Parse(`legalities.standard:legal series:"sword & shield" releaseDate>=2020/01/01 -id:swsh1 total:[200 TO *]`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := q.String(), `legalities.standard:legal series:"sword & shield" releaseDate>=2020/01/01 -id:swsh1 total:[200 TO *]`; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	_, err = syntax.Sets.Parse("hp:100")
	var se *syntax.Error
	if !errors.As(err, &se) || se.Message != `unknown field "hp"` {
		t.Fatalf("Sets.Parse(hp:100) = %v", err)
	}
	if got := strings.Join(se.Known(), ", "); !strings.HasPrefix(got, "id, name, series, ptcgoCode, releaseDate") || strings.Contains(got, "artist") {
		t.Errorf("Known() = %s", got)
	}
}

// TestParse_Err checks each error: the term it names, its position and
// its message.
func TestParse_Err(t *testing.T) {
	for _, tc := range []struct {
		q, term string
		pos     int
		msg     string
	}{
		{"hp>=abc", "hp>=abc", 0, `hp takes a whole number, not "abc"`},
		{"foo:bar", "foo:bar", 0, `unknown field "foo"`},
		{`"unclosed`, `"unclosed`, 0, "unclosed quote"},
		{`charizard a:"Mitsuhiro`, `a:"Mitsuhiro`, 10, "unclosed quote"},
		{"pikachu hp>=", "hp>=", 8, "hp>= needs a value"},
		{"hp>99999999999", "hp>99999999999", 0, "hp: 99999999999 is too large"},
		{"hp>-1", "hp>-1", 0, `hp takes a whole number, not "-1"`},
		{"a>arita", "a>arita", 0, `a takes ":" or "!=", not ">"`},
		{"legal:modern", "legal:modern", 0, `legal is one of standard, expanded, unlimited, not "modern"`},
		{"legal<=standard", "legal<=standard", 0, `legal takes ":" or "!=", not "<="`},
		{"lang:fr", "lang:fr", 0, `lang is one of en, ja, zh-cn, zh-tw, not "fr"`},
		{`a:""`, `a:""`, 0, `a: needs a value`},
		{"(charizard", "(charizard", 0, `"(" without ")"`},
		{"charizard)", ")", 9, `")" without "("`},
		{"a () b", "()", 2, "empty parentheses"},
		{"or charizard", "or", 0, `"or" needs a term on each side`},
		{"charizard or", "or", 10, `"or" needs a term on each side`},
		{"a or or b", "or", 2, `"or" needs a term on each side`},
		{"(a or) b", "or", 3, `"or" needs a term on each side`},
		{"日本 foo:bar", "foo:bar", 3, `unknown field "foo"`},
		{"legailities.standard:legal", "legailities.standard:legal", 0, `unknown field "legailities.standard"`},
		{"tcgplayer.prices.holofoil.market:[10 TO *]", "tcgplayer.prices.holofoil.market:[10 TO *]", 0, `unknown field "tcgplayer.prices.holofoil.market"`},
		{"hp:[150 TO *", "hp:[150 TO *", 0, "unclosed range"},
		{"hp:[150 *]", "hp:[150 *]", 0, "a range is [lo TO hi] or {lo TO hi}"},
		{"hp:[a TO 5]", "hp:[a TO 5]", 0, `hp takes a whole number, not "a"`},
		{"name:[a TO b]", "name:[a TO b]", 0, "name takes no range (ranges are for numbers and dates)"},
		{"x hp:[1 TO 2]y", "hp:[1 TO 2]y", 2, "a range is [lo TO hi] or {lo TO hi}, followed by a space"},
		{"hp:1*", "hp:1*", 0, `hp takes no wildcard ("*" alone: any value)`},
		{"legal:stand*", "legal:stand*", 0, `legal takes no wildcard ("*" alone: any value)`},
		{"name>char*", "name>char*", 0, `name takes ":" or "!=" with a wildcard, not ">"`},
		{"set.releaseDate:2020", "set.releaseDate:2020", 0, `set.releaseDate takes a date YYYY/MM/DD, not "2020"`},
		{"set.releaseDate:2020/02/30", "set.releaseDate:2020/02/30", 0, `set.releaseDate takes a date YYYY/MM/DD, not "2020/02/30"`},
		{"!foo:bar", "!foo:bar", 0, `unknown field "foo"`},
		{"a AND", "AND", 2, `"AND" needs a term on each side`},
		{"AND a", "AND", 0, `"AND" needs a term on each side`},
		{"a AND AND b", "AND", 2, `"AND" needs a term on each side`},
		{"a NOT", "NOT", 2, `"NOT" needs a term after it`},
		{"(NOT) a", "NOT", 1, `"NOT" needs a term after it`},
		{"legalities.standard:not_legal", "legalities.standard:not_legal", 0, `legalities.standard is one of legal, banned, not "not_legal"`},
		{strings.Repeat("(", syntax.MaxDepth+1) + "x", "(", syntax.MaxDepth, "more than 16 nested negations and parentheses"},
		{strings.Repeat("x ", syntax.MaxTerms+1), "x", 2 * syntax.MaxTerms, "more than 64 terms"},
	} {
		t.Run(tc.q, func(t *testing.T) {
			q, err := syntax.Parse(tc.q)
			var se *syntax.Error
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) = %v, %v; want an *Error", tc.q, q, err)
			}
			if se.Term != tc.term || se.Pos != tc.pos || se.Message != tc.msg {
				t.Errorf("Parse(%q): [term pos msg] = [%q %d %q], want [%q %d %q]", tc.q, se.Term, se.Pos, se.Message, tc.term, tc.pos, tc.msg)
			}
			if msg := se.Error(); !strings.Contains(msg, "known fields: name, artist (a), type (t)") || !strings.Contains(msg, "set.id") || !strings.Contains(msg, tc.msg) {
				t.Errorf("Error() = %q", msg)
			}
		})
	}
}

// TestDoc: every field and alias is documented, and every example parses
// to a query with structured terms.
func TestDoc(t *testing.T) {
	for _, f := range syntax.Fields() {
		for _, name := range append([]string{f.Name}, f.Aliases...) {
			if !strings.Contains(syntax.Doc, "`"+name) && !strings.Contains(syntax.LuceneDoc, "`"+name+"`") {
				t.Errorf("neither Doc nor LuceneDoc names %s", name)
			}
		}
	}
	for _, ex := range syntax.LuceneExamples {
		schema := syntax.Cards
		if ex.Resource == "sets" {
			schema = syntax.Sets
		}
		q, err := schema.Parse(ex.Q)
		if err != nil || !q.Structured() {
			t.Errorf("example %q: %v (structured: %v)", ex.Q, err, err == nil && q.Structured())
		}
		if !strings.Contains(syntax.LuceneDoc, "`"+ex.Q+"`") {
			t.Errorf("example %q is not in LuceneDoc", ex.Q)
		}
	}
	for _, ex := range syntax.Examples {
		q, err := syntax.Parse(ex.Q)
		if err != nil || !q.Structured() {
			t.Errorf("example %q: %v (structured: %v)", ex.Q, err, err == nil && q.Structured())
		}
		if !strings.Contains(syntax.Doc, "`"+ex.Q+"`") && !strings.Contains(syntax.Doc, ex.Q) {
			t.Errorf("example %q is not in Doc", ex.Q)
		}
	}
}

// TestDoc_LuceneSection: the "pokemontcg.io's q" section of
// docs/search-syntax.md starts with LuceneDoc (go test -update rewrites it).
func TestDoc_LuceneSection(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "search-syntax.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const head, tail = "## pokemontcg.io's q\n\n", "\n\nThe Lucene forms run on the index"
	page := string(b)
	i := strings.Index(page, head)
	j := strings.Index(page, tail)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q section ending before %q", path, head, tail)
	}
	if got := page[i+len(head) : j]; got != syntax.LuceneDoc {
		if !*update {
			t.Fatalf("%s: the pokemontcg.io's q section is not syntax.LuceneDoc (go test -update rewrites it)", path)
		}
		if err := os.WriteFile(path, []byte(page[:i+len(head)]+syntax.LuceneDoc+page[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// roundTrip checks that the canonical print of q parses back to the same
// tree (positions aside) and prints the same.
func roundTrip(tb testing.TB, src string, q *syntax.Query) {
	tb.Helper()
	printed := q.String()
	again, err := syntax.Parse(printed)
	if err != nil {
		tb.Fatalf("Parse(%q) = %q, which does not parse: %v", src, printed, err)
	}
	if !sameTree(q.Root, again.Root) {
		tb.Fatalf("Parse(%q) = %q, which parses to another tree: %q", src, printed, again.String())
	}
	if again.String() != printed {
		tb.Fatalf("print not stable: %q -> %q", printed, again.String())
	}
}

func sameTree(a, b *syntax.Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind || len(a.Nodes) != len(b.Nodes) {
		return false
	}
	if a.Kind == syntax.NodeTerm {
		x, y := a.Term, b.Term
		x.Pos, y.Pos = 0, 0
		return x == y
	}
	for i := range a.Nodes {
		if !sameTree(a.Nodes[i], b.Nodes[i]) {
			return false
		}
	}
	return true
}

var update = flag.Bool("update", false, "rewrite the Search syntax section of docs/search-syntax.md from syntax.Doc")

// TestDoc_SearchSyntaxPage: the "Search syntax" section of docs/search-syntax.md is
// Doc (go test -update rewrites it).
func TestDoc_SearchSyntaxPage(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "search-syntax.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const head, tail = "## Search syntax\n\n", "\n\nThe syntax is parsed by package `index/syntax`"
	readme := string(b)
	i := strings.Index(readme, head)
	j := strings.Index(readme, tail)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q section ending before %q", path, head, tail)
	}
	if got := readme[i+len(head) : j]; got != syntax.Doc {
		if !*update {
			t.Fatalf("%s: the Search syntax section is not syntax.Doc (go test -update rewrites it)", path)
		}
		if err := os.WriteFile(path, []byte(readme[:i+len(head)]+syntax.Doc+readme[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
