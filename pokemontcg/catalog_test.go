package pokemontcg_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/pokemontcg"
	"github.com/cardedge/cardedge/snapshots"
)

// TestCatalog_Lists: types, subtypes, supertypes and rarities are the
// catalog's values, sorted, each once.
func TestCatalog_Lists(t *testing.T) {
	plain, _ := MustCatalogs(t)
	if got, want := plain.Supertypes(), []string{"Energy", "Pokémon", "Trainer"}; !slices.Equal(got, want) {
		t.Errorf("Supertypes = %q, want %q", got, want)
	}
	if got, want := plain.Types(), []string{"Colorless", "Darkness", "Dragon", "Fairy", "Fighting", "Fire", "Grass", "Lightning", "Metal", "Psychic", "Water"}; !slices.Equal(got, want) {
		t.Errorf("Types = %q, want %q", got, want)
	}
	for name, list := range map[string][]string{"Subtypes": plain.Subtypes(), "Rarities": plain.Rarities()} {
		if !slices.IsSorted(list) || len(slices.Compact(slices.Clone(list))) != len(list) || len(list) < 20 {
			t.Errorf("%s = %q", name, list)
		}
	}
	for _, want := range []string{"Rare Holo", "Common", "Illustration Rare"} {
		if !slices.Contains(plain.Rarities(), want) {
			t.Errorf("Rarities lacks %q", want)
		}
	}
	if got := string(pokemontcg.AppendStrings(nil, plain.Supertypes())); got != `{"data":["Energy","Pokémon","Trainer"]}` {
		t.Errorf("AppendStrings = %s", got)
	}
}

// TestParseOrderBy: fields separated by commas, "-" descending, case
// ignored; an unknown field is an error naming it.
func TestParseOrderBy(t *testing.T) {
	got, err := pokemontcg.ParseOrderBy("cards", "name,-number, -set.releaseDate,HP")
	if err != nil {
		t.Fatal(err)
	}
	want := []pokemontcg.SortKey{{Field: "name"}, {Field: "number", Desc: true}, {Field: "set.releasedate", Desc: true}, {Field: "hp"}}
	if !slices.Equal(got, want) {
		t.Errorf("ParseOrderBy = %v, want %v", got, want)
	}
	for _, tc := range []struct{ resource, s, want string }{
		{"cards", "name,-nmber", `orderBy: unknown field "nmber"`},
		{"cards", "releaseDate", `orderBy: unknown field "releaseDate"`},
		{"sets", "set.releaseDate", `orderBy: unknown field "set.releaseDate"`},
	} {
		if _, err := pokemontcg.ParseOrderBy(tc.resource, tc.s); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("ParseOrderBy(%s, %q) = %v, want %q", tc.resource, tc.s, err, tc.want)
		}
	}
	if keys, err := pokemontcg.ParseOrderBy("sets", "-releaseDate,name"); err != nil || len(keys) != 2 {
		t.Errorf("sets: %v %v", keys, err)
	}
}

// TestSortCards sorts every English card by every field, each way, and
// checks the order pair by pair against the field's values: ascending or
// descending, cards without a value last, ties in catalog order.
func TestSortCards(t *testing.T) {
	plain, _ := MustCatalogs(t)
	cards := plain.Cards()
	objs := map[*snapshots.Card]*pokemontcg.Card{}
	for _, c := range cards {
		objs[c] = plain.Card(c)
	}
	for _, field := range pokemontcg.CardSortFields() {
		for _, desc := range []bool{false, true} {
			keys := []pokemontcg.SortKey{{Field: field, Desc: desc}}
			sorted := slices.Clone(cards)
			plain.SortCards(sorted, keys)
			for i := 1; i < len(sorted); i++ {
				a, b := sorted[i-1], sorted[i]
				c := pokemontcg.CompareCards(objs[a], objs[b], keys)
				if c > 0 || (c == 0 && a.Ordinal > b.Ordinal) {
					t.Fatalf("orderBy %s (desc %v): %s before %s", field, desc, a.ID, b.ID)
				}
			}
		}
	}
}

// TestSortCards_Examples: the orderBy examples of pokemontcg.io's
// documentation on Sun & Moon (sm1).
func TestSortCards_Examples(t *testing.T) {
	plain, _ := MustCatalogs(t)
	var sm1 []*snapshots.Card
	for _, c := range plain.Cards() {
		if c.SetID == "en:sm1" {
			sm1 = append(sm1, c)
		}
	}
	numbers := func(cs []*snapshots.Card) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Number)
		}
		return out
	}
	by := func(s string) []*snapshots.Card {
		keys, err := pokemontcg.ParseOrderBy("cards", s)
		if err != nil {
			t.Fatal(err)
		}
		out := slices.Clone(sm1)
		plain.SortCards(out, keys)
		return out
	}
	// Numbers in numeric order (1, 2, ... 10, ... 101, 101a, 102).
	lead := func(n string) int {
		x, _ := strconv.Atoi(strings.TrimRightFunc(n, func(r rune) bool { return r < '0' || r > '9' }))
		return x
	}
	byNumber := numbers(by("number"))
	for i := 1; i < len(byNumber); i++ {
		if lead(byNumber[i-1]) > lead(byNumber[i]) {
			t.Fatalf("orderBy=number: %q before %q", byNumber[i-1], byNumber[i])
		}
	}
	if byNumber[0] != "1" || byNumber[9] != "10" {
		t.Errorf("orderBy=number: %q", byNumber[:12])
	}
	byName := by("name,-number")
	for i := 1; i < len(byName); i++ {
		a, b := byName[i-1], byName[i]
		if strings.ToLower(a.Name) == strings.ToLower(b.Name) && len(a.Number) < len(b.Number) {
			t.Errorf("orderBy=name,-number: %s #%s before #%s", a.Name, a.Number, b.Number)
		}
	}
	mega := by("-set.releaseDate")
	if mega[0].Ordinal > mega[1].Ordinal {
		t.Errorf("ties (one set) are not in catalog order")
	}
}

// TestMatchSets: the set query example of pokemontcg.io's documentation,
// and set fields of each kind.
func TestMatchSets(t *testing.T) {
	plain, _ := MustCatalogs(t)
	ids := func(q string) []string {
		parsed, err := syntax.Sets.Parse(q)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		var out []string
		for _, s := range plain.MatchSets(parsed) {
			out = append(out, s.ID)
		}
		return out
	}
	count := func(keep func(*pokemontcg.Set) bool) int {
		n := 0
		for _, s := range plain.Sets() {
			if keep(s) {
				n++
			}
		}
		return n
	}
	for _, tc := range []struct {
		q    string
		keep func(*pokemontcg.Set) bool
	}{
		{`legalities.standard:legal`, func(s *pokemontcg.Set) bool { return s.Legalities.Standard == "Legal" }},
		{`series:"sword & shield" -legalities.expanded:legal`, func(s *pokemontcg.Set) bool {
			return s.Series == "Sword & Shield" && s.Legalities.Expanded == ""
		}},
		{`releaseDate:[2020/01/01 TO 2020/12/31]`, func(s *pokemontcg.Set) bool { return strings.HasPrefix(s.ReleaseDate, "2020/") }},
		{`total>=300`, func(s *pokemontcg.Set) bool { return s.Total >= 300 }},
		{`name:base*`, func(s *pokemontcg.Set) bool { // a word of the name starts with base (Expedition Base Set)
			return slices.ContainsFunc(strings.Fields(strings.ToLower(s.Name)), func(w string) bool { return strings.HasPrefix(w, "base") })
		}},
		{`!name:base`, func(s *pokemontcg.Set) bool { return s.Name == "Base" }},
		{`id:base1 OR ptcgoCode:JU`, func(s *pokemontcg.Set) bool { return s.ID == "base1" || s.ID == "base2" }},
		{``, func(*pokemontcg.Set) bool { return true }},
	} {
		got := ids(tc.q)
		if want := count(tc.keep); len(got) != want || (tc.q != "" && want == 0) {
			t.Errorf("%q: %d sets, want %d", tc.q, len(got), want)
		}
	}
	// pokemontcg.io's Python and Ruby samples misspell legalities: a 400
	// naming the term, not an empty list.
	_, err := syntax.Sets.Parse("legailities.standard:legal")
	var se *syntax.Error
	if err == nil || !strings.Contains(err.Error(), `"legailities.standard:legal" at position 0: unknown field "legailities.standard"`) {
		t.Errorf("misspelled field: %v", err)
	}
	_ = se
	sorted := slices.Clone(plain.Sets())
	keys, _ := pokemontcg.ParseOrderBy("sets", "-releaseDate,name")
	plain.SortSets(sorted, keys)
	for i := 1; i < len(sorted); i++ {
		if sorted[i-1].ReleaseDate < sorted[i].ReleaseDate {
			t.Fatalf("sets by -releaseDate: %s before %s", sorted[i-1].ID, sorted[i].ID)
		}
	}
}

// TestParseSelect and TestParsePaging: the parameters' rules and errors.
func TestParseSelect(t *testing.T) {
	for _, tc := range []struct {
		resource, s string
		fields      []string // selected; nil: all
		err         string
	}{
		{"cards", "", nil, ""},
		{"cards", "id,name", []string{"id", "name"}, ""},
		{"cards", " ID , Set ,", []string{"id", "set"}, ""},
		{"sets", "releaseDate,images", []string{"releaseDate", "images"}, ""},
		{"cards", "id,nmae", nil, `select: unknown field "nmae"`},
		{"sets", "hp", nil, `select: unknown field "hp"`},
	} {
		sel, err := pokemontcg.ParseSelect(tc.resource, tc.s)
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("ParseSelect(%q) = %v, want %q", tc.s, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		all := pokemontcg.CardFields
		if tc.resource == "sets" {
			all = pokemontcg.SetFields
		}
		for i, f := range all {
			if want := tc.fields == nil || slices.Contains(tc.fields, f); (sel&(1<<i) != 0) != want {
				t.Errorf("ParseSelect(%q): %s selected %v", tc.s, f, !want)
			}
		}
	}
}

func TestParsePaging(t *testing.T) {
	for _, tc := range []struct {
		page, size string
		want       pokemontcg.Paging
		err        string
	}{
		{"", "", pokemontcg.Paging{Page: 1, PageSize: 250}, ""},
		{"3", "10", pokemontcg.Paging{Page: 3, PageSize: 10}, ""},
		{"1", "1000", pokemontcg.Paging{Page: 1, PageSize: 250}, ""},
		{"0", "", pokemontcg.Paging{}, `page must be a whole number from 1, not "0"`},
		{"", "x", pokemontcg.Paging{}, `pageSize must be a whole number from 1, not "x"`},
	} {
		got, err := pokemontcg.ParsePaging(tc.page, tc.size)
		if (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) || got != tc.want {
			t.Errorf("ParsePaging(%q, %q) = %v, %v; want %v, %q", tc.page, tc.size, got, err, tc.want, tc.err)
		}
	}
	for _, tc := range []struct {
		p        pokemontcg.Paging
		n        int
		from, to int
	}{
		{pokemontcg.Paging{Page: 1, PageSize: 250}, 117, 0, 117},
		{pokemontcg.Paging{Page: 2, PageSize: 50}, 117, 50, 100},
		{pokemontcg.Paging{Page: 3, PageSize: 50}, 117, 100, 117},
		{pokemontcg.Paging{Page: 4, PageSize: 50}, 117, 117, 117},
		{pokemontcg.Paging{Page: 1 << 62, PageSize: 250}, 117, 117, 117},
	} {
		if from, to := tc.p.Window(tc.n); from != tc.from || to != tc.to {
			t.Errorf("%v.Window(%d) = %d, %d; want %d, %d", tc.p, tc.n, from, to, tc.from, tc.to)
		}
	}
	b := pokemontcg.AppendListStart(nil)
	b = append(b, `"x"`...)
	b = pokemontcg.AppendListEnd(b, pokemontcg.Paging{Page: 2, PageSize: 1}, 1, 117)
	if got, want := string(b), `{"data":["x"],"page":2,"pageSize":1,"count":1,"totalCount":117}`; got != want {
		t.Errorf("list envelope %s, want %s", got, want)
	}
	if got, want := string(pokemontcg.AppendError(nil, 404, `no card "x"`)), `{"error":{"message":"no card \"x\"","code":404}}`; got != want {
		t.Errorf("error %s, want %s", got, want)
	}
}

// TestNewCatalog_Images: an image URL template of a mirror, escaped; a
// template without {image} is refused.
func TestNewCatalog_Images(t *testing.T) {
	set := &snapshots.Set{Game: "pokemon", ID: "en:ex10", Language: "en", SourceID: "ex10", Name: "Unseen Forces", ReleaseDate: "2005-08-22"}
	card := &snapshots.Card{Game: "pokemon", ID: "en:ex10-?", Language: "en", SourceID: "ex10-?", SetID: "en:ex10", Name: "Unown", Number: "?",
		Supertype: "Pokémon", Play: snapshots.Play{Pokemon: &snapshots.PokemonPlay{}}}
	cat, err := pokemontcg.NewCatalog([]*snapshots.Set{set}, []*snapshots.Card{card}, pokemontcg.Options{ImageURL: "https://mirror.test/img/{set}/{image}.webp"})
	if err != nil {
		t.Fatal(err)
	}
	c := MustCard(t, cat, "ex10-?")
	if got, want := c.Images, (pokemontcg.CardImages{Small: "https://mirror.test/img/ex10/%3F.webp", Large: "https://mirror.test/img/ex10/%3F_hires.webp"}); got != want {
		t.Errorf("images %+v, want %+v", got, want)
	}
	if got := c.Set.Images.Logo; got != "https://mirror.test/img/ex10/logo.webp" {
		t.Errorf("logo %s", got)
	}
	if got := c.Cardedge.Detail; got != "/api/v3/cards/en:ex10-%3F" {
		t.Errorf("detail %s", got)
	}
	if _, err := pokemontcg.NewCatalog(nil, nil, pokemontcg.Options{ImageURL: "https://x.test/{set}.png"}); err == nil {
		t.Error("a template without {image} is accepted")
	}
}
