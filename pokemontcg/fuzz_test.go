package pokemontcg_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/pokemontcg"
	"github.com/cardedge/cardedge/snapshots"
)

// FuzzParams fuzzes the list parameters /v2 reads from the query string
// (orderBy, select, page, pageSize): no panic; an error names the
// parameter; what parses is known fields, a selection of some field, a
// page from 1 and a page size from 1 to MaxPageSize.
func FuzzParams(f *testing.F) {
	for _, s := range []string{"", "name", "name,-number", "-set.releaseDate", ",,", "-", "id,NAME, hp ", "set.legalities.standard",
		"nmae", "1", "0", "-1", "250", "251", "99999999999999999999", "x", "\xff", "id,images,cardedge"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, resource := range []string{"cards", "sets"} {
			keys, err := pokemontcg.ParseOrderBy(resource, s)
			if err != nil && !strings.HasPrefix(err.Error(), "orderBy: ") {
				t.Fatalf("ParseOrderBy(%q): %v", s, err)
			}
			fields := pokemontcg.CardSortFields()
			if resource == "sets" {
				fields = pokemontcg.SetSortFields()
			}
			for _, k := range keys {
				found := false
				for _, f := range fields {
					found = found || f == k.Field
				}
				if !found {
					t.Fatalf("ParseOrderBy(%q): unknown %q", s, k.Field)
				}
			}
			sel, err := pokemontcg.ParseSelect(resource, s)
			if (err != nil && !strings.HasPrefix(err.Error(), "select: ")) || (err == nil && sel == 0) {
				t.Fatalf("ParseSelect(%q) = %v, %v", s, sel, err)
			}
		}
		p, err := pokemontcg.ParsePaging(s, s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "page must be") {
				t.Fatalf("ParsePaging(%q): %v", s, err)
			}
			return
		}
		if p.Page < 1 || p.PageSize < 1 || p.PageSize > pokemontcg.MaxPageSize {
			t.Fatalf("ParsePaging(%q) = %+v", s, p)
		}
		for _, n := range []int{0, 1, 117, 1 << 30} {
			if from, to := p.Window(n); from < 0 || to > n || from > to || to-from > p.PageSize {
				t.Fatalf("%+v.Window(%d) = %d, %d", p, n, from, to)
			}
		}
	})
}

// FuzzListSets fuzzes GET /v2/sets's parameters on a small catalog: no
// panic; an error is EINVALID (a 400 naming what is wrong); an answer is a
// list envelope of at most pageSize sets out of totalCount.
func FuzzListSets(f *testing.F) {
	var sets []*snapshots.Set
	var cards []*snapshots.Card
	for i, x := range []struct{ id, name, series, date, code string }{
		{"base1", "Base", "Base", "1999-01-09", "BS"}, {"swsh7", "Evolving Skies", "Sword & Shield", "2021-08-27", "EVS"},
		{"sv1", "Scarlet & Violet", "Scarlet & Violet", "2023-03-31", "SVI"}, {"sv3pt5", "151", "Scarlet & Violet", "2023-09-22", "MEW"},
	} {
		sets = append(sets, &snapshots.Set{Game: "pokemon", Language: "en", ID: "en:" + x.id, SourceID: x.id, Name: x.name, Series: x.series,
			ReleaseDate: x.date, Abbreviation: x.code, CardCountPrinted: 100 + i})
		for n := 1; n <= 3; n++ {
			legal := snapshots.Legalities{Unlimited: snapshots.LegalityLegal}
			if i >= 2 {
				legal.Standard = snapshots.LegalityLegal
			}
			cards = append(cards, &snapshots.Card{Game: "pokemon", Language: "en", ID: "en:" + x.id + "-" + itoa(n), SourceID: x.id + "-" + itoa(n),
				SetID: "en:" + x.id, Name: "Card", Number: itoa(n), Ordinal: uint32(len(cards)), Supertype: "Pokémon",
				Play: snapshots.Play{Pokemon: &snapshots.PokemonPlay{Legalities: legal}}})
		}
	}
	cat, err := pokemontcg.NewCatalog(sets, cards, pokemontcg.Options{AsOf: asOf})
	if err != nil {
		f.Fatal(err)
	}
	for _, ex := range syntax.LuceneExamples {
		f.Add(ex.Q, ex.OrderBy, "", "1", "")
	}
	f.Add(`series:"sword & shield" -legalities.expanded:legal`, "-releaseDate,name", "id,name", "2", "3")
	f.Add("releaseDate:[2020/01/01 TO *}", "total", "images", "x", "0")
	f.Add("(name:base* OR !id:sv1", "-", ",", "", "251")
	f.Fuzz(func(t *testing.T, q, orderBy, sel, page, size string) {
		p, err := pokemontcg.ParsePaging(page, size)
		if err != nil {
			return
		}
		body, err := cat.ListSets(q, orderBy, sel, p)
		if err != nil {
			if apperr.ErrorCode(err) != apperr.EINVALID {
				t.Fatalf("ListSets(%q, %q, %q): %v", q, orderBy, sel, err)
			}
			return
		}
		var m struct {
			Data       []json.RawMessage `json:"data"`
			PageSize   int               `json:"pageSize"`
			Count      int               `json:"count"`
			TotalCount int               `json:"totalCount"`
		}
		if err := json.Unmarshal(body.AppendJSON(nil), &m); err != nil {
			t.Fatalf("ListSets(%q): %v", q, err)
		}
		if m.Count != len(m.Data) || m.Count > m.PageSize || m.TotalCount > len(cat.Sets()) || m.Count > m.TotalCount {
			t.Fatalf("ListSets(%q): count %d of %d, pageSize %d", q, m.Count, m.TotalCount, m.PageSize)
		}
	})
}
