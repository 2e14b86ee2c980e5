package e2e_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/cardedge/cardedge/web/webtest"
)

// End-to-end tests of GET /api/v3/me/collection (collection.v1): a
// collection belongs to the account, so every key of an account reads one
// collection, while a key without an account keeps its own. Every response
// is validated against the OpenAPI document (do).

func TestCollection_AccountKeys(t *testing.T) {
	setupFeatureKeys(t)
	d := newDash(t)
	d.SignUp(webtest.UniqueEmail(t))
	one, _ := d.CreateKey("one")
	two, _ := d.CreateKey("two")
	waitStatus(t, "/api/v3/sets?limit=1", one, 200)
	waitStatus(t, "/api/v3/sets?limit=1", two, 200)

	csv := "card_id,printing,grade,qty,price paid\nen:base1-4,,slab:9,2,100\nen:base1-4,1st-edition,,1,\n"
	p := upload(t, one, "/api/v3/me/imports/preview", "text/csv", []byte(csv))
	if p.Status != 200 {
		t.Fatalf("preview: %d %s", p.Status, truncate(p.Body))
	}
	body, _ := json.Marshal(map[string]any{"preview_id": data(t, p)["preview_id"]})
	if c := do(t, keyedClient, "POST", "/api/v3/me/imports/confirm", two, body); c.Status != 200 { // the other key of the account
		t.Fatalf("confirm with the account's other key: %d %s", c.Status, truncate(c.Body))
	}

	r := do(t, keyedClient, "GET", "/api/v3/me/collection", two, nil)
	if r.Status != 200 || r.JSON["contract"] != "collection.v1" {
		t.Fatalf("collection: %d %s", r.Status, truncate(r.Body))
	}
	v := data(t, r)
	sum := v["summary"].(map[string]any)
	holdings := v["holdings"].([]any)
	if v["owner"] != "account" || sum["quantity"].(float64) != 3 || len(holdings) != 2 || sum["paid_usd"].(float64) != 200 {
		t.Fatalf("collection of the account: %s", truncate(r.Body))
	}
	var first map[string]any
	for _, h := range holdings {
		if h := h.(map[string]any); h["grade"] == "slab:9" {
			first = h
		}
	}
	if first == nil || first["printing"] != "holo/unlimited" || first["base_printing"] != true || first["quantity"].(float64) != 2 {
		t.Errorf("slab:9 holding: %v", first)
	}
	// The holding's fmv is the card's slab:9 price (the base printing's).
	own := pricesOf(t, do(t, keyedClient, "GET", "/prices?ids=en:base1-4&grade=slab:9", env.keys["elite"], nil))["own"].(map[string]any)
	if first["fmv_usd"] != own["price_usd"] || math.Abs(first["value_usd"].(float64)-2*own["price_usd"].(float64)) > 0.005 {
		t.Errorf("slab:9 fmv %v, /prices own %v", first["fmv_usd"], own["price_usd"])
	}
	// A Free account sees 3 days of value history, whatever since asks.
	for _, q := range []string{"", "?since=2020-01-01"} {
		v := data(t, do(t, keyedClient, "GET", "/api/v3/me/collection"+q, one, nil))
		hist := v["history"].([]any)
		if len(hist) != 3 || hist[2].(map[string]any)["date"] != v["as_of"] || v["history_from"] != hist[0].(map[string]any)["date"] {
			t.Errorf("history%s: %v", q, hist)
		}
		if last := hist[2].(map[string]any)["value_usd"].(float64); math.Abs(last-v["summary"].(map[string]any)["value_usd"].(float64)) > 0.005 {
			t.Errorf("history ends at %v, the summary says %v", last, v["summary"])
		}
	}
	if h := data(t, do(t, keyedClient, "GET", "/api/v3/me/collection?history=false&limit=1&sort=name", one, nil)); len(h["history"].([]any)) != 0 || len(h["holdings"].([]any)) != 1 || h["total"].(float64) != 2 {
		t.Errorf("history=false&limit=1: %v", h)
	}

	// A key without an account keeps its own collection.
	lone := data(t, do(t, keyedClient, "GET", "/api/v3/me/collection", env.keys["prices"], nil))
	if lone["owner"] != "key" || lone["total"].(float64) != 0 {
		t.Errorf("a key without an account: %v", lone)
	}
	for _, q := range []string{"?game=nope", "?sort=price", "?limit=0", "?limit=1001"} {
		if r := do(t, keyedClient, "GET", "/api/v3/me/collection"+q, one, nil); r.Status != 422 {
			t.Errorf("%s: %d", q, r.Status)
		}
	}
	if r := do(t, freshClient(), "GET", "/api/v3/me/collection", "", nil); r.Status != 401 {
		t.Errorf("without a key: %d", r.Status)
	}
}
