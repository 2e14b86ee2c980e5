package pokemontcg_test

import (
	"strings"
	"testing"

	"github.com/cardedge/cardedge/pokemontcg"
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
