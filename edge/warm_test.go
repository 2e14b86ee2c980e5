package edge

import (
	"log/slog"
	"testing"

	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/pokemontcg"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
	"github.com/google/go-cmp/cmp"
)

// TestWarmCache swaps to a snapshot with other prices: the entries
// WarmCache made before the swap answer the first requests after it (no
// render on demand), and each is the new snapshot's response, byte for
// byte what a server without a cache answers on it, never the old one's.
func TestWarmCache(t *testing.T) {
	root := t.TempDir()
	if _, err := snapshotstest.Build(root, 7, snapshotstest.AsOf, "s0001"); err != nil {
		t.Fatal(err)
	}
	l, err := live.Open(root, live.Options{Logger: slog.New(slog.DiscardHandler), Derive: []live.Derivation{Derivation(), pokemontcg.Derivation(pokemontcg.Options{})}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	env := newMemoEnvOver(t, l, 64<<20)
	l.BeforeSwap("edge cache", env.srv.WarmCache)
	type call struct{ uri, key string }
	calls := []call{
		{"/api/v3/cards/en:base1-4", "elite"},
		{"/api/v3/cards/en:base1-4?include=market_summary,recent_sales", "elite"},
		{"/api/v3/cards/en:base1-4/price-history?limit=90", "elite"},
		{"/api/v3/cards/en:base1-4/price-history?limit=90", "free"}, // another tier: another window, another entry
		{"/api/v3/cards?limit=5&sort=price", "elite"},
		{"/api/v3/sets/en:base1/breakdown", "elite"},
	}
	get := func(e *memoEnv, c call) memoReply {
		switch c.key {
		case "elite":
			return e.get(t, c.uri, "Authorization", "Bearer "+e.elite)
		case "free":
			return e.get(t, c.uri, "Authorization", "Bearer "+e.free)
		}
		return e.get(t, c.uri)
	}
	old := map[int]memoReply{}
	for i, c := range calls {
		for range 3 { // hits, so that the entries rank among the hottest
			old[i] = get(env, c)
			env.srv.cache.Wait()
		}
		if old[i].Status != 200 {
			t.Fatalf("%s: %d %s", c.uri, old[i].Status, old[i].Body)
		}
	}

	if _, err := snapshotstest.Build(root, 7, "2026-11-21", "s0002"); err != nil {
		t.Fatal(err)
	}
	if err := l.Check(); err != nil {
		t.Fatal(err)
	}
	if got := l.Acquire(); got.ID() != "s0002" {
		t.Fatalf("serving %s after the swap", got.ID())
	} else {
		got.Release()
	}
	var warmed bool
	for _, p := range l.LastOpen().Phases {
		warmed = warmed || p.Name == "before edge cache"
	}
	if !warmed {
		t.Fatalf("the swap's phases %v have no \"before edge cache\"", l.LastOpen().Phases)
	}

	// The reference: a server without a cache over the new snapshot.
	ref := newMemoEnvOver(t, mustLive(t, root), 0)
	st0 := env.srv.cache.Stats()
	for i, c := range calls {
		got, want := get(env, c), get(ref, c)
		if diff := cmp.Diff(want.Body, got.Body); diff != "" {
			t.Errorf("%s after the swap: not the new snapshot's response (-uncached +warmed):\n%s", c.uri, diff)
		}
		if got.Body == old[i].Body {
			t.Errorf("%s: the same body before and after the swap (the test needs snapshots that differ)", c.uri)
		}
		if got.Headers["ETag"] == "" || got.Headers["ETag"] == old[i].Headers["ETag"] {
			t.Errorf("%s: the old snapshot's ETag after the swap", c.uri)
		}
	}
	st1 := env.srv.cache.Stats()
	if got, want := st1.Misses-st0.Misses, int64(0); got != want {
		t.Errorf("%d cache misses after the swap, want %d (every entry warmed)", got, want)
	}
	if got, want := st1.Hits-st0.Hits, int64(len(calls)); got != want {
		t.Errorf("%d cache hits after the swap, want %d", got, want)
	}
}

// newMemoEnvOver is newMemoEnv over the live snapshot l.
func newMemoEnvOver(t *testing.T, l *live.Live, cacheBytes int64) *memoEnv {
	t.Helper()
	e := newMemoEnv(t, tinyRoot(t), 0) // its keys and access layer
	al, wh := mustAlertServices(t, e.st)
	srv, err := New(Options{Snapshots: l, Access: e.acc, Collections: collection.New(collection.Options{State: e.st}),
		CacheBytes: cacheBytes, CursorSecret: []byte("0123456789abcdef0123456789abcdef"), Logger: slog.New(slog.DiscardHandler),
		Alerts: al, Webhooks: wh})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.cache.Close)
	e.srv = srv
	return e
}
