package index_test

import (
	"os"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/index"
)

func TestExplore(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	t.Logf("build %v", fullTook)
	for _, q := range strings.Split(os.Getenv("EXPLORE"), "|") {
		game := "pokemon"
		if strings.HasPrefix(q, "op:") {
			game, q = "onepiece", q[3:]
		}
		res := mustSearch(t, index.SearchRequest{Game: game, Q: q, Limit: 5})
		t.Logf("Q %q total %d", q, res.Total)
		for _, h := range res.Hits {
			c := card(t, game, h.CardID)
			t.Logf("   %-22s %7.3f %-30s %-10s %v", h.CardID, h.Score, c.Name, c.Number, h.Highlights)
		}
		for _, s := range fullIx.Lookup(game, q, "", 5) {
			t.Logf("   L %s %-22s %-30s %7.2f %q %v", s.Kind, s.ID, s.Label, s.Score, s.Match, s.Exact)
		}
	}
}
