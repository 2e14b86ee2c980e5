package main_test

// One smoke test per front door Serve wires (REST, MCP, the dashboard, the
// API reference page, the agent chat), and the edge's own rules in front of
// MCP (the bare path's redirect, keys, the DNS-rebinding guard, one error
// table): what the command's composition must get right. What each front
// door does is tested beside it (edge, mcp, web) and across the whole
// program in package e2e.

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/e2e/e2etest"
	"github.com/cardedge/cardedge/mcp"
	"github.com/cardedge/cardedge/mcp/mcptest"
	"github.com/cardedge/cardedge/web/webtest"
)

func TestMCP_RedirectAndAuth(t *testing.T) {
	req, _ := http.NewRequest("POST", env.base+"/api/v3/mcp", strings.NewReader("{}"))
	r := mcptest.Send(t, req)
	if r.Status != 307 || !strings.HasSuffix(r.Header.Get("Location"), "/api/v3/mcp/") {
		t.Errorf("bare path: %d Location %q", r.Status, r.Header.Get("Location"))
	}
	for _, key := range []string{"", "not-a-key", "ce_p_" + strings.Repeat("A", 43)} {
		r := mcptest.Post(t, env.base, key, "", mcptest.Initialize(1))
		e, _ := r.Msg["error"].(map[string]any)
		if r.Status != 401 || r.Msg["contract"] != "error.v1" || e["code"] != "unauthorized" {
			t.Errorf("key %q: %d %s", key, r.Status, r.Body)
		}
	}
	r = mcptest.Post(t, env.base, "", "", mcptest.Initialize(1), "Authorization", "Basic abc")
	if r.Status != 401 {
		t.Errorf("Basic auth: %d", r.Status)
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
		req, _ := http.NewRequest("POST", env.base+mcptest.Path, bytes.NewReader(mcptest.JSON(mcptest.Initialize(1))))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+key)
		if c.hdr[0] == "Host" {
			req.Host = c.hdr[1]
		} else {
			req.Header.Set(c.hdr[0], c.hdr[1])
		}
		r := mcptest.Send(t, req)
		if r.Status != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, r.Status, r.Body, c.status)
		}
		if c.status == 403 && r.Msg["contract"] != "error.v1" {
			t.Errorf("%s: body %s", c.name, r.Body)
		}
	}
}

// TestMCP_ErrorCodes: MCP's HTTP errors use REST's codes and statuses (one
// table, apperr.HTTPStatus): an oversized body is payload_too_large/413 in
// both, a request MCP cannot take without a session is bad_request/400.
func TestMCP_ErrorCodes(t *testing.T) {
	key := env.keys["elite"]
	big := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": map[string]any{"pad": strings.Repeat("x", 1<<20)}}
	r := mcptest.Post(t, env.base, key, "", big)
	e, _ := r.Msg["error"].(map[string]any)
	if r.Status != 413 || r.Msg["contract"] != "error.v1" || e["code"] != "payload_too_large" {
		t.Errorf("oversized MCP body: %d %.200s", r.Status, r.Body)
	}
	rest := env.api.Do(t, keyedClient, "POST", "/api/v3/me/imports/preview", key, bytes.Repeat([]byte("a"), 1<<20+1), "Content-Type", "text/csv")
	if re, _ := rest.JSON["error"].(map[string]any); rest.Status != r.Status || re["code"] != e["code"] {
		t.Errorf("REST says %d %v for an oversized upload, MCP %d %v", rest.Status, re["code"], r.Status, e["code"])
	}
	r = mcptest.Post(t, env.base, key, "", map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
	if e, _ := r.Msg["error"].(map[string]any); r.Status != 400 || e["code"] != "bad_request" {
		t.Errorf("no session id: %d %.200s", r.Status, r.Body)
	}
}

// An expired key is a 401 key_expired on REST and on MCP.
func TestKeyExpired(t *testing.T) {
	st := stateAt(t, env.state)
	secret, _, err := access.Keys{State: st}.Create(context.Background(), access.KeySpec{Tier: access.Free, Name: "short-lived", Expires: time.Now().Add(1500 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	e2etest.WaitStatus(t, env.base, "/api/v3/cards?limit=1", secret, 200)
	e2etest.WaitStatus(t, env.base, "/api/v3/cards?limit=1", secret, 401)
	req, _ := http.NewRequest("GET", env.base+"/api/v3/cards?limit=1", nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	r := mcptest.Send(t, req)
	if r.Status != 401 || r.Msg["error"].(map[string]any)["code"] != apperr.EKEYEXPIRED {
		t.Fatalf("REST: %d %s", r.Status, r.Body)
	}
	m := mcptest.Post(t, env.base, secret, "", mcptest.Initialize(1))
	if m.Status != 401 || !strings.Contains(string(m.Body), `"code":"key_expired"`) {
		t.Fatalf("MCP: %d %s", m.Status, m.Body)
	}
}

// mustKey creates a key in the shared state file and waits until the
// server knows it.
func mustKey(t *testing.T, tier access.Tier, unmetered bool) string {
	t.Helper()
	secret, _, err := createKey(t, env.state, tier, "smoke-"+t.Name(), false, unmetered)
	if err != nil {
		t.Fatal(err)
	}
	mcptest.WaitKey(t, env.base, secret)
	return secret
}

// TestServe_FrontDoors: one request through each front door: REST (health
// names the snapshot and the MCP version; a keyed card), MCP (a session of a
// key lists the ten public tools), the dashboard (a new account's key works
// on REST; the page carries its CSP), the API reference page, the agent
// chat (a stream that ends).
func TestServe_FrontDoors(t *testing.T) {
	h := env.api.Do(t, keyedClient, "GET", "/health", "", nil)
	if h.Status != 200 || h.JSON["mcp_version"] != mcp.Version || h.JSON["snapshot_id"] != "s0001" {
		t.Errorf("health: %d %s", h.Status, truncate(h.Body))
	}
	if r := env.api.Do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4", env.keys["pro"], nil); r.Status != 200 || e2etest.Data(t, r)["card_id"] != "en:base1-4" {
		t.Errorf("card: %d %s", r.Status, truncate(r.Body))
	}

	s := mcptest.Open(t, env.base, env.keys["pro"])
	if got := s.ToolNames(); !slices.Equal(got, mcptest.PublicTools) {
		t.Errorf("MCP tools %v", got)
	}
	if q := s.OK("quote", map[string]any{"ids": []string{"en:base1-4"}}); q.Env["snapshot_id"] != "s0001" {
		t.Errorf("MCP quote: %s", q.Text)
	}
	s.Close()

	d := webtest.New(t, env.base, webtest.Loopback())
	d.SignUp(webtest.UniqueEmail(t))
	secret, _ := d.CreateKey("smoke")
	e2etest.WaitStatus(t, env.base, "/api/v3/cards?limit=1", secret, 200)
	if p := d.Get("/dashboard/keys"); p.Status != 200 || p.Header.Get("Content-Security-Policy") != webtest.CSP {
		t.Errorf("dashboard keys page: %d, CSP %q", p.Status, p.Header.Get("Content-Security-Policy"))
	}

	resp, err := keyedClient.Get(env.base + "/api/v3/docs")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("API reference: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}

	req, _ := http.NewRequest("POST", env.base+"/api/v3/agent/chat", strings.NewReader(`{"message": "top movers this week"}`))
	req.Header.Set("Authorization", "Bearer "+env.keys["pro"])
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err = keyedClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	stream, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(stream), "event: tool_call") || !strings.Contains(string(stream), "event: end") {
		t.Errorf("agent chat: %d %s", resp.StatusCode, truncate(stream))
	}
}
