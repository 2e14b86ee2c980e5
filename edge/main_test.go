package edge

import (
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
	"github.com/cardedge/cardedge/state"
)

// tiny is the tiny snapshot the package's tests share, built by the real
// builder on first use (a build takes ~3 s, ~40 s under -race) and removed by
// TestMain. Tests only read it.
var tiny struct {
	once sync.Once
	root string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if tiny.root != "" {
		os.RemoveAll(tiny.root)
	}
	os.Exit(code)
}

// tinyRoot returns the snapshots root of the shared tiny snapshot (id s0001).
func tinyRoot(tb testing.TB) string {
	tb.Helper()
	tiny.once.Do(func() {
		if tiny.root, tiny.err = os.MkdirTemp("", "cardedge-edge-test-"); tiny.err != nil {
			return
		}
		if _, err := snapshotstest.Build(tiny.root, 7, snapshotstest.AsOf, "s0001"); err != nil {
			tiny.err = fmt.Errorf("build tiny snapshot: %w", err)
		}
	})
	if tiny.err != nil {
		tb.Fatal(tiny.err)
	}
	return tiny.root
}

// mustLive opens the live snapshot of root with the edge's derivation,
// closed when the test ends.
func mustLive(tb testing.TB, root string) *live.Live {
	tb.Helper()
	l, err := live.Open(root, live.Options{Logger: slog.New(slog.DiscardHandler), Derive: []live.Derivation{Derivation()}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(l.Close)
	return l
}

// newTestServer is an edge over root with the access layer acc over st and
// a response cache of cacheBytes, closed when the test ends (never served
// on a listener: tests call its handler).
func newTestServer(tb testing.TB, root string, st state.Store, acc *access.Service, cacheBytes int64) *Server {
	tb.Helper()
	srv, err := New(Options{Snapshots: mustLive(tb, root), Access: acc, Collections: collection.New(collection.Options{State: st}),
		CacheBytes: cacheBytes, CursorSecret: []byte("0123456789abcdef0123456789abcdef"), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(srv.cache.Close)
	return srv
}
