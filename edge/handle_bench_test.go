package edge

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/edge/connguard"
	"github.com/cardedge/cardedge/state/statetest"
	"github.com/valyala/fasthttp"
)

// BenchmarkHandleCached measures the front door alone on a cache hit (a
// front-door memo hit): the handler of a card-detail request, without
// fasthttp's connection work, so its profile shows where the edge's own time
// goes.
func BenchmarkHandleCached(b *testing.B) { benchmarkHandle(b, 64<<20) }

// BenchmarkHandleUncached is BenchmarkHandleCached with the cache off: every
// request renders the card detail from the snapshot.
func BenchmarkHandleUncached(b *testing.B) { benchmarkHandle(b, 0) }

func benchmarkHandle(b *testing.B, cacheBytes int64) {
	srv, secret := newBenchServer(b, cacheBytes)
	var req fasthttp.Request
	req.SetRequestURI("http://edge/api/v3/cards/en:base1-4?include=market_summary")
	req.Header.Set("Authorization", "Bearer "+secret)
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4000}
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, addr, nil)
	srv.handle(&ctx)
	if ctx.Response.StatusCode() != 200 {
		b.Fatalf("status %d: %s", ctx.Response.StatusCode(), ctx.Response.Body())
	}
	b.ReportAllocs()
	for b.Loop() {
		ctx.Response.Reset()
		srv.handle(&ctx)
	}
}

// newBenchServer is an edge over the tiny snapshot with an unmetered Elite
// key, whose secret it returns; the server's access service and cache close
// when the benchmark ends.
func newBenchServer(b *testing.B, cacheBytes int64) (*Server, string) {
	b.Helper()
	st := statetest.MustOpen(b)
	secret, _, err := access.Keys{State: st}.Create(context.Background(), access.KeySpec{Tier: access.Elite, Name: "bench", Unmetered: true})
	if err != nil {
		b.Fatal(err)
	}
	// No background sync: its flushes (a state file commit each second)
	// would land in callgrind's counts of the request path (bench/callgrind.sh).
	acc, err := access.Open(access.Options{State: st, SyncInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { acc.Close() })
	return newTestServer(b, tinyRoot(b), st, acc, cacheBytes), secret
}

// BenchmarkServeConn compares, in one process, fasthttp's whole per-request
// work on a connection (reading and parsing the request, the handler,
// serializing the response headers, copying the body out) for a cached card
// detail against the load harness's ceiling: a handler that sets a fixed body
// of the same size, and for the edge with its cache off (the card detail
// rendered from the snapshot's encoded card on every request), and for the
// cached edge behind the slow-client guard (connguard) as Serve runs it. The
// connection is in memory, so the figures leave out the kernel; bench/
// measures over loopback. Compare the ns/op, or count instructions:
//
//	bench/callgrind.sh ./edge 'ServeConn/edge_cached$' 'fasthttp.(*Server).serveConnCounted'
func BenchmarkServeConn(b *testing.B) {
	cardRequest := func(secret string) []byte {
		return []byte("GET /api/v3/cards/en:base1-4?include=market_summary HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAuthorization: Bearer " + secret + "\r\n\r\n")
	}
	srv, secret := newBenchServer(b, 64<<20)
	request := cardRequest(secret)
	first := &requestConn{request: request, left: 1}
	if err := srv.http.ServeConn(first); err != nil {
		b.Fatal(err)
	}
	var resp fasthttp.Response
	if err := resp.Read(bufio.NewReader(bytes.NewReader(first.out.Bytes()))); err != nil || resp.StatusCode() != 200 {
		b.Fatalf("first response: %v %d", err, resp.StatusCode())
	}
	body := bytes.Clone(resp.Body())
	ceiling := &fasthttp.Server{Name: "ceiling", Handler: func(ctx *fasthttp.RequestCtx) {
		ctx.SetContentType("application/json")
		ctx.SetBody(body)
	}}
	uncached, uncachedSecret := newBenchServer(b, 0)

	for _, bc := range []struct {
		name    string
		srv     *fasthttp.Server
		request []byte
		guarded bool
	}{
		{"edge_cached", srv.http, request, false},
		{"edge_cached_guarded", srv.http, request, true},
		{"edge_uncached", uncached.http, cardRequest(uncachedSecret), false},
		{"ceiling", ceiling, request, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			c := &requestConn{request: bc.request, left: b.N, discard: true}
			var conn net.Conn = c
			if bc.guarded {
				ln := connguard.Listen(&oneConnListener{conn: c}, connguard.Timeouts{Read: srv.opts.ReadTimeout, Write: srv.opts.WriteTimeout, Idle: srv.opts.IdleTimeout})
				defer ln.Close()
				var err error
				if conn, err = ln.Accept(); err != nil {
					b.Fatal(err)
				}
			}
			growStack(256)
			b.ResetTimer()
			if err := bc.srv.ServeConn(conn); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(c.written)/float64(b.N), "bytes/resp")
		})
	}
}

// growStack grows the goroutine's stack by about kib KiB (it stays grown:
// stacks shrink only in a GC). callgrind counts a toggled function only
// until the stack moves: a stack growth inside the measured loop would stop
// bench/callgrind.sh's count.
//
//go:noinline
func growStack(kib int) byte {
	var frame [1024]byte
	if kib <= 1 {
		return frame[0]
	}
	frame[kib%len(frame)] = byte(kib)
	return growStack(kib-1) + frame[kib%len(frame)]
}

// oneConnListener accepts its one connection, then reports itself closed.
type oneConnListener struct {
	conn  net.Conn
	taken bool
}

func (l *oneConnListener) Accept() (net.Conn, error) {
	if !l.taken {
		l.taken = true
		return l.conn, nil
	}
	return nil, net.ErrClosed
}
func (l *oneConnListener) Close() error   { return nil }
func (l *oneConnListener) Addr() net.Addr { return l.conn.LocalAddr() }

// requestConn is a net.Conn that reads as left copies of one request, each
// in its own Read (so the server flushes a response per request, as over a
// socket with one client waiting), then EOF. It keeps what is written, or
// only counts it when discard is set.
type requestConn struct {
	request []byte
	left    int
	discard bool
	out     bytes.Buffer
	written int
}

func (c *requestConn) Read(p []byte) (int, error) {
	if c.left == 0 {
		return 0, io.EOF
	}
	c.left--
	return copy(p, c.request), nil
}

func (c *requestConn) Write(p []byte) (int, error) {
	c.written += len(p)
	if !c.discard {
		c.out.Write(p)
	}
	return len(p), nil
}

func (c *requestConn) Close() error { return nil }
func (c *requestConn) LocalAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
}
func (c *requestConn) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4000}
}
func (c *requestConn) SetDeadline(time.Time) error      { return nil }
func (c *requestConn) SetReadDeadline(time.Time) error  { return nil }
func (c *requestConn) SetWriteDeadline(time.Time) error { return nil }
