package edge

import (
	"encoding/json"
	"testing"
)

// TestCardDetail_PriceReason: the market_summary include of a card whose
// base printing shows no raw near-mint value says why, with its last sale
// (pricing.ExplainNoValue); a priced card's has none. The default markets
// of the snapshot decide which cards to explain without a read.
func TestCardDetail_PriceReason(t *testing.T) {
	e := newMemoEnv(t, tinyRoot(t), 0)
	snap := e.srv.acquire()
	cards, err := snap.Cards("pokemon")
	if err != nil {
		t.Fatal(err)
	}
	var unpriced string
	for _, c := range cards {
		if priced, known := snap.encoded["pokemon"].Priced(c.Ordinal); known && !priced && c.SalesAll > 0 {
			unpriced = c.ID
			break
		}
	}
	snap.release()
	if unpriced == "" {
		t.Fatal("no card without a price that sold in the tiny snapshot")
	}
	for _, tc := range []struct {
		id     string
		reason bool
	}{{unpriced, true}, {"en:base1-4", false}} {
		r := e.get(t, "/api/v3/cards/"+tc.id+"?include=market_summary", "Authorization", "Bearer "+e.elite)
		var body struct {
			Data struct {
				Market struct {
					PriceUSD *float64 `json:"price_usd"`
				} `json:"market"`
				Includes struct {
					MarketSummary map[string]any `json:"market_summary"`
				} `json:"includes"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(r.Body), &body); err != nil || r.Status != 200 {
			t.Fatalf("%s: %d %v", tc.id, r.Status, err)
		}
		why, ok := body.Data.Includes.MarketSummary["price_reason"].(map[string]any)
		if ok != tc.reason || (body.Data.Market.PriceUSD == nil) != tc.reason {
			t.Errorf("%s: price %v, price_reason %v", tc.id, body.Data.Market.PriceUSD, body.Data.Includes.MarketSummary["price_reason"])
			continue
		}
		if ok && (why["reason"] == "" || why["grade_name"] != "Raw, near mint" || why["last_sale"] == nil && why["reason"] != "never_sold") {
			t.Errorf("%s: price_reason %v", tc.id, why)
		}
	}
}
