package bench

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/cardedge/cardedge/edge"
	"github.com/cardedge/cardedge/edge/access"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"
)

// restEnv is one in-process edge over a tiny snapshot, reached through an
// in-memory listener: the edge's own cost per request, without the network.
type restEnv struct {
	client *fasthttp.Client
	key    string
	stop   func()
}

var (
	restOnce sync.Once
	restErr  error
	rest     = map[int64]*restEnv{}
)

func startREST(b *testing.B, cacheBytes int64) *restEnv {
	b.Helper()
	restOnce.Do(func() { restErr = buildRESTSnapshot() })
	if restErr != nil {
		b.Fatal(restErr)
	}
	if e := rest[cacheBytes]; e != nil {
		return e
	}
	state := filepath.Join(restDir, "state-"+string(rune('a'+len(rest)))+".bolt")
	secret, _, err := access.Store{Path: state}.CreateKey(access.Elite, "bench", false, true)
	if err != nil {
		b.Fatal(err)
	}
	acc, err := access.Open(access.Options{StatePath: state})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := edge.New(edge.Options{Snapshots: filepath.Join(restDir, "snapshots"), Access: acc, CacheBytes: cacheBytes,
		CursorSecret: []byte("0123456789abcdef0123456789abcdef"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	ln := fasthttputil.NewInmemoryListener()
	go srv.Serve(ln)
	e := &restEnv{
		client: &fasthttp.Client{Dial: func(string) (net.Conn, error) { return ln.Dial() }, MaxConnsPerHost: 512},
		key:    secret,
		stop:   func() { srv.Shutdown(context.Background()); acc.Close() },
	}
	rest[cacheBytes] = e
	return e
}

var restDir string

// TestMain stops the edges the benchmarks started and removes their snapshot.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, e := range rest {
		e.stop()
	}
	if restDir != "" {
		os.RemoveAll(restDir)
	}
	os.Exit(code)
}

func buildRESTSnapshot() error {
	dir, err := os.MkdirTemp("", "cardedge-restbench-")
	if err != nil {
		return err
	}
	restDir = dir
	_, err = snapshotstest.Build(filepath.Join(dir, "snapshots"), 7, snapshotstest.AsOf, "s0001")
	return err
}

// benchGet GETs path in parallel. Besides ns/op it reports cpu-ns/op, the
// process's CPU time (user and system: edge, client and in-memory listener)
// per request, which other load on the machine does not inflate the way it
// inflates wall time.
func benchGet(b *testing.B, e *restEnv, path string) {
	b.ReportAllocs()
	b.ResetTimer() // the first call builds the snapshot
	cpu0 := processCPU()
	defer func() { b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op") }()
	b.RunParallel(func(pb *testing.PB) {
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(resp)
		req.SetRequestURI("http://edge" + path)
		req.Header.Set("Authorization", "Bearer "+e.key)
		for pb.Next() {
			if err := e.client.Do(req, resp); err != nil || resp.StatusCode() != 200 {
				b.Fatalf("GET %s: %v %d %s", path, err, resp.StatusCode(), resp.Body())
			}
		}
	})
}

// BenchmarkREST_CardDetail measures card detail through the whole edge
// (front door, access layer, cache) over an in-memory listener.
func BenchmarkREST_CardDetail(b *testing.B) {
	b.Run("cached", func(b *testing.B) {
		benchGet(b, startREST(b, 64<<20), "/api/v3/cards/en:base1-4?include=market_summary")
	})
	b.Run("uncached", func(b *testing.B) {
		benchGet(b, startREST(b, 0), "/api/v3/cards/en:base1-4?include=market_summary")
	})
	b.Run("uncached_all_includes", func(b *testing.B) {
		benchGet(b, startREST(b, 0), "/api/v3/cards/en:base1-4?include=price_history,tvwap_history,tvwap_slots,grade_momentum,"+
			"recent_sales,market_summary,grade_breakdown,population_overview,grading_economics")
	})
	b.Run("list_uncached", func(b *testing.B) {
		benchGet(b, startREST(b, 0), "/api/v3/cards?limit=50&sort=volume")
	})
}

// processCPU is the CPU time this process has used, in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
