package edge

import (
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"testing"

	"github.com/cardedge/cardedge/edge/access"
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
	root := tinyRoot(b)
	state := filepath.Join(b.TempDir(), "state.bolt")
	secret, _, err := access.Store{Path: state}.CreateKey(access.Elite, "bench", false, true)
	if err != nil {
		b.Fatal(err)
	}
	acc, err := access.Open(access.Options{StatePath: state})
	if err != nil {
		b.Fatal(err)
	}
	defer acc.Close()
	srv, err := New(Options{Snapshots: root, Access: acc, CacheBytes: cacheBytes,
		CursorSecret: []byte("0123456789abcdef0123456789abcdef"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.cache.Close()
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
