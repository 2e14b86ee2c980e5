package main_test

// End-to-end tests of the MCP server at /api/v3/mcp/: the real program (the
// env of main_test.go), real keys created in the state file, JSON-RPC over
// HTTP as a client sends it, and the official TypeScript SDK.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	main "github.com/cardedge/cardedge/cmd/cardedge"
	"github.com/cardedge/cardedge/edge/openapitest"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

const mcpPath = "/api/v3/mcp/"

// mustKey creates a key in the state file and waits until the server knows
// it (keys are reloaded within a second). initialize is free, so waiting
// costs nothing.
func mustKey(t *testing.T, tier access.Tier, unmetered bool) string {
	t.Helper()
	secret, _, err := createKey(t, env.state, tier, "mcp-"+t.Name(), false, unmetered)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := rpcRaw(t, env.base, secret, "", initializeMsg(1))
		if r.status == 200 {
			return secret
		}
		if time.Now().After(deadline) {
			t.Fatalf("new key not accepted after 10 s: %d %s", r.status, r.body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func initializeMsg(id int) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": id, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "go-e2e", "version": "1.0.0"},
	}}
}

type rpcReply struct {
	status int
	header http.Header
	body   []byte
	msg    map[string]any // the JSON-RPC message (or error.v1 body)
}

var mcpHTTP = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// rpcRaw posts one message to base's MCP endpoint; hdr adds headers.
func rpcRaw(t testing.TB, base, key, session string, msg any, hdr ...string) rpcReply {
	t.Helper()
	b, _ := json.Marshal(msg)
	req, _ := http.NewRequest("POST", base+mcpPath, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return send(t, req)
}

func send(t testing.TB, req *http.Request) rpcReply {
	t.Helper()
	resp, err := mcpHTTP.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	r := rpcReply{status: resp.StatusCode, header: resp.Header, body: body}
	if len(body) > 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(body, &r.msg); err != nil {
			t.Fatalf("body is not JSON: %v: %s", err, body)
		}
	}
	return r
}

// mcpSession is an initialized session of one key.
type mcpSession struct {
	t    testing.TB
	base string
	key  string
	id   string
	next atomic.Int64
}

func openSession(t testing.TB, key string) *mcpSession { return openSessionAt(t, env.base, key) }

func openSessionAt(t testing.TB, base, key string) *mcpSession {
	t.Helper()
	r := rpcRaw(t, base, key, "", initializeMsg(0))
	if r.status != 200 {
		t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	s := &mcpSession{t: t, base: base, key: key, id: r.header.Get("Mcp-Session-Id")}
	if s.id == "" {
		t.Fatalf("initialize returned no Mcp-Session-Id: %v", r.header)
	}
	if n := rpcRaw(t, base, key, s.id, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); n.status != 202 {
		t.Fatalf("notifications/initialized: %d %s", n.status, n.body)
	}
	return s
}

func (s *mcpSession) rpc(method string, params any) rpcReply {
	s.t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "id": s.next.Add(1), "method": method}
	if params != nil {
		msg["params"] = params
	}
	return rpcRaw(s.t, s.base, s.key, s.id, msg)
}

// toolResult is a tools/call outcome.
type toolResult struct {
	status  int
	header  http.Header
	isError bool
	text    string
	data    map[string]any // the tool JSON's data (or the error.v1 error)
	env     map[string]any // the whole tool JSON
}

// call runs a tool and decodes the JSON text of its first content block.
func (s *mcpSession) call(name string, args map[string]any) toolResult {
	s.t.Helper()
	r := s.rpc("tools/call", map[string]any{"name": name, "arguments": args})
	tr := toolResult{status: r.status, header: r.header}
	if r.status != 200 {
		tr.text = string(r.body)
		return tr
	}
	res, ok := r.msg["result"].(map[string]any)
	if !ok {
		s.t.Fatalf("%s: no result: %s", name, truncate(r.body))
	}
	tr.isError, _ = res["isError"].(bool)
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		s.t.Fatalf("%s: no content: %s", name, truncate(r.body))
	}
	tr.text, _ = content[0].(map[string]any)["text"].(string)
	s.checkStructured(name, tr.isError, tr.text, res)
	if err := json.Unmarshal([]byte(tr.text), &tr.env); err == nil {
		if d, ok := tr.env["data"].(map[string]any); ok {
			tr.data = d
		} else if e, ok := tr.env["error"].(map[string]any); ok {
			tr.data = e
		}
	}
	return tr
}

// outputSchemas are the tools' outputSchemas as tools/list declares them,
// compiled (JSON Schema 2020-12) on first use of each tool.
var outputSchemas struct {
	sync.Mutex
	byTool map[string]*jsonschema.Schema
}

// checkStructured checks a tools/call result: a success carries
// structuredContent, the same JSON as its first text block, valid against
// the tool's outputSchema; an error carries none.
func (s *mcpSession) checkStructured(name string, isError bool, text string, res map[string]any) {
	s.t.Helper()
	sc, has := res["structuredContent"]
	if isError {
		if has {
			s.t.Errorf("%s: an error result with structuredContent", name)
		}
		return
	}
	if !has {
		s.t.Errorf("%s: no structuredContent", name)
		return
	}
	var fromText any
	if err := json.Unmarshal([]byte(text), &fromText); err != nil {
		s.t.Errorf("%s: text block is not JSON: %v", name, err)
		return
	}
	if !reflect.DeepEqual(fromText, sc) {
		s.t.Errorf("%s: structuredContent is not the text block's JSON", name)
	}
	outputSchemas.Lock()
	if outputSchemas.byTool[name] == nil { // this session's tools/list (a chat token's lists the chat tools too)
		r := s.rpc("tools/list", nil)
		tools, _ := r.msg["result"].(map[string]any)["tools"].([]any)
		if outputSchemas.byTool == nil {
			outputSchemas.byTool = map[string]*jsonschema.Schema{}
		}
		for _, tl := range tools {
			m := tl.(map[string]any)
			b, _ := json.Marshal(m["outputSchema"])
			sch, err := openapitest.CompileSchema(b)
			if err != nil {
				s.t.Errorf("outputSchema of %v: %v", m["name"], err)
				continue
			}
			outputSchemas.byTool[m["name"].(string)] = sch
		}
	}
	sch := outputSchemas.byTool[name]
	outputSchemas.Unlock()
	if sch == nil {
		s.t.Errorf("%s declares no outputSchema", name)
		return
	}
	b, _ := json.Marshal(sc)
	if err := openapitest.Validate(sch, b); err != nil {
		s.t.Errorf("%s: structuredContent does not validate against the outputSchema: %v\n%s", name, err, truncate(b))
	}
}

// ok calls a tool that must succeed.
func (s *mcpSession) ok(name string, args map[string]any) toolResult {
	s.t.Helper()
	tr := s.call(name, args)
	if tr.status != 200 || tr.isError || tr.data == nil {
		s.t.Fatalf("%s %v: status %d isError %v: %s", name, args, tr.status, tr.isError, truncate([]byte(tr.text)))
	}
	return tr
}

// fails calls a tool that must fail as a tool error (HTTP 200, isError)
// whose message contains want.
func (s *mcpSession) fails(name string, args map[string]any, want string) toolResult {
	s.t.Helper()
	tr := s.call(name, args)
	if tr.status != 200 || !tr.isError {
		s.t.Errorf("%s %v: want a tool error, got status %d isError %v: %s", name, args, tr.status, tr.isError, truncate([]byte(tr.text)))
		return tr
	}
	if !strings.Contains(strings.ToLower(tr.text), strings.ToLower(want)) {
		s.t.Errorf("%s %v: error %q does not say %q", name, args, tr.text, want)
	}
	return tr
}

func (s *mcpSession) close() {
	req, _ := http.NewRequest("DELETE", s.base+mcpPath, nil)
	req.Header.Set("Authorization", "Bearer "+s.key)
	req.Header.Set("Mcp-Session-Id", s.id)
	send(s.t, req)
}

func items(t testing.TB, v any) []map[string]any {
	t.Helper()
	list, ok := v.([]any)
	if !ok {
		t.Fatalf("not a list: %v", v)
	}
	out := make([]map[string]any, len(list))
	for i, x := range list {
		out[i], _ = x.(map[string]any)
	}
	return out
}

func TestMCP_Handshake(t *testing.T) {
	key := mustKey(t, access.Pro, false)
	r := rpcRaw(t, env.base, key, "", initializeMsg(1))
	if r.status != 200 || r.header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize: %d %v %s", r.status, r.header, r.body)
	}
	res := r.msg["result"].(map[string]any)
	info := res["serverInfo"].(map[string]any)
	if info["version"] != "1.1.0" || info["name"] != "cardedge" {
		t.Errorf("serverInfo %v", info)
	}
	if res["protocolVersion"] != "2025-11-25" {
		t.Errorf("protocolVersion %v", res["protocolVersion"])
	}
	if r.header.Get("X-Service-Tier") != "pro" {
		t.Errorf("X-Service-Tier %q", r.header.Get("X-Service-Tier"))
	}
	s := &mcpSession{t: t, base: env.base, key: key, id: r.header.Get("Mcp-Session-Id")}
	n := rpcRaw(t, env.base, key, s.id, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	if n.status != 202 {
		t.Fatalf("notifications/initialized: %d", n.status)
	}
	list := s.rpc("tools/list", map[string]any{})
	if list.status != 200 {
		t.Fatalf("tools/list: %d %s", list.status, list.body)
	}
	tools := items(t, list.msg["result"].(map[string]any)["tools"])
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
		r := s.rpc("tools/call", map[string]any{"name": banned, "arguments": map[string]any{"sql": "select 1"}})
		e, _ := r.msg["error"].(map[string]any)
		if r.status != 200 || e == nil || !strings.Contains(fmt.Sprint(e["message"]), "not found") {
			t.Errorf("%s: %d %s", banned, r.status, r.body)
		}
	}
	// GET (a server-to-client stream) is not offered.
	req, _ := http.NewRequest("GET", env.base+mcpPath, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Mcp-Session-Id", s.id)
	req.Header.Set("Accept", "text/event-stream")
	if g := send(t, req); g.status != 405 {
		t.Errorf("GET: %d", g.status)
	}
	// ping works in the session.
	if p := s.rpc("ping", nil); p.status != 200 || p.msg["result"] == nil {
		t.Errorf("ping: %d %s", p.status, p.body)
	}
	// The health route reports the MCP version.
	if h := do(t, keyedClient, "GET", "/health", "", nil); h.json["mcp_version"] != "1.1.0" {
		t.Errorf("health mcp_version %v", h.json["mcp_version"])
	}
}

func TestMCP_RedirectAndAuth(t *testing.T) {
	req, _ := http.NewRequest("POST", env.base+"/api/v3/mcp", strings.NewReader("{}"))
	r := send(t, req)
	if r.status != 307 || !strings.HasSuffix(r.header.Get("Location"), "/api/v3/mcp/") {
		t.Errorf("bare path: %d Location %q", r.status, r.header.Get("Location"))
	}
	for _, key := range []string{"", "not-a-key", "ce_p_" + strings.Repeat("A", 43)} {
		r := rpcRaw(t, env.base, key, "", initializeMsg(1))
		e, _ := r.msg["error"].(map[string]any)
		if r.status != 401 || r.msg["contract"] != "error.v1" || e["code"] != "unauthorized" {
			t.Errorf("key %q: %d %s", key, r.status, r.body)
		}
	}
	r = rpcRaw(t, env.base, "", "", initializeMsg(1), "Authorization", "Basic abc")
	if r.status != 401 {
		t.Errorf("Basic auth: %d", r.status)
	}
}

func TestMCP_Sessions(t *testing.T) {
	key := mustKey(t, access.Pro, false)
	other := mustKey(t, access.Pro, false)
	s := openSession(t, key)
	// Unknown ids, ids of another key and requests without one.
	for _, c := range []struct {
		key, session string
		status       int
	}{
		{key, "cs_0123456789abcdef0123456789abcdef", 404},
		{key, "mcp-session-" + "00000000-0000-0000-0000-000000000000", 404},
		{other, s.id, 404},
	} {
		r := rpcRaw(t, env.base, c.key, c.session, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
		if r.status != c.status {
			t.Errorf("session %q: %d %s, want %d", c.session, r.status, r.body, c.status)
		}
	}
	r := rpcRaw(t, env.base, key, "", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
	if r.status != 400 {
		t.Errorf("no session header: %d %s", r.status, r.body)
	}
	// DELETE ends the session; it is then unknown (404), as is a second DELETE.
	del := func(k, id string) int {
		req, _ := http.NewRequest("DELETE", env.base+mcpPath, nil)
		req.Header.Set("Authorization", "Bearer "+k)
		if id != "" {
			req.Header.Set("Mcp-Session-Id", id)
		}
		return send(t, req).status
	}
	if st := del(other, s.id); st != 404 {
		t.Errorf("DELETE by another key: %d", st)
	}
	if st := del(key, ""); st != 400 {
		t.Errorf("DELETE without a session: %d", st)
	}
	if st := del(key, s.id); st != 200 {
		t.Fatalf("DELETE: %d", st)
	}
	if r := s.rpc("tools/list", map[string]any{}); r.status != 404 {
		t.Errorf("ended session: %d %s", r.status, r.body)
	}
	if tr := s.call("get_cohort", nil); tr.status != 404 {
		t.Errorf("tool call in an ended session: %d", tr.status)
	}
	if st := del(key, s.id); st != 404 {
		t.Errorf("second DELETE: %d", st)
	}
	// An unsupported protocol version header is refused.
	s2 := openSession(t, key)
	r = rpcRaw(t, env.base, key, s2.id, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, "MCP-Protocol-Version", "1999-01-01")
	if r.status != 400 {
		t.Errorf("bad protocol version: %d %s", r.status, r.body)
	}
}

func TestMCP_HostOrigin(t *testing.T) {
	key := mustKey(t, access.Pro, false)
	port := strings.TrimPrefix(env.base, "http://127.0.0.1")
	for _, c := range []struct {
		name   string
		hdr    []string
		status int
	}{
		{"foreign host", []string{"Host", "evil.example" + port}, 403},
		{"foreign origin", []string{"Origin", "http://evil.example"}, 403},
		{"null origin", []string{"Origin", "null"}, 403},
		{"loopback origin", []string{"Origin", "http://localhost:6274"}, 200},
		{"same origin", []string{"Origin", env.base}, 200},
		{"localhost host", []string{"Host", "localhost" + port}, 200},
	} {
		req, _ := http.NewRequest("POST", env.base+mcpPath, bytes.NewReader(mustJSON(initializeMsg(1))))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+key)
		if c.hdr[0] == "Host" {
			req.Host = c.hdr[1]
		} else {
			req.Header.Set(c.hdr[0], c.hdr[1])
		}
		r := send(t, req)
		if r.status != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, r.status, r.body, c.status)
		}
		if c.status == 403 && r.msg["contract"] != "error.v1" {
			t.Errorf("%s: body %s", c.name, r.body)
		}
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// asOf is the as_of the server serves now (main_test.go's swap test may
// have moved it).
func asOf(t *testing.T) string {
	t.Helper()
	return do(t, keyedClient, "GET", "/health", "", nil).json["as_of"].(string)
}

func TestMCP_Search(t *testing.T) {
	s := openSession(t, mustKey(t, access.Elite, true))
	d := s.ok("search", map[string]any{"q": "charizard"}).data
	if d["status"] != "resolved" || d["card_id"] != "en:base1-4" || len(items(t, d["items"])) < 2 {
		t.Errorf("q charizard: %v", d)
	}
	d = s.ok("search", map[string]any{"q": "pikachu", "limit": 3}).data
	if d["status"] != "ambiguous" || len(items(t, d["items"])) != 3 {
		t.Errorf("q pikachu: %v", d)
	}
	d = s.ok("search", map[string]any{"q": "42382"}).data
	if d["status"] != "resolved" || d["resolved_by"] != "partner_product_id" || d["card_id"] != "en:base1-4" {
		t.Errorf("q product id: %v", d)
	}
	d = s.ok("search", map[string]any{"q": "charizard", "set_id": "en:sv3pt5", "language": "en"}).data
	for _, it := range items(t, d["items"]) {
		if it["set_id"] != "en:sv3pt5" {
			t.Errorf("set filter let through %v", it)
		}
	}
	d = s.ok("search", map[string]any{"q": "zzqx wvvv"}).data
	if d["status"] != "not_found" {
		t.Errorf("q nonsense: %v", d)
	}
	// One Piece card ids resolve without game; with game they must belong to it.
	op := s.ok("search", map[string]any{"ids": []string{"en:OP01-001"}}).data
	if it := items(t, op["items"])[0]; it["status"] != "resolved" || it["card"].(map[string]any)["game"] != "onepiece" {
		t.Errorf("other game's card id: %v", it)
	}
	tr := s.ok("search", map[string]any{"ids": []string{"en:base1-4", "EN:BASE1-4", "42382", "pikachu", "no-such-card-zz"}})
	d = tr.data
	if d["resolved"] != 3.0 || d["ambiguous"] != 1.0 || d["not_found"] != 1.0 || d["unique_cards"] != 1.0 || tr.env["cost"] != 1.0 {
		t.Errorf("ids: cost %v %v", tr.env["cost"], d)
	}
	s.fails("search", map[string]any{}, "give q")
	s.fails("search", map[string]any{"q": "x", "ids": []string{"y"}}, "not both")
	s.fails("search", map[string]any{"q": "  "}, "q is empty")
	s.fails("search", map[string]any{"ids": []string{"en:base1-4"}, "set_id": "en:base1"}, "leave them out")
	s.fails("search", map[string]any{"q": "charizard", "game": "magic"}, "game")
	s.fails("search", map[string]any{"q": "charizard", "limit": 26}, "limit")
	s.fails("search", map[string]any{"q": "charizard", "colour": "red"}, "colour")
	many := make([]string, 1001)
	for i := range many {
		many[i] = fmt.Sprintf("en:x-%d", i)
	}
	s.fails("search", map[string]any{"ids": many}, "1000")
}

func TestMCP_Quote(t *testing.T) {
	s := openSession(t, mustKey(t, access.Elite, true))
	tr := s.ok("quote", map[string]any{"ids": []string{"en:base1-4", "42382", "pikachu", "no-such-card-zz"}})
	qs := items(t, tr.data["items"])
	if len(qs) != 4 || tr.env["cost"] != 1.0 {
		t.Fatalf("quote: cost %v, %d items", tr.env["cost"], len(qs))
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
	q := items(t, s.ok("quote", map[string]any{"ids": []string{"en:base1-4"}, "grade": "raw:near_mint", "finish": "holo/unlimited"}).data["items"])[0]
	if q["grade"] != "raw:near_mint" || q["finish"] != "holo/unlimited" || q["base_finish"] != true || q["midprice"].(map[string]any)["basis"] != "fmv" {
		t.Errorf("graded finish quote: %v", q)
	}
	// A finish the card lacks: resolved, no price, says why.
	q = items(t, s.ok("quote", map[string]any{"ids": []string{"en:base1-4"}, "finish": "reverse"}).data["items"])[0]
	if q["status"] != "resolved" || q["label"] != nil || !strings.Contains(fmt.Sprint(q["message"]), "its printings are") {
		t.Errorf("missing finish: %v", q)
	}
	// A grade that never sold and has no ask: no price.
	q = items(t, s.ok("quote", map[string]any{"ids": []string{"en:base1-4"}, "grade": "cgc:1"}).data["items"])[0]
	if q["label"] != nil || q["price_usd"] != nil || !strings.Contains(q["price_basis"].(string), "no price") {
		t.Errorf("unpriced grade: %v", q)
	}
	s.fails("quote", map[string]any{"ids": []string{"en:base1-4"}, "grade": "psa:10"}, "grader must be")
	s.fails("quote", map[string]any{}, "ids")
	s.fails("quote", map[string]any{"ids": []string{}}, "ids")
}

func TestMCP_PricesSalesListings(t *testing.T) {
	elite := openSession(t, mustKey(t, access.Elite, true))
	d := elite.ok("get_prices", map[string]any{"ids": []string{"en:base1-4", "nope-zz"}}).data
	it := items(t, d["items"])[0]
	if d["bounded_by_default"] != true || len(it["points"].([]any)) != 30 || it["truncated"] != true || len(items(t, d["unresolved"])) != 1 {
		t.Errorf("default bound: %v", truncate(mustJSON(d)))
	}
	d = elite.ok("get_prices", map[string]any{"ids": []string{"en:base1-4"}, "since": "2026-01-01", "pick": "all", "grade": "slab:9"}).data
	pts := items(t, items(t, d["items"])[0]["points"])
	if d["bounded_by_default"] != nil || len(pts) == 0 || pts[0]["date"].(string) < "2026-01-01" || pts[0]["tvwap_usd"] == nil || pts[0]["median_usd"] == nil {
		t.Errorf("since: %v", truncate(mustJSON(d)))
	}
	d = elite.ok("get_prices", map[string]any{"ids": []string{"en:base1-4"}, "interval": "day", "limit": 10}).data
	if pts := items(t, items(t, d["items"])[0]["points"]); len(pts) != 10 || pts[9]["date"] != asOf(t) {
		t.Errorf("daily ledger: %v", pts)
	}
	elite.fails("get_prices", map[string]any{"ids": []string{"en:base1-4"}, "since": "2026/01/01"}, "YYYY-MM-DD")
	elite.fails("get_prices", map[string]any{"ids": []string{"en:base1-4"}, "since": "2026-06-01", "until": "2026-01-01"}, "after until")
	elite.fails("get_prices", map[string]any{"ids": []string{"en:base1-4"}, "grade": "raw:mint"}, "condition")
	elite.fails("get_prices", map[string]any{"ids": []string{"en:base1-4"}, "pick": "mean"}, "pick")

	d = elite.ok("get_sales", map[string]any{"ids": []string{"en:base1-4"}, "limit": 5, "grade": "graded", "marketplace": "ebay,partner_feed"}).data
	rows := items(t, items(t, d["items"])[0]["rows"])
	if len(rows) != 5 {
		t.Fatalf("sales rows: %v", rows)
	}
	for _, r := range rows {
		if strings.HasPrefix(r["grade"].(string), "raw:") || (r["marketplace"] != "ebay" && r["marketplace"] != "partner") || r["quality_flagged"] == true {
			t.Errorf("filtered sale row %v", r)
		}
	}
	d = elite.ok("get_sales", map[string]any{"ids": []string{"en:base1-4"}, "mode": "daily", "since": "2026-10-01", "finish": "holo/unlimited"}).data
	for _, r := range items(t, items(t, d["items"])[0]["rows"]) {
		if r["date"].(string) < "2026-10-01" || r["sales"].(float64) < 1 || r["low_usd"].(float64) > r["high_usd"].(float64) {
			t.Errorf("daily row %v", r)
		}
	}
	elite.fails("get_sales", map[string]any{"ids": []string{"en:base1-4"}, "limit": 201}, "at most 200")
	elite.fails("get_sales", map[string]any{"ids": []string{"en:base1-4"}, "marketplace": "amazon"}, "unknown marketplace")
	elite.fails("get_sales", map[string]any{"ids": []string{"en:base1-4"}, "grade": "psa"}, "grade")
	elite.fails("get_sales", map[string]any{"ids": []string{"en:base1-4"}, "trade_type": "swap"}, "trade_type")

	// Free keys see 3 days of history: since is raised and said so.
	free := openSession(t, mustKey(t, access.Free, false))
	d = free.ok("get_sales", map[string]any{"ids": []string{"en:base1-4"}, "since": "2020-01-01", "limit": 200}).data
	rng := d["range"].(map[string]any)
	if rng["history_days"] != 3.0 || rng["note"] == nil || rng["since"].(string) <= "2026-11-01" {
		t.Errorf("free range: %v", rng)
	}
	for _, r := range items(t, items(t, d["items"])[0]["rows"]) {
		if r["sale_date"].(string) < rng["since"].(string) {
			t.Errorf("free key got a sale before its window: %v", r)
		}
	}
	d = free.ok("get_prices", map[string]any{"ids": []string{"en:base1-4"}, "interval": "day"}).data
	if pts := items(t, items(t, d["items"])[0]["points"]); len(pts) > 3 {
		t.Errorf("free prices beyond 3 days: %d points", len(pts))
	}

	d = elite.ok("get_listings", map[string]any{"ids": []string{"en:base1-4"}, "limit": 2}).data
	ls := items(t, items(t, d["items"])[0]["listings"])
	if len(ls) == 0 || len(ls) > 2 || ls[0]["ask_usd"].(float64) <= 0 {
		t.Errorf("listings: %v", ls)
	}
	d = elite.ok("get_listings", map[string]any{"ids": []string{"en:base1-4"}, "mode": "book", "platforms": "ebay", "grade": "graded"}).data
	for _, b := range items(t, items(t, d["items"])[0]["book"]) {
		if b["platforms"].([]any)[0] != "ebay" {
			t.Errorf("book platforms %v", b)
		}
	}
	elite.fails("get_listings", map[string]any{"ids": []string{"en:base1-4"}, "platforms": "amazon"}, "unknown marketplace")
	elite.fails("get_listings", map[string]any{"ids": []string{"en:base1-4"}, "mode": "depth"}, "mode")
}

func TestMCP_LadderAndCohorts(t *testing.T) {
	key := mustKey(t, access.Elite, true)
	s := openSession(t, key)
	tr := s.ok("batch_grade_ladder", map[string]any{"set_id": "en:base1", "rarity": "Rare Holo", "dry_run": true})
	if tr.env["cost"] != 0.0 || tr.data["dry_run"] != true || tr.data["would_cost"] != 16.0 {
		t.Errorf("dry run: cost %v %v", tr.env["cost"], truncate(mustJSON(tr.data)))
	}
	tr = s.ok("batch_grade_ladder", map[string]any{"queries": []string{"charizard base", "blastoise base 2", "pikachu"}, "grades": "slab:10,raw:near_mint", "compact": false})
	d := tr.data
	if d["cards"] != 2.0 || tr.env["cost"] != 2.0 || len(items(t, d["unresolved"])) != 1 || d["items"] == nil {
		t.Errorf("queries ladder: cost %v %v", tr.env["cost"], truncate(mustJSON(d)))
	}
	for _, c := range items(t, d["items"]) {
		for _, cell := range items(t, c["ladder"]) {
			if cell["last_usd"] != nil && cell["ask_usd"] != nil && cell["ask_last_x"] == nil {
				t.Errorf("no multiple in %v", cell)
			}
		}
	}
	ladderHandle := d["result_handle"].(string)
	d = s.ok("batch_grade_ladder", map[string]any{"ids": []string{"en:base1-4", "en:sv3pt5-6"}, "era": "1999-2000"}).data
	if d["cards"] != 1.0 || d["filtered_out"] != 1.0 || len(d["rows"].([]any)) != 4 {
		t.Errorf("era filter: %v", truncate(mustJSON(d)))
	}
	d = s.ok("batch_grade_ladder", map[string]any{"set_id": "en:sv3pt5", "era": "scarlet & violet", "rarity": "Special Illustration Rare"}).data
	if d["cards"].(float64) < 1 {
		t.Errorf("series era: %v", truncate(mustJSON(d)))
	}
	s.fails("batch_grade_ladder", map[string]any{}, "exactly one of")
	s.fails("batch_grade_ladder", map[string]any{"set_id": "en:base1", "ids": []string{"en:base1-4"}}, "exactly one of")
	s.fails("batch_grade_ladder", map[string]any{"set_id": "en:nope"}, "unknown set_id")
	s.fails("batch_grade_ladder", map[string]any{"cohort_handle": "coh_00000000000000000000"}, "unknown or expired cohort_handle")
	s.fails("batch_grade_ladder", map[string]any{"set_id": "en:base1", "grades": "slab:11"}, "grades")
	s.fails("batch_grade_ladder", map[string]any{"set_id": "en:base1", "rarity": "Mythic"}, "no card left")
	s.fails("batch_grade_ladder", map[string]any{"set_id": "en:base1", "era": "2003-1999"}, "after the second")

	// compare_set_finish pins its cohort and makes it active.
	tr = s.ok("compare_set_finish", map[string]any{"set_id": "en:base1", "finish": "1st-edition", "rarity": "Rare Holo", "compact": true})
	d = tr.data
	handle, _ := d["cohort_handle"].(string)
	if !strings.HasPrefix(handle, "coh_") || d["cards"] != 16.0 || tr.env["cost"] != 16.0 || len(items(t, d["summary"])) != 4 {
		t.Errorf("compare: cost %v %v", tr.env["cost"], truncate(mustJSON(d)))
	}
	s.fails("compare_set_finish", map[string]any{"set_id": "en:base1", "finish": "gold-star"}, "finishes in this set")
	s.fails("compare_set_finish", map[string]any{"set_id": "en:nope", "finish": "holo"}, "unknown set_id")
	s.fails("compare_set_finish", map[string]any{"finish": "holo"}, "set_id")
	c := s.ok("get_cohort", nil).data["cohort"].(map[string]any)
	if c["cohort_handle"] != handle || c["active"] != true || c["size"] != 16.0 || c["source"].(map[string]any)["kind"] != "compare_set_finish" {
		t.Errorf("active cohort: %v", c)
	}
	// pin_cohort from ids, a set (filtered) and a result handle.
	pin := s.ok("pin_cohort", map[string]any{"name": "two", "ids": []string{"en:base1-4", "42382", "en:base1-2", "nope-zz"}}).data
	pc := pin["cohort"].(map[string]any)
	if pc["size"] != 2.0 || pc["name"] != "two" || len(items(t, pin["unresolved"])) != 1 {
		t.Errorf("pin ids: %v", pin)
	}
	again := s.ok("pin_cohort", map[string]any{"name": "two", "ids": []string{"en:base1-4", "en:base1-2"}}).data["cohort"].(map[string]any)
	if again["cohort_handle"] != pc["cohort_handle"] {
		t.Errorf("re-pinning the same cohort changed its handle: %v %v", again["cohort_handle"], pc["cohort_handle"])
	}
	set := s.ok("pin_cohort", map[string]any{"set_id": "en:base1", "rarity": "rare holo"}).data["cohort"].(map[string]any)
	if set["size"] != 16.0 || set["name"] != "set en:base1" {
		t.Errorf("pin set: %v", set)
	}
	res := s.ok("pin_cohort", map[string]any{"result_handle": ladderHandle}).data["cohort"].(map[string]any)
	if res["size"] != 2.0 {
		t.Errorf("pin result: %v", res)
	}
	if g := s.ok("get_cohort", nil).data["cohort"].(map[string]any); g["cohort_handle"] != res["cohort_handle"] {
		t.Errorf("active cohort after pin: %v", g["cohort_handle"])
	}
	g := s.ok("get_cohort", map[string]any{"cohort_handle": handle, "include_cards": true}).data["cohort"].(map[string]any)
	if g["active"] != false || len(items(t, g["cards"])) != 16 {
		t.Errorf("get by handle: %v", truncate(mustJSON(g)))
	}
	s.fails("pin_cohort", map[string]any{}, "exactly one of")
	s.fails("pin_cohort", map[string]any{"result_handle": "res_0000"}, "unknown result_handle")
	s.fails("pin_cohort", map[string]any{"ids": []string{"nope-zz"}}, "nothing to pin")
	s.fails("get_cohort", map[string]any{"cohort_handle": "coh_0123"}, "unknown or expired")
	// A new session has no active cohort; another key cannot read this one.
	s2 := openSession(t, key)
	s2.fails("get_cohort", nil, "no cohort is active")
	s2.ok("get_cohort", map[string]any{"cohort_handle": handle})
	other := openSession(t, mustKey(t, access.Pro, false))
	other.fails("get_cohort", map[string]any{"cohort_handle": handle}, "unknown or expired")

	// rank_set_sales over a set and the cohort, each window.
	var prev float64 = math.MaxFloat64
	d = s.ok("rank_set_sales", map[string]any{"set_id": "en:base1", "window": "365d", "limit": 10, "grader": "slab", "min_grade": 9}).data
	for _, r := range items(t, d["items"]) {
		p := r["price_usd"].(float64)
		if p > prev || !strings.HasPrefix(r["grade"].(string), "slab:") || (r["grade"] != "slab:9" && r["grade"] != "slab:9.5" && r["grade"] != "slab:10") {
			t.Errorf("rank row %v", r)
		}
		prev = p
	}
	for _, w := range []string{"ytd", "90d", "365d"} {
		d = s.ok("rank_set_sales", map[string]any{"cohort_handle": handle, "window": w}).data
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
	if w := s.ok("rank_set_sales", map[string]any{"set_id": "en:base1", "window": "ytd"}).data["window"].(map[string]any); !strings.HasSuffix(w["from"].(string), "-01-01") {
		t.Errorf("ytd from %v", w["from"])
	}
	s.fails("rank_set_sales", map[string]any{}, "exactly one of")
	s.fails("rank_set_sales", map[string]any{"set_id": "en:base1", "window": "30d"}, "window")
	s.fails("rank_set_sales", map[string]any{"set_id": "en:base1", "min_grade": 11}, "min_grade")
	// Free keys rank only their 3-day window.
	free := openSession(t, mustKey(t, access.Free, false))
	w := free.ok("rank_set_sales", map[string]any{"set_id": "en:base1", "window": "365d"}).data["window"].(map[string]any)
	if w["clamped_by_history_window"] != true || w["history_days"] != 3.0 {
		t.Errorf("free rank window %v", w)
	}
}

// mcpUsage reads today's usage of a key (the read itself costs one unit).
func mcpUsage(t *testing.T, key string) int {
	t.Helper()
	r := do(t, keyedClient, "GET", "/keys/usage", key, nil)
	if r.status != 200 {
		t.Fatalf("usage: %d %s", r.status, r.body)
	}
	return int(data(t, r)["today"].(map[string]any)["used"].(float64))
}

func TestMCP_Costs(t *testing.T) {
	key := mustKey(t, access.Pro, false)
	s := openSession(t, key)
	before := mcpUsage(t, key)
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
		tr := s.ok(c.tool, c.args)
		if tr.env["cost"] != c.cost {
			t.Errorf("%s %v: cost %v, want %v", c.tool, c.args, tr.env["cost"], c.cost)
		}
		costs += c.cost
	}
	s.fails("quote", map[string]any{"ids": []string{"en:base1-4"}, "grade": "psa:10"}, "grader")
	costs++ // a failed tool call spends its HTTP unit
	s.rpc("tools/list", map[string]any{})
	s.rpc("ping", nil)
	// Tool calls refused before they run cost nothing.
	call := map[string]any{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": map[string]any{"name": "search", "arguments": map[string]any{"q": "x"}}}
	if r := rpcRaw(t, env.base, key, "cs_00000000000000000000000000000000", call); r.status != 404 {
		t.Errorf("unknown session: %d", r.status)
	}
	if r := rpcRaw(t, env.base, key, s.id, call, "MCP-Protocol-Version", "1999-01-01"); r.status != 400 {
		t.Errorf("bad protocol version: %d", r.status)
	}
	openSession(t, key).close() // initialize, notification and DELETE are free
	after := mcpUsage(t, key)
	if got, want := after-before, int(costs)+1; got != want { // +1: the first usage read
		t.Errorf("usage grew by %d, want %d (tool costs %v + the usage read)", got, want, costs)
	}
}

func TestMCP_QuotaAndRate(t *testing.T) {
	ids := cardIDsOf(t, 110)
	key := mustKey(t, access.Free, false)
	s := openSession(t, key)
	tr := s.ok("quote", map[string]any{"ids": ids[:98]})
	if tr.env["cost"] != 98.0 {
		t.Fatalf("98 ids cost %v", tr.env["cost"])
	}
	// 2 units left: a call of 5 ids spends its first unit, then fails.
	tr = s.fails("quote", map[string]any{"ids": ids[98:103]}, "costs 5 units")
	if !strings.Contains(tr.text, "00:00 UTC") {
		t.Errorf("quota message: %s", tr.text)
	}
	s.ok("search", map[string]any{"q": "charizard"}) // the 100th unit
	tr = s.call("search", map[string]any{"q": "charizard"})
	ra := tr.header.Get("Retry-After")
	var secs int
	fmt.Sscan(ra, &secs)
	now := time.Now().UTC()
	toMidnight := int(time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC).Sub(now).Seconds())
	if tr.status != 429 || secs < toMidnight-5 || secs > toMidnight+5 || !strings.Contains(tr.text, "daily quota") {
		t.Errorf("over quota: %d Retry-After %q (want about %d): %s", tr.status, ra, toMidnight, tr.text)
	}
	if tr.header.Get("RateLimit") == "" || tr.header.Get("X-Service-Tier") != "free" {
		t.Errorf("429 headers: %v", tr.header)
	}
	// A dry run and protocol messages still work: they cost nothing.
	if d := s.call("batch_grade_ladder", map[string]any{"ids": ids[:3], "dry_run": true}); d.status != 200 || d.isError {
		t.Errorf("dry run over quota: %d %s", d.status, d.text)
	}
	if r := s.rpc("tools/list", map[string]any{}); r.status != 200 {
		t.Errorf("tools/list over quota: %d", r.status)
	}
	if u := mcpUsage(t, mustKey(t, access.Free, false)); u != 1 {
		t.Errorf("a new key's usage %d", u)
	}

	// Rate: a free key's bucket holds 10 tokens and refills 5 per second.
	rk := mustKey(t, access.Free, false)
	rs := openSession(t, rk)
	limited := 0
	for i := 0; i < 16; i++ {
		tr := rs.call("search", map[string]any{"q": "pikachu"})
		if tr.status == 429 {
			limited++
			if tr.header.Get("Retry-After") != "1" || !strings.Contains(tr.text, "rate limit") {
				t.Errorf("rate 429: Retry-After %q %s", tr.header.Get("Retry-After"), tr.text)
			}
		} else if tr.status != 200 {
			t.Errorf("call %d: %d", i, tr.status)
		}
	}
	if limited == 0 {
		t.Errorf("16 calls in a burst were never rate limited")
	}
}

// cardIDsOf returns n distinct card ids of the default game (via REST).
func cardIDsOf(t *testing.T, n int) []string {
	t.Helper()
	r := do(t, keyedClient, "GET", fmt.Sprintf("/api/v3/cards?limit=%d&sort=name", n), env.keys["elite"], nil)
	var out []string
	for _, it := range data(t, r)["items"].([]any) {
		out = append(out, it.(map[string]any)["card_id"].(string))
	}
	if len(out) < n {
		t.Fatalf("only %d cards", len(out))
	}
	return out
}

// TestMCP_CohortRestart: a cohort pinned on one server is read by another
// process started on the same state file (what a restart sees).
func TestMCP_CohortRestart(t *testing.T) {
	key := mustKey(t, access.Pro, false)
	s := openSession(t, key)
	handle := s.ok("pin_cohort", map[string]any{"name": "restart", "ids": []string{"en:base1-4", "en:base1-2"}}).data["cohort"].(map[string]any)["cohort_handle"].(string)

	// A fresh root holding the snapshot being served (the swap test may
	// have published a corrupted one as CURRENT).
	id := do(t, keyedClient, "GET", "/health", "", nil).json["snapshot_id"].(string)
	root := t.TempDir()
	if err := copyDir(filepath.Join(env.root, id), filepath.Join(root, id)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "CURRENT"), []byte(id+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan string, 1), make(chan error, 1)
	go func() {
		done <- main.Serve(ctx, main.ServeConfig{Snapshots: root, State: env.state, Addr: "127.0.0.1:0", LogLevel: "error",
			Ready: func(a string) { ready <- a }}, io.Discard, io.Discard)
	}()
	var base string
	select {
	case a := <-ready:
		base = "http://" + a
	case err := <-done:
		t.Fatalf("second server: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("second server did not start")
	}
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("second server: %v", err)
		}
	}()
	s2 := openSessionAt(t, base, key)
	c := s2.ok("get_cohort", map[string]any{"cohort_handle": handle}).data["cohort"].(map[string]any)
	if c["name"] != "restart" || c["size"] != 2.0 || c["active"] != false {
		t.Errorf("cohort after restart: %v", c)
	}
	d := s2.ok("batch_grade_ladder", map[string]any{"cohort_handle": handle}).data
	if d["cards"] != 2.0 {
		t.Errorf("ladder of the cohort after restart: %v", truncate(mustJSON(d)))
	}
	// The first server's session is unknown to the second.
	if r := rpcRaw(t, base, key, s.id, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}); r.status != 404 {
		t.Errorf("other server's session: %d", r.status)
	}
}

// TestMCP_TypeScriptSDK drives the server with the official MCP TypeScript
// SDK (mcp/testdata/tsclient: installed once from its lock file by
// tools/npm/install, then node client.mjs). The client checks every tool's
// outputSchema and annotations, and calls every tool (the SDK validates
// each result's structuredContent against the tool's outputSchema).
func TestMCP_TypeScriptSDK(t *testing.T) {
	tools := npmTools(t, "mcp/testdata/tsclient")
	dir := npmWorkdir(t, tools, "mcp/testdata/tsclient", "client.mjs")
	key := mustKey(t, access.Pro, false)
	before := mcpUsage(t, key)
	out := runNode(t, dir, 3*time.Minute, "node", "client.mjs", env.base+mcpPath, key)
	var sum struct {
		Session    string         `json:"session"`
		Tools      []string       `json:"tools"`
		Calls      map[string]int `json:"calls"`
		Cost       int            `json:"cost"`
		Structured int            `json:"structured"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &sum); err != nil {
		t.Fatalf("client summary: %v: %s", err, out)
	}
	if len(sum.Tools) != 10 || len(sum.Calls) != 10 {
		t.Errorf("client saw %d tools and called %d: %+v", len(sum.Tools), len(sum.Calls), sum)
	}
	calls := 0
	for _, n := range sum.Calls {
		calls += n
	}
	if sum.Structured != calls {
		t.Errorf("%d of %d successful calls had a validated structuredContent", sum.Structured, calls)
	}
	// The session was ended by the client (DELETE).
	if r := rpcRaw(t, env.base, key, sum.Session, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}); r.status != 404 {
		t.Errorf("session after the client's DELETE: %d", r.status)
	}
	// Usage: the tools' reported costs, the two failing calls' HTTP units
	// and the first usage read.
	if got, want := mcpUsage(t, key)-before, sum.Cost+2+1; got != want {
		t.Errorf("usage grew by %d, want %d", got, want)
	}
	t.Logf("TypeScript SDK: %d tools, calls %v, cost %d", len(sum.Tools), sum.Calls, sum.Cost)
}

// TestMCP_ErrorCodes: MCP's HTTP errors use REST's codes and statuses (one
// table, apperr.HTTPStatus): an oversized body is payload_too_large/413 in
// both, a request MCP cannot take without a session is bad_request/400.
func TestMCP_ErrorCodes(t *testing.T) {
	key := env.keys["elite"]
	big := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": map[string]any{"pad": strings.Repeat("x", 1<<20)}}
	r := rpcRaw(t, env.base, key, "", big)
	e, _ := r.msg["error"].(map[string]any)
	if r.status != 413 || r.msg["contract"] != "error.v1" || e["code"] != "payload_too_large" {
		t.Errorf("oversized MCP body: %d %.200s", r.status, r.body)
	}
	rest := do(t, keyedClient, "POST", "/api/v3/me/imports/preview", key, bytes.Repeat([]byte("a"), 1<<20+1), "Content-Type", "text/csv")
	if re, _ := rest.json["error"].(map[string]any); rest.status != r.status || re["code"] != e["code"] {
		t.Errorf("REST says %d %v for an oversized upload, MCP %d %v", rest.status, re["code"], r.status, e["code"])
	}
	r = rpcRaw(t, env.base, key, "", map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
	if e, _ := r.msg["error"].(map[string]any); r.status != 400 || e["code"] != "bad_request" {
		t.Errorf("no session id: %d %.200s", r.status, r.body)
	}
}
