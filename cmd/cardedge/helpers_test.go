package main_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	main "github.com/cardedge/cardedge/cmd/cardedge"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/e2e/e2etest"
	"github.com/cardedge/cardedge/edge"
	"github.com/cardedge/cardedge/live"
	cardmcp "github.com/cardedge/cardedge/mcp"
	"github.com/cardedge/cardedge/pokemontcg"
	"github.com/valyala/fasthttp"
)

// Helpers of the wiring tests: an in-process edge of a test's own
// (testEdge) and raw HTTP exchanges.

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
	if e.live, err = live.Open(root, live.Options{Logger: slog.New(slog.DiscardHandler), Derive: []live.Derivation{edge.Derivation(), pokemontcg.Derivation(pokemontcg.Options{})}}); err != nil {
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

// The helpers package e2e's tests share (e2e/e2etest).
var (
	stateAt     = e2etest.StateAt
	createKey   = e2etest.CreateKey
	keyedClient = e2etest.KeyedClient
	truncate    = e2etest.Truncate
)

// edgeProc is the real program (Main's Serve) running in-process.
type edgeProc struct {
	base   string
	cancel context.CancelFunc
	done   chan error
}

// startServe runs Serve with cfg (on 127.0.0.1:0 and logging errors only,
// unless cfg says otherwise) until it listens, or returns the error it
// failed with (within a minute).
func startServe(cfg main.ServeConfig) (*edgeProc, error) {
	ctx, cancel := context.WithCancel(context.Background())
	e := &edgeProc{cancel: cancel, done: make(chan error, 1)}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.LogLevel == "" {
		cfg.LogLevel = "error"
	}
	ready := make(chan string, 1)
	cfg.Ready = func(addr string) { ready <- addr }
	go func() { e.done <- main.Serve(ctx, cfg, io.Discard, io.Discard) }()
	select {
	case addr := <-ready:
		e.base = "http://" + addr
		return e, nil
	case err := <-e.done:
		cancel()
		if err == nil {
			err = errors.New("serve returned no error")
		}
		return nil, err
	case <-time.After(60 * time.Second):
		cancel()
		return nil, errors.New("serve neither started nor failed in 60 s")
	}
}

// startEdge is startServe for a test: an edge that does not start fails t,
// and t's Cleanup stops it.
func startEdge(t *testing.T, cfg main.ServeConfig) *edgeProc {
	t.Helper()
	e, err := startServe(cfg)
	if err != nil {
		t.Fatalf("edge did not start: %v", err)
	}
	t.Cleanup(func() { e.stop(t) })
	return e
}

// shutdown shuts the edge down gracefully (SIGTERM's path: drain, flush
// usage) and returns what Serve returned (nil once stopped).
func (e *edgeProc) shutdown() error {
	if e.cancel == nil {
		return nil
	}
	e.cancel()
	e.cancel = nil
	return <-e.done
}

// stop is shutdown for a test: an error fails t.
func (e *edgeProc) stop(t *testing.T) {
	if err := e.shutdown(); err != nil {
		t.Errorf("edge returned: %v", err)
	}
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

func fileSize(tb testing.TB, path string) int64 {
	tb.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}
