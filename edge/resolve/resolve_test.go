package resolve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/edge/resolve"
	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/bolt"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// src is a real tiny snapshot, built once for the package's tests.
var src resolve.Source

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	root, err := os.MkdirTemp("", "resolve-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(root)
	man, err := snapshotstest.Build(root, 7, snapshotstest.AsOf, "s0001")
	if err != nil {
		fmt.Fprintln(os.Stderr, "build snapshot:", err)
		return 1
	}
	dir := filepath.Join(root, "s0001")
	r, err := bolt.Open(dir, man)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer r.Close()
	ix, err := index.Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer ix.Close()
	src = resolve.Source{Reader: r, Index: ix, AsOf: man.AsOfDay()}
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

func TestQuote(t *testing.T) {
	ctx := context.Background()
	qs, err := resolve.Quote(ctx, src, resolve.QuoteRequest{Refs: []string{"en:base1-4", "pikachu", "nope-zz"}})
	if err != nil {
		t.Fatal(err)
	}
	q := qs[0]
	if q.Status != resolve.Resolved || q.Price == nil || q.Grade != "slab:10" || len(q.Tried) != 2 {
		t.Fatalf("ungraded quote: %+v", q)
	}
	// The quote agrees with the rule applied to the market it saw.
	cm, err := resolve.LoadCardMarket(src.Reader, q.Card, src.AsOf)
	if err != nil {
		t.Fatal(err)
	}
	var markets []resolve.Market
	for _, g := range resolve.UngradedOrder {
		markets = append(markets, cm.Market(g, resolve.Finish{}))
	}
	want, _ := resolve.Choose(markets)
	if *q.Price != want {
		t.Errorf("quote %+v, rule says %+v", *q.Price, want)
	}
	b, _ := json.Marshal(qs)
	var out []map[string]any
	json.Unmarshal(b, &out)
	for _, k := range []string{"label", "price_usd", "price_basis", "card_id", "grade", "midprice"} {
		if _, ok := out[0][k]; !ok {
			t.Errorf("resolved quote JSON has no %s: %s", k, b)
		}
	}
	if out[1]["status"] != "ambiguous" || out[1]["candidates"] == nil || out[1]["label"] != nil {
		t.Errorf("ambiguous JSON: %v", out[1])
	}
	if out[2]["status"] != "not_found" {
		t.Errorf("not found JSON: %v", out[2])
	}

	// Every grade of Charizard: the rule picks Midprice only when usable.
	for _, g := range []string{"raw:near_mint", "raw:damaged", "slab:10", "slab:1", "bgs:9.5", "cgc:5", "cgc:1"} {
		qs, err := resolve.Quote(ctx, src, resolve.QuoteRequest{Refs: []string{"en:base1-4"}, Grade: g})
		if err != nil {
			t.Fatal(err)
		}
		q := qs[0]
		if q.Grade != g {
			t.Errorf("%s: quoted %s", g, q.Grade)
		}
		if q.Price == nil {
			if q.Mid.Status != resolve.StatusNone && g != "cgc:1" {
				t.Errorf("%s: no price with midprice status %s", g, q.Mid.Status)
			}
			continue
		}
		usable := (q.Mid.Status == "ok" || q.Mid.Status == "thin") && q.Mid.PriceUSD != nil
		if (q.Price.Label == resolve.LabelMidprice) != usable {
			t.Errorf("%s: label %s with midprice %+v", g, q.Price.Label, q.Mid)
		}
	}

	for _, bad := range []resolve.QuoteRequest{
		{Refs: []string{"en:base1-4"}, Grade: "psa:10"},
		{Refs: []string{"en:base1-4"}, Game: "magic"},
		{},
	} {
		if _, err := resolve.Quote(ctx, src, bad); snapshots.ErrorCode(err) != snapshots.EINVALID {
			t.Errorf("%+v: %v, want EINVALID", bad, err)
		}
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
