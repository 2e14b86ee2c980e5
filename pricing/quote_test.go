package pricing_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

func TestQuote(t *testing.T) {
	ctx := context.Background()
	qs, err := pricing.Quote(ctx, src, pricing.QuoteRequest{Refs: []string{"en:base1-4", "pikachu", "nope-zz"}})
	if err != nil {
		t.Fatal(err)
	}
	q := qs[0]
	if q.Status != resolve.Resolved || q.Price == nil || q.Grade != "slab:10" || len(q.Tried) != 2 {
		t.Fatalf("ungraded quote: %+v", q)
	}
	// The quote agrees with the rule applied to the market it saw.
	cm, err := pricing.LoadCardMarket(src.Reader, q.Card, src.AsOf)
	if err != nil {
		t.Fatal(err)
	}
	var markets []pricing.Market
	for _, g := range pricing.UngradedOrder {
		markets = append(markets, cm.Market(g, snapshots.BasePrinting(q.Card)))
	}
	want, _ := pricing.Choose(markets)
	if *q.Price != want {
		t.Errorf("quote %+v, rule says %+v", *q.Price, want)
	}
	b, _ := json.Marshal(qs)
	var out []map[string]any
	json.Unmarshal(b, &out)
	for _, k := range []string{"label", "price_usd", "price_basis", "card_id", "grade", "midprice", "finish", "base_finish"} {
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
		qs, err := pricing.Quote(ctx, src, pricing.QuoteRequest{Refs: []string{"en:base1-4"}, Grade: g})
		if err != nil {
			t.Fatal(err)
		}
		q := qs[0]
		if q.Grade != g {
			t.Errorf("%s: quoted %s", g, q.Grade)
		}
		if q.Price == nil {
			if q.Mid.Status != pricing.StatusNone && g != "cgc:1" {
				t.Errorf("%s: no price with midprice status %s", g, q.Mid.Status)
			}
			continue
		}
		usable := (q.Mid.Status == "ok" || q.Mid.Status == "thin") && q.Mid.PriceUSD != nil
		if (q.Price.Label == pricing.LabelMidprice) != usable {
			t.Errorf("%s: label %s with midprice %+v", g, q.Price.Label, q.Mid)
		}
	}

	// Each printing is quoted apart: 1st edition far above unlimited.
	var fmv [2]int64
	for i, finish := range []string{"", "1st-edition"} {
		qs, err := pricing.Quote(ctx, src, pricing.QuoteRequest{Refs: []string{"en:base1-4"}, Grade: "raw:near_mint", Finish: finish})
		if err != nil {
			t.Fatal(err)
		}
		q := qs[0]
		if q.Price == nil || q.Price.Label != pricing.LabelMidprice {
			t.Fatalf("finish %q: %+v", finish, q)
		}
		e, _, err := pricing.PrintingEstimate(src.Reader, q.Card, q.Finish, snapshots.RawNearMint)
		if err != nil || e.FMVCents != q.Price.Cents {
			t.Errorf("finish %q: quoted %d, the printing's estimate %+v (%v)", finish, q.Price.Cents, e, err)
		}
		fmv[i] = q.Price.Cents
	}
	if fmv[1] < 5*fmv[0] {
		t.Errorf("1st edition %d, unlimited %d: want at least 5x", fmv[1], fmv[0])
	}

	for _, bad := range []pricing.QuoteRequest{
		{Refs: []string{"en:base1-4"}, Grade: "psa:11"},
		{Refs: []string{"en:base1-4"}, Game: "magic"},
		{},
	} {
		if _, err := pricing.Quote(ctx, src, bad); apperr.ErrorCode(err) != apperr.EINVALID {
			t.Errorf("%+v: %v, want EINVALID", bad, err)
		}
	}
}

// TestQuote_GradeBasis: every resolved quote says why it is of its grade:
// asked for, said in the words, or the top grade tried first because none
// was given (and then whether it had a price); grades read as people read
// them (the usual spellings in, names out).
func TestQuote_GradeBasis(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		req       pricing.QuoteRequest
		grade     string
		name      string
		basisHave []string
	}{
		{pricing.QuoteRequest{Refs: []string{"en:base1-4"}}, "slab:10", "PSA 10",
			[]string{"no grade was given, so the quote answers at the top grade first, PSA 10", "then Raw, near mint", "PSA 10 had a price", "grade=raw"}},
		{pricing.QuoteRequest{Refs: []string{"en:base1-4"}, Grade: "psa10"}, "slab:10", "PSA 10", []string{"PSA 10: the grade asked for"}},
		{pricing.QuoteRequest{Refs: []string{"en:base1-4"}, Grade: "BGS 9.5"}, "bgs:9.5", "BGS 9.5", []string{"BGS 9.5: the grade asked for"}},
		{pricing.QuoteRequest{Refs: []string{"en:base1-4"}, Grade: "nm"}, "raw:near_mint", "Raw, near mint", []string{"Raw, near mint: the grade asked for"}},
		{pricing.QuoteRequest{Refs: []string{"psa 10 charizard base"}}, "slab:10", "PSA 10", []string{`PSA 10: the grade the words said ("psa 10")`}},
	}
	for _, tc := range cases {
		qs, err := pricing.Quote(ctx, src, tc.req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(qs[0])
		var out map[string]any
		json.Unmarshal(b, &out)
		if out["grade"] != tc.grade || out["grade_name"] != tc.name {
			t.Errorf("%+v: grade %v %v, want %s %s", tc.req, out["grade"], out["grade_name"], tc.grade, tc.name)
		}
		basis, _ := out["grade_basis"].(string)
		for _, want := range tc.basisHave {
			if !strings.Contains(basis, want) {
				t.Errorf("%+v: grade_basis %q does not say %q", tc.req, basis, want)
			}
		}
	}
	// A card whose top grade has no price: the basis says the raw grade was
	// quoted instead.
	q := pricing.QuoteResult{Grade: "raw:near_mint", Price: &pricing.Price{}}
	if got := pricing.GradeBasisOf(pricing.GradeUngraded, q, nil); !strings.Contains(got, "PSA 10 had none, so Raw, near mint is quoted") {
		t.Errorf("fallback basis: %q", got)
	}
}

// TestQuote_OtherGames: a quote without a game whose words match no card of
// the default game is answered from another game's cards, and says so.
func TestQuote_OtherGames(t *testing.T) {
	c, err := src.Reader.Card("onepiece", "en:OP01-001")
	if err != nil {
		t.Fatal(err)
	}
	qs, err := pricing.Quote(context.Background(), src, pricing.QuoteRequest{Refs: []string{c.Name + " op01"}})
	if err != nil {
		t.Fatal(err)
	}
	if qs[0].Status == resolve.NotFound || !strings.Contains(qs[0].Message, "game=onepiece") {
		t.Errorf("%s: %s (%s)", qs[0].Ref, qs[0].Status, qs[0].Message)
	}
}

// src is a real tiny snapshot, opened once for the package's tests.
var src *live.View

func TestMain(m *testing.M) { os.Exit(snapshotstest.RunView(m, &src, live.NewView)) }
