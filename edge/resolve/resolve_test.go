package resolve_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/edge/resolve"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// src is a real tiny snapshot, built once for the package's tests.
var src resolve.Source

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	tiny, err := snapshotstest.OpenTiny()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer tiny.Close()
	src = resolve.Source{Reader: tiny.Reader, Index: tiny.Index, AsOf: tiny.AsOf}
	return m.Run()
}

func TestResolve(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		ref, game string
		explicit  bool
		status    string
		by        string
		cardID    string
	}{
		{"en:base1-4", "pokemon", false, resolve.Resolved, resolve.ByCardID, "en:base1-4"},
		{"  EN:BASE1-4 ", "pokemon", false, resolve.Resolved, resolve.ByCardID, "en:base1-4"},
		{"1018118", "pokemon", false, resolve.Resolved, resolve.ByPartnerID, "en:base1-4"},
		{"base1-4", "pokemon", false, resolve.Resolved, resolve.BySourceID, "en:base1-4"},
		{"charizard", "pokemon", false, resolve.Resolved, resolve.ByText, "en:base1-4"},
		{"pikachu", "pokemon", false, resolve.Ambiguous, "", ""},
		{"en:OP01-001", "pokemon", false, resolve.Resolved, resolve.ByCardID, "en:OP01-001"},
		{"en:OP01-001", "pokemon", true, resolve.NotFound, "", ""},
		{"zzqx wvvv", "pokemon", false, resolve.NotFound, "", ""},
		{"", "pokemon", false, resolve.NotFound, "", ""},
		{strings.Repeat("a", 300), "pokemon", false, resolve.NotFound, "", ""},
		{"99999999999", "pokemon", false, resolve.NotFound, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.ref, func(t *testing.T) {
			r, err := resolve.Resolve(ctx, src, tc.game, tc.explicit, tc.ref)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != tc.status || r.ResolvedBy != tc.by {
				t.Fatalf("got %s by %q (%s), want %s by %q", r.Status, r.ResolvedBy, r.Message, tc.status, tc.by)
			}
			switch r.Status {
			case resolve.Resolved:
				if r.Card == nil || r.Card.ID != tc.cardID {
					t.Errorf("card %v, want %s", r.Card, tc.cardID)
				}
			case resolve.Ambiguous:
				if n := len(r.Candidates); n < 2 || n > resolve.MaxCandidates {
					t.Errorf("%d candidates", n)
				}
				for _, c := range r.Candidates {
					if c.CardID == "" || c.Name == "" || c.SetName == "" {
						t.Errorf("thin candidate %+v", c)
					}
				}
			case resolve.NotFound:
				if r.Message == "" {
					t.Errorf("no message")
				}
			}
		})
	}
}

func TestResolveAll(t *testing.T) {
	rs, err := resolve.ResolveAll(context.Background(), src, "pokemon", false, []string{"en:base1-4", "EN:base1-4", "1018118", "pikachu", "nope-zz"})
	if err != nil {
		t.Fatal(err)
	}
	if rs[1].Ref != "EN:base1-4" || rs[1].Card != rs[0].Card {
		t.Errorf("duplicate reference not shared: %+v", rs[1])
	}
	if got := len(resolve.UniqueCards(rs)); got != 1 {
		t.Errorf("unique cards %d, want 1", got)
	}
	if _, err := resolve.ResolveAll(context.Background(), src, "pokemon", false, make([]string, resolve.MaxRefs+1)); snapshots.ErrorCode(err) != snapshots.EINVALID {
		t.Errorf("over the cap: %v", err)
	}
}

func TestSearch(t *testing.T) {
	res, err := resolve.Search(context.Background(), src, resolve.SearchRequest{Q: "charizard", SetID: "en:sv3pt5", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Game != "pokemon" || len(res.Items) == 0 || res.Total < len(res.Items) {
		t.Fatalf("search: %+v", res)
	}
	for _, c := range res.Items {
		if c.SetID != "en:sv3pt5" || c.Score <= 0 {
			t.Errorf("item %+v", c)
		}
	}
	if _, err := resolve.Search(context.Background(), src, resolve.SearchRequest{Q: "x", Limit: 500}); snapshots.ErrorCode(err) != snapshots.EINVALID {
		t.Errorf("limit 500: %v", err)
	}
}
