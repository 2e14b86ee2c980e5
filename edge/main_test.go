package edge

import (
	"log/slog"
	"os"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/pokemontcg"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
	"github.com/cardedge/cardedge/state"
)

// tiny is the tiny snapshot the package's tests share, built by the real
// builder on first use (a build takes ~3 s, ~40 s under -race) and removed by
// TestMain. Tests only read it.
var tiny snapshotstest.SharedRoot

func TestMain(m *testing.M) {
	code := m.Run()
	tiny.Close()
	sourcesRoot.Close()
	os.Exit(code)
}

// tinyRoot returns the snapshots root of the shared tiny snapshot (id s0001).
func tinyRoot(tb testing.TB) string {
	tb.Helper()
	return tiny.Get(tb)
}

// mustLive opens the live snapshot of root with the edge's derivation,
// closed when the test ends.
func mustLive(tb testing.TB, root string) *live.Live {
	tb.Helper()
	l, err := live.Open(root, live.Options{Logger: slog.New(slog.DiscardHandler), Derive: []live.Derivation{Derivation(), pokemontcg.Derivation(pokemontcg.Options{})}})
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
	al, wh := mustAlertServices(tb, st)
	srv, err := New(Options{Snapshots: mustLive(tb, root), Access: acc, Collections: collection.New(collection.Options{State: st}),
		CacheBytes: cacheBytes, CursorSecret: []byte("0123456789abcdef0123456789abcdef"), Logger: slog.New(slog.DiscardHandler),
		Alerts: al, Webhooks: wh})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(srv.cache.Close)
	return srv
}
