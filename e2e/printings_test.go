package e2e_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/builder"
	"github.com/cardedge/cardedge/e2e/e2etest"
	"github.com/cardedge/cardedge/estimate"
)

// End-to-end tests of prices per printing (#19) against the shared edge of
// main_test.go: the methodology document, card detail, price history,
// analytics, VWAP, /prices, the quote route and the MCP quote and get_prices
// tools answer for one printing of en:base1-4 (Base Set Charizard, four
// printings), the collectors' words of a free-text quote. Every response is
// validated against the OpenAPI document by do.

// charizard is en:base1-4's printings: base holo/unlimited first.
var charizard = []string{"holo/unlimited", "holo/shadowless/1st-edition", "holo/shadowless", "holo/1999-2000-copyright"}

// TestMethodology: the served document is estimate.Default, the code's
// values, keyless; the thresholds the routes apply are its thresholds.
func TestMethodology(t *testing.T) {
	r := do(t, freshClient(), "GET", "/api/v3/methodology", "", nil)
	if r.Status != 200 || r.JSON["contract"] != "methodology.v1" {
		t.Fatalf("methodology: %d %s", r.Status, truncate(r.Body))
	}
	got := data(t, r)
	b, err := json.Marshal(estimate.Default)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("served methodology differs from estimate.Default:\n got %s\nwant %s", truncate(mustJSON(got)), truncate(b))
	}
	m := &estimate.Default
	liq := got["liquidity"].(map[string]any)
	fmvRule := got["fmv"].(map[string]any)
	out := got["outlier"].(map[string]any)
	for name, pair := range map[string][2]float64{
		"liquidity.min_sales":       {num(liq["min_sales"]), float64(m.Liquidity.MinSales)},
		"liquidity.min_price_usd":   {num(liq["min_price_usd"]), m.Liquidity.MinPriceUSD},
		"fmv.max_move_per_sale_pct": {num(fmvRule["max_move_per_sale_pct"]), m.FMV.MaxMovePerSalePct},
		"outlier.mads":              {num(out["mads"]), m.Outlier.MADs},
		"sample_days":               {num(got["sample_days"]), float64(m.SampleDays)},
		"thin.sales":                {num(got["thin"].(map[string]any)["sales"]), float64(m.Thin.Sales)},
	} {
		if pair[0] != pair[1] {
			t.Errorf("%s: served %v, code %v", name, pair[0], pair[1])
		}
	}
	if len(got["flags"].([]any)) < 4 || len(got["confidence"].([]any)) != 3 {
		t.Errorf("flags %v confidence %v", got["flags"], got["confidence"])
	}
	// The movers' default rule is the document's: its sales and the movers'
	// price floor.
	tr := data(t, do(t, freshClient(), "GET", "/api/v3/trending?limit=1", "", nil))
	if num(tr["min_sales"]) != num(liq["min_sales"]) || num(tr["min_price_usd"]) != num(liq["movers_min_price_usd"]) || tr["metric"] != "composite" {
		t.Errorf("trending rule %v / %v, methodology %v", tr["min_sales"], tr["min_price_usd"], liq)
	}
	// A price's confidence follows the document's levels: sample size and
	// age of the last sale.
	mk := data(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4", env.keys["elite"], nil))["market"].(map[string]any)
	if mk["confidence"] == "high" && num(mk["sample_size"]) < float64(m.Confidence[0].MinSample) {
		t.Errorf("confidence high with %v sales", mk["sample_size"])
	}
}

// TestPrintings_CardDetail: card detail's market names the printing it
// prices (the base printing by default) and lists every printing in
// by_finish; finish picks another, and the includes follow it.
func TestPrintings_CardDetail(t *testing.T) {
	elite := env.keys["elite"]
	card := data(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4", elite, nil))
	mk := card["market"].(map[string]any)
	if mk["finish"] != "holo/unlimited" || mk["base_finish"] != true || mk["price_usd"] == nil || mk["confidence"] == "none" {
		t.Fatalf("default market %v", mk)
	}
	by := items(t, mk["by_finish"])
	if len(by) != len(charizard) {
		t.Fatalf("by_finish %v", by)
	}
	price := map[string]float64{}
	for i, f := range by {
		if f["finish"] != charizard[i] || (f["base"] == true) != (i == 0) {
			t.Errorf("by_finish[%d] %v", i, f)
		}
		if f["price_usd"] == nil {
			if f["confidence"] != "none" || f["note"] == nil {
				t.Errorf("a null price without confidence none and a note: %v", f)
			}
			continue
		}
		price[f["finish"].(string)] = num(f["price_usd"])
		if f["confidence"] == "none" || f["last_sale_date"] == nil || num(f["sample_size"]) < 1 {
			t.Errorf("a price without what stands behind it: %v", f)
		}
	}
	if price["holo/unlimited"] != num(mk["price_usd"]) {
		t.Errorf("market price %v, base by_finish %v", mk["price_usd"], price["holo/unlimited"])
	}
	first, unlimited := price["holo/shadowless/1st-edition"], price["holo/unlimited"]
	if first < 5*unlimited {
		t.Errorf("1st edition shadowless $%.2f, unlimited $%.2f: want at least 5x", first, unlimited)
	}
	t.Logf("en:base1-4 raw near-mint fmv by printing: %v", price)

	// finish names another printing, by whole variant or parts of one.
	for _, finish := range []string{"holo/shadowless/1st-edition", "1st-edition", "1st edition", "shadowless/1st-edition"} {
		d := data(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4?include=price_history,market_summary,grade_breakdown,recent_sales&finish="+url.QueryEscape(finish), elite, nil))
		m := d["market"].(map[string]any)
		if m["finish"] != "holo/shadowless/1st-edition" || m["base_finish"] != false || num(m["price_usd"]) != first {
			t.Errorf("finish %q: market %v", finish, m)
		}
		in := d["includes"].(map[string]any)
		ph := in["price_history"].(map[string]any)
		pts := items(t, ph["points"])
		if ph["finish"] != "holo/shadowless/1st-edition" || len(pts) == 0 || num(pts[len(pts)-1]["price_usd"]) != first {
			t.Errorf("finish %q: price_history %v", finish, truncate(mustJSON(ph)))
		}
		if in["market_summary"].(map[string]any)["finish"] != "holo/shadowless/1st-edition" {
			t.Errorf("finish %q: market_summary %v", finish, in["market_summary"])
		}
		for _, s := range items(t, in["recent_sales"].(map[string]any)["items"]) {
			if s["finish"] != "holo/shadowless/1st-edition" {
				t.Errorf("finish %q: a recent sale of another printing %v", finish, s)
			}
		}
	}
	// The base printing named by finish is the default.
	if d := data(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4?finish=unlimited", elite, nil)); !reflect.DeepEqual(d["market"], mk) {
		t.Errorf("finish=unlimited %v, default %v", d["market"], mk)
	}
	// A finish the card has not: 422 naming its printings.
	if d := detailOf(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4?finish=reverse", elite, nil)); fmt.Sprint(d["loc"]) != "[query finish]" ||
		!strings.Contains(d["msg"].(string), "holo/shadowless/1st-edition") {
		t.Errorf("finish=reverse: %v", d)
	}
	// The card list carries the same market.
	list := data(t, do(t, keyedClient, "GET", "/api/v3/cards?q=en:base1-4&limit=5", elite, nil))
	for _, it := range items(t, list["items"]) {
		if it["card_id"] == "en:base1-4" && !reflect.DeepEqual(it["market"], mk) {
			t.Errorf("card list market %v, detail %v", it["market"], mk)
		}
	}
}

// TestPrintings_Routes: price history, analytics and VWAP answer per
// printing, default the base printing, named in the payload; sales say
// which are outliers.
func TestPrintings_Routes(t *testing.T) {
	elite := env.keys["elite"]
	card := data(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4", elite, nil))
	byFinish := map[string]map[string]any{}
	for _, f := range items(t, card["market"].(map[string]any)["by_finish"]) {
		byFinish[f["finish"].(string)] = f
	}
	salesBy := map[string]int{}
	for _, finish := range charizard {
		q := "&finish=" + url.QueryEscape(finish)
		ph := data(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4/price-history?grade=raw:near_mint&limit=5"+q, elite, nil))
		est := ph["estimate"].(map[string]any)
		if ph["finish"] != finish || est["fmv_usd"] != byFinish[finish]["price_usd"] || est["confidence"] != byFinish[finish]["confidence"] ||
			est["sample_size"] != byFinish[finish]["sample_size"] {
			t.Errorf("%s price history: finish %v estimate %v, by_finish %v", finish, ph["finish"], est, byFinish[finish])
		}
		pts := items(t, ph["items"])
		if est["fmv_usd"] != nil && (len(pts) == 0 || pts[len(pts)-1]["price_usd"] != est["fmv_usd"]) {
			t.Errorf("%s: last point %v, estimate %v", finish, pts, est)
		}
		for _, p := range pts {
			if p["confidence"] == nil || p["flags"] == nil || p["sample_size"] == nil {
				t.Errorf("%s: point without its estimate %v", finish, p)
			}
		}
		an := data(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4/analytics?window=all"+q, elite, nil))
		if an["finish"] != finish {
			t.Errorf("%s analytics finish %v", finish, an["finish"])
		}
		salesBy[finish] = int(num(an["sales"]))
		v := data(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4/vwap?window_days=365"+q, elite, nil))
		if v["finish"] != finish || (v["base_finish"] == true) != (finish == charizard[0]) {
			t.Errorf("%s vwap %v", finish, v)
		}
	}
	if salesBy[charizard[0]] == 0 || salesBy[charizard[0]] == salesBy[charizard[1]] {
		t.Errorf("analytics sales by printing %v: each printing's own", salesBy)
	}
	// The default is the base printing.
	def := data(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4/analytics?window=all", elite, nil))
	if def["finish"] != charizard[0] || int(num(def["sales"])) != salesBy[charizard[0]] {
		t.Errorf("default analytics %v sales %v, base %d", def["finish"], def["sales"], salesBy[charizard[0]])
	}
	ph := data(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4/price-history?limit=1", elite, nil))
	if ph["finish"] != charizard[0] || ph["base_finish"] != true {
		t.Errorf("default price history %v", ph["finish"])
	}
	detailOf(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4/price-history?finish=gold", elite, nil))
	detailOf(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4/vwap?finish=gold", elite, nil))

	// Every sale says whether the estimator set it aside.
	sales := data(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4/sales?limit=200", elite, nil))
	for _, s := range items(t, sales["items"]) {
		if _, ok := s["outlier"].(bool); !ok {
			t.Fatalf("sale without outlier: %v", s)
		}
	}

	// /prices: own is the printing's estimate, with what stands behind it.
	setupFeatureKeys(t)
	for _, finish := range []string{"", "1st-edition"} {
		r := do(t, keyedClient, "GET", "/prices?ids=en:base1-4&source=own&finish="+url.QueryEscape(finish), env.keys["prices"], nil)
		it := items(t, data(t, r)["items"])[0]
		own := it["prices"].(map[string]any)["own"].(map[string]any)
		want := byFinish[charizard[0]]
		if finish != "" {
			want = byFinish[charizard[1]]
		}
		if it["finish"] != want["finish"] || own["price_usd"] != want["price_usd"] || own["confidence"] != want["confidence"] || own["sample_size"] != want["sample_size"] || own["flags"] == nil {
			t.Errorf("/prices finish %q: %v, by_finish %v", finish, it, want)
		}
	}
}

// TestPrintings_Quote: the quote route and the MCP quote and get_prices
// tools price one printing (the base printing unless finish says another),
// with the card detail's numbers.
func TestPrintings_Quote(t *testing.T) {
	card := data(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4", env.keys["elite"], nil))
	byFinish := map[string]map[string]any{}
	for _, f := range items(t, card["market"].(map[string]any)["by_finish"]) {
		byFinish[f["finish"].(string)] = f
	}
	s := openSession(t, mustKey(t, access.Elite, true))
	for _, finish := range []string{"", "1st-edition", "shadowless"} {
		want := map[string]string{"": charizard[0], "1st-edition": charizard[1], "shadowless": charizard[2]}[finish]
		q := data(t, do(t, freshClient(), "GET", "/api/v3/quote?q=en:base1-4&grade=raw:near_mint&finish="+url.QueryEscape(finish), "", nil))["quote"].(map[string]any)
		if q["finish"] != want || q["label"] != "Midprice" || q["price_usd"] != byFinish[want]["price_usd"] {
			t.Errorf("quote finish %q: %v, by_finish %v", finish, q, byFinish[want])
		}
		mq := items(t, s.OK("quote", map[string]any{"ids": []string{"en:base1-4"}, "grade": "raw:near_mint", "finish": finish}).Data["items"])[0]
		if mq["finish"] != want || mq["price_usd"] != q["price_usd"] {
			t.Errorf("MCP quote finish %q: %v, REST %v", finish, mq, q)
		}
		mid := mq["midprice"].(map[string]any)
		if mid["confidence"] != byFinish[want]["confidence"] || mid["sample_size"] != byFinish[want]["sample_size"] {
			t.Errorf("MCP quote midprice %v, by_finish %v", mid, byFinish[want])
		}
		gp := items(t, s.OK("get_prices", map[string]any{"ids": []string{"en:base1-4"}, "finish": finish, "limit": 3}).Data["items"])[0]
		pts := items(t, gp["points"])
		if gp["finish"] != want || gp["estimate"].(map[string]any)["fmv_usd"] != byFinish[want]["price_usd"] || len(pts) == 0 || pts[len(pts)-1]["fmv_usd"] != byFinish[want]["price_usd"] {
			t.Errorf("get_prices finish %q: %v", finish, truncate(mustJSON(gp)))
		}
	}
	// A range without points is an empty list, not null.
	gp := items(t, s.OK("get_prices", map[string]any{"ids": []string{"en:base1-4"}, "since": "2000-01-01", "until": "2000-01-31"}).Data["items"])[0]
	if pts, ok := gp["points"].([]any); !ok || len(pts) != 0 {
		t.Errorf("points of an empty range: %v", gp["points"])
	}
	d := s.OK("get_prices", map[string]any{"ids": []string{"en:base1-4"}, "finish": "reverse"}).Data
	if len(items(t, d["items"])) != 0 || len(items(t, d["unresolved"])) != 1 {
		t.Errorf("get_prices of a finish the card lacks: %v", truncate(mustJSON(d)))
	}
}

// TestPrintings_Words: a free-text quote in collectors' words is read for
// its grade (PSA 10 is slab:10), art (alt art) and set (Evolving Skies), and
// says so; the chat answers the same question for the same card and grade.
func TestPrintings_Words(t *testing.T) {
	q := data(t, do(t, freshClient(), "GET", "/api/v3/quote?q="+url.QueryEscape("PSA 10 Umbreon VMAX alt art Evolving Skies"), "", nil))["quote"].(map[string]any)
	u, _ := q["understood"].(map[string]any)
	if q["card_id"] != "en:swsh7-215" || q["grade"] != "slab:10" || u == nil || u["grade"] != "slab:10" || u["art"] != "alternate-art" || u["set_name"] != "Evolving Skies" {
		t.Fatalf("quote: %v", q)
	}
	said := fmt.Sprint(u["said"])
	for _, w := range []string{"psa 10", "PSA 10", "alt art", "Evolving Skies"} {
		if !strings.Contains(said, w) {
			t.Errorf("said %s does not name %q", said, w)
		}
	}
	if q["grade_name"] != "PSA 10" {
		t.Errorf("quote grade_name %v", q["grade_name"])
	}
	q = data(t, do(t, freshClient(), "GET", "/api/v3/quote?q="+url.QueryEscape("charizard 1st edition base set")+"&grade=raw:near_mint", "", nil))["quote"].(map[string]any)
	if q["card_id"] != "en:base1-4" || q["finish"] != charizard[1] || q["grade"] != "raw:near_mint" {
		t.Errorf("1st edition quote: %v", q)
	}

	setupFeatureKeys(t)
	events, _ := readSSE(t, env.base, env.keys["chat"], `{"message": "what is a PSA 10 Umbreon VMAX alt art from Evolving Skies worth?"}`)
	text, calls := checkStream(t, events)
	if args := calls["quote"]["arguments"].(map[string]any); args["grade"] != "slab:10" || fmt.Sprint(args["ids"]) != "[en:swsh7-215]" {
		t.Errorf("chat quote arguments %v", args)
	}
	for _, w := range []string{"PSA 10", "en:swsh7-215", `"psa 10"`, "alternate art", "Evolving Skies"} {
		if !strings.Contains(text, w) {
			t.Errorf("chat answer %q does not say %q", text, w)
		}
	}
	t.Logf("chat: %s", text)
}

// TestLeaderboards: trending, set trending cards and market volume rank
// only rows that meet the liquidity rule (or min_sales and min_price_usd),
// each with its sample size, price and flags; printings rank apart.
func TestLeaderboards(t *testing.T) {
	elite := env.keys["elite"]
	m := &estimate.Default
	check := func(what string, rows []map[string]any, minSales, minPrice float64) {
		t.Helper()
		for _, row := range rows {
			if num(row["sample_size"]) < minSales || num(row["price_usd"]) < minPrice || row["flags"] == nil {
				t.Errorf("%s: row %v fails sample >= %v, price >= %v", what, row, minSales, minPrice)
			}
		}
	}
	for _, metric := range []string{"composite", "volume_pct", "price_pct", "sales_count", "new_listings"} {
		for _, window := range []string{"1d", "30d"} {
			d := data(t, do(t, keyedClient, "GET", "/api/v3/trending?limit=200&metric="+metric+"&window="+window, elite, nil))
			rows := items(t, d["items"])
			check("trending "+metric+" "+window, rows, float64(m.Liquidity.MinSales), m.Liquidity.MinPriceUSD)
			if !strings.Contains(d["basis"].(string), fmt.Sprintf("at least %d verified sales", m.Liquidity.MinSales)) {
				t.Errorf("basis %q", d["basis"])
			}
			all := data(t, do(t, keyedClient, "GET", "/api/v3/trending?limit=200&min_sales=0&min_price_usd=0&metric="+metric+"&window="+window, elite, nil))
			if num(all["total"]) < num(d["total"]) || num(all["min_sales"]) != 0 {
				t.Errorf("%s %s: min_sales=0 ranks %v rows, the default %v", metric, window, all["total"], d["total"])
			}
		}
	}
	// Raised thresholds filter more; a custom window filters too.
	d := data(t, do(t, keyedClient, "GET", "/api/v3/trending?limit=200&metric=sales_count&window=90d&min_sales=20&min_price_usd=10", elite, nil))
	check("trending min_sales=20", items(t, d["items"]), 20, 10)
	for _, metric := range []string{"composite", "new_listings"} {
		d = data(t, do(t, keyedClient, "GET", "/api/v3/trending?limit=200&window_days=14&metric="+metric, elite, nil))
		check("trending window_days=14 "+metric, items(t, d["items"]), float64(m.Liquidity.MinSales), m.Liquidity.MinPriceUSD)
	}
	// Printings rank apart: a row names its printing.
	d = data(t, do(t, keyedClient, "GET", "/api/v3/trending?limit=200&metric=volume_usd&window=180d", elite, nil))
	printings := 0
	for _, row := range items(t, d["items"]) {
		if row["base_finish"] == false {
			printings++
		}
	}
	if printings == 0 {
		t.Errorf("no printing other than a base printing among %v rows", d["total"])
	}
	// Set trending cards.
	st := data(t, do(t, keyedClient, "GET", "/api/v3/sets/en:base1/trending-cards?limit=200&metric=sales_count&window=90d", elite, nil))
	check("set trending", items(t, st["items"]), float64(m.Liquidity.MinSales), m.Liquidity.MinPriceUSD)
	st0 := data(t, do(t, keyedClient, "GET", "/api/v3/sets/en:base1/trending-cards?limit=200&metric=sales_count&window=90d&min_sales=0&min_price_usd=0", elite, nil))
	if num(st0["total"]) < num(st["total"]) {
		t.Errorf("set trending: min_sales=0 %v rows, default %v", st0["total"], st["total"])
	}
	// Market volume lists liquid sets.
	mv := data(t, do(t, keyedClient, "GET", "/api/v3/market/volume?days=7&language=all", elite, nil))
	for _, s := range items(t, mv["sets"]) {
		if num(s["sample_size"]) < float64(m.Liquidity.MinSales) || num(s["avg_price_usd"]) < m.Liquidity.MinPriceUSD || s["flags"] == nil {
			t.Errorf("market volume set %v", s)
		}
	}
	mv0 := data(t, do(t, keyedClient, "GET", "/api/v3/market/volume?days=7&language=all&min_sales=0&min_price_usd=0", elite, nil))
	if len(items(t, mv0["sets"])) < len(items(t, mv["sets"])) || mv0["total_volume_usd"] != mv["total_volume_usd"] {
		t.Errorf("market volume: min_sales=0 %d sets, default %d; totals %v, %v", len(items(t, mv0["sets"])), len(items(t, mv["sets"])), mv0["total_volume_usd"], mv["total_volume_usd"])
	}
	if r := do(t, keyedClient, "GET", "/api/v3/trending?min_sales=-1", elite, nil); r.Status != 422 {
		t.Errorf("min_sales=-1: %d", r.Status)
	}
}

// getJSON is a keyed GET to another edge (base), its data decoded (the
// answer checked against the document, doAt).
func getJSON(t *testing.T, base, key, path string) map[string]any {
	t.Helper()
	r := doAt(t, keyedClient, base, "GET", path, key, nil)
	if r.Status != 200 {
		t.Fatalf("GET %s: %d %s", path, r.Status, truncate(r.Body))
	}
	d, _ := r.JSON["data"].(map[string]any)
	return d
}

// TestPrintings_OutlierFeed compiles real market feeds (the builder's
// --market, builder/testdata/feeds/outlier: a steady en:base1-4 series with
// a shill sale ten times its level, and a thin 1st-edition Blastoise series
// whose second sale is a tenth of its first) and reads them through REST:
// the shill sale is flagged outlier and the fmv does not move; the thin
// series moves by at most the methodology's bound per sale.
func TestPrintings_OutlierFeed(t *testing.T) {
	smallCatalog := filepath.Join(e2etest.RepoRoot(), "builder", "testdata", "feeds", "small")
	root := t.TempDir()
	if _, err := builder.Compile(t.Context(), builder.Options{Out: root, Preset: "default", CatalogDir: smallCatalog, SnapshotID: "feed",
		MarketDir: filepath.Join(e2etest.RepoRoot(), "builder", "testdata", "feeds", "outlier")}); err != nil {
		t.Fatal(err)
	}
	e := serveRoot(t, root)
	base, key := e.Base, e.key(t, access.Elite, false, true)

	sales := items(t, getJSON(t, base, key, "/api/v3/cards/en:base1-4/sales?limit=50")["items"])
	outliers := 0
	for _, s := range sales {
		if shill := num(s["price_usd"]) == 4000; s["outlier"] != shill {
			t.Errorf("sale %v: outlier %v, want %v", s["sale_id"], s["outlier"], shill)
		}
		if s["outlier"] == true {
			outliers++
		}
	}
	if len(sales) != 12 || outliers != 1 {
		t.Fatalf("%d sales, %d outliers", len(sales), outliers)
	}
	mk := getJSON(t, base, key, "/api/v3/cards/en:base1-4")["market"].(map[string]any)
	if p := num(mk["price_usd"]); p < 396 || p > 410 || !strings.Contains(fmt.Sprint(mk["flags"]), "outlier_excluded") || num(mk["sample_size"]) != 11 {
		t.Errorf("market after the shill sale: %v", mk)
	}
	ph := getJSON(t, base, key, "/api/v3/cards/en:base1-4/price-history?interval=change&date_from=2026-09-01")
	pts := items(t, ph["items"])
	for i := 1; i < len(pts); i++ {
		prev, cur := num(pts[i-1]["price_usd"]), num(pts[i]["price_usd"])
		if math.Max(cur/prev, prev/cur) > 1.02 {
			t.Errorf("fmv %v -> %v on %v: the shill sale moved the steady series", prev, cur, pts[i]["date"])
		}
		if pts[i]["date"] == "2026-10-05" && (cur != prev || !strings.Contains(fmt.Sprint(pts[i]["flags"]), "outlier_excluded")) {
			t.Errorf("point of the shill sale %v after %v", pts[i], pts[i-1])
		}
	}
	// The thin series: one sale moves its fmv by at most the bound.
	bound := 1 + estimate.Default.FMV.MaxMovePerSalePct/100
	ph = getJSON(t, base, key, "/api/v3/cards/en:base1-2/price-history?interval=change&finish=1st-edition")
	pts = items(t, ph["items"])
	if ph["finish"] != "holo/shadowless/1st-edition" || len(pts) != 2 {
		t.Fatalf("thin series: %v", truncate(mustJSON(ph)))
	}
	if a, b := num(pts[0]["price_usd"]), num(pts[1]["price_usd"]); b < a/bound-0.01 || !strings.Contains(fmt.Sprint(pts[1]["flags"]), "thin") {
		t.Errorf("thin series moved $%.2f -> $%.2f on one sale: bound %.2fx", a, b, bound)
	}
}
