package main_test

import (
	"bytes"
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/edge"
	"github.com/valyala/fasthttp/fasthttputil"
)

// httpSeeds are request targets and bodies every route is seeded with.
var httpSeeds = []struct {
	method, target, body string
}{
	{"GET", "/api/v3/cards?limit=5&offset=99999999999", ""},
	{"GET", "/api/v3/cards?q=%ff%00&set_id=../../etc&limit=201", ""},
	{"GET", "/api/v3/cards/en:base1-4?include=price_history,recent_sales,nope", ""},
	{"GET", "/api/v3/cards/en%3abase1-4/analytics?window=all", ""},
	{"GET", "/api/v3/cards/..%2f..%2fetc%2fpasswd/sales", ""},
	{"GET", "/api/v3/cards/%2e%2e/%2e%2e/market-history?date_from=2026-02-30", ""},
	{"GET", "/api/v3/cards/en:base1-4/marketplace-sales?source=ebay&condition=raw:near_mint&limit=2000", ""},
	{"GET", "/api/v3/cards/en:base1-4/price-history?grade=slab:10&interval=change&offset=999999999999999999", ""},
	{"GET", "/api/v3/cards/en:base1-4/sales?cursor=AQAAAAAAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA&since=2026-01-01", ""},
	{"GET", "/api/v3/cards/en:base1-4/partner-history?limit=0", ""},
	{"GET", "/api/v3/cards/en:base1-4/vwap?grader=cgc&grade_num=9.5&window_days=365", ""},
	{"GET", "/api/v3/trending?metric=composite&window=7d&window_days=9&grader=bgs&grade_num=NaN", ""},
	{"GET", "/api/v3/market/volume?limit=3", ""},
	{"GET", "/api/v3/shop/listings?limit=100&offset=5", ""},
	{"GET", "/api/v3/sets?sort=volume&limit=2", ""},
	{"GET", "/api/v3/sets/en:base1/breakdown", ""},
	{"GET", "/api/v3/sets/en:base1/price-distribution", ""},
	{"GET", "/api/v3/sets/en:base1/trending-cards?limit=200", ""},
	{"GET", "/api/v3/sets/en:base1/volume-history", ""},
	{"GET", "/api/v3/search?q=charizrd&min_price=10&max_price=5", ""},
	{"GET", "/api/v3/lookup?q=" + strings.Repeat("%e3%81%82", 100), ""},
	{"GET", "/prices?ids=en:base1-4,,,en:nope&source=all&grade=psa:11", ""},
	{"POST", "/prices", `{"ids":["en:base1-4","123456"],"source":"partner","grade":"raw:damaged"}`},
	{"POST", "/api/v3/cards/batch", `{"ids":["en:base1-4","EN:BASE1-4"],"profile":"full"}`},
	{"POST", "/api/v3/cards/batch", `{"ids":` + strings.Repeat("[", 5000) + `}`},
	{"POST", "/api/v3/sql", `{"sql":"SELECT card_id FROM cards LIMIT 2"}`},
	{"POST", "/api/v3/sql", `{"sql":"SELECT 1; ATTACH DATABASE '/tmp/x' AS x"}`},
	{"POST", "/api/v3/sql", `{"sql":"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT count(*) FROM r"}`},
	{"GET", "/api/v3/sql/schema", ""},
	{"POST", "/api/v3/me/imports/preview", "name,set,number\nCharizard,Base,4/102\n"},
	{"POST", "/api/v3/me/imports/confirm", `{"preview_id":"imp_nope"}`},
	{"POST", "/api/v3/agent/chat", `{"message":"price of charizard base set"}`},
	{"POST", "/api/v3/mcp/", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`},
	{"POST", "/api/v3/mcp/", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"quote","arguments":{"card":"charizard"}}}`},
	{"POST", "/api/v3/mcp/", `[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0"}]`},
	{"GET", "/keys/usage", ""},
	{"GET", "/health", ""},
	{"DELETE", "/api/v3/cards", ""},
	{"GET", "/api/v3/openapi.json", ""},
}

// FuzzHTTP sends fuzzed requests (method, target, body, key, content type)
// to an edge over fasthttputil's in-memory listener, MCP mounted. Properties:
// never a 5xx; a JSON error body is error.v1 (contract, error.code), a 422
// detail list, or a JSON-RPC message (MCP); the server keeps answering.
func FuzzHTTP(f *testing.F) {
	methods := []string{"GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH"}
	ctypes := []string{"application/json", "text/csv", "", "application/octet-stream", "text/plain; charset=utf-16"}
	for i, s := range httpSeeds {
		m := 0
		for j, x := range methods {
			if x == s.method {
				m = j
			}
		}
		f.Add(uint8(m), s.target, []byte(s.body), uint8(1+i%2), uint8(0))
	}
	f.Add(uint8(0), "/api/v3/cards/en:base1-4", []byte(nil), uint8(0), uint8(0))
	f.Add(uint8(1), "/api/v3/me/imports/preview?strict=true", []byte("\xef\xbb\xbfcard_id;qty\nen:base1-4;x\n"), uint8(1), uint8(1))
	f.Add(uint8(1), "/api/v3/sql", []byte(`{"sql":"SELECT load_extension('x')"}`), uint8(3), uint8(2))
	ln := fasthttputil.NewInmemoryListener()
	e := mustTestEdge(f, copyRoot(f, "s0001"), edge.Options{CacheBytes: 8 << 20}, ln)
	// No key, Elite with SQL (unmetered), Free, and a well-formed unknown key.
	keys := []string{"", e.key(f, access.Elite, true, true), e.key(f, access.Free, false, false), "ce_e_" + strings.Repeat("A", 43)}
	dial := func() (net.Conn, error) { return ln.Dial() }
	f.Fuzz(func(t *testing.T, method uint8, target string, body []byte, key, ctype uint8) {
		if len(target) > 8<<10 || len(body) > 64<<10 {
			return
		}
		var hdrs []string
		if k := keys[int(key)%len(keys)]; k != "" {
			hdrs = append(hdrs, "Authorization: Bearer "+k)
		}
		if ct := ctypes[int(ctype)%len(ctypes)]; ct != "" {
			hdrs = append(hdrs, "Content-Type: "+ct)
		}
		hdrs = append(hdrs, "Accept: application/json, text/event-stream")
		m := methods[int(method)%len(methods)]
		r := exchange(t, dial, request(m, target, body, hdrs...))
		checkResponse(t, m+" "+target, r)
		if h := exchange(t, dial, request("GET", "/health", nil)); h.status != 200 {
			t.Fatalf("after %s %q: /health answers %d", m, target, h.status)
		}
	})
}

// checkResponse fails on a 5xx or an error body that is not error.v1, a
// 422 detail list or JSON-RPC.
func checkResponse(t *testing.T, what string, r rawResponse) {
	t.Helper()
	if r.status >= 500 {
		t.Fatalf("%s: status %d: %s", what, r.status, truncate(r.body))
	}
	if r.status < 400 || !strings.HasPrefix(r.ctype, "application/json") || len(r.body) == 0 {
		return
	}
	var b map[string]json.RawMessage
	if err := json.Unmarshal(r.body, &b); err != nil {
		t.Fatalf("%s: %d with a body that is not a JSON object: %v: %s", what, r.status, err, truncate(r.body))
	}
	switch {
	case b["detail"] != nil:
		var d []struct {
			Loc  []any  `json:"loc"`
			Msg  string `json:"msg"`
			Type string `json:"type"`
		}
		if err := json.Unmarshal(b["detail"], &d); err != nil || len(d) == 0 || r.status != 422 {
			t.Fatalf("%s: %d detail is not a 422 list: %s", what, r.status, truncate(r.body))
		}
		for _, e := range d {
			if len(e.Loc) == 0 || e.Msg == "" || e.Type == "" {
				t.Fatalf("%s: 422 entry without loc, msg or type: %s", what, truncate(r.body))
			}
		}
	case b["contract"] != nil:
		var e struct {
			Contract string `json:"contract"`
			Error    struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(r.body, &e); err != nil || e.Contract != "error.v1" || e.Error.Code == "" || e.Error.Message == "" {
			t.Fatalf("%s: %d body is not error.v1: %s", what, r.status, truncate(r.body))
		}
	case b["jsonrpc"] != nil && bytes.Contains([]byte(what), []byte("/mcp")):
	default:
		t.Fatalf("%s: %d body is neither error.v1 nor a 422: %s", what, r.status, truncate(r.body))
	}
}
