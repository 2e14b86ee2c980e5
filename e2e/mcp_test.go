package e2e_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/e2e/e2etest"
	"github.com/cardedge/cardedge/mcp/mcptest"
)

// The MCP server of the real program driven by the official MCP TypeScript
// SDK (the tools' behaviour: mcp's own tests; the MCP Inspector:
// mcp_inspector_test.go).

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
