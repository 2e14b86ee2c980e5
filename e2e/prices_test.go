package e2e_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/e2e/e2etest"
)

// End-to-end tests of /prices (GET and POST, prices.v1) against the shared
// edge of main_test.go: each source against the card routes, batch costs.

// pricesOf returns the prices map of the first item of a prices.v1 e2etest.Reply.
func pricesOf(t *testing.T, r e2etest.Reply) map[string]any {
	t.Helper()
	if r.Status != 200 || r.JSON["contract"] != "prices.v1" {
		t.Fatalf("prices: %d %s", r.Status, truncate(r.Body))
	}
	it := data(t, r)["items"].([]any)[0].(map[string]any)
	p, _ := it["prices"].(map[string]any)
	return p
}

func TestPrices_Sources(t *testing.T) {
	setupFeatureKeys(t)
	key, elite := env.keys["prices"], env.keys["elite"]
	card := data(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4", elite, nil))
	market := card["market"].(map[string]any)

	// own: our fmv, the card routes' price.
	own := pricesOf(t, do(t, keyedClient, "GET", "/prices?ids=en:base1-4&source=own", key, nil))["own"].(map[string]any)
	if own["price_usd"] != market["price_usd"] || own["date"] != market["price_date"] {
		t.Errorf("own %v, card detail %v on %v", own, market["price_usd"], market["price_date"])
	}
	// partner: the partner price feed's latest daily median.
	hist := data(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4/partner-history?limit=2000", elite, nil))["items"].([]any)
	var feed map[string]any
	for i := len(hist) - 1; i >= 0 && feed == nil; i-- {
		if it := hist[i].(map[string]any); it["market_price_usd"] != nil {
			feed = it
		}
	}
	if feed == nil {
		t.Fatal("no partner feed rows for en:base1-4")
	}
	partner := pricesOf(t, do(t, keyedClient, "GET", "/prices?ids=en:base1-4&source=partner", key, nil))["partner"].(map[string]any)
	if partner["price_usd"] != feed["market_price_usd"] || partner["date"] != feed["date"] {
		t.Errorf("partner %v, partner-history %v", partner, feed)
	}
	// observed: the latest verified sale of the grade in the base printing.
	for _, grade := range []string{"raw:near_mint", "slab:10"} {
		sales := data(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4/sales?limit=200", elite, nil))["items"].([]any)
		var last map[string]any
		for _, s := range sales {
			if s.(map[string]any)["grade"] == grade && s.(map[string]any)["finish"] == market["finish"] {
				last = s.(map[string]any)
				break
			}
		}
		obs := pricesOf(t, do(t, keyedClient, "GET", "/prices?ids=en:base1-4&source=observed&grade="+grade, key, nil))["observed"].(map[string]any)
		if last == nil {
			continue // older than the page; the null case is checked below
		}
		if obs["price_usd"] != last["price_usd"] || obs["date"] != last["sale_date"] || obs["sale_id"] != last["sale_id"] || obs["marketplace"] != last["marketplace"] {
			t.Errorf("observed %s %v, latest sale %v", grade, obs, last)
		}
	}
	// all: own and partner side by side, never one blended number.
	r := do(t, keyedClient, "GET", "/prices?ids=en:base1-4&source=all", key, nil)
	all := pricesOf(t, r)
	if len(all) != 2 || all["own"] == nil || all["partner"] == nil {
		t.Errorf("all: %v", all)
	}
	if all["own"].(map[string]any)["price_usd"] != own["price_usd"] || all["partner"].(map[string]any)["price_usd"] != partner["price_usd"] {
		t.Errorf("all differs from its parts: %v", all)
	}
	if s := fmt.Sprint(data(t, r)["sources"]); s != "[own partner]" {
		t.Errorf("all sources %s", s)
	}
	// A grade the partner feed does not cover: null with a note, not an error.
	p := pricesOf(t, do(t, keyedClient, "GET", "/prices?ids=en:base1-4&source=partner&grade=slab:10", key, nil))["partner"].(map[string]any)
	if p["price_usd"] != nil || p["note"] == "" {
		t.Errorf("partner slab:10: %v", p)
	}
}

func TestPrices_Batch(t *testing.T) {
	setupFeatureKeys(t)
	key := env.keys["prices"]
	// Unknown ids are reported per id; a partner product id resolves.
	card := data(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4", env.keys["elite"], nil))
	pid := fmt.Sprint(int64(card["partner_product_id"].(float64)))
	r := do(t, keyedClient, "GET", "/prices?ids=en:base1-4,en:nope-1,"+pid+",EN:BASE1-4&source=all", key, nil)
	if r.Status != 200 {
		t.Fatalf("mixed ids: %d %s", r.Status, r.Body)
	}
	d := data(t, r)
	items := d["items"].([]any)
	if len(items) != 3 {
		t.Fatalf("3 unique ids, %d items: %s", len(items), truncate(r.Body))
	}
	if it := items[1].(map[string]any); it["status"] != "not_found" || it["id"] != "en:nope-1" || it["message"] == "" {
		t.Errorf("unknown id: %v", it)
	}
	if it := items[2].(map[string]any); it["status"] != "ok" || it["card"].(map[string]any)["card_id"] != "en:base1-4" {
		t.Errorf("partner product id %s: %v", pid, it)
	}
	if s := d["summary"].(map[string]any); s["requested"].(float64) != 4 || s["not_found"].(float64) != 1 || d["cost"].(float64) != 1 {
		t.Errorf("summary %v cost %v", s, d["cost"])
	}

	// GET takes at most 50 ids; POST 1,000.
	var ids []string
	for i := 0; i < 51; i++ {
		ids = append(ids, fmt.Sprintf("en:x-%d", i))
	}
	if d := detailOf(t, do(t, keyedClient, "GET", "/prices?ids="+strings.Join(ids, ","), key, nil)); fmt.Sprint(d["loc"]) != "[query ids]" {
		t.Errorf("51 ids: %v", d)
	}
	if r := do(t, freshClient(), "GET", "/prices?ids=en:base1-4", "", nil); r.Status != 401 {
		t.Errorf("GET /prices without a key: %d", r.Status)
	}
	detailOf(t, do(t, keyedClient, "GET", "/prices?ids=en:base1-4&grade=slab:11", key, nil))
	detailOf(t, do(t, keyedClient, "GET", "/prices?source=all", key, nil))

	// A keyed POST of real cards, duplicates in another case and unknown
	// ids costs its unique resolved cards.
	var real []string
	for off := 0; off < 400; off += 200 {
		page := data(t, do(t, keyedClient, "GET", fmt.Sprintf("/api/v3/cards?limit=200&offset=%d&sort=name&order=asc", off), env.keys["elite"], nil))
		for _, it := range page["items"].([]any) {
			real = append(real, it.(map[string]any)["card_id"].(string))
		}
	}
	if len(real) < 250 {
		t.Fatalf("only %d cards", len(real))
	}
	real = real[:250]
	body := append([]string{}, real...)
	for _, id := range real[:100] {
		body = append(body, strings.ToUpper(id))
	}
	for i := 0; len(body) < 1000; i++ {
		body = append(body, fmt.Sprintf("en:none-%d", i))
	}
	post := func(ids []string, extra map[string]any) e2etest.Reply {
		m := map[string]any{"ids": ids}
		for k, v := range extra {
			m[k] = v
		}
		b, _ := json.Marshal(m)
		return do(t, keyedClient, "POST", "/prices", key, b)
	}
	before := usedToday(t, "prices")
	r = post(body, map[string]any{"source": "observed", "grade": "raw:near_mint"})
	if r.Status != 200 {
		t.Fatalf("POST 1,000 ids: %d %s", r.Status, truncate(r.Body))
	}
	d = data(t, r)
	if n := len(d["items"].([]any)); n != 250+650 {
		t.Errorf("POST: %d items, want 900 unique ids", n)
	}
	if d["cost"].(float64) != 250 {
		t.Errorf("POST cost %v, want 250 unique resolved cards", d["cost"])
	}
	if after := usedToday(t, "prices"); after-before != 250+1 {
		t.Errorf("POST of 250 unique resolved cards charged %d units", after-before-1)
	}
	if d := detailOf(t, post(append(body, "en:one-too-many"), nil)); fmt.Sprint(d["loc"]) != "[body ids]" {
		t.Errorf("1,001 ids: %v", d)
	}
	detailOf(t, post([]string{"en:base1-4"}, map[string]any{"source": "blended"}))
	detailOf(t, post([]string{"en:base1-4"}, map[string]any{"game": "chess"}))
	if r := do(t, keyedClient, "POST", "/prices", key, []byte(`{"ids": "en:base1-4"}`)); r.Status != 422 {
		t.Errorf("ids not an array: %d", r.Status)
	}
	// The second game by body.
	r = post([]string{"onepiece-nope"}, map[string]any{"game": "onepiece"})
	if r.Status != 200 || data(t, r)["game"] != "onepiece" {
		t.Errorf("game onepiece: %d %s", r.Status, truncate(r.Body))
	}
	// A free key may POST too (its quota is the limit).
	r = do(t, keyedClient, "POST", "/prices", env.keys["pricesfree"], []byte(`{"ids": ["en:base1-4", "en:base1-2"], "source": "all"}`))
	if r.Status != 200 || data(t, r)["cost"].(float64) != 2 {
		t.Errorf("free POST: %d %s", r.Status, truncate(r.Body))
	}
}
