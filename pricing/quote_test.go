package pricing_test

import (
	"context"
	"encoding/json"
	"os"
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
		{Refs: []string{"en:base1-4"}, Grade: "psa:10"},
		{Refs: []string{"en:base1-4"}, Game: "magic"},
		{},
	} {
		if _, err := pricing.Quote(ctx, src, bad); apperr.ErrorCode(err) != apperr.EINVALID {
			t.Errorf("%+v: %v, want EINVALID", bad, err)
		}
	}
}

// src is a real tiny snapshot, opened once for the package's tests.
var src *live.View

func TestMain(m *testing.M) { os.Exit(snapshotstest.RunView(m, &src, live.NewView)) }
