package e2e_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/e2e/e2etest"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// End-to-end tests of the REST routes on the shared edge of main_test.go:
// every route once, validation, auth and tiers, cursors, caching, batch,
// quotas, search and quote. Every JSON response is also checked against the
// published OpenAPI document (do).

func TestREST_Health(t *testing.T) {
	r := do(t, keyedClient, "GET", "/health", "", nil)
	if r.Status != 200 || r.JSON["mcp_version"] != "1.1.0" || r.JSON["snapshot_id"] != "s0001" || r.JSON["as_of"] != snapshotstest.AsOf {
		t.Fatalf("health: %d %s", r.Status, r.Body)
	}
	if _, ok := r.JSON["cache"].(map[string]any); !ok {
		t.Errorf("health has no cache statistics: %s", r.Body)
	}
	m := do(t, keyedClient, "GET", "/metrics", "", nil)
	if m.Status != 200 || !bytes.Contains(m.Body, []byte("cardedge_requests_total")) || !bytes.Contains(m.Body, []byte("cardedge_cache_hits_total")) {
		t.Errorf("metrics: %d %s", m.Status, truncate(m.Body))
	}
}

// TestREST_Routes calls every REST route once with a key and checks status,
// contract and a few payload fields.
func TestREST_Routes(t *testing.T) {
	pro := env.keys["elite"]
	cases := []struct {
		path, contract string
		fields         []string
	}{
		{"/api/v3/cards?limit=5", "card-gold.v3", []string{"items", "total", "offset", "limit"}},
		{"/api/v3/cards?set_id=en:base1&sort=price&order=desc&limit=3", "card-gold.v3", []string{"items"}},
		{"/api/v3/cards?marketplace=partner_feed,ebay&marketplace_mode=any&language=en", "card-gold.v3", []string{"items"}},
		{"/api/v3/cards?source=courtyard&marketplace_mode=only", "card-gold.v3", []string{"items"}},
		{"/api/v3/cards?q=charizard&card_number=004&rarity=rare%20holo", "card-gold.v3", []string{"items"}},
		{"/api/v3/cards/en:base1-4", "card-gold.v3", []string{"card_id", "name", "set", "market", "market_sources", "venues"}},
		{"/api/v3/cards/en:base1-4?include=" + strings.Join([]string{"price_history", "tvwap_history", "tvwap_slots", "grade_momentum", "recent_sales", "market_summary", "grade_breakdown", "population_overview", "grading_economics"}, ","), "card-gold.v3", []string{"includes"}},
		{"/api/v3/cards/en:base1-4/analytics?window=all", "card-analytics.v1", []string{"sales", "volume_usd", "by_marketplace", "change_pct"}},
		{"/api/v3/cards/en:base1-4/market-history?condition=near_mint&date_from=2026-01-01", "market-history.v1", []string{"items", "total_days"}},
		{"/api/v3/cards/en:base1-4/marketplace-sales?source=ebay&limit=5", "marketplace-sales.v1", []string{"items", "by_marketplace"}},
		{"/api/v3/cards/en:base1-4/price-history?grade=slab:10&method=tvwap&interval=week", "price-history.v3", []string{"items", "total"}},
		{"/api/v3/cards/en:base1-4/price-history?interval=change&since=2026-06-01&date_from=2025-01-01", "price-history.v3", []string{"items"}},
		{"/api/v3/cards/en:base1-4/sales?limit=5&trade_type=auction", "card-sales.v1", []string{"items", "next_cursor"}},
		{"/api/v3/cards/en:base1-4/partner-history?limit=10", "partner-history.v1", []string{"items"}},
		{"/api/v3/cards/en:base1-4/vwap?window_days=90&condition=near_mint", "vwap.v1", []string{"vwap_usd", "sales"}},
		{"/api/v3/cards/en:base1-4/vwap?grader=slab&grade_num=10", "vwap.v1", []string{"sales"}},
		{"/api/v3/trending?metric=price_pct&window=7d&language=en&limit=5", "trending.v1", []string{"items", "total"}},
		{"/api/v3/trending?metric=slab_volume_usd&window_days=45&direction=asc", "trending.v1", []string{"items"}},
		{"/api/v3/trending?metric=composite&grader=bgs&grade_num=9.5", "trending.v1", []string{"items"}},
		{"/api/v3/market/volume?days=30&granularity=weekly&language=en", "market-volume.v1", []string{"series", "sets"}},
		{"/api/v3/shop/listings?platforms=ebay,cardmarket&sort=deal_score&limit=5", "shop-listings.v1", []string{"items", "total"}},
		{"/api/v3/shop/listings?card_id=en:base1-4&sort=newest", "shop-listings.v1", []string{"items"}},
		{"/api/v3/sets?sort=volume&limit=5", "set-list.v1", []string{"items"}},
		{"/api/v3/sets/en:base1", "set-gold.v3", []string{"set_id", "name", "card_count"}},
		{"/api/v3/sets/en:base1/breakdown", "set-breakdown.v1", []string{"rarities", "totals"}},
		{"/api/v3/sets/en:base1/price-distribution", "set-price-distribution.v1", []string{"buckets"}},
		{"/api/v3/sets/en:base1/trending-cards", "set-trending-cards.v2", []string{"items"}},
		{"/api/v3/sets/en:base1/volume-history?granularity=monthly&days=365", "set-volume-history.v1", []string{"items"}},
		{"/api/v3/cards?game=onepiece&limit=3", "card-gold.v3", []string{"items"}},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			r := do(t, keyedClient, "GET", tc.path, pro, nil)
			if r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, truncate(r.Body))
			}
			if got := r.JSON["contract"]; got != tc.contract {
				t.Errorf("contract %v, want %s", got, tc.contract)
			}
			d := data(t, r)
			for _, f := range tc.fields {
				if _, ok := d[f]; !ok {
					t.Errorf("data has no %q: %s", f, truncate(r.Body))
				}
			}
			if r.Header.Get("X-Service-Tier") != "elite" || r.Header.Get("X-Service-History-Days") == "" {
				t.Errorf("access headers: %v", r.Header)
			}
		})
	}
}

func TestREST_CardsListFilters(t *testing.T) {
	r := do(t, keyedClient, "GET", "/api/v3/cards?set_id=en:base1&limit=200", env.keys["elite"], nil)
	items := data(t, r)["items"].([]any)
	if len(items) == 0 {
		t.Fatal("no cards in en:base1")
	}
	for _, it := range items {
		if it.(map[string]any)["set"].(map[string]any)["id"] != "en:base1" {
			t.Fatalf("set filter let through %v", it)
		}
	}
	r = do(t, keyedClient, "GET", "/api/v3/cards?q=charizard&card_number=4&set_id=en:base1", env.keys["elite"], nil)
	items = data(t, r)["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["card_id"] != "en:base1-4" {
		t.Fatalf("charizard #4: %s", truncate(r.Body))
	}
	// Sorted by price descending: non-increasing prices.
	r = do(t, keyedClient, "GET", "/api/v3/cards?sort=price&order=desc&limit=50", env.keys["elite"], nil)
	prev := 1e18
	for _, it := range data(t, r)["items"].([]any) {
		p, _ := it.(map[string]any)["market"].(map[string]any)["price_usd"].(float64)
		if p > prev {
			t.Fatalf("price order broken: %v after %v", p, prev)
		}
		prev = p
	}
}

func TestREST_Validation(t *testing.T) {
	key := env.keys["elite"]
	cases := []struct {
		path  string
		names []string
	}{
		{"/api/v3/cards?limit=0", []string{"limit"}},
		{"/api/v3/cards?limit=201&offset=-1&sort=nope&order=up", []string{"limit", "offset", "sort", "order"}},
		{"/api/v3/cards/en:base1-4/price-history?date_from=2026-13-01&since=yesterday&limit=2001&interval=month", []string{"date_from", "since", "limit", "interval"}},
		{"/api/v3/cards/en:base1-4/sales?limit=abc&include_filtered=maybe&trade_type=swap", []string{"limit", "include_filtered", "trade_type"}},
		{"/api/v3/cards/en:base1-4/vwap?window_days=366&grade_num=11", []string{"window_days", "grade_num"}},
		{"/api/v3/trending?window=2d&limit=201&language=fr", []string{"window", "limit", "language"}},
		{"/api/v3/cards?game=chess", []string{"game"}},
		{"/api/v3/cards?q=" + strings.Repeat("x", 257), []string{"q"}},
		{"/api/v3/cards/en:base1-4/sales?cursor=forged.cursor", []string{"cursor"}},
		{"/api/v3/shop/listings?limit=101", []string{"limit"}},
		{"/api/v3/sets?limit=201&sort=size", []string{"limit", "sort"}},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			r := do(t, keyedClient, "GET", tc.path, key, nil)
			if r.Status != 422 {
				t.Fatalf("status %d, want 422: %s", r.Status, truncate(r.Body))
			}
			detail, _ := r.JSON["detail"].([]any)
			var got []string
			for _, d := range detail {
				e := d.(map[string]any)
				loc := e["loc"].([]any)
				got = append(got, fmt.Sprint(loc[len(loc)-1]))
				if e["msg"] == "" || e["type"] == "" {
					t.Errorf("entry without msg or type: %v", e)
				}
			}
			for _, n := range tc.names {
				if !slices.Contains(got, n) {
					t.Errorf("422 does not name %q (names %v)", n, got)
				}
			}
		})
	}
}

func TestREST_NotFoundAndRemoved(t *testing.T) {
	key := env.keys["elite"]
	r := do(t, keyedClient, "GET", "/api/v3/cards/en:nope-1", key, nil)
	if r.Status != 404 || r.JSON["contract"] != "error.v1" {
		t.Errorf("unknown card: %d %s", r.Status, r.Body)
	}
	r = do(t, keyedClient, "GET", "/api/v3/sets/en:nope", key, nil)
	if r.Status != 404 {
		t.Errorf("unknown set: %d %s", r.Status, r.Body)
	}
	removed := map[string]string{
		"GET /api/v3/cards/summary":             "GET /api/v3/cards/{id} or GET /api/v3/cards?limit=N",
		"GET /api/v3/cards/timeseries":          "GET /api/v3/cards/{id}/market-history",
		"GET /api/v3/cards/en:base1-4/bundle":   "GET /api/v3/cards/{id}, /chart-series, /sales, and the partner history route individually",
		"GET /api/v3/sales":                     "GET /api/v3/cards/{id}/sales",
		"POST /api/v3/cards/analytics/batch":    "GET /api/v3/cards/{id}/analytics per card",
		"GET /api/v3/analytics/grade-premium":   "",
		"GET /api/v3/analytics/kfactor":         "",
		"GET /api/v3/lists":                     "",
		"GET /api/v3/lists/7":                   "",
		"PATCH /api/v3/lists/7":                 "",
		"PATCH /api/v3/lists/7/items/9":         "",
		"POST /api/v3/lists":                    "",
		"POST /api/v3/lists/7/items":            "",
		"GET /api/v3/marketplaces":              "",
		"GET /api/v3/me/portfolio/history":      "",
		"GET /api/v3/me/portfolio/mark-preview": "",
		"GET /api/v3/me/portfolio/valuation":    "",
		"GET /api/v3/me/watchlist/movers":       "",
		"POST /api/v3/events/share":             "",
		"POST /api/v3/feedback":                 "",
	}
	for route, repl := range removed {
		method, path, _ := strings.Cut(route, " ")
		r := do(t, keyedClient, method, path, key, nil)
		e, _ := r.JSON["error"].(map[string]any)
		if r.Status != 404 || e["code"] != "removed" {
			t.Errorf("%s: %d %s", route, r.Status, r.Body)
			continue
		}
		details, _ := e["details"].(map[string]any)
		if repl != "" && details["replacement"] != repl {
			t.Errorf("%s: replacement %v, want %q", route, details["replacement"], repl)
		}
	}
}

func TestREST_Auth(t *testing.T) {
	keyed := []string{"/api/v3/cards", "/api/v3/cards/en:base1-4/analytics", "/api/v3/cards/en:base1-4/price-history",
		"/api/v3/cards/en:base1-4/vwap", "/api/v3/market/volume", "/api/v3/shop/listings", "/api/v3/sets", "/api/v3/sets/en:base1",
		"/api/v3/sets/en:base1/breakdown", "/api/v3/sets/en:base1/price-distribution", "/api/v3/sets/en:base1/trending-cards",
		"/api/v3/sets/en:base1/volume-history", "/keys/usage"}
	c := freshClient()
	for _, p := range keyed {
		for _, key := range []string{"", "not-a-key", env.keys["pro"] + "x"} {
			r := do(t, c, "GET", p, key, nil)
			e, _ := r.JSON["error"].(map[string]any)
			if r.Status != 401 || r.JSON["contract"] != "error.v1" || e["code"] == "" {
				t.Errorf("%s with key %q: %d %s", p, key, r.Status, r.Body)
			}
		}
	}
	r := do(t, c, "GET", "/api/v3/cards", "", nil, "Authorization", "Basic abc")
	if r.Status != 401 {
		t.Errorf("Basic scheme: %d", r.Status)
	}
	// Keyless routes answer without a key, as playground.
	for _, p := range []string{"/api/v3/cards/en:base1-4", "/api/v3/cards/en:base1-4/market-history", "/api/v3/cards/en:base1-4/marketplace-sales",
		"/api/v3/cards/en:base1-4/sales", "/api/v3/cards/en:base1-4/partner-history", "/api/v3/trending"} {
		r := do(t, freshClient(), "GET", p, "", nil)
		if r.Status != 200 || r.Header.Get("X-Service-Tier") != "playground" || r.Header.Get("X-Service-History-Days") != "3" {
			t.Errorf("keyless %s: %d tier %q: %s", p, r.Status, r.Header.Get("X-Service-Tier"), truncate(r.Body))
		}
	}
}

func TestREST_Playground(t *testing.T) {
	c := freshClient()
	r := do(t, c, "GET", "/api/v3/cards/en:base1-4/sales?limit=200", "", nil)
	if r.Status != 200 {
		t.Fatalf("sales: %d %s", r.Status, r.Body)
	}
	d := data(t, r)
	if n := len(d["items"].([]any)); n > 50 {
		t.Errorf("playground got %d rows, cap is 50", n)
	}
	if d["next_cursor"] != nil {
		t.Errorf("playground next_cursor %v, want null", d["next_cursor"])
	}
	// Second request within the second: 429 with Retry-After.
	r = do(t, c, "GET", "/api/v3/cards/en:base1-4", "", nil)
	if r.Status != 429 || r.Header.Get("Retry-After") == "" {
		t.Errorf("second playground request in a second: %d Retry-After %q", r.Status, r.Header.Get("Retry-After"))
	}
	// The history window clamps since to as_of - 2 days.
	time.Sleep(1100 * time.Millisecond)
	r = do(t, c, "GET", "/api/v3/cards/en:base1-4/sales?since=2020-01-01", "", nil)
	if r.Status != 200 {
		t.Fatalf("sales since: %d %s", r.Status, r.Body)
	}
	f := data(t, r)["filters"].(map[string]any)
	if f["since"] != "2026-11-18" {
		t.Errorf("since clamped to %v, want 2026-11-18", f["since"])
	}
	for _, it := range data(t, r)["items"].([]any) {
		if it.(map[string]any)["sale_date"].(string) < "2026-11-18" {
			t.Fatalf("row outside the history window: %v", it)
		}
	}
}

func TestREST_SalesCursor(t *testing.T) {
	key := env.keys["elite"]
	seen := map[string]bool{}
	path := "/api/v3/cards/en:base1-4/sales?limit=40&include_filtered=true"
	pages := 0
	var firstCursor string
	for cur := ""; pages < 100; pages++ {
		p := path
		if cur != "" {
			p += "&cursor=" + cur
		}
		r := do(t, keyedClient, "GET", p, key, nil)
		if r.Status != 200 {
			t.Fatalf("page %d: %d %s", pages, r.Status, r.Body)
		}
		d := data(t, r)
		lastDate := "9999"
		for _, it := range d["items"].([]any) {
			row := it.(map[string]any)
			id := row["sale_id"].(string)
			if seen[id] {
				t.Fatalf("sale %s on two pages", id)
			}
			seen[id] = true
			if row["sale_date"].(string) > lastDate {
				t.Fatalf("page not newest first")
			}
			lastDate = row["sale_date"].(string)
		}
		next, _ := d["next_cursor"].(string)
		if next == "" {
			break
		}
		if firstCursor == "" {
			firstCursor = next
		}
		cur = next
	}
	if pages < 2 {
		t.Fatalf("only %d pages for Charizard", pages)
	}
	total := do(t, keyedClient, "GET", path+"&limit=1", key, nil)
	if n := int(data(t, total)["rows_in_window"].(float64)); n != len(seen) {
		t.Errorf("paged %d rows, the window has %d", len(seen), n)
	}
	// A cursor of another query is refused.
	r := do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4/sales?cursor="+firstCursor, key, nil)
	if r.Status != 422 {
		t.Errorf("cursor with other filters: %d", r.Status)
	}
	tampered := []byte(firstCursor)
	tampered[3] ^= 1
	r = do(t, keyedClient, "GET", path+"&cursor="+string(tampered), key, nil)
	if r.Status != 422 {
		t.Errorf("tampered cursor: %d", r.Status)
	}
}

func TestREST_ETagGzip(t *testing.T) {
	key := env.keys["elite"]
	r := do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4?include=grade_breakdown", key, nil)
	etag := r.Header.Get("ETag")
	if r.Status != 200 || etag == "" {
		t.Fatalf("no ETag: %d %v", r.Status, r.Header)
	}
	r2 := do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4?include=grade_breakdown", key, nil, "If-None-Match", etag)
	if r2.Status != 304 || len(r2.Body) != 0 {
		t.Errorf("If-None-Match: %d (%d bytes)", r2.Status, len(r2.Body))
	}
	// Parameters in another order hit the same entry (same ETag).
	a := do(t, keyedClient, "GET", "/api/v3/cards?limit=3&sort=name&order=asc", key, nil)
	b := do(t, keyedClient, "GET", "/api/v3/cards?order=asc&sort=name&limit=3&unknown=1", key, nil)
	if a.Header.Get("ETag") != b.Header.Get("ETag") {
		t.Errorf("parameter order changed the response")
	}
	gz := do(t, keyedClient, "GET", "/api/v3/cards?limit=20", key, nil, "Accept-Encoding", "gzip")
	if gz.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("no gzip: %v", gz.Header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz.Body))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil || !json.Valid(plain) {
		t.Fatalf("gzip body does not decode to JSON: %v", err)
	}
	br := do(t, keyedClient, "GET", "/api/v3/cards?limit=20", key, nil, "Accept-Encoding", "br")
	if br.Header.Get("Content-Encoding") != "br" {
		t.Errorf("no brotli: %v", br.Header)
	}
}

func TestREST_Batch(t *testing.T) {
	body := func(n int) []byte {
		ids := []string{"en:base1-4", "EN:BASE1-4", "en:nope"}
		for i := 0; len(ids) < n; i++ {
			ids = append(ids, fmt.Sprintf("en:x-%d", i))
		}
		b, _ := json.Marshal(map[string]any{"ids": ids[:n], "profile": "market"})
		return b
	}
	r := do(t, keyedClient, "POST", "/api/v3/cards/batch", env.keys["free"], body(3))
	if r.Status != 403 {
		t.Errorf("free batch: %d %s", r.Status, r.Body)
	}
	r = do(t, keyedClient, "POST", "/api/v3/cards/batch", env.keys["pro"], body(52)) // 51 unique ids
	if r.Status != 422 {
		t.Errorf("pro batch of 51: %d %s", r.Status, truncate(r.Body))
	}
	r = do(t, keyedClient, "POST", "/api/v3/cards/batch", env.keys["elite"], body(102)) // 101 unique ids
	if r.Status != 422 {
		t.Errorf("elite batch of 101: %d", r.Status)
	}
	before := usedToday(t, "pro")
	r = do(t, keyedClient, "POST", "/api/v3/cards/batch", env.keys["pro"], body(3))
	if r.Status != 200 {
		t.Fatalf("pro batch: %d %s", r.Status, r.Body)
	}
	d := data(t, r)
	if len(d["items"].([]any)) != 1 || len(d["not_found"].([]any)) != 1 || d["cost"].(float64) != 1 {
		t.Errorf("batch payload: %s", truncate(r.Body))
	}
	if after := usedToday(t, "pro"); after-before != 1+1 { // 1 unique resolved id + the usage call itself
		t.Errorf("batch of 2 unique ids, 1 of them a card, cost %d units; want 1", after-before-1)
	}
	r = do(t, keyedClient, "POST", "/api/v3/cards/batch", env.keys["pro"], []byte(`{"ids": "x"}`))
	if r.Status != 422 {
		t.Errorf("bad body: %d", r.Status)
	}
}

// usedToday reads today's usage of a key through GET /keys/usage (which
// itself costs one unit).
func usedToday(t *testing.T, name string) int {
	t.Helper()
	r := do(t, keyedClient, "GET", "/keys/usage", env.keys[name], nil)
	if r.Status != 200 {
		t.Fatalf("usage: %d %s", r.Status, r.Body)
	}
	d := data(t, r)
	if _, ok := d["history_days"]; !ok {
		t.Fatalf("usage has no history_days: %s", r.Body)
	}
	today, _ := d["today"].(map[string]any)
	used, ok := today["used"].(float64)
	if !ok {
		t.Fatalf("usage has no today.used: %s", r.Body)
	}
	return int(used)
}

func TestREST_FreeQuota(t *testing.T) {
	key := env.keys["free2"]
	var last e2etest.Reply
	for i := 0; i < 101; i++ {
		last = do(t, keyedClient, "GET", "/api/v3/sets?limit=1", key, nil)
		if i < 100 && last.Status != 200 {
			if last.Status == 429 && last.Header.Get("Retry-After") != "" && i > 0 && strings.Contains(string(last.Body), "rate") {
				time.Sleep(time.Second) // the per-second bucket, not the quota
				i--
				continue
			}
			t.Fatalf("request %d: %d %s", i+1, last.Status, last.Body)
		}
		if i%5 == 4 {
			time.Sleep(time.Second) // stay under the 5/s rate
		}
	}
	if last.Status != 429 {
		t.Fatalf("101st request: %d", last.Status)
	}
	ra := last.Header.Get("Retry-After")
	now := time.Now().UTC()
	midnight := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC)
	want := int(midnight.Sub(now).Seconds())
	var got int
	fmt.Sscan(ra, &got)
	if got < want-5 || got > want+5 {
		t.Errorf("Retry-After %q, want about %d (seconds to 00:00 UTC)", ra, want)
	}
}

func TestREST_RevokedKey(t *testing.T) {
	key := env.keys["revoke"]
	if r := do(t, keyedClient, "GET", "/api/v3/sets?limit=1", key, nil); r.Status != 200 {
		t.Fatalf("before revoke: %d", r.Status)
	}
	if _, err := (access.Keys{State: stateAt(t, env.state)}).Revoke(context.Background(), env.keyIDs["revoke"]); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := do(t, keyedClient, "GET", "/api/v3/sets?limit=1", key, nil)
		if r.Status == 401 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("revoked key still answered %d after 5 s", r.Status)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestREST_SearchAndLookup(t *testing.T) {
	key := env.keys["elite"]
	first := func(path string) map[string]any {
		t.Helper()
		r := do(t, keyedClient, "GET", path, key, nil)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", path, r.Status, truncate(r.Body))
		}
		items := data(t, r)["items"].([]any)
		if len(items) == 0 {
			t.Fatalf("%s: no items", path)
		}
		return items[0].(map[string]any)
	}
	hit := first("/api/v3/search?q=charizard%20base%20set%204")
	if id := hit["card"].(map[string]any)["card_id"]; id != "en:base1-4" {
		t.Errorf("charizard base set 4 -> %v", id)
	}
	if hl, _ := hit["highlights"].(map[string]any); len(hl) == 0 {
		t.Errorf("no highlights: %v", hit)
	}
	hit = first("/api/v3/search?q=charizrd")
	if name := hit["card"].(map[string]any)["name"]; name != "Charizard" {
		t.Errorf("charizrd -> %v", name)
	}
	for _, path := range []string{
		"/api/v3/search?q=pikachu&language=en&sort=price&limit=5",
		"/api/v3/search?set_id=en:base1&rarity=rare%20holo&min_price=1&max_price=100000&sort=volume",
		"/api/v3/search?q=luffy&game=onepiece&collapse=variants",
		"/api/v3/search?q=pikachu&grader=slab&window=1y",
		"/api/v3/search?q=charizard&slab_only=true&raw_only=true",
		"/api/v3/search?q=charizard&variant=holo&offset=1&limit=2&sort=name",
		"/api/v3/search?q=pikachu&language=ja",
		"/api/v3/lookup?q=pika&language=en&limit=3",
	} {
		r := do(t, keyedClient, "GET", path, key, nil)
		if r.Status != 200 || (r.JSON["contract"] != "search.v1" && r.JSON["contract"] != "lookup.v1") {
			t.Errorf("%s: %d %s", path, r.Status, truncate(r.Body))
		}
	}
	for _, path := range []string{"/api/v3/search?limit=101", "/api/v3/search?sort=best&collapse=sets&min_price=-1", "/api/v3/lookup?limit=101", "/api/v3/search?min_price=10&max_price=5"} {
		if r := do(t, keyedClient, "GET", path, key, nil); r.Status != 422 {
			t.Errorf("%s: %d, want 422", path, r.Status)
		}
	}
	sug := first("/api/v3/lookup?q=chari")
	if !strings.HasPrefix(strings.ToLower(sug["label"].(string)), "chari") {
		t.Errorf("lookup chari -> %v", sug)
	}
	r := do(t, keyedClient, "GET", "/api/v3/lookup?q=en:base1-4", key, nil)
	if res, _ := data(t, r)["resolved"].(map[string]any); res == nil || res["id"] != "en:base1-4" {
		t.Errorf("lookup of a card id did not resolve: %s", truncate(r.Body))
	}
	r = do(t, keyedClient, "GET", "/api/v3/lookup?q=c", key, nil)
	if n := len(data(t, r)["items"].([]any)); n == 0 {
		t.Errorf("lookup from one character returned nothing")
	}
	if r := do(t, freshClient(), "GET", "/api/v3/search?q=x", "", nil); r.Status != 401 {
		t.Errorf("search without key: %d", r.Status)
	}
}

func TestREST_Quote(t *testing.T) {
	c := freshClient()
	r := do(t, c, "GET", "/api/v3/quote?q=en:base1-4", "", nil)
	if r.Status != 200 || r.JSON["contract"] != "quote.v1" {
		t.Fatalf("quote: %d %s", r.Status, truncate(r.Body))
	}
	q := data(t, r)["quote"].(map[string]any)
	if q["status"] != "resolved" || q["card_id"] != "en:base1-4" || q["price_basis"] == "" {
		t.Errorf("quote of a card id: %v", q)
	}
	if q["price_usd"] != nil && q["label"] == nil {
		t.Errorf("a priced quote has a label: %v", q)
	}
	key := env.keys["elite"]
	r = do(t, keyedClient, "GET", "/api/v3/quote?q=pikachu", key, nil)
	if q := data(t, r)["quote"].(map[string]any); q["status"] != "ambiguous" || len(q["candidates"].([]any)) == 0 || len(q["candidates"].([]any)) > 5 {
		t.Errorf("quote of pikachu: %v", q)
	}
	r = do(t, keyedClient, "GET", "/api/v3/quote?q=en:base1-4&grade=slab:10", key, nil)
	if q := data(t, r)["quote"].(map[string]any); q["grade"] != "slab:10" {
		t.Errorf("graded quote: %v", q)
	}
	for _, p := range []string{"/api/v3/quote", "/api/v3/quote?q=x&grade=psa:11"} {
		if r := do(t, keyedClient, "GET", p, key, nil); r.Status != 422 {
			t.Errorf("%s: %d", p, r.Status)
		}
	}
}
