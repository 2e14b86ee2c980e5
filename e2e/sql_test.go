package e2e_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/e2e/e2etest"
)

// End-to-end tests of the guarded SQL passthrough (POST /api/v3/sql, GET
// /api/v3/sql/schema) against the shared edge of main_test.go.

func sqlQuery(t *testing.T, key, sql string) e2etest.Reply {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"sql": sql})
	return do(t, keyedClient, "POST", "/api/v3/sql", key, b)
}

func TestSQL_Access(t *testing.T) {
	body := []byte(`{"sql": "SELECT 1"}`)
	if r := do(t, freshClient(), "POST", "/api/v3/sql", "", body); r.Status != 401 {
		t.Errorf("no key: %d %s", r.Status, r.Body)
	}
	r := do(t, keyedClient, "POST", "/api/v3/sql", env.keys["elite"], body)
	if e, _ := r.JSON["error"].(map[string]any); r.Status != 403 || e["code"] != "forbidden" {
		t.Errorf("elite key off the allowlist: %d %s", r.Status, r.Body)
	}
	if r := do(t, keyedClient, "GET", "/api/v3/sql/schema", env.keys["elite"], nil); r.Status != 403 {
		t.Errorf("schema for a key off the allowlist: %d", r.Status)
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
	if r.Status != 200 || r.JSON["contract"] != "sql-query.v1" {
		t.Fatalf("sql with extra properties: %d %s", r.Status, r.Body)
	}
	if rows := data(t, r)["rows"].([]any); rows[0].([]any)[0].(float64) != 42 {
		t.Errorf("SELECT 41 + 1: %v", rows)
	}
	// The schema, for allowlisted callers.
	r = do(t, keyedClient, "GET", "/api/v3/sql/schema", key, nil)
	if r.Status != 200 || r.JSON["contract"] != "sql-schema.v1" {
		t.Fatalf("schema: %d %s", r.Status, truncate(r.Body))
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
	paths, _ := r.JSON["paths"].(map[string]any)
	if r.Status != 200 || paths == nil {
		t.Fatalf("openapi.json: %d", r.Status)
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
		if r.Status != 200 {
			t.Fatalf("count: %d %s", r.Status, r.Body)
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
	if r.Status != 200 {
		t.Fatalf("big result: %d %s", r.Status, truncate(r.Body))
	}
	dd := data(t, r)
	if len(dd["rows"].([]any)) != 1000 || dd["row_count"].(float64) != 1000 || dd["truncated"] != true || dd["max_rows"].(float64) != 1000 {
		t.Errorf("row cap: %d rows, row_count %v, truncated %v", len(dd["rows"].([]any)), dd["row_count"], dd["truncated"])
	}
	r = sqlQuery(t, key, "SELECT id, card_id, sale_date, price_usd FROM sales")
	if dd := data(t, r); r.Status != 200 || dd["truncated"] != true || len(dd["rows"].([]any)) != 1000 {
		t.Errorf("SELECT of every sale: %d truncated %v", r.Status, dd["truncated"])
	}
	// A small result is not truncated.
	r = sqlQuery(t, key, "SELECT id FROM sets")
	if dd := data(t, r); r.Status != 200 || dd["truncated"] != false {
		t.Errorf("sets: %d %v", r.Status, dd["truncated"])
	}
}

// TestSQL_Aggregate checks a real aggregate against the same numbers from
// the REST route: verified sales of en:base1-4 and their volume per window
// of GET /api/v3/cards/en:base1-4/analytics, which are its base printing's
// (holo/unlimited; printings are never blended).
func TestSQL_Aggregate(t *testing.T) {
	for _, window := range []string{"1m", "1y", "all"} {
		r := do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4/analytics?window="+window, env.keys["elite"], nil)
		if r.Status != 200 {
			t.Fatalf("analytics: %d %s", r.Status, r.Body)
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
		if s.Status != 200 {
			t.Fatalf("%s: %d %s", window, s.Status, s.Body)
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
