package index_test

import (
	"testing"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/snapshots"
)

// TestMatchValues: MatchValues over a card's values agrees with the
// reference on every structured case whose fields compare by their kind
// alone (not name, set, reg or is, whose Bleve fields have rules of their
// own), on every card of the small catalog.
func TestMatchValues(t *testing.T) {
	sets, cards := smallCatalog(t)
	setBy := map[string]*snapshots.Set{}
	for _, s := range sets {
		setBy[s.Game+"/"+s.ID] = s
	}
	generic := func(n *syntax.Node) bool {
		ok := true
		n.Terms(func(t syntax.Term) {
			switch t.Field {
			case "", syntax.FieldName, syntax.FieldSet, syntax.FieldReg, syntax.FieldIs:
				ok = false
			}
		})
		return ok
	}
	checked := 0
	for _, tc := range structuredCases {
		q := syntax.MustParse(tc.q)
		if !generic(q.Root) {
			continue
		}
		checked++
		for _, c := range cards {
			if c.Game != tc.game {
				continue
			}
			want, _ := refMatch(t, c, q.Root)
			rs := refSetOf(t, c)
			legal := snapshots.Legalities{}
			total := 0
			if rs != nil {
				total = rs.total
				for f, ok := range rs.legal {
					if ok {
						switch f {
						case "standard":
							legal.Standard = "legal"
						case "expanded":
							legal.Expanded = "legal"
						case "unlimited":
							legal.Unlimited = "legal"
						}
					}
				}
			}
			got := index.MatchValues(q.Root, syntax.Cards, index.CardValues(c, setBy[c.Game+"/"+c.SetID], legal, total))
			if got != want {
				t.Errorf("%q on %s: MatchValues %v, reference %v", tc.q, c.ID, got, want)
			}
		}
	}
	if checked < 40 {
		t.Errorf("only %d cases checked", checked)
	}
}
