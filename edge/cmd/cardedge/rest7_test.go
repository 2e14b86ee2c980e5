package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardedge/cardedge/edge/access"
	main "github.com/cardedge/cardedge/edge/cmd/cardedge"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
)

// End-to-end tests of issue 7's routes: the guarded SQL, /prices, collection
// imports and the agent chat (embedded, and against a fake OpenAI-compatible
// model on loopback). They do not depend on which snapshot is live (TestZZSwap
// of main_test.go may have swapped it): every expectation is read from the
// same server's REST routes.

var r7Keys sync.Once

// r7Setup creates this file's keys once (a pro key per route family, so
// usage deltas are exact) and waits until the server has loaded them.
func r7Setup(t *testing.T) {
	t.Helper()
	r7Keys.Do(func() {
		for _, k := range []struct {
			name string
			tier access.Tier
		}{{"prices", access.Pro}, {"importer", access.Pro}, {"chat", access.Pro}, {"pricesfree", access.Free}} {
			secret, key, err := createKey(t, env.state, k.tier, k.name, false, false)
			if err != nil {
				t.Fatal(err)
			}
			env.keys[k.name], env.keyIDs[k.name] = secret, key.ID
		}
		deadline := time.Now().Add(10 * time.Second)
		for _, name := range []string{"prices", "importer", "chat", "pricesfree"} {
			for {
				r := do(t, keyedClient, "GET", "/api/v3/sets?limit=1", env.keys[name], nil)
				if r.status == 200 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("key %s not loaded by the server: %d", name, r.status)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	})
}

// ---- SQL ----

func sqlQuery(t *testing.T, key, sql string) reply {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"sql": sql})
	return do(t, keyedClient, "POST", "/api/v3/sql", key, b)
}

// detailOf returns the first entry of a 422 body.
func detailOf(t *testing.T, r reply) map[string]any {
	t.Helper()
	d, _ := r.json["detail"].([]any)
	if r.status != 422 || len(d) == 0 {
		t.Fatalf("want a 422 HTTPValidationError, got %d: %s", r.status, truncate(r.body))
	}
	return d[0].(map[string]any)
}

func TestSQL_Access(t *testing.T) {
	body := []byte(`{"sql": "SELECT 1"}`)
	if r := do(t, freshClient(), "POST", "/api/v3/sql", "", body); r.status != 401 {
		t.Errorf("no key: %d %s", r.status, r.body)
	}
	r := do(t, keyedClient, "POST", "/api/v3/sql", env.keys["elite"], body)
	if e, _ := r.json["error"].(map[string]any); r.status != 403 || e["code"] != "forbidden" {
		t.Errorf("elite key off the allowlist: %d %s", r.status, r.body)
	}
	if r := do(t, keyedClient, "GET", "/api/v3/sql/schema", env.keys["elite"], nil); r.status != 403 {
		t.Errorf("schema for a key off the allowlist: %d", r.status)
	}
	key := env.keys["sql"]
	d := detailOf(t, do(t, keyedClient, "POST", "/api/v3/sql", key, []byte(`{"query": "SELECT 1"}`)))
	if msg := d["msg"].(string); !strings.Contains(msg, `"sql"`) || !strings.Contains(msg, `"query"`) {
		t.Errorf("a query field must be told to use sql: %v", d)
	}
	detailOf(t, do(t, keyedClient, "POST", "/api/v3/sql", key, []byte(`SELECT 1`)))
	detailOf(t, do(t, keyedClient, "POST", "/api/v3/sql", key, []byte(`{"sql": 7}`)))
	// Other properties are ignored.
	r = do(t, keyedClient, "POST", "/api/v3/sql", key, []byte(`{"sql": "SELECT 41 + 1 AS answer", "format": "json", "query": "x"}`))
	if r.status != 200 || r.json["contract"] != "sql-query.v1" {
		t.Fatalf("sql with extra properties: %d %s", r.status, r.body)
	}
	if rows := data(t, r)["rows"].([]any); rows[0].([]any)[0].(float64) != 42 {
		t.Errorf("SELECT 41 + 1: %v", rows)
	}
	// The schema, for allowlisted callers.
	r = do(t, keyedClient, "GET", "/api/v3/sql/schema", key, nil)
	if r.status != 200 || r.json["contract"] != "sql-schema.v1" {
		t.Fatalf("schema: %d %s", r.status, truncate(r.body))
	}
	tables := map[string]bool{}
	for _, x := range data(t, r)["tables"].([]any) {
		tables[x.(map[string]any)["name"].(string)] = true
	}
	for _, want := range []string{"cards", "sets", "sales", "price_points", "listings", "card_analytics"} {
		if !tables[want] {
			t.Errorf("schema lacks table %s", want)
		}
	}
	// Internal: not in the public OpenAPI document (nor is the chat stream).
	r = do(t, keyedClient, "GET", "/api/v3/openapi.json", env.keys["elite"], nil)
	paths, _ := r.json["paths"].(map[string]any)
	if r.status != 200 || paths == nil {
		t.Fatalf("openapi.json: %d", r.status)
	}
	var doc struct{ Paths map[string]any }
	doc.Paths = paths
	for _, p := range []string{"/api/v3/sql", "/api/v3/sql/schema", "/api/v3/agent/chat"} {
		if _, ok := doc.Paths[p]; ok {
			t.Errorf("OpenAPI document lists internal route %s", p)
		}
	}
	for _, p := range []string{"/prices", "/api/v3/me/imports/preview", "/api/v3/me/imports/confirm"} {
		if _, ok := doc.Paths[p]; !ok {
			t.Errorf("OpenAPI document lacks %s", p)
		}
	}
}

func TestSQL_Guard(t *testing.T) {
	key := env.keys["sql"]
	count := func() float64 {
		r := sqlQuery(t, key, "SELECT count(*) FROM sales")
		if r.status != 200 {
			t.Fatalf("count: %d %s", r.status, r.body)
		}
		return data(t, r)["rows"].([]any)[0].([]any)[0].(float64)
	}
	before := count()
	refused := []string{
		"INSERT INTO sets (game, id) VALUES ('pokemon', 'x')",
		"UPDATE cards SET name = 'x'",
		"DELETE FROM sales",
		"REPLACE INTO sets (game, id) VALUES ('pokemon', 'x')",
		"DROP TABLE sales",
		"CREATE TABLE t (x INTEGER)",
		"ALTER TABLE sales ADD COLUMN y INTEGER",
		"WITH x AS (SELECT 1) DELETE FROM sales",
		"ATTACH DATABASE '/tmp/cardedge-attack.db' AS x",
		"ATTACH ':memory:' AS m",
		"DETACH DATABASE main",
		"PRAGMA writable_schema = 1",
		"PRAGMA journal_mode = DELETE",
		"PRAGMA user_version = 7",
		"pragma query_only = 0",
		"SELECT * FROM pragma_database_list",
		"SELECT 1; DELETE FROM sales",
		"SELECT 1; SELECT 2",
		"select 1;/* x */ select 2",
		"SELECT load_extension('/tmp/x.so')",
		"SELECT writefile('/tmp/cardedge-x', 'y')",
		"VACUUM",
		"BEGIN IMMEDIATE",
		"SELECT * FROM sales WHERE id = ?",
	}
	for _, q := range refused {
		r := sqlQuery(t, key, q)
		d := detailOf(t, r)
		if loc := fmt.Sprint(d["loc"]); loc != "[body sql]" || d["msg"] == "" {
			t.Errorf("%q: refusal %v", q, d)
		}
	}
	if got := count(); got != before {
		t.Fatalf("sales went from %v to %v rows", before, got)
	}
	if _, err := os.Stat("/tmp/cardedge-attack.db"); err == nil {
		t.Errorf("ATTACH created a file")
	}

	// The time limit: a query that would run for ever is interrupted at 1 s.
	start := time.Now()
	d := detailOf(t, sqlQuery(t, key, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"))
	if took := time.Since(start); d["type"] != "sql_time_limit" || took > 5*time.Second {
		t.Errorf("slow query: %v after %s", d, took)
	}
	// The row cap: 5,000 rows in, 1,000 out, truncated.
	r := sqlQuery(t, key, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 5000) SELECT x FROM c")
	if r.status != 200 {
		t.Fatalf("big result: %d %s", r.status, truncate(r.body))
	}
	dd := data(t, r)
	if len(dd["rows"].([]any)) != 1000 || dd["row_count"].(float64) != 1000 || dd["truncated"] != true || dd["max_rows"].(float64) != 1000 {
		t.Errorf("row cap: %d rows, row_count %v, truncated %v", len(dd["rows"].([]any)), dd["row_count"], dd["truncated"])
	}
	r = sqlQuery(t, key, "SELECT id, card_id, sale_date, price_usd FROM sales")
	if dd := data(t, r); r.status != 200 || dd["truncated"] != true || len(dd["rows"].([]any)) != 1000 {
		t.Errorf("SELECT of every sale: %d truncated %v", r.status, dd["truncated"])
	}
	// A small result is not truncated.
	r = sqlQuery(t, key, "SELECT id FROM sets")
	if dd := data(t, r); r.status != 200 || dd["truncated"] != false {
		t.Errorf("sets: %d %v", r.status, dd["truncated"])
	}
}

// TestSQL_Aggregate checks a real aggregate against the same numbers from
// the REST route: verified sales of en:base1-4 and their volume per window
// of GET /api/v3/cards/en:base1-4/analytics, which are its base printing's
// (holo/unlimited; printings are never blended).
func TestSQL_Aggregate(t *testing.T) {
	for _, window := range []string{"1m", "1y", "all"} {
		r := do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4/analytics?window="+window, env.keys["elite"], nil)
		if r.status != 200 {
			t.Fatalf("analytics: %d %s", r.status, r.body)
		}
		a := data(t, r)
		from, to := a["from"].(string), a["to"].(string)
		q := fmt.Sprintf(`SELECT count(*) AS sales, sum(price_cents) AS cents, round(sum(price_usd), 2) AS usd
			FROM sales WHERE game = 'pokemon' AND card_id = 'en:base1-4' AND finish = 'holo/unlimited' AND hidden = 0 AND sale_date BETWEEN '%s' AND '%s'`, from, to)
		if from == "" {
			q = fmt.Sprintf(`SELECT count(*) AS sales, sum(price_cents) AS cents, round(sum(price_usd), 2) AS usd
				FROM sales WHERE game = 'pokemon' AND card_id = 'en:base1-4' AND finish = 'holo/unlimited' AND hidden = 0 AND sale_date <= '%s'`, to)
		}
		s := sqlQuery(t, env.keys["sql"], q)
		if s.status != 200 {
			t.Fatalf("%s: %d %s", window, s.status, s.body)
		}
		d := data(t, s)
		cols := d["columns"].([]any)
		if cols[0].(map[string]any)["name"] != "sales" || cols[0].(map[string]any)["type"] != "integer" {
			t.Errorf("columns: %v", cols)
		}
		row := d["rows"].([]any)[0].([]any)
		if row[0].(float64) != a["sales"].(float64) {
			t.Errorf("%s: SQL counts %v verified sales, analytics %v", window, row[0], a["sales"])
		}
		if a["sales"].(float64) == 0 {
			t.Errorf("%s: no sales to compare", window)
			continue
		}
		if got, want := row[1].(float64)/100, a["volume_usd"].(float64); math.Abs(got-want) > 0.005 {
			t.Errorf("%s: SQL volume %v, analytics %v", window, got, want)
		}
		// And the precomputed row of card_analytics says the same.
		s = sqlQuery(t, env.keys["sql"], fmt.Sprintf(`SELECT sales, volume_usd FROM card_analytics WHERE card_id = 'en:base1-4' AND "window" = '%s'`, window))
		if ar := data(t, s)["rows"].([]any); len(ar) != 1 || ar[0].([]any)[0].(float64) != a["sales"].(float64) {
			t.Errorf("%s: card_analytics %v, REST %v", window, ar, a["sales"])
		}
	}
}

// ---- prices ----

// pricesOf returns the prices map of the first item of a prices.v1 reply.
func pricesOf(t *testing.T, r reply) map[string]any {
	t.Helper()
	if r.status != 200 || r.json["contract"] != "prices.v1" {
		t.Fatalf("prices: %d %s", r.status, truncate(r.body))
	}
	it := data(t, r)["items"].([]any)[0].(map[string]any)
	p, _ := it["prices"].(map[string]any)
	return p
}

func TestPrices_Sources(t *testing.T) {
	r7Setup(t)
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
	// observed: the latest verified sale of the grade.
	for _, grade := range []string{"raw:near_mint", "slab:10"} {
		sales := data(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4/sales?limit=200", elite, nil))["items"].([]any)
		var last map[string]any
		for _, s := range sales {
			if s.(map[string]any)["grade"] == grade {
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
	r7Setup(t)
	key := env.keys["prices"]
	// Unknown ids are reported per id; a partner product id resolves.
	card := data(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4", env.keys["elite"], nil))
	pid := fmt.Sprint(int64(card["partner_product_id"].(float64)))
	r := do(t, keyedClient, "GET", "/prices?ids=en:base1-4,en:nope-1,"+pid+",EN:BASE1-4&source=all", key, nil)
	if r.status != 200 {
		t.Fatalf("mixed ids: %d %s", r.status, r.body)
	}
	d := data(t, r)
	items := d["items"].([]any)
	if len(items) != 3 {
		t.Fatalf("3 unique ids, %d items: %s", len(items), truncate(r.body))
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
	if r := do(t, freshClient(), "GET", "/prices?ids=en:base1-4", "", nil); r.status != 401 {
		t.Errorf("GET /prices without a key: %d", r.status)
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
	post := func(ids []string, extra map[string]any) reply {
		m := map[string]any{"ids": ids}
		for k, v := range extra {
			m[k] = v
		}
		b, _ := json.Marshal(m)
		return do(t, keyedClient, "POST", "/prices", key, b)
	}
	before := usedToday(t, "prices")
	r = post(body, map[string]any{"source": "observed", "grade": "raw:near_mint"})
	if r.status != 200 {
		t.Fatalf("POST 1,000 ids: %d %s", r.status, truncate(r.body))
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
	if r := do(t, keyedClient, "POST", "/prices", key, []byte(`{"ids": "en:base1-4"}`)); r.status != 422 {
		t.Errorf("ids not an array: %d", r.status)
	}
	// The second game by body.
	r = post([]string{"onepiece-nope"}, map[string]any{"game": "onepiece"})
	if r.status != 200 || data(t, r)["game"] != "onepiece" {
		t.Errorf("game onepiece: %d %s", r.status, truncate(r.body))
	}
	// A free key may POST too (its quota is the limit).
	r = do(t, keyedClient, "POST", "/prices", env.keys["pricesfree"], []byte(`{"ids": ["en:base1-4", "en:base1-2"], "source": "all"}`))
	if r.status != 200 || data(t, r)["cost"].(float64) != 2 {
		t.Errorf("free POST: %d %s", r.status, truncate(r.body))
	}
}

// ---- imports ----

type r7Card struct{ id, name, set, number, lang string }

// r7Catalog reads every card of the first game through the REST list.
func r7Catalog(t *testing.T) []r7Card {
	t.Helper()
	var out []r7Card
	for off := 0; ; off += 200 {
		d := data(t, do(t, keyedClient, "GET", fmt.Sprintf("/api/v3/cards?limit=200&offset=%d&sort=name&order=asc", off), env.keys["elite"], nil))
		for _, it := range d["items"].([]any) {
			m := it.(map[string]any)
			out = append(out, r7Card{m["card_id"].(string), m["name"].(string), m["set"].(map[string]any)["id"].(string), m["number"].(string), m["language"].(string)})
		}
		if off+200 >= int(d["total"].(float64)) {
			return out
		}
	}
}

func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

func upload(t *testing.T, key, path, contentType string, body []byte) reply {
	t.Helper()
	return do(t, keyedClient, "POST", path, key, body, "Content-Type", contentType)
}

func TestImports(t *testing.T) {
	r7Setup(t)
	key := env.keys["importer"]
	cards := r7Catalog(t)
	names := map[string]int{}
	for _, c := range cards {
		names[strings.ToLower(c.name)]++
	}
	// 200 rows: 60 by card id, 60 by set and number, 40 by a unique name, 10
	// ambiguous names, 10 unmatched, 10 invalid, 10 blank.
	var rows []string
	kind := map[int]string{}
	add := func(k string, fields ...string) {
		for i := range fields {
			fields[i] = csvField(fields[i])
		}
		rows = append(rows, strings.Join(fields, ","))
		kind[len(rows)] = k
	}
	grades := []string{"", "slab 10", "NM", "BGS 9.5", "raw:lightly_played", "cgc:9"}
	var byID, bySet, byName []r7Card
	for _, c := range cards {
		switch {
		case c.lang == "en" && len(bySet) < 60 && c.id != "en:base1-4" && len(byID) >= 60:
			bySet = append(bySet, c)
		case len(byID) < 60:
			byID = append(byID, c)
		}
	}
	for _, c := range cards {
		if names[strings.ToLower(c.name)] == 1 && len(byName) < 40 && c.lang == "en" {
			byName = append(byName, c)
		}
	}
	if len(bySet) < 60 || len(byName) < 40 {
		t.Fatalf("catalog too small: %d set rows, %d unique names", len(bySet), len(byName))
	}
	//               card_id, name, set, number, language, grade, quantity, price paid
	add("id", "en:base1-4", "Charizard", "", "", "", "slab 10", "2", "$1,200.00")
	for i, c := range byID[:59] {
		add("id", c.id, "", "", "", "", grades[i%len(grades)], fmt.Sprint(1+i%3), fmt.Sprintf("%d.50", i))
	}
	for i, c := range bySet {
		number := c.number
		if i%2 == 0 {
			number = "00" + number + "/999"
		}
		add("set", "", "", c.set, number, "en", grades[i%len(grades)], "1", "")
	}
	for _, c := range byName {
		add("name", "", c.name, "", "", "", "", "", "3")
	}
	for i := 0; i < 10; i++ {
		n := "Pikachu"
		if i%2 == 1 {
			n = "Charizard ex"
		}
		add("ambiguous", "", n, "", "", "", "", "1", "")
	}
	for i := 0; i < 5; i++ {
		add("unmatched", "", "Zzyzx Nonexistent Card", "", "", "", "", "1", "")
		add("unmatched", "", "", "en:nope", "1", "", "", "1", "")
	}
	bad := [][2]string{{"quantity", "abc"}, {"grade", "slab 11"}, {"price_paid", "free"}, {"language", "klingon"}, {"quantity", "-2"}}
	for i := 0; i < 10; i++ {
		f := []string{byID[i].id, "", "", "", "", "", "1", ""}
		col := map[string]int{"language": 4, "grade": 5, "quantity": 6, "price_paid": 7}[bad[i%5][0]]
		f[col] = bad[i%5][1]
		add("invalid:"+bad[i%5][0], f...)
	}
	for i := 0; i < 10; i++ {
		add("blank", "", "", "", "", "", "", "", "")
	}
	if len(rows) != 200 {
		t.Fatalf("%d rows", len(rows))
	}
	csvText := "Card ID,Name,Set,Number,Language,Grade,Qty,Price Paid\n" + strings.Join(rows, "\n") + "\n"

	r := upload(t, key, "/api/v3/me/imports/preview", "text/csv", []byte(csvText))
	if r.status != 200 || r.json["contract"] != "import-preview.v1" {
		t.Fatalf("preview: %d %s", r.status, truncate(r.body))
	}
	p := data(t, r)
	sum := p["summary"].(map[string]any)
	want := map[string]float64{"rows": 200, "matched": 160, "ambiguous": 10, "unmatched": 10, "invalid": 10, "blank": 10}
	for k, v := range want {
		if sum[k].(float64) != v {
			t.Errorf("summary %s = %v, want %v (summary %v)", k, sum[k], v, sum)
		}
	}
	prow := p["rows"].([]any)
	for i, x := range prow {
		row := x.(map[string]any)
		k := kind[i+1]
		if int(row["row"].(float64)) != i+1 || int(row["line"].(float64)) != i+2 {
			t.Fatalf("row %d numbered %v, line %v", i+1, row["row"], row["line"])
		}
		switch {
		case k == "id" || k == "set" || k == "name":
			if row["status"] != "matched" {
				t.Errorf("row %d (%s) %v: %v", i+1, k, row["status"], row)
			}
		case k == "ambiguous":
			if c, _ := row["candidates"].([]any); row["status"] != "ambiguous" || len(c) < 2 || len(c) > 5 {
				t.Errorf("row %d ambiguous: %v", i+1, row)
			}
		case k == "unmatched":
			if row["status"] != "unmatched" || row["reason"] == "" {
				t.Errorf("row %d unmatched: %v", i+1, row)
			}
		case strings.HasPrefix(k, "invalid:"):
			errs, _ := row["errors"].([]any)
			if row["status"] != "invalid" || len(errs) == 0 || errs[0].(map[string]any)["column"] != strings.TrimPrefix(k, "invalid:") {
				t.Errorf("row %d %s: %v", i+1, k, row)
			}
		case k == "blank":
			if row["status"] != "blank" {
				t.Errorf("row %d blank: %v", i+1, row)
			}
		}
	}
	// Matching is right: ids, set + number, names.
	for i, c := range byID[:59] {
		if got := prow[i+1].(map[string]any)["card"].(map[string]any)["card_id"]; got != c.id {
			t.Errorf("id row %d matched %v, want %s", i+2, got, c.id)
		}
	}
	for i, c := range bySet {
		if got := prow[60+i].(map[string]any)["card"].(map[string]any)["card_id"]; got != c.id {
			t.Errorf("set row %d matched %v, want %s", 61+i, got, c.id)
		}
	}
	// The value of row 1 is the slab:10 fmv of /prices, times 2.
	first := prow[0].(map[string]any)
	own := pricesOf(t, do(t, keyedClient, "GET", "/prices?ids=en:base1-4&grade=slab:10", env.keys["elite"], nil))["own"].(map[string]any)
	if first["grade"] != "slab:10" || first["fmv_usd"] != own["price_usd"] || math.Abs(first["value_usd"].(float64)-2*own["price_usd"].(float64)) > 0.005 || first["price_paid_usd"].(float64) != 1200 {
		t.Errorf("row 1 %v, /prices own slab:10 %v", first, own["price_usd"])
	}
	previewID := p["preview_id"].(string)

	// Confirm, picking a candidate for the first ambiguous row.
	ambRow := 161
	cand := prow[ambRow-1].(map[string]any)["candidates"].([]any)[0].(map[string]any)["card_id"].(string)
	confirmBody, _ := json.Marshal(map[string]any{"preview_id": previewID, "choices": map[string]string{fmt.Sprint(ambRow): cand}})
	if r := do(t, keyedClient, "POST", "/api/v3/me/imports/confirm", env.keys["elite"], confirmBody); r.status != 404 {
		t.Errorf("another key confirmed the preview: %d %s", r.status, truncate(r.body))
	}
	badChoice, _ := json.Marshal(map[string]any{"preview_id": previewID, "choices": map[string]string{"1": "en:base1-2"}})
	if d := detailOf(t, do(t, keyedClient, "POST", "/api/v3/me/imports/confirm", key, badChoice)); !strings.Contains(d["msg"].(string), "not ambiguous") {
		t.Errorf("choice for a matched row: %v", d)
	}
	c1 := do(t, keyedClient, "POST", "/api/v3/me/imports/confirm", key, confirmBody)
	if c1.status != 200 || c1.json["contract"] != "import-confirm.v1" {
		t.Fatalf("confirm: %d %s", c1.status, truncate(c1.body))
	}
	d1 := data(t, c1)
	if d1["status"] != "confirmed" || d1["already_confirmed"] != false || d1["stored_rows"].(float64) != 161 || len(d1["skipped"].([]any)) != 29 {
		t.Errorf("confirm: %s", truncate(c1.body))
	}
	c2 := do(t, keyedClient, "POST", "/api/v3/me/imports/confirm", key, confirmBody)
	d2 := data(t, c2)
	if c2.status != 200 || d2["status"] != "already_confirmed" || d2["already_confirmed"] != true || d2["stored_rows"] != d1["stored_rows"] {
		t.Errorf("second confirm: %d %s", c2.status, truncate(c2.body))
	}
	coll1, coll2 := d1["collection"].(map[string]any), d2["collection"].(map[string]any)
	if fmt.Sprint(coll1) != fmt.Sprint(coll2) || coll1["imports"].(float64) != 1 || coll1["quantity"] != d1["stored_quantity"] {
		t.Errorf("collection changed on the second confirm: %v then %v", coll1, coll2)
	}
	// The state file holds the collection once.
	var stored struct {
		Holdings []struct {
			CardID   string `json:"card_id"`
			Grade    string `json:"grade"`
			Quantity int    `json:"quantity"`
		} `json:"holdings"`
		Imports []struct {
			ImportID string `json:"import_id"`
		} `json:"imports"`
	}
	err := stateAt(t, env.state).View(context.Background(), func(tx state.Tx) error {
		b, err := tx.Get(state.Collections, env.keyIDs["importer"])
		if err != nil {
			return err
		}
		return json.Unmarshal(b, &stored)
	})
	if err != nil {
		t.Fatal(err)
	}
	qty := 0
	for _, h := range stored.Holdings {
		qty += h.Quantity
		if h.CardID == "en:base1-4" && h.Grade == "slab:10" && h.Quantity != 2 {
			t.Errorf("en:base1-4 slab:10 stored %d times", h.Quantity)
		}
	}
	if len(stored.Imports) != 1 || stored.Imports[0].ImportID != previewID || float64(qty) != d1["stored_quantity"].(float64) {
		t.Errorf("state file: %d imports, quantity %d (confirm said %v)", len(stored.Imports), qty, d1["stored_quantity"])
	}
	if r := do(t, keyedClient, "POST", "/api/v3/me/imports/confirm", key, []byte(`{"preview_id": "imp_unknown"}`)); r.status != 404 {
		t.Errorf("unknown preview: %d", r.status)
	}
	if r := do(t, freshClient(), "POST", "/api/v3/me/imports/preview", "", []byte(csvText), "Content-Type", "text/csv"); r.status != 401 {
		t.Errorf("preview without a key: %d", r.status)
	}
}

func TestImports_BadFiles(t *testing.T) {
	r7Setup(t)
	key := env.keys["importer"]
	path := "/api/v3/me/imports/preview"
	header := "name,set,number,quantity\n"
	good := "Charizard,en:base1,4,1\n"
	cases := []struct {
		name, body, ctype string
		msg               []string
		loc               string
	}{
		{"unterminated quote", header + good + good + good + "\"Blastoise,en:base1,2,1\n", "text/csv", []string{"row 4", "line 5"}, "row"},
		{"bare quote", header + good + "Char\"izard,en:base1,4,1\n", "text/csv", []string{"row 2", "line 3", "column"}, "row"},
		{"field count", header + good + good + "Charizard,en:base1,4\n", "text/csv", []string{"row 3", "line 4", "columns"}, "row"},
		{"no card column", "quantity,price_paid\n1,2\n", "text/csv", []string{"names no card column"}, "header"},
		{"header only", header, "text/csv", []string{"no rows"}, ""},
		{"not UTF-8", header + "Pok\xe9mon,en:base1,4,1\n", "text/csv", []string{"line 2", "UTF-8"}, "line"},
		{"bad JSON", `[{"name": "Charizard", "set": "en:base1"}, {"name": ]`, "application/json", []string{"JSON syntax error", "line 1"}, "line"},
		{"JSON row not an object", `[{"name": "Charizard"}, 7]`, "application/json", []string{"row 2"}, "row"},
		{"JSON nested value", `{"rows": [{"name": "Charizard", "grade": {"x": 1}}]}`, "application/json", []string{"row 1", "grade"}, "row"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := upload(t, key, path, tc.ctype, []byte(tc.body))
			d := detailOf(t, r)
			for _, m := range tc.msg {
				if !strings.Contains(d["msg"].(string), m) {
					t.Errorf("message %q does not say %q", d["msg"], m)
				}
			}
			if loc := d["loc"].([]any); tc.loc != "" && (len(loc) < 2 || loc[1] != tc.loc) {
				t.Errorf("loc %v, want body, %s, ...", loc, tc.loc)
			}
		})
	}
	// strict: every invalid row is a 422 naming its row and column.
	r := upload(t, key, path+"?strict=true", "text/csv", []byte(header+good+"Charizard,en:base1,4,many\nCharizard,en:base1,4,0\n"))
	if r.status != 422 || len(r.json["detail"].([]any)) != 2 {
		t.Fatalf("strict: %d %s", r.status, r.body)
	}
	for i, x := range r.json["detail"].([]any) {
		e := x.(map[string]any)
		if loc := fmt.Sprint(e["loc"]); loc != fmt.Sprintf("[body row %d quantity]", i+2) || !strings.Contains(e["msg"].(string), fmt.Sprintf("row %d (line %d), column quantity", i+2, i+3)) {
			t.Errorf("strict entry %d: %v", i, e)
		}
	}
	// JSON rows work like CSV rows (aliases, numbers).
	r = upload(t, key, path, "application/json", []byte(`[{"card_id": "en:base1-4", "qty": 2, "price_paid": 100.5, "grade": "slab 10"}, {"name": "Charizard", "set": "Base", "number": "4/102"}]`))
	if r.status != 200 || data(t, r)["format"] != "json" || data(t, r)["summary"].(map[string]any)["matched"].(float64) != 2 {
		t.Errorf("JSON upload: %d %s", r.status, truncate(r.body))
	}
	// Limits: 5,001 rows, or more than 1 MiB, are refused with 413.
	var big strings.Builder
	big.WriteString(header)
	for i := 0; i < 5001; i++ {
		big.WriteString(good)
	}
	r = upload(t, key, path, "text/csv", []byte(big.String()))
	if e, _ := r.json["error"].(map[string]any); r.status != 413 || !strings.Contains(fmt.Sprint(e["message"]), "5000 rows") {
		t.Errorf("5,001 rows: %d %s", r.status, truncate(r.body))
	}
	huge := header + strings.Repeat("Charizard,en:base1,4,1"+strings.Repeat(" ", 1000)+"\n", 1100)
	r = upload(t, key, path, "text/csv", []byte(huge))
	if e, _ := r.json["error"].(map[string]any); r.status != 413 || !strings.Contains(fmt.Sprint(e["message"]), "1 MiB") {
		t.Errorf("%d bytes: %d %s", len(huge), r.status, truncate(r.body))
	}
}

// ---- agent chat ----

type sseEvent struct {
	id, event string
	data      map[string]any
}

// readSSE posts a chat and reads its server-sent events until end.
func readSSE(t *testing.T, base, key, body string) ([]sseEvent, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/api/v3/agent/chat", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := keyedClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("chat: %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	var events []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.event != "" {
				events = append(events, cur)
				if cur.event == "end" {
					return events, resp.Header
				}
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			cur.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			cur.event = line[7:]
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(line[6:]), &cur.data); err != nil {
				t.Fatalf("event %s data is not JSON: %s", cur.event, line)
			}
		}
	}
	t.Fatalf("stream ended without an end event (%v) after %d events", sc.Err(), len(events))
	return nil, nil
}

// checkStream checks the shape every chat stream has and returns the
// concatenated tokens and the tool calls by name.
func checkStream(t *testing.T, events []sseEvent) (string, map[string]map[string]any) {
	t.Helper()
	if events[0].event != "start" || events[len(events)-1].event != "end" {
		t.Fatalf("stream is not start ... end: %s ... %s", events[0].event, events[len(events)-1].event)
	}
	var text strings.Builder
	calls := map[string]map[string]any{}
	callIDs := map[string]string{}
	for i, e := range events {
		if e.id != fmt.Sprint(i+1) {
			t.Errorf("event %d has id %q", i+1, e.id)
		}
		switch e.event {
		case "token":
			text.WriteString(e.data["text"].(string))
		case "tool_call":
			calls[e.data["name"].(string)] = e.data
			callIDs[e.data["call_id"].(string)] = e.data["name"].(string)
		case "tool_result":
			if callIDs[e.data["call_id"].(string)] != e.data["name"] {
				t.Errorf("tool_result %v answers no tool_call", e.data)
			}
		case "start", "end", "error":
		default:
			t.Errorf("undocumented event %q", e.event)
		}
	}
	end := events[len(events)-1].data
	if end["text"] != text.String() || int(end["tokens"].(float64)) == 0 {
		t.Errorf("end %v does not sum the tokens %q", end, text.String())
	}
	return text.String(), calls
}

func TestAgentChat_Embedded(t *testing.T) {
	r7Setup(t)
	key := env.keys["chat"]
	events, hdr := readSSE(t, env.base, key, `{"message": "what is a slab 10 Charizard base set worth?"}`)
	if hdr.Get("Cache-Control") == "" {
		t.Errorf("no Cache-Control on the stream")
	}
	text, calls := checkStream(t, events)
	if calls["search"] == nil || calls["quote"] == nil {
		t.Fatalf("tool calls %v", calls)
	}
	if args := calls["quote"]["arguments"].(map[string]any); args["grade"] != "slab:10" || fmt.Sprint(args["ids"]) != "[en:base1-4]" {
		t.Errorf("quote arguments %v", args)
	}
	if events[len(events)-1].data["finish_reason"] != "stop" {
		t.Errorf("finish %v", events[len(events)-1].data)
	}
	// The answer quotes the same number as the quote tool's result.
	var price float64
	for _, e := range events {
		if e.event == "tool_result" && e.data["name"] == "quote" {
			q := e.data["result"].(map[string]any)["quotes"].([]any)[0].(map[string]any)
			price = q["price_usd"].(float64)
		}
	}
	if !strings.Contains(text, "Charizard") || !strings.Contains(text, "slab:10") || price == 0 || !strings.Contains(strings.ReplaceAll(text, ",", ""), fmt.Sprintf("$%.2f", price)) {
		t.Errorf("answer %q, quoted price %v", text, price)
	}

	events, _ = readSSE(t, env.base, key, `{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Ask me about cards."}, {"role": "user", "content": "top movers this week"}]}`)
	text, calls = checkStream(t, events)
	if args, _ := calls["trending"]["arguments"].(map[string]any); args["window"] != "7d" {
		t.Errorf("movers: tool calls %v", calls)
	}
	if !strings.Contains(text, "1. ") || !strings.Contains(text, "7 days") {
		t.Errorf("movers answer %q", text)
	}

	// Errors before the stream are plain JSON.
	if r := do(t, freshClient(), "POST", "/api/v3/agent/chat", "", []byte(`{"message": "hi"}`)); r.status != 401 {
		t.Errorf("chat without a key: %d", r.status)
	}
	if r := do(t, keyedClient, "POST", "/api/v3/agent/chat", key, []byte(`{"messages": []}`)); r.status != 422 {
		t.Errorf("empty chat: %d", r.status)
	}
	if r := do(t, keyedClient, "POST", "/api/v3/agent/chat", key, []byte(`{"messages": [{"role": "assistant", "content": "x"}]}`)); r.status != 422 {
		t.Errorf("chat ending with the assistant: %d", r.status)
	}
}

// fakeLLM is an OpenAI-compatible chat completions server: the first turn
// streams a quote tool call (its arguments split across chunks), the second
// answers from the tool result, token by token.
type fakeLLM struct {
	mu       sync.Mutex
	requests []map[string]any
}

func (f *fakeLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req map[string]any
	if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer test-llm-key" || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, "bad request", 400)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	msgs := req["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	if strings.Contains(fmt.Sprint(last["content"]), "fail please") {
		http.Error(w, `{"error": {"message": "model overloaded"}}`, 503)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		fl.Flush()
	}
	delta := func(d map[string]any, finish any) map[string]any {
		return map[string]any{"id": "c1", "object": "chat.completion.chunk", "choices": []any{map[string]any{"index": 0, "delta": d, "finish_reason": finish}}}
	}
	if last["role"] != "tool" {
		send(delta(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": "call_abc", "type": "function",
			"function": map[string]any{"name": "quote", "arguments": `{"ids": ["en:base1-4"], `}}}}, nil))
		send(delta(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": `"grade": "slab:10"}`}}}}, nil))
		send(delta(map[string]any{}, "tool_calls"))
		fmt.Fprint(w, "data: [DONE]\n\n")
		return
	}
	var res struct {
		Quotes []struct {
			PriceUSD float64 `json:"price_usd"`
		} `json:"quotes"`
	}
	json.Unmarshal([]byte(last["content"].(string)), &res)
	answer := "Charizard in slab:10 is worth about $" + fmt.Sprintf("%.2f", res.Quotes[0].PriceUSD) + " (Midprice)."
	for _, tok := range strings.SplitAfter(answer, " ") {
		send(delta(map[string]any{"content": tok}, nil))
	}
	send(delta(map[string]any{}, "stop"))
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// linkSnapshot makes a new snapshots root whose live snapshot is the one env
// serves, its files hard-linked (the edge refuses symlinks).
func linkSnapshot(t *testing.T, id string) string {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join(env.root, id)
	err := filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		dst := filepath.Join(root, id, rel)
		if info.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if os.Link(path, dst) == nil {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := snapshots.Publish(root, id); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestAgentChat_LLM(t *testing.T) {
	r7Setup(t)
	fake := &fakeLLM{}
	llm := httptest.NewServer(fake)
	defer llm.Close()
	t.Setenv("CARDEDGE_LLM_API_KEY", "test-llm-key")

	live := do(t, keyedClient, "GET", "/health", "", nil).json["snapshot_id"].(string)
	root := linkSnapshot(t, live)
	// The second server runs the real command line, with the --llm-url flag
	// (the key comes from $CARDEDGE_LLM_API_KEY), on a free loopback port.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- main.Main(ctx, []string{"serve", "--snapshots", root, "--state", env.state, "--addr", addr, "--cache-mb", "0",
			"--log-level", "error", "--llm-url", llm.URL + "/v1", "--llm-model", "fake-model"}, io.Discard, io.Discard)
	}()
	base := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); ; {
		if resp, err := http.Get(base + "/health"); err == nil {
			resp.Body.Close()
			break
		}
		select {
		case err := <-done:
			t.Fatalf("second server: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("second server did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("second server: %v", err)
		}
	}()

	events, _ := readSSE(t, base, env.keys["chat"], `{"message": "What is a slab 10 Charizard from Base worth?"}`)
	text, calls := checkStream(t, events)
	if s := events[0].data; s["agent"] != "llm" || s["model"] != "fake-model" {
		t.Errorf("start %v", s)
	}
	q := calls["quote"]
	if q == nil || fmt.Sprint(q["arguments"]) != "map[grade:slab:10 ids:[en:base1-4]]" || q["call_id"] != "call_abc" {
		t.Fatalf("tool calls %v", calls)
	}
	var price float64
	for _, e := range events {
		if e.event == "tool_result" {
			if e.data["ok"] != true {
				t.Fatalf("tool result %v", e.data)
			}
			price = e.data["result"].(map[string]any)["quotes"].([]any)[0].(map[string]any)["price_usd"].(float64)
		}
	}
	if want := fmt.Sprintf("Charizard in slab:10 is worth about $%.2f (Midprice).", price); text != want || price == 0 {
		t.Errorf("answer %q, want %q", text, want)
	}
	if n := len(events); n < 10 {
		t.Errorf("only %d events: not streamed token by token", n)
	}
	// What the model saw: the tools, then the tool result under its call id.
	fake.mu.Lock()
	reqs := fake.requests
	fake.mu.Unlock()
	if len(reqs) != 2 || reqs[0]["model"] != "fake-model" || reqs[0]["stream"] != true {
		t.Fatalf("%d model requests: %v", len(reqs), reqs)
	}
	var tools []string
	for _, x := range reqs[0]["tools"].([]any) {
		tools = append(tools, x.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	if fmt.Sprint(tools) != "[search quote get_prices get_sales trending]" {
		t.Errorf("tools offered %v", tools)
	}
	msgs := reqs[1]["messages"].([]any)
	if m := msgs[len(msgs)-1].(map[string]any); m["role"] != "tool" || m["tool_call_id"] != "call_abc" {
		t.Errorf("last message of the second turn %v", m)
	}
	if m := msgs[len(msgs)-2].(map[string]any); fmt.Sprint(m["tool_calls"]) == "" || m["role"] != "assistant" {
		t.Errorf("assistant tool call message %v", m)
	}

	// A failing model: an error event, then end.
	events, _ = readSSE(t, base, env.keys["chat"], `{"message": "fail please"}`)
	if n := len(events); n != 3 || events[1].event != "error" || events[1].data["code"] != "llm_unavailable" || events[2].data["finish_reason"] != "error" {
		t.Errorf("failing model: %v", events)
	}
}
