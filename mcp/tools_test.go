package mcp_test

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/mcp/mcptest"
)

// The tools and the HTTP rules of the MCP server (package doc: Transport,
// Costs, Tools, Cohorts), moved from cmd/cardedge's whole-program tests:
// each test starts a server of its own (main_test.go).

func TestMCP_Handshake(t *testing.T) {
	srv := mustServer(t, nil)
	key := srv.key(t, access.Pro, false)
	r := mcptest.Post(t, srv.URL, key, "", mcptest.Initialize(1))
	if r.Status != 200 || r.Header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize: %d %v %s", r.Status, r.Header, r.Body)
	}
	res := r.Msg["result"].(map[string]any)
	info := res["serverInfo"].(map[string]any)
	if info["version"] != "1.1.0" || info["name"] != "cardedge" {
		t.Errorf("serverInfo %v", info)
	}
	if res["protocolVersion"] != "2025-11-25" {
		t.Errorf("protocolVersion %v", res["protocolVersion"])
	}
	if r.Header.Get("X-Service-Tier") != "pro" {
		t.Errorf("X-Service-Tier %q", r.Header.Get("X-Service-Tier"))
	}
	s := &mcptest.Session{TB: t, Base: srv.URL, Key: key, ID: r.Header.Get("Mcp-Session-Id")}
	n := mcptest.Post(t, srv.URL, key, s.ID, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	if n.Status != 202 {
		t.Fatalf("notifications/initialized: %d", n.Status)
	}
	list := s.RPC("tools/list", map[string]any{})
	if list.Status != 200 {
		t.Fatalf("tools/list: %d %s", list.Status, list.Body)
	}
	tools := items(t, list.Msg["result"].(map[string]any)["tools"])
	var names []string
	for _, tool := range tools {
		name := tool["name"].(string)
		names = append(names, name)
		if d, _ := tool["description"].(string); len(d) < 60 {
			t.Errorf("%s: description too short: %q", name, d)
		}
		schema := tool["inputSchema"].(map[string]any)
		if schema["type"] != "object" || schema["additionalProperties"] != false {
			t.Errorf("%s: input schema is not a closed object: %v", name, schema)
		}
		props, _ := schema["properties"].(map[string]any)
		if len(props) == 0 {
			t.Errorf("%s: no properties", name)
		}
		for arg, p := range props {
			pm := p.(map[string]any)
			if d, _ := pm["description"].(string); d == "" {
				t.Errorf("%s.%s has no description", name, arg)
			}
			if pm["type"] == nil {
				t.Errorf("%s.%s has no type", name, arg)
			}
		}
	}
	slices.Sort(names)
	want := []string{"batch_grade_ladder", "compare_set_finish", "get_cohort", "get_listings", "get_prices", "get_sales", "pin_cohort", "quote", "rank_set_sales", "search"}
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	// The SQL tools do not exist: calling one is a JSON-RPC error.
	for _, banned := range []string{"execute_sql", "describe_schema", "query_gold_sql"} {
		r := s.RPC("tools/call", map[string]any{"name": banned, "arguments": map[string]any{"sql": "select 1"}})
		e, _ := r.Msg["error"].(map[string]any)
		if r.Status != 200 || e == nil || !strings.Contains(fmt.Sprint(e["message"]), "not found") {
			t.Errorf("%s: %d %s", banned, r.Status, r.Body)
		}
	}
	// GET (a server-to-client stream) is not offered.
	req, _ := http.NewRequest("GET", srv.URL+mcptest.Path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Mcp-Session-Id", s.ID)
	req.Header.Set("Accept", "text/event-stream")
	if g := mcptest.Send(t, req); g.Status != 405 {
		t.Errorf("GET: %d", g.Status)
	}
	// ping works in the session.
	if p := s.RPC("ping", nil); p.Status != 200 || p.Msg["result"] == nil {
		t.Errorf("ping: %d %s", p.Status, p.Body)
	}
}

func TestMCP_Sessions(t *testing.T) {
	srv := mustServer(t, nil)
	key := srv.key(t, access.Pro, false)
	other := srv.key(t, access.Pro, false)
	s := srv.open(t, key)
	// Unknown ids, ids of another key and requests without one.
	for _, c := range []struct {
		key, session string
		status       int
	}{
		{key, "cs_0123456789abcdef0123456789abcdef", 404},
		{key, "mcp-session-" + "00000000-0000-0000-0000-000000000000", 404},
		{other, s.ID, 404},
	} {
		r := mcptest.Post(t, srv.URL, c.key, c.session, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
		if r.Status != c.status {
			t.Errorf("session %q: %d %s, want %d", c.session, r.Status, r.Body, c.status)
		}
	}
	r := mcptest.Post(t, srv.URL, key, "", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
	if r.Status != 400 {
		t.Errorf("no session header: %d %s", r.Status, r.Body)
	}
	// DELETE ends the session; it is then unknown (404), as is a second DELETE.
	del := func(k, id string) int { return mcptest.Delete(t, srv.URL, k, id) }
	if st := del(other, s.ID); st != 404 {
		t.Errorf("DELETE by another key: %d", st)
	}
	if st := del(key, ""); st != 400 {
		t.Errorf("DELETE without a session: %d", st)
	}
	if st := del(key, s.ID); st != 200 {
		t.Fatalf("DELETE: %d", st)
	}
	if r := s.RPC("tools/list", map[string]any{}); r.Status != 404 {
		t.Errorf("ended session: %d %s", r.Status, r.Body)
	}
	if tr := s.Call("get_cohort", nil); tr.Status != 404 {
		t.Errorf("tool call in an ended session: %d", tr.Status)
	}
	if st := del(key, s.ID); st != 404 {
		t.Errorf("second DELETE: %d", st)
	}
	// An unsupported protocol version header is refused.
	s2 := srv.open(t, key)
	r = mcptest.Post(t, srv.URL, key, s2.ID, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, "MCP-Protocol-Version", "1999-01-01")
	if r.Status != 400 {
		t.Errorf("bad protocol version: %d %s", r.Status, r.Body)
	}
}

func TestMCP_Search(t *testing.T) {
	srv := mustServer(t, nil)
	s := srv.open(t, srv.key(t, access.Elite, true))
	d := s.OK("search", map[string]any{"q": "charizard"}).Data
	if d["status"] != "resolved" || d["card_id"] != "en:base1-4" || len(items(t, d["items"])) < 2 {
		t.Errorf("q charizard: %v", d)
	}
	d = s.OK("search", map[string]any{"q": "pikachu", "limit": 3}).Data
	if d["status"] != "ambiguous" || len(items(t, d["items"])) != 3 {
		t.Errorf("q pikachu: %v", d)
	}
	d = s.OK("search", map[string]any{"q": "42382"}).Data
	if d["status"] != "resolved" || d["resolved_by"] != "partner_product_id" || d["card_id"] != "en:base1-4" {
		t.Errorf("q product id: %v", d)
	}
	d = s.OK("search", map[string]any{"q": "charizard", "set_id": "en:sv3pt5", "language": "en"}).Data
	for _, it := range items(t, d["items"]) {
		if it["set_id"] != "en:sv3pt5" {
			t.Errorf("set filter let through %v", it)
		}
	}
	d = s.OK("search", map[string]any{"q": "zzqx wvvv"}).Data
	if d["status"] != "not_found" {
		t.Errorf("q nonsense: %v", d)
	}
	// One Piece card ids resolve without game; with game they must belong to it.
	op := s.OK("search", map[string]any{"ids": []string{"en:OP01-001"}}).Data
	if it := items(t, op["items"])[0]; it["status"] != "resolved" || it["card"].(map[string]any)["game"] != "onepiece" {
		t.Errorf("other game's card id: %v", it)
	}
	tr := s.OK("search", map[string]any{"ids": []string{"en:base1-4", "EN:BASE1-4", "42382", "pikachu", "no-such-card-zz"}})
	d = tr.Data
	if d["resolved"] != 3.0 || d["ambiguous"] != 1.0 || d["not_found"] != 1.0 || d["unique_cards"] != 1.0 || tr.Env["cost"] != 1.0 {
		t.Errorf("ids: cost %v %v", tr.Env["cost"], d)
	}
	s.Fails("search", map[string]any{}, "give q")
	s.Fails("search", map[string]any{"q": "x", "ids": []string{"y"}}, "not both")
	s.Fails("search", map[string]any{"q": "  "}, "q is empty")
	s.Fails("search", map[string]any{"ids": []string{"en:base1-4"}, "set_id": "en:base1"}, "leave them out")
	s.Fails("search", map[string]any{"q": "charizard", "game": "magic"}, "game")
	s.Fails("search", map[string]any{"q": "charizard", "limit": 26}, "limit")
	s.Fails("search", map[string]any{"q": "charizard", "colour": "red"}, "colour")
	many := make([]string, 1001)
	for i := range many {
		many[i] = fmt.Sprintf("en:x-%d", i)
	}
	s.Fails("search", map[string]any{"ids": many}, "1000")
}

func TestMCP_Quote(t *testing.T) {
	srv := mustServer(t, nil)
	s := srv.open(t, srv.key(t, access.Elite, true))
	tr := s.OK("quote", map[string]any{"ids": []string{"en:base1-4", "42382", "pikachu", "no-such-card-zz"}})
	qs := items(t, tr.Data["items"])
	if len(qs) != 4 || tr.Env["cost"] != 1.0 {
		t.Fatalf("quote: cost %v, %d items", tr.Env["cost"], len(qs))
	}
	for _, q := range qs[:2] {
		if q["status"] != "resolved" || q["card_id"] != "en:base1-4" || q["grade"] != "slab:10" {
			t.Errorf("resolved quote: %v", q)
		}
		label, _ := q["label"].(string)
		if !slices.Contains([]string{"Midprice", "Last", "Ask"}, label) || q["price_usd"].(float64) <= 0 || q["price_basis"] == "" {
			t.Errorf("quote price: %v", q)
		}
		if tried := q["grades_tried"].([]any); len(tried) != 2 || tried[0] != "slab:10" || tried[1] != "raw:near_mint" {
			t.Errorf("ungraded order %v", tried)
		}
	}
	if qs[2]["status"] != "ambiguous" || len(qs[2]["candidates"].([]any)) < 2 || len(qs[2]["candidates"].([]any)) > 5 || qs[2]["label"] != nil {
		t.Errorf("ambiguous quote: %v", qs[2])
	}
	if qs[3]["status"] != "not_found" || qs[3]["message"] == "" {
		t.Errorf("not_found quote: %v", qs[3])
	}
	// A grade and a finish.
	q := items(t, s.OK("quote", map[string]any{"ids": []string{"en:base1-4"}, "grade": "raw:near_mint", "finish": "holo/unlimited"}).Data["items"])[0]
	if q["grade"] != "raw:near_mint" || q["finish"] != "holo/unlimited" || q["base_finish"] != true || q["midprice"].(map[string]any)["basis"] != "fmv" {
		t.Errorf("graded finish quote: %v", q)
	}
	// A finish the card lacks: resolved, no price, says why.
	q = items(t, s.OK("quote", map[string]any{"ids": []string{"en:base1-4"}, "finish": "reverse"}).Data["items"])[0]
	if q["status"] != "resolved" || q["label"] != nil || !strings.Contains(fmt.Sprint(q["message"]), "its printings are") {
		t.Errorf("missing finish: %v", q)
	}
	// A grade that never sold and has no ask: no price.
	q = items(t, s.OK("quote", map[string]any{"ids": []string{"en:base1-4"}, "grade": "cgc:1"}).Data["items"])[0]
	if q["label"] != nil || q["price_usd"] != nil || !strings.Contains(q["price_basis"].(string), "no price") {
		t.Errorf("unpriced grade: %v", q)
	}
	s.Fails("quote", map[string]any{"ids": []string{"en:base1-4"}, "grade": "sgc:10"}, "grader must be")
	s.Fails("quote", map[string]any{"ids": []string{"en:base1-4"}, "grade": "psa 11"}, "a PSA grade's number must be 1 to 10")
	s.Fails("quote", map[string]any{}, "ids")
	s.Fails("quote", map[string]any{"ids": []string{}}, "ids")
}

func TestMCP_PricesSalesListings(t *testing.T) {
	srv := mustServer(t, nil)
	elite := srv.open(t, srv.key(t, access.Elite, true))
	d := elite.OK("get_prices", map[string]any{"ids": []string{"en:base1-4", "nope-zz"}}).Data
	it := items(t, d["items"])[0]
	if d["bounded_by_default"] != true || len(it["points"].([]any)) != 30 || it["truncated"] != true || len(items(t, d["unresolved"])) != 1 {
		t.Errorf("default bound: %v", truncate(d))
	}
	d = elite.OK("get_prices", map[string]any{"ids": []string{"en:base1-4"}, "since": "2026-01-01", "pick": "all", "grade": "slab:9"}).Data
	pts := items(t, items(t, d["items"])[0]["points"])
	if d["bounded_by_default"] != nil || len(pts) == 0 || pts[0]["date"].(string) < "2026-01-01" || pts[0]["tvwap_usd"] == nil || pts[0]["median_usd"] == nil {
		t.Errorf("since: %v", truncate(d))
	}
	d = elite.OK("get_prices", map[string]any{"ids": []string{"en:base1-4"}, "interval": "day", "limit": 10}).Data
	if pts := items(t, items(t, d["items"])[0]["points"]); len(pts) != 10 || pts[9]["date"] != asOf(t) {
		t.Errorf("daily ledger: %v", pts)
	}
	elite.Fails("get_prices", map[string]any{"ids": []string{"en:base1-4"}, "since": "2026/01/01"}, "YYYY-MM-DD")
	elite.Fails("get_prices", map[string]any{"ids": []string{"en:base1-4"}, "since": "2026-06-01", "until": "2026-01-01"}, "after until")
	elite.Fails("get_prices", map[string]any{"ids": []string{"en:base1-4"}, "grade": "raw:like_new"}, "condition")
	elite.Fails("get_prices", map[string]any{"ids": []string{"en:base1-4"}, "pick": "mean"}, "pick")

	d = elite.OK("get_sales", map[string]any{"ids": []string{"en:base1-4"}, "limit": 5, "grade": "graded", "marketplace": "ebay,partner_feed"}).Data
	rows := items(t, items(t, d["items"])[0]["rows"])
	if len(rows) != 5 {
		t.Fatalf("sales rows: %v", rows)
	}
	for _, r := range rows {
		if strings.HasPrefix(r["grade"].(string), "raw:") || (r["marketplace"] != "ebay" && r["marketplace"] != "partner") || r["quality_flagged"] == true {
			t.Errorf("filtered sale row %v", r)
		}
	}
	d = elite.OK("get_sales", map[string]any{"ids": []string{"en:base1-4"}, "mode": "daily", "since": "2026-10-01", "finish": "holo/unlimited"}).Data
	for _, r := range items(t, items(t, d["items"])[0]["rows"]) {
		if r["date"].(string) < "2026-10-01" || r["sales"].(float64) < 1 || r["low_usd"].(float64) > r["high_usd"].(float64) {
			t.Errorf("daily row %v", r)
		}
	}
	elite.Fails("get_sales", map[string]any{"ids": []string{"en:base1-4"}, "limit": 201}, "at most 200")
	elite.Fails("get_sales", map[string]any{"ids": []string{"en:base1-4"}, "marketplace": "amazon"}, "unknown marketplace")
	elite.Fails("get_sales", map[string]any{"ids": []string{"en:base1-4"}, "grade": "sgc"}, "grade")
	elite.Fails("get_sales", map[string]any{"ids": []string{"en:base1-4"}, "trade_type": "swap"}, "trade_type")

	// Free keys see 3 days of history: since is raised and said so.
	free := srv.open(t, srv.key(t, access.Free, false))
	d = free.OK("get_sales", map[string]any{"ids": []string{"en:base1-4"}, "since": "2020-01-01", "limit": 200}).Data
	rng := d["range"].(map[string]any)
	if rng["history_days"] != 3.0 || rng["note"] == nil || rng["since"].(string) <= "2026-11-01" {
		t.Errorf("free range: %v", rng)
	}
	for _, r := range items(t, items(t, d["items"])[0]["rows"]) {
		if r["sale_date"].(string) < rng["since"].(string) {
			t.Errorf("free key got a sale before its window: %v", r)
		}
	}
	d = free.OK("get_prices", map[string]any{"ids": []string{"en:base1-4"}, "interval": "day"}).Data
	if pts := items(t, items(t, d["items"])[0]["points"]); len(pts) > 3 {
		t.Errorf("free prices beyond 3 days: %d points", len(pts))
	}

	d = elite.OK("get_listings", map[string]any{"ids": []string{"en:base1-4"}, "limit": 2}).Data
	ls := items(t, items(t, d["items"])[0]["listings"])
	if len(ls) == 0 || len(ls) > 2 || ls[0]["ask_usd"].(float64) <= 0 {
		t.Errorf("listings: %v", ls)
	}
	d = elite.OK("get_listings", map[string]any{"ids": []string{"en:base1-4"}, "mode": "book", "platforms": "ebay", "grade": "graded"}).Data
	for _, b := range items(t, items(t, d["items"])[0]["book"]) {
		if b["platforms"].([]any)[0] != "ebay" {
			t.Errorf("book platforms %v", b)
		}
	}
	elite.Fails("get_listings", map[string]any{"ids": []string{"en:base1-4"}, "platforms": "amazon"}, "unknown marketplace")
	elite.Fails("get_listings", map[string]any{"ids": []string{"en:base1-4"}, "mode": "depth"}, "mode")
}

func TestMCP_LadderAndCohorts(t *testing.T) {
	srv := mustServer(t, nil)
	key := srv.key(t, access.Elite, true)
	s := srv.open(t, key)
	tr := s.OK("batch_grade_ladder", map[string]any{"set_id": "en:base1", "rarity": "Rare Holo", "dry_run": true})
	if tr.Env["cost"] != 0.0 || tr.Data["dry_run"] != true || tr.Data["would_cost"] != 16.0 {
		t.Errorf("dry run: cost %v %v", tr.Env["cost"], truncate(tr.Data))
	}
	tr = s.OK("batch_grade_ladder", map[string]any{"queries": []string{"charizard base", "blastoise base 2", "pikachu"}, "grades": "slab:10,raw:near_mint", "compact": false})
	d := tr.Data
	if d["cards"] != 2.0 || tr.Env["cost"] != 2.0 || len(items(t, d["unresolved"])) != 1 || d["items"] == nil {
		t.Errorf("queries ladder: cost %v %v", tr.Env["cost"], truncate(d))
	}
	for _, c := range items(t, d["items"]) {
		for _, cell := range items(t, c["ladder"]) {
			if cell["last_usd"] != nil && cell["ask_usd"] != nil && cell["ask_last_x"] == nil {
				t.Errorf("no multiple in %v", cell)
			}
		}
	}
	ladderHandle := d["result_handle"].(string)
	d = s.OK("batch_grade_ladder", map[string]any{"ids": []string{"en:base1-4", "en:sv3pt5-6"}, "era": "1999-2000"}).Data
	if d["cards"] != 1.0 || d["filtered_out"] != 1.0 || len(d["rows"].([]any)) != 4 {
		t.Errorf("era filter: %v", truncate(d))
	}
	d = s.OK("batch_grade_ladder", map[string]any{"set_id": "en:sv3pt5", "era": "scarlet & violet", "rarity": "Special Illustration Rare"}).Data
	if d["cards"].(float64) < 1 {
		t.Errorf("series era: %v", truncate(d))
	}
	s.Fails("batch_grade_ladder", map[string]any{}, "exactly one of")
	s.Fails("batch_grade_ladder", map[string]any{"set_id": "en:base1", "ids": []string{"en:base1-4"}}, "exactly one of")
	s.Fails("batch_grade_ladder", map[string]any{"set_id": "en:nope"}, "unknown set_id")
	s.Fails("batch_grade_ladder", map[string]any{"cohort_handle": "coh_00000000000000000000"}, "unknown or expired cohort_handle")
	s.Fails("batch_grade_ladder", map[string]any{"set_id": "en:base1", "grades": "slab:11"}, "grades")
	s.Fails("batch_grade_ladder", map[string]any{"set_id": "en:base1", "rarity": "Mythic"}, "no card left")
	s.Fails("batch_grade_ladder", map[string]any{"set_id": "en:base1", "era": "2003-1999"}, "after the second")

	// compare_set_finish pins its cohort and makes it active.
	tr = s.OK("compare_set_finish", map[string]any{"set_id": "en:base1", "finish": "1st-edition", "rarity": "Rare Holo", "compact": true})
	d = tr.Data
	handle, _ := d["cohort_handle"].(string)
	if !strings.HasPrefix(handle, "coh_") || d["cards"] != 16.0 || tr.Env["cost"] != 16.0 || len(items(t, d["summary"])) != 4 {
		t.Errorf("compare: cost %v %v", tr.Env["cost"], truncate(d))
	}
	s.Fails("compare_set_finish", map[string]any{"set_id": "en:base1", "finish": "gold-star"}, "finishes in this set")
	s.Fails("compare_set_finish", map[string]any{"set_id": "en:nope", "finish": "holo"}, "unknown set_id")
	s.Fails("compare_set_finish", map[string]any{"finish": "holo"}, "set_id")
	c := s.OK("get_cohort", nil).Data["cohort"].(map[string]any)
	if c["cohort_handle"] != handle || c["active"] != true || c["size"] != 16.0 || c["source"].(map[string]any)["kind"] != "compare_set_finish" {
		t.Errorf("active cohort: %v", c)
	}
	// pin_cohort from ids, a set (filtered) and a result handle.
	pin := s.OK("pin_cohort", map[string]any{"name": "two", "ids": []string{"en:base1-4", "42382", "en:base1-2", "nope-zz"}}).Data
	pc := pin["cohort"].(map[string]any)
	if pc["size"] != 2.0 || pc["name"] != "two" || len(items(t, pin["unresolved"])) != 1 {
		t.Errorf("pin ids: %v", pin)
	}
	again := s.OK("pin_cohort", map[string]any{"name": "two", "ids": []string{"en:base1-4", "en:base1-2"}}).Data["cohort"].(map[string]any)
	if again["cohort_handle"] != pc["cohort_handle"] {
		t.Errorf("re-pinning the same cohort changed its handle: %v %v", again["cohort_handle"], pc["cohort_handle"])
	}
	set := s.OK("pin_cohort", map[string]any{"set_id": "en:base1", "rarity": "rare holo"}).Data["cohort"].(map[string]any)
	if set["size"] != 16.0 || set["name"] != "set en:base1" {
		t.Errorf("pin set: %v", set)
	}
	res := s.OK("pin_cohort", map[string]any{"result_handle": ladderHandle}).Data["cohort"].(map[string]any)
	if res["size"] != 2.0 {
		t.Errorf("pin result: %v", res)
	}
	if g := s.OK("get_cohort", nil).Data["cohort"].(map[string]any); g["cohort_handle"] != res["cohort_handle"] {
		t.Errorf("active cohort after pin: %v", g["cohort_handle"])
	}
	g := s.OK("get_cohort", map[string]any{"cohort_handle": handle, "include_cards": true}).Data["cohort"].(map[string]any)
	if g["active"] != false || len(items(t, g["cards"])) != 16 {
		t.Errorf("get by handle: %v", truncate(g))
	}
	s.Fails("pin_cohort", map[string]any{}, "exactly one of")
	s.Fails("pin_cohort", map[string]any{"result_handle": "res_0000"}, "unknown result_handle")
	s.Fails("pin_cohort", map[string]any{"ids": []string{"nope-zz"}}, "nothing to pin")
	s.Fails("get_cohort", map[string]any{"cohort_handle": "coh_0123"}, "unknown or expired")
	// A new session has no active cohort; another key cannot read this one.
	s2 := srv.open(t, key)
	s2.Fails("get_cohort", nil, "no cohort is active")
	s2.OK("get_cohort", map[string]any{"cohort_handle": handle})
	other := srv.open(t, srv.key(t, access.Pro, false))
	other.Fails("get_cohort", map[string]any{"cohort_handle": handle}, "unknown or expired")

	// rank_set_sales over a set and the cohort, each window.
	var prev float64 = math.MaxFloat64
	d = s.OK("rank_set_sales", map[string]any{"set_id": "en:base1", "window": "365d", "limit": 10, "grader": "slab", "min_grade": 9}).Data
	for _, r := range items(t, d["items"]) {
		p := r["price_usd"].(float64)
		if p > prev || !strings.HasPrefix(r["grade"].(string), "slab:") || (r["grade"] != "slab:9" && r["grade"] != "slab:9.5" && r["grade"] != "slab:10") {
			t.Errorf("rank row %v", r)
		}
		prev = p
	}
	for _, w := range []string{"ytd", "90d", "365d"} {
		d = s.OK("rank_set_sales", map[string]any{"cohort_handle": handle, "window": w}).Data
		win := d["window"].(map[string]any)
		if win["to"] != asOf(t) || win["clamped_by_history_window"] != false {
			t.Errorf("%s window %v", w, win)
		}
		for _, r := range items(t, d["items"]) {
			if r["sale_date"].(string) < win["from"].(string) || strings.HasPrefix(r["grade"].(string), "raw:") {
				t.Errorf("%s row outside the window or raw: %v", w, r)
			}
		}
	}
	if w := s.OK("rank_set_sales", map[string]any{"set_id": "en:base1", "window": "ytd"}).Data["window"].(map[string]any); !strings.HasSuffix(w["from"].(string), "-01-01") {
		t.Errorf("ytd from %v", w["from"])
	}
	s.Fails("rank_set_sales", map[string]any{}, "exactly one of")
	s.Fails("rank_set_sales", map[string]any{"set_id": "en:base1", "window": "30d"}, "window")
	s.Fails("rank_set_sales", map[string]any{"set_id": "en:base1", "min_grade": 11}, "min_grade")
	// Free keys rank only their 3-day window.
	free := srv.open(t, srv.key(t, access.Free, false))
	w := free.OK("rank_set_sales", map[string]any{"set_id": "en:base1", "window": "365d"}).Data["window"].(map[string]any)
	if w["clamped_by_history_window"] != true || w["history_days"] != 3.0 {
		t.Errorf("free rank window %v", w)
	}
}

func TestMCP_Costs(t *testing.T) {
	srv := mustServer(t, nil)
	key := srv.key(t, access.Pro, false)
	s := srv.open(t, key)
	before := srv.used(t, key)
	var costs float64
	for _, c := range []struct {
		tool string
		args map[string]any
		cost float64
	}{
		{"quote", map[string]any{"ids": []string{"en:base1-4", "EN:BASE1-4", "42382", "nope-zz"}}, 1},
		{"quote", map[string]any{"ids": []string{"en:base1-4", "en:base1-2", "en:base1-3"}}, 3},
		{"get_sales", map[string]any{"ids": []string{"en:base1-4", "en:base1-2"}}, 2},
		{"batch_grade_ladder", map[string]any{"set_id": "en:base1", "dry_run": true}, 0},
		{"batch_grade_ladder", map[string]any{"ids": []string{"en:base1-4", "en:base1-2", "en:base1-3", "en:base1-5"}}, 4},
		{"search", map[string]any{"q": "charizard"}, 1},
		{"search", map[string]any{"ids": []string{"no-such-card-zz"}}, 1},
		{"rank_set_sales", map[string]any{"set_id": "en:base1"}, 1},
	} {
		tr := s.OK(c.tool, c.args)
		if tr.Env["cost"] != c.cost {
			t.Errorf("%s %v: cost %v, want %v", c.tool, c.args, tr.Env["cost"], c.cost)
		}
		costs += c.cost
	}
	s.Fails("quote", map[string]any{"ids": []string{"en:base1-4"}, "grade": "sgc:10"}, "grader")
	costs++ // a failed tool call spends its HTTP unit
	s.RPC("tools/list", map[string]any{})
	s.RPC("ping", nil)
	// Tool calls refused before they run cost nothing.
	call := map[string]any{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": map[string]any{"name": "search", "arguments": map[string]any{"q": "x"}}}
	if r := mcptest.Post(t, srv.URL, key, "cs_00000000000000000000000000000000", call); r.Status != 404 {
		t.Errorf("unknown session: %d", r.Status)
	}
	if r := mcptest.Post(t, srv.URL, key, s.ID, call, "MCP-Protocol-Version", "1999-01-01"); r.Status != 400 {
		t.Errorf("bad protocol version: %d", r.Status)
	}
	srv.open(t, key).Close() // initialize, notification and DELETE are free
	after := srv.used(t, key)
	if got, want := after-before, int(costs); got != want {
		t.Errorf("usage grew by %d, want %d (the tool costs)", got, want)
	}
}

func TestMCP_QuotaAndRate(t *testing.T) {
	srv := mustServer(t, nil)
	ids := cardIDsOf(t, 110)
	key := srv.key(t, access.Free, false)
	s := srv.open(t, key)
	tr := s.OK("quote", map[string]any{"ids": ids[:98]})
	if tr.Env["cost"] != 98.0 {
		t.Fatalf("98 ids cost %v", tr.Env["cost"])
	}
	// 2 units left: a call of 5 ids spends its first unit, then fails.
	tr = s.Fails("quote", map[string]any{"ids": ids[98:103]}, "costs 5 units")
	if !strings.Contains(tr.Text, "00:00 UTC") {
		t.Errorf("quota message: %s", tr.Text)
	}
	s.OK("search", map[string]any{"q": "charizard"}) // the 100th unit
	tr = s.Call("search", map[string]any{"q": "charizard"})
	ra := tr.Header.Get("Retry-After")
	var secs int
	fmt.Sscan(ra, &secs)
	now := time.Now().UTC()
	toMidnight := int(time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC).Sub(now).Seconds())
	if tr.Status != 429 || secs < toMidnight-5 || secs > toMidnight+5 || !strings.Contains(tr.Text, "daily quota") {
		t.Errorf("over quota: %d Retry-After %q (want about %d): %s", tr.Status, ra, toMidnight, tr.Text)
	}
	if tr.Header.Get("RateLimit") == "" || tr.Header.Get("X-Service-Tier") != "free" {
		t.Errorf("429 headers: %v", tr.Header)
	}
	// A dry run and protocol messages still work: they cost nothing.
	if d := s.Call("batch_grade_ladder", map[string]any{"ids": ids[:3], "dry_run": true}); d.Status != 200 || d.IsError {
		t.Errorf("dry run over quota: %d %s", d.Status, d.Text)
	}
	if r := s.RPC("tools/list", map[string]any{}); r.Status != 200 {
		t.Errorf("tools/list over quota: %d", r.Status)
	}
	if u := srv.used(t, srv.key(t, access.Free, false)); u != 0 {
		t.Errorf("a new key's usage %d", u)
	}

	// Rate: a free key's bucket holds 10 tokens and refills 5 per second.
	rk := srv.key(t, access.Free, false)
	rs := srv.open(t, rk)
	limited := 0
	for i := 0; i < 16; i++ {
		tr := rs.Call("search", map[string]any{"q": "pikachu"})
		if tr.Status == 429 {
			limited++
			if tr.Header.Get("Retry-After") != "1" || !strings.Contains(tr.Text, "rate limit") {
				t.Errorf("rate 429: Retry-After %q %s", tr.Header.Get("Retry-After"), tr.Text)
			}
		} else if tr.Status != 200 {
			t.Errorf("call %d: %d", i, tr.Status)
		}
	}
	if limited == 0 {
		t.Errorf("16 calls in a burst were never rate limited")
	}
}

// TestMCP_CohortRestart: a cohort pinned on one server is read by another
// process started on the same state file (what a restart sees).
func TestMCP_CohortRestart(t *testing.T) {
	srv := mustServer(t, nil)
	key := srv.key(t, access.Pro, false)
	s := srv.open(t, key)
	handle := s.OK("pin_cohort", map[string]any{"name": "restart", "ids": []string{"en:base1-4", "en:base1-2"}}).Data["cohort"].(map[string]any)["cohort_handle"].(string)

	// A second server over the same state store (another process on the
	// same state file: what a restart sees).
	srv2 := mustServer(t, srv.State)
	s2 := srv2.open(t, key)
	c := s2.OK("get_cohort", map[string]any{"cohort_handle": handle}).Data["cohort"].(map[string]any)
	if c["name"] != "restart" || c["size"] != 2.0 || c["active"] != false {
		t.Errorf("cohort after restart: %v", c)
	}
	d := s2.OK("batch_grade_ladder", map[string]any{"cohort_handle": handle}).Data
	if d["cards"] != 2.0 {
		t.Errorf("ladder of the cohort after restart: %v", truncate(d))
	}
	// The first server's session is unknown to the second.
	if r := mcptest.Post(t, srv2.URL, key, s.ID, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}); r.Status != 404 {
		t.Errorf("other server's session: %d", r.Status)
	}
}

// TestMCP_ErrorCodes: MCP's HTTP errors use REST's codes and statuses (one
// table, apperr.HTTPStatus): an oversized body is payload_too_large/413, a
// request MCP cannot take without a session is bad_request/400 (that REST
// says the same of an oversized upload: cmd/cardedge's TestMCP_FrontDoor).
func TestMCP_ErrorCodes(t *testing.T) {
	srv := mustServer(t, nil)
	key := srv.key(t, access.Elite, false)
	big := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": map[string]any{"pad": strings.Repeat("x", 1<<20)}}
	r := mcptest.Post(t, srv.URL, key, "", big)
	e, _ := r.Msg["error"].(map[string]any)
	if r.Status != 413 || r.Msg["contract"] != "error.v1" || e["code"] != "payload_too_large" {
		t.Errorf("oversized MCP body: %d %.200s", r.Status, r.Body)
	}
	if got := apperr.HTTPStatus(apperr.ETOOLARGE); got != r.Status || e["code"] != apperr.ETOOLARGE {
		t.Errorf("the table says %d for %s, MCP %d %v", got, apperr.ETOOLARGE, r.Status, e["code"])
	}
	r = mcptest.Post(t, srv.URL, key, "", map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
	if e, _ := r.Msg["error"].(map[string]any); r.Status != 400 || e["code"] != "bad_request" {
		t.Errorf("no session id: %d %.200s", r.Status, r.Body)
	}
}

// cardIDsOf returns n distinct card ids of the default game.
func cardIDsOf(t *testing.T, n int) []string {
	t.Helper()
	cards, err := tiny.Get(t).Reader.Cards("pokemon")
	if err != nil {
		t.Fatal(err)
	}
	if len(cards) < n {
		t.Fatalf("only %d cards", len(cards))
	}
	var out []string
	for _, c := range cards[:n] {
		out = append(out, c.ID)
	}
	return out
}

// TestMCP_ChatTools: a chat-user token of an account with Apps access (Pro)
// sees the ten public tools and the chat tools, which act on the account's
// collection and are charged to the account's chat quota; a Free account's
// token and an API key see the public tools only, and a refused chat tool
// costs nothing; a token's session is its account's.
func TestMCP_ChatTools(t *testing.T) {
	srv := mustServer(t, nil)
	const proID, freeID = "a_proproproproproprr", "a_freefreefreefreefr"
	// A Pro account's token: the ten public tools and the chat tools.
	s := srv.open(t, srv.token(t, proID, access.Pro))
	want := slices.Sorted(slices.Values(append(slices.Clone(mcptest.PublicTools), mcptest.ChatTools...)))
	if got := s.ToolNames(); !slices.Equal(got, want) {
		t.Errorf("Pro token tools %v, want %v", got, want)
	}
	d := s.OK("show_cards", map[string]any{"ids": []string{"en:base1-4", "no-such-card-zz"}}).Data
	cards := items(t, d["cards"])
	if len(cards) != 1 || cards[0]["card_id"] != "en:base1-4" || cards[0]["url"] != "/dashboard/cards/en:base1-4" || cards[0]["name"] != "Charizard" {
		t.Fatalf("show_cards: %s", truncate(d))
	}
	if len(items(t, cards[0]["printings"])) == 0 || cards[0]["confidence"] == nil || len(items(t, d["unresolved"])) != 1 {
		t.Errorf("show_cards card: %s", truncate(d))
	}
	pc := s.OK("price_card", map[string]any{"card": "en:base1-4", "grade": "raw:near_mint"})
	if pc.Env["cost"] != 1.0 || pc.Data["grade"] != "raw:near_mint" || pc.Data["confidence"] == nil || pc.Data["quote"] == nil {
		t.Errorf("price_card: %s", mcptest.Truncate([]byte(pc.Text)))
	}
	s.Fails("price_card", map[string]any{"card": "en:base1-4", "printing": "gold-star"}, "not a printing of card en:base1-4")
	// The collection tools change the account's collection.
	if l := s.OK("list_collection", nil).Data; l["total"] != 0.0 || l["owner"] != "account" {
		t.Errorf("a new account's collection: %s", truncate(l))
	}
	add := s.OK("add_to_collection", map[string]any{"card": "en:base1-4", "grade": "slab:10", "quantity": 3, "price_paid_usd": 200}).Data
	if h := add["holding"].(map[string]any); h["quantity"] != 3.0 || h["paid_usd"] != 600.0 || add["collection"].(map[string]any)["quantity"] != 3.0 {
		t.Errorf("add_to_collection: %s", truncate(add))
	}
	s.Fails("add_to_collection", map[string]any{"card": "pikachu"}, "candidates")
	s.Fails("remove_from_collection", map[string]any{"card": "en:base1-4", "grade": "slab:10", "quantity": 4}, "holds 3 copies")
	rm := s.OK("remove_from_collection", map[string]any{"card": "en:base1-4", "grade": "slab:10", "quantity": 0}).Data
	if rm["holding"].(map[string]any)["quantity"] != 0.0 || rm["collection"].(map[string]any)["holdings"] != 0.0 {
		t.Errorf("remove_from_collection of every copy: %s", truncate(rm))
	}
	// The public tools answer as for a key.
	if q := s.OK("quote", map[string]any{"ids": []string{"en:base1-4"}}).Data; len(items(t, q["items"])) != 1 {
		t.Errorf("quote with a token: %v", q)
	}
	// Charged to the account's chat quota (its tier's: 2,000 a day).
	if rl := pc.Header.Get("RateLimit"); !strings.Contains(rl, `"daily";r=`) {
		t.Errorf("RateLimit %q", rl)
	}
	if got := pc.Header.Get("X-Service-Tier"); got != "pro" {
		t.Errorf("X-Service-Tier %q", got)
	}
	// show_cards 1 (one card), price_card 1, the failed price_card 1 (the
	// HTTP layer's unit), list, add, remove 1 each, the failed add and
	// remove 1 each, quote 1.
	if n := srv.accountUsage(t, proID); n != 9 {
		t.Errorf("the account's chat usage is %d units, want 9", n)
	}

	// A Free account's token: the ten public tools; a chat tool is refused
	// and costs nothing.
	freeTok := srv.token(t, freeID, access.Free)
	fs := srv.open(t, freeTok)
	if got := fs.ToolNames(); !slices.Equal(got, mcptest.PublicTools) {
		t.Errorf("Free token tools %v", got)
	}
	r := fs.RPC("tools/call", map[string]any{"name": "show_cards", "arguments": map[string]any{"ids": []string{"en:base1-4"}}})
	if r.Status != 200 || (r.Msg["error"] == nil && r.Msg["result"].(map[string]any)["isError"] != true) {
		t.Errorf("show_cards with a Free token: %d %s", r.Status, r.Body)
	}
	if n := srv.accountUsage(t, freeID); n != 0 {
		t.Errorf("the refused chat tool cost %d units", n)
	}

	// An API key (even a Pro key) sees the ten public tools only.
	ks := srv.open(t, srv.key(t, access.Pro, false))
	if got := ks.ToolNames(); !slices.Equal(got, mcptest.PublicTools) {
		t.Errorf("API key tools %v", got)
	}
	ks.Close()
	s.Close()
	fs.Close()

	// The session of a token is the account's: another account's token
	// cannot use it.
	if r := mcptest.Post(t, srv.URL, freeTok, s.ID, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}); r.Status != 404 {
		t.Errorf("another account's session: %d", r.Status)
	}
}

// TestMCP_GradeNames: price_card reads grades as people write them and names
// them as they read them; a price missing says why, with the last sale.
func TestMCP_GradeNames(t *testing.T) {
	srv := mustServer(t, nil)
	s := srv.open(t, srv.token(t, "a_gradesgradesgrades", access.Pro))
	// Grades read as people write them, named as they read them.
	if pc := s.OK("price_card", map[string]any{"card": "en:base1-4", "grade": "psa10"}).Data; pc["grade"] != "slab:10" || pc["grade_name"] != "PSA 10" {
		t.Errorf("price_card psa10: grade %v %v", pc["grade"], pc["grade_name"])
	}
	// A price missing says why, with the last sale: a grade that sold, but
	// not lately (or only as outliers).
	missing := 0
	for _, grade := range []string{"raw:damaged", "cgc:1", "bgs:1", "slab:1", "cgc:1.5", "bgs:1.5"} {
		pc := s.OK("price_card", map[string]any{"card": "en:base1-4", "grade": grade}).Data
		if pc["price_usd"] != nil {
			continue
		}
		missing++
		why, _ := pc["price_reason"].(map[string]any)
		if why == nil || why["reason"] == "" || why["note"] == "" || strings.Contains(why["note"].(string), grade) {
			t.Errorf("price_card %s without a price: price_reason %v", grade, pc["price_reason"])
		}
	}
	if missing == 0 {
		t.Error("no grade without a price among those tried")
	}
}
