package syntax_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cardedge/cardedge/index/syntax"
)

// fuzzSeeds are the seeds of FuzzParse (with the queries of TestParse and
// TestParse_Err and the files of testdata/fuzz/FuzzParse); the fuzz target
// runs them as a plain test too.
var fuzzSeeds = []string{
	"", "charizard", `a:"Mitsuhiro Arita" charizard`, "t:water hp>=300 legal:standard", `attack:"Fire Spin"`,
	"c:red cost=5 power>=7000", "charizard -set:base1", "hp>=abc", "foo:bar", `"unclosed`, "(a or b) -(c d)",
	"en:base1-4", "Type: Null", "Mr.1(Daz.Bonez)", `Eustass"Captain"Kid`, `"a\"b\\c"`, "--x", "-or", "- ", "-)",
	"a:", "a:)", "(a:)", "hp=", `hp:""`, "\xff\xfe", "a\x00b", "ｈｐ>=300", "ＨＰ:1", "(((x)))", "x)", "((x)", "or", "OR x",
	"is:1st-edition is:reverse is:alternate-art", "lang:zh-tw r:\"rare holo\" reg:G s:MEW", "c!=red", `name:(x`, `name:"`,
	"a\u00a0b", "\u3000", "日本:x", "x:日本", "légal:standard", "t:\"straw hat crew\"",
	"name:charizard (subtypes:mega OR subtypes:vmax)", "subtypes:mega -types:water", "name:char*der", "!name:charizard",
	"nationalPokedexNumbers:[1 TO 151]", "hp:[* TO 100]", "hp:{150 TO *]", "set.id:sm1", "attacks.name:Spelunk",
	"legalities.standard:banned", "set.releaseDate:[2020-01-01 TO *]", "a AND NOT b", "AND", "NOT", "-AND", "!", "!x:",
	"hp:[", "hp:[1 TO", "x.y.z:1", "a.b.:c", "name:*", `name:"*"`, "!hp:[1 TO 2]", "number:*0*", "e.g.:x",
}

// FuzzParse: Parse never panics; an error is an *Error whose position and
// term are in the query; a query that parses prints to a canonical form
// that parses back to the same tree and prints the same.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := syntax.Parse(s)
		if err != nil {
			var se *syntax.Error
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q): %T %v, want an *Error", s, err, err)
			}
			runes := []rune(s)
			if se.Pos < 0 || se.Pos > len(runes) || !strings.HasPrefix(string(runes[se.Pos:]), se.Term) || se.Message == "" {
				t.Fatalf("Parse(%q): %+v does not point into the query", s, se)
			}
			if !utf8.ValidString(se.Error()) {
				t.Fatalf("Parse(%q): invalid UTF-8 in %q", s, se.Error())
			}
			return
		}
		roundTrip(t, s, q)
		n := 0
		q.Root.Terms(func(tm syntax.Term) {
			n++
			if tm.Field != "" {
				if _, ok := syntax.LookupField(tm.Field); !ok {
					t.Fatalf("Parse(%q): unknown field %q in the tree", s, tm.Field)
				}
			}
		})
		if n > syntax.MaxTerms {
			t.Fatalf("Parse(%q): %d terms", s, n)
		}
	})
}
