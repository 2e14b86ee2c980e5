package e2e_test

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/e2e/e2etest"
	"github.com/cardedge/cardedge/mcp/mcptest"
)

// The MCP server of the real program driven by the official MCP TypeScript
// SDK and the MCP Inspector (the tools' behaviour: mcp's own tests).

// TestMCP_TypeScriptSDK drives the server with the official MCP TypeScript
// SDK (mcp/testdata/tsclient: installed once from its lock file by
// tools/npm/install, then node client.mjs). The client checks every tool's
// outputSchema and annotations, and calls every tool (the SDK validates
// each result's structuredContent against the tool's outputSchema).
func TestMCP_TypeScriptSDK(t *testing.T) {
	dir := npmWorkdir(t, "mcp/testdata/tsclient", "client.mjs")
	key := mustKey(t, access.Pro, false)
	before := e2etest.UsageOf(t, env.base, key)
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
	if r := mcptest.Post(t, env.base, key, sum.Session, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}); r.Status != 404 {
		t.Errorf("session after the client's DELETE: %d", r.Status)
	}
	// Usage: the tools' reported costs, the two failing calls' HTTP units
	// and the first usage read.
	if got, want := e2etest.UsageOf(t, env.base, key)-before, sum.Cost+2+1; got != want {
		t.Errorf("usage grew by %d, want %d", got, want)
	}
	t.Logf("TypeScript SDK: %d tools, calls %v, cost %d", len(sum.Tools), sum.Calls, sum.Cost)
}

// TestMCP_Inspector lists and calls every tool with the MCP Inspector's CLI
// (@modelcontextprotocol/inspector 2.12.0, tools/npm/inspector): tools/list
// with --strict (its portability check of the tool schemas: no warning, no
// error), then one tools/call of each tool, each answering structuredContent
// that is the JSON of its text block.
func TestMCP_Inspector(t *testing.T) {
	dir := npmWorkdir(t, "tools/npm/inspector", "package.json")
	key := mustKey(t, access.Pro, false)
	inspect := func(args ...string) map[string]any {
		t.Helper()
		args = append([]string{"--cli", env.base + mcpPath, "--transport", "http", "--header", "Authorization: Bearer " + key, "--format", "json"}, args...)
		out, stderr := runNodeOutputs(t, dir, 90*time.Second, "mcp-inspector", args...)
		if s := strings.TrimSpace(string(stderr)); s != "" {
			t.Errorf("mcp-inspector %s said on stderr: %s", strings.Join(args[8:], " "), truncate(stderr))
		}
		var res struct {
			Result map[string]any `json:"result"`
		}
		if err := json.Unmarshal(out, &res); err != nil || res.Result == nil {
			t.Fatalf("mcp-inspector %s: %v: %s", strings.Join(args[8:], " "), err, truncate(out))
		}
		return res.Result
	}

	list := inspect("--method", "tools/list", "--strict")
	var names []string
	for _, tl := range list["tools"].([]any) {
		m := tl.(map[string]any)
		names = append(names, m["name"].(string))
		if m["outputSchema"] == nil || m["annotations"] == nil {
			t.Errorf("%s: outputSchema %v annotations %v", m["name"], m["outputSchema"] != nil, m["annotations"])
		}
	}
	sort.Strings(names)
	calls := map[string]string{
		"search":             `{"q":"charizard base"}`,
		"quote":              `{"ids":["en:base1-4"],"grade":"raw:near_mint"}`,
		"get_prices":         `{"ids":["en:base1-4"],"limit":3}`,
		"get_sales":          `{"ids":["en:base1-4"],"limit":3}`,
		"get_listings":       `{"ids":["en:base1-4"],"mode":"book"}`,
		"batch_grade_ladder": `{"ids":["en:base1-4","en:base1-2"],"grades":"slab:10"}`,
		"compare_set_finish": `{"set_id":"en:base1","finish":"1st-edition","rarity":"Rare Holo"}`,
		"pin_cohort":         `{"name":"inspector","ids":["en:base1-4","en:base1-2"]}`,
		"get_cohort":         `{"cohort_handle":"$handle","include_cards":true}`,
		"rank_set_sales":     `{"set_id":"en:base1","window":"365d","limit":3}`,
	}
	if len(names) != len(calls) {
		t.Fatalf("tools/list: %v", names)
	}
	handle := ""
	for _, name := range []string{"search", "quote", "get_prices", "get_sales", "get_listings", "batch_grade_ladder", "compare_set_finish", "pin_cohort", "get_cohort", "rank_set_sales"} {
		args, ok := calls[name]
		if !ok {
			t.Fatalf("no call of %s", name)
		}
		res := inspect("--method", "tools/call", "--tool-name", name, "--tool-args-json", strings.ReplaceAll(args, "$handle", handle))
		if res["isError"] == true {
			t.Errorf("%s: %v", name, truncate(mustJSON(res)))
			continue
		}
		content, _ := res["content"].([]any)
		if len(content) == 0 {
			t.Fatalf("%s: no content", name)
		}
		var fromText any
		json.Unmarshal([]byte(content[0].(map[string]any)["text"].(string)), &fromText)
		if string(mustJSON(fromText)) != string(mustJSON(res["structuredContent"])) {
			t.Errorf("%s: structuredContent is not the text block's JSON", name)
		}
		if name == "pin_cohort" {
			handle = res["structuredContent"].(map[string]any)["data"].(map[string]any)["cohort"].(map[string]any)["cohort_handle"].(string)
		}
	}
}
