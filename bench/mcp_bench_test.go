package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/edge"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
	statebolt "github.com/cardedge/cardedge/state/bolt"
)

// BenchmarkMCPQuote calls the MCP quote tool over HTTP (the real edge on a
// loopback port over a tiny snapshot, a warm session, keep-alive) for 1 and
// for 50 card ids, and reports the latency percentiles p50-ms and p99-ms of
// the calls besides ns/op:
//
//	go test ./bench -run '^$' -bench MCPQuote -benchtime 2000x
func BenchmarkMCPQuote(b *testing.B) {
	base, key, ids := mcpBenchServer(b)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}, Timeout: 30 * time.Second}
	for _, n := range []int{1, 50} {
		b.Run(fmt.Sprintf("ids=%d", n), func(b *testing.B) {
			session := mcpInitialize(b, client, base, key)
			body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
				"params": map[string]any{"name": "quote", "arguments": map[string]any{"ids": ids[:n]}}})
			var lastLen int
			call := func() {
				req, _ := http.NewRequest("POST", base, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Mcp-Session-Id", session)
				req.Header.Set("MCP-Protocol-Version", "2025-11-25")
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				out, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				lastLen = len(out)
				if resp.StatusCode != 200 || bytes.Contains(out, []byte(`"isError":true`)) {
					b.Fatalf("quote: %d %.300s", resp.StatusCode, out)
				}
			}
			for range 20 { // warm the session, the connection and the page cache
				call()
			}
			lat := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				call()
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			slices.Sort(lat)
			pct := func(p float64) float64 {
				return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
			}
			b.ReportMetric(pct(0.50), "p50-ms")
			b.ReportMetric(pct(0.99), "p99-ms")
			b.ReportMetric(float64(lastLen), "resp-bytes")
		})
	}
}

// mcpBenchServer builds a tiny snapshot, opens the access layer with an
// unmetered key and serves the edge with the MCP server mounted (as
// cardedge serve does), on a loopback port. It returns the MCP URL, the key
// and 50 card ids.
func mcpBenchServer(b *testing.B) (url, key string, ids []string) {
	b.Helper()
	dir := b.TempDir()
	root, state := filepath.Join(dir, "snapshots"), filepath.Join(dir, "state.bolt")
	if _, err := snapshotstest.Build(root, 7, snapshotstest.AsOf, "s0001"); err != nil {
		b.Fatal(err)
	}
	st, err := statebolt.Open(state, statebolt.Options{})
	if err != nil {
		b.Fatal(err)
	}
	key, _, err = access.Keys{State: st}.Create(context.Background(), access.KeySpec{Tier: access.Elite, Name: "bench", Unmetered: true})
	if err != nil {
		b.Fatal(err)
	}
	acc, err := access.Open(access.Options{State: st})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { acc.Close() })
	srv, err := newBenchEdge(root, st, acc, edge.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go srv.Serve(ln)
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		srv.Close()
	})
	snap := srv.live.Acquire()
	defer snap.Release()
	cards, err := snap.Reader.Cards(snap.Reader.Manifest().Games[0])
	if err != nil || len(cards) < 50 {
		b.Fatalf("cards: %d %v", len(cards), err)
	}
	for _, c := range cards[:50] {
		ids = append(ids, c.ID)
	}
	return "http://" + ln.Addr().String() + "/api/v3/mcp/", key, ids
}

// mcpInitialize opens a session and returns its id.
func mcpInitialize(b *testing.B, c *http.Client, url, key string) string {
	b.Helper()
	post := func(session string, msg any) *http.Response {
		body, _ := json.Marshal(msg)
		req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+key)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := c.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := post("", map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "bench", "version": "1"}}})
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || id == "" {
		b.Fatalf("initialize: %d", resp.StatusCode)
	}
	if r := post(id, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); r.StatusCode != 202 {
		b.Fatalf("initialized: %d", r.StatusCode)
	}
	return id
}
