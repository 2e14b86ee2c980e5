package mcptest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Path is where the edge mounts MCP (a test server mounts it there too).
const Path = "/api/v3/mcp/"

// ProtocolVersion is the MCP revision the client speaks.
const ProtocolVersion = "2025-11-25"

// PublicTools are the ten tools every API key sees, sorted.
var PublicTools = []string{"batch_grade_ladder", "compare_set_finish", "get_cohort", "get_listings", "get_prices", "get_sales",
	"pin_cohort", "quote", "rank_set_sales", "search"}

// ChatTools are the chat tools a chat-user token of an account with Apps
// access sees besides, sorted.
var ChatTools = []string{"add_to_collection", "add_to_want_list", "collection_history", "create_alert", "delete_alert", "list_alerts",
	"list_collection", "price_card", "recent_alerts", "remove_from_collection", "set_completion", "show_cards"}

// Initialize is an initialize request with JSON-RPC id.
func Initialize(id int) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": id, "method": "initialize", "params": map[string]any{
		"protocolVersion": ProtocolVersion, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "go-e2e", "version": "1.0.0"},
	}}
}

// Reply is one HTTP answer of the MCP endpoint.
type Reply struct {
	Status int
	Header http.Header
	Body   []byte
	Msg    map[string]any // the JSON-RPC message (or error.v1 body)
}

// client neither follows redirects (the bare path's 307 is checked) nor
// waits forever.
var client = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// Post posts one message to the MCP endpoint of base with key (a Bearer
// credential, "" for none) in session ("" for none); hdr adds headers
// (name, value pairs).
func Post(tb testing.TB, base, key, session string, msg any, hdr ...string) Reply {
	tb.Helper()
	req, _ := http.NewRequest("POST", base+Path, bytes.NewReader(JSON(msg)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("MCP-Protocol-Version", ProtocolVersion)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return Send(tb, req)
}

// Send sends req and reads its answer (Msg decoded from a JSON body).
func Send(tb testing.TB, req *http.Request) Reply {
	tb.Helper()
	resp, err := client.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	r := Reply{Status: resp.StatusCode, Header: resp.Header, Body: body}
	if len(body) > 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(body, &r.Msg); err != nil {
			tb.Fatalf("body is not JSON: %v: %s", err, body)
		}
	}
	return r
}

// Delete ends session with key and returns the status.
func Delete(tb testing.TB, base, key, session string) int {
	tb.Helper()
	req, _ := http.NewRequest("DELETE", base+Path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	return Send(tb, req).Status
}

// Session is an initialized session of one key (or chat-user token).
type Session struct {
	TB   testing.TB
	Base string
	Key  string
	ID   string
	next atomic.Int64
}

// Open initializes a session of key at base (initialize, then
// notifications/initialized) and fails tb when either is refused.
func Open(tb testing.TB, base, key string) *Session {
	tb.Helper()
	r := Post(tb, base, key, "", Initialize(0))
	if r.Status != 200 {
		tb.Fatalf("initialize: %d %s", r.Status, r.Body)
	}
	s := &Session{TB: tb, Base: base, Key: key, ID: r.Header.Get("Mcp-Session-Id")}
	if s.ID == "" {
		tb.Fatalf("initialize returned no Mcp-Session-Id: %v", r.Header)
	}
	if n := Post(tb, base, key, s.ID, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); n.Status != 202 {
		tb.Fatalf("notifications/initialized: %d %s", n.Status, n.Body)
	}
	return s
}

// RPC sends a request of method in the session.
func (s *Session) RPC(method string, params any) Reply {
	s.TB.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "id": s.next.Add(1), "method": method}
	if params != nil {
		msg["params"] = params
	}
	return Post(s.TB, s.Base, s.Key, s.ID, msg)
}

// ToolNames lists the tools the session sees, sorted.
func (s *Session) ToolNames() []string {
	s.TB.Helper()
	r := s.RPC("tools/list", map[string]any{})
	if r.Status != 200 {
		s.TB.Fatalf("tools/list: %d %s", r.Status, r.Body)
	}
	var names []string
	for _, tool := range Items(s.TB, r.Msg["result"].(map[string]any)["tools"]) {
		names = append(names, tool["name"].(string))
	}
	slices.Sort(names)
	return names
}

// Close ends the session (DELETE).
func (s *Session) Close() { Delete(s.TB, s.Base, s.Key, s.ID) }

// Result is a tools/call outcome.
type Result struct {
	Status  int
	Header  http.Header
	IsError bool
	Text    string         // the first content block's text (the body when Status is not 200)
	Data    map[string]any // the tool JSON's data (or the error.v1 error)
	Env     map[string]any // the whole tool JSON
}

// Call runs a tool and decodes the JSON text of its first content block.
func (s *Session) Call(name string, args map[string]any) Result {
	s.TB.Helper()
	r := s.RPC("tools/call", map[string]any{"name": name, "arguments": args})
	tr := Result{Status: r.Status, Header: r.Header}
	if r.Status != 200 {
		tr.Text = string(r.Body)
		return tr
	}
	res, ok := r.Msg["result"].(map[string]any)
	if !ok {
		s.TB.Fatalf("%s: no result: %s", name, Truncate(r.Body))
	}
	tr.IsError, _ = res["isError"].(bool)
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		s.TB.Fatalf("%s: no content: %s", name, Truncate(r.Body))
	}
	tr.Text, _ = content[0].(map[string]any)["text"].(string)
	s.checkStructured(name, tr.IsError, tr.Text, res)
	if err := json.Unmarshal([]byte(tr.Text), &tr.Env); err == nil {
		if d, ok := tr.Env["data"].(map[string]any); ok {
			tr.Data = d
		} else if e, ok := tr.Env["error"].(map[string]any); ok {
			tr.Data = e
		}
	}
	return tr
}

// OK calls a tool that must succeed.
func (s *Session) OK(name string, args map[string]any) Result {
	s.TB.Helper()
	tr := s.Call(name, args)
	if tr.Status != 200 || tr.IsError || tr.Data == nil {
		s.TB.Fatalf("%s %v: status %d isError %v: %s", name, args, tr.Status, tr.IsError, Truncate([]byte(tr.Text)))
	}
	return tr
}

// Fails calls a tool that must fail as a tool error (HTTP 200, isError)
// whose message contains want (case aside).
func (s *Session) Fails(name string, args map[string]any, want string) Result {
	s.TB.Helper()
	tr := s.Call(name, args)
	if tr.Status != 200 || !tr.IsError {
		s.TB.Errorf("%s %v: want a tool error, got status %d isError %v: %s", name, args, tr.Status, tr.IsError, Truncate([]byte(tr.Text)))
		return tr
	}
	if !strings.Contains(strings.ToLower(tr.Text), strings.ToLower(want)) {
		s.TB.Errorf("%s %v: error %q does not say %q", name, args, tr.Text, want)
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
func (s *Session) checkStructured(name string, isError bool, text string, res map[string]any) {
	s.TB.Helper()
	sc, has := res["structuredContent"]
	if isError {
		if has {
			s.TB.Errorf("%s: an error result with structuredContent", name)
		}
		return
	}
	if !has {
		s.TB.Errorf("%s: no structuredContent", name)
		return
	}
	var fromText any
	if err := json.Unmarshal([]byte(text), &fromText); err != nil {
		s.TB.Errorf("%s: text block is not JSON: %v", name, err)
		return
	}
	if !reflect.DeepEqual(fromText, sc) {
		s.TB.Errorf("%s: structuredContent is not the text block's JSON", name)
	}
	outputSchemas.Lock()
	if outputSchemas.byTool[name] == nil { // this session's tools/list (a chat token's lists the chat tools too)
		r := s.RPC("tools/list", nil)
		tools, _ := r.Msg["result"].(map[string]any)["tools"].([]any)
		if outputSchemas.byTool == nil {
			outputSchemas.byTool = map[string]*jsonschema.Schema{}
		}
		for _, tl := range tools {
			m := tl.(map[string]any)
			sch, err := compileSchema(JSON(m["outputSchema"]))
			if err != nil {
				s.TB.Errorf("outputSchema of %v: %v", m["name"], err)
				continue
			}
			outputSchemas.byTool[m["name"].(string)] = sch
		}
	}
	sch := outputSchemas.byTool[name]
	outputSchemas.Unlock()
	if sch == nil {
		s.TB.Errorf("%s declares no outputSchema", name)
		return
	}
	b := JSON(sc)
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b)) // numbers as json.Number, as the validator wants them
	if err != nil {
		s.TB.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		s.TB.Errorf("%s: structuredContent does not validate against the outputSchema: %v\n%s", name, err, Truncate(b))
	}
}

// compileSchema compiles a tool's outputSchema under JSON Schema 2020-12
// (the dialect MCP's schemas use unless they say otherwise).
func compileSchema(schema []byte) (*jsonschema.Schema, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	const loc = "https://cardedge.invalid/output-schema.json"
	if err := c.AddResource(loc, v); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

// Items returns v, a JSON list of objects; it fails tb when v is not a list.
func Items(tb testing.TB, v any) []map[string]any {
	tb.Helper()
	list, ok := v.([]any)
	if !ok {
		tb.Fatalf("not a list: %v", v)
	}
	out := make([]map[string]any, len(list))
	for i, x := range list {
		out[i], _ = x.(map[string]any)
	}
	return out
}

// JSON encodes v; it panics on a value JSON cannot encode (a test's bug).
func JSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// Truncate shortens b to 600 bytes for a failure message.
func Truncate(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "..."
	}
	return string(b)
}

// WaitKey waits (up to 10 s) until the server at base accepts key, a key
// just written to its state store (servers reload keys within a second):
// initialize is free, so waiting costs the key nothing.
func WaitKey(tb testing.TB, base, key string) {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := Post(tb, base, key, "", Initialize(1))
		if r.Status == 200 {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("new key not accepted after 10 s: %d %s", r.Status, r.Body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
