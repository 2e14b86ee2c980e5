package main_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/edge"
	"github.com/cardedge/cardedge/live"
	cardmcp "github.com/cardedge/cardedge/mcp"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/valyala/fasthttp"
)

// Helpers of the end-to-end tests: an in-process edge of a test's own
// (testEdge), raw HTTP exchanges, snapshot copies, and the keys of the
// feature tests (SQL, prices, imports, chat) on the shared edge.

// testEdge is an edge wired in-process the way Serve wires it (access layer,
// cursor secret, MCP mounted), with Options a test picks (short timeouts)
// and a listener it picks (loopback TCP or fasthttputil's in-memory one).
type testEdge struct {
	srv   *edge.Server
	live  *live.Live
	acc   *access.Service
	state string
	addr  string // listener address
	ln    net.Listener
	done  chan error
}

// mustTestEdge starts an edge over root with a fresh state file in a
// temporary directory. o's Snapshots, Access, Collections, CursorSecret and
// MCP are filled in. Nothing watches CURRENT: a test swaps with e.live.Check
// (or runs e.live.Watch itself). ln nil means a loopback TCP listener.
func mustTestEdge(tb testing.TB, root string, o edge.Options, ln net.Listener) *testEdge {
	tb.Helper()
	e := &testEdge{state: filepath.Join(tb.TempDir(), "state.bolt"), done: make(chan error, 1)}
	st := stateAt(tb, e.state)
	var err error
	if e.acc, err = access.Open(access.Options{State: st}); err != nil {
		tb.Fatal(err)
	}
	if e.live, err = live.Open(root, live.Options{Logger: slog.New(slog.DiscardHandler), Derive: []live.Derivation{edge.Derivation()}}); err != nil {
		e.acc.Close()
		tb.Fatal(err)
	}
	if o.MCP, err = cardmcp.New(cardmcp.Options{Snapshots: e.live, Access: e.acc, State: st}); err != nil {
		tb.Fatal(err)
	}
	o.Snapshots, o.Access, o.CursorSecret = e.live, e.acc, []byte("a cursor secret of 32 bytes.....")
	o.Collections = collection.New(collection.Options{State: st})
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if e.srv, err = edge.New(o); err != nil {
		e.live.Close()
		e.acc.Close()
		tb.Fatal(err)
	}
	if ln == nil {
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			tb.Fatal(err)
		}
	}
	e.ln, e.addr = ln, ln.Addr().String()
	go func() { e.done <- e.srv.Serve(ln) }()
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		e.srv.Shutdown(ctx)
		<-e.done
		e.live.Close()
		e.acc.Close()
	})
	return e
}

// key creates a key in the edge's state file and makes the edge load it.
func (e *testEdge) key(tb testing.TB, tier access.Tier, sql, unmetered bool) string {
	tb.Helper()
	secret, _, err := createKey(tb, e.state, tier, tb.Name(), sql, unmetered)
	if err != nil {
		tb.Fatal(err)
	}
	if err := e.acc.Sync(); err != nil {
		tb.Fatal(err)
	}
	return secret
}

// rawResponse is one response read off a raw connection.
type rawResponse struct {
	status int
	ctype  string
	body   []byte
	closed bool // the server closed the connection after it
}

// exchange writes raw bytes to a fresh connection from dial and reads one
// response (status 0 when the server closed the connection without one).
func exchange(tb testing.TB, dial func() (net.Conn, error), raw []byte) rawResponse {
	tb.Helper()
	c, err := dial()
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	go c.Write(raw) // the server may answer (and close) before reading it all
	return readResponse(tb, bufio.NewReader(c))
}

func readResponse(tb testing.TB, br *bufio.Reader) rawResponse {
	tb.Helper()
	var resp fasthttp.Response
	if err := resp.Read(br); err != nil {
		if isClosed(err) {
			return rawResponse{closed: true}
		}
		tb.Fatalf("reading the response: %v", err)
	}
	return rawResponse{status: resp.StatusCode(), ctype: string(resp.Header.ContentType()), body: append([]byte(nil), resp.Body()...),
		closed: resp.ConnectionClose()}
}

func isClosed(err error) bool {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "connection reset") || strings.Contains(s, "broken pipe") || strings.Contains(s, "closed") ||
		strings.Contains(s, "EOF")
}

func tcpDial(addr string) func() (net.Conn, error) {
	return func() (net.Conn, error) { return net.DialTimeout("tcp", addr, 5*time.Second) }
}

// request builds a raw HTTP/1.1 request; headers are "Name: value" lines.
func request(method, target string, body []byte, headers ...string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n", method, target)
	for _, h := range headers {
		b.WriteString(h + "\r\n")
	}
	if body != nil {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(body))
	}
	b.WriteString("Connection: close\r\n\r\n")
	b.Write(body)
	return b.Bytes()
}

// copyRoot copies snapshot id of env.root into a new root (published), so a
// test can publish into it without touching the shared one.
func copyRoot(tb testing.TB, id string) string {
	tb.Helper()
	root := filepath.Join(tb.TempDir(), "snapshots")
	if err := copyDir(filepath.Join(env.root, id), filepath.Join(root, id)); err != nil {
		tb.Fatal(err)
	}
	if err := snapshots.Publish(root, id); err != nil {
		tb.Fatal(err)
	}
	return root
}

// cloneSnapshot copies root/src to root/dst with the manifest renamed (a
// well-formed new snapshot with the same content), not published.
func cloneSnapshot(tb testing.TB, root, src, dst string) string {
	tb.Helper()
	dir := filepath.Join(root, dst)
	if err := copyDir(filepath.Join(root, src), dir); err != nil {
		tb.Fatal(err)
	}
	m, err := snapshots.ReadManifest(dir)
	if err != nil {
		tb.Fatal(err)
	}
	m.SnapshotID = dst
	if err := snapshots.WriteManifest(dir, m); err != nil {
		tb.Fatal(err)
	}
	return dir
}

func fileSize(tb testing.TB, path string) int64 {
	tb.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}

var featureKeysOnce sync.Once

// setupFeatureKeys creates the feature tests' keys once (a pro key per route
// family, so usage deltas are exact) and waits until the server has loaded
// them.
func setupFeatureKeys(t *testing.T) {
	t.Helper()
	featureKeysOnce.Do(func() {
		for _, k := range []struct {
			name string
			tier access.Tier
		}{{"prices", access.Pro}, {"importer", access.Pro}, {"chat", access.Pro}, {"pricesfree", access.Free}} {
			secret, key, err := createKey(t, env.state, k.tier, k.name, false, false)
			if err != nil {
				t.Fatal(err)
			}
			env.keys[k.name], env.keyIDs[k.name] = secret, key.ID
		}
		deadline := time.Now().Add(10 * time.Second)
		for _, name := range []string{"prices", "importer", "chat", "pricesfree"} {
			for {
				r := do(t, keyedClient, "GET", "/api/v3/sets?limit=1", env.keys[name], nil)
				if r.status == 200 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("key %s not loaded by the server: %d", name, r.status)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	})
}

// detailOf returns the first entry of a 422 body.
func detailOf(t *testing.T, r reply) map[string]any {
	t.Helper()
	d, _ := r.json["detail"].([]any)
	if r.status != 422 || len(d) == 0 {
		t.Fatalf("want a 422 HTTPValidationError, got %d: %s", r.status, truncate(r.body))
	}
	return d[0].(map[string]any)
}

func copyDir(src, dst string) error {
	return filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}

// TestValidateOpenAPI_OwnEdge: a response of an edge of a test's own
// (getJSON) is checked against the document like the shared edge's: its
// route is found though the document's server is the shared edge.
func TestValidateOpenAPI_OwnEdge(t *testing.T) {
	req, err := http.NewRequest("GET", "http://127.0.0.2:1/api/v3/cards/en:base1-4?include=market_summary", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := env.router.FindRoute(req); err == nil {
		t.Errorf("the router found a route for another host: onSharedEdge is no longer needed")
	}
	route, _, err := env.router.FindRoute(onSharedEdge(req))
	if err != nil || route.Path != "/api/v3/cards/{card_id}" {
		t.Errorf("route of %s: %v %v", req.URL, route, err)
	}
}
