package index_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/snapshots"
)

// smallCatalog returns a few sets of the shipped catalog and their cards
// (Base, Jungle, the Japanese and Chinese SV1S, One Piece OP-01), in
// catalog order.
func smallCatalog(tb testing.TB) ([]*snapshots.Set, []*snapshots.Card) {
	tb.Helper()
	sets, cards := catalog(tb)
	keep := map[string]bool{
		"pokemon/en:base1": true, "pokemon/en:base2": true, "pokemon/ja:SV1S": true,
		"pokemon/zh-tw:SV1S": true, "onepiece/en:OP-01": true, "onepiece/ja:OP-01": true,
	}
	return keepSets(sets, cards, keep)
}

// MustBuild builds and opens an index of sets and cards in a temporary
// directory.
func MustBuild(tb testing.TB, sets []*snapshots.Set, cards []*snapshots.Card, opts index.BuildOptions) (*index.Index, string) {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "ix")
	if err := index.Build(context.Background(), dir, sets, cards, opts); err != nil {
		tb.Fatalf("Build: %v", err)
	}
	ix, err := index.Open(dir)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { ix.Close() })
	return ix, dir
}

// TestBuild_Small builds in several batches (segments) and checks that the
// result is one merged segment with every card, and the progress calls.
func TestBuild_Small(t *testing.T) {
	sets, cards := smallCatalog(t)
	var mu sync.Mutex
	var calls [][2]int
	ix, dir := MustBuild(t, sets, cards, index.BuildOptions{
		BatchSize: 100,
		Progress: func(done, total int) {
			mu.Lock()
			calls = append(calls, [2]int{done, total})
			mu.Unlock()
		},
	})
	if len(calls) < len(cards)/100 {
		t.Errorf("%d progress calls for %d cards in batches of 100", len(calls), len(cards))
	}
	for i, c := range calls {
		if c[1] != len(cards) || c[0] > c[1] || i > 0 && c[0] < calls[i-1][0] {
			t.Errorf("progress call %d: %v", i, c)
		}
	}
	if last := calls[len(calls)-1]; last[0] != len(cards) {
		t.Errorf("last progress %v, want done = %d", last, len(cards))
	}

	if _, err := os.Stat(filepath.Join(dir, index.TypeaheadBin)); err != nil {
		t.Error(err)
	}
	zaps, _ := filepath.Glob(filepath.Join(dir, index.BleveDir, "store", "*.zap"))
	if len(zaps) != 1 {
		t.Errorf("%d segment files %v, want 1", len(zaps), zaps)
	}
	if got := strings.Join(ix.Games(), ","); got != "onepiece,pokemon" {
		t.Errorf("Games() = %s", got)
	}
	if ix.CardCount() != len(cards) {
		t.Errorf("CardCount() = %d, want %d", ix.CardCount(), len(cards))
	}
	for _, game := range []string{"pokemon", "onepiece"} {
		res, err := ix.Search(context.Background(), index.SearchRequest{Game: game, MinPriceCents: -1, MaxPriceCents: -1})
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for _, c := range cards {
			if c.Game == game {
				want++
			}
		}
		if res.Total != want {
			t.Errorf("%s: Total %d, want %d (every card indexed once)", game, res.Total, want)
		}
	}
	res, err := ix.Search(context.Background(), index.SearchRequest{Game: "pokemon", Q: "charizard", Limit: 1, MinPriceCents: -1, MaxPriceCents: -1})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].CardID != "en:base1-4" {
		t.Errorf("charizard: %v %v", res, err)
	}
	if got := ix.Lookup("pokemon", "char", "", 5); len(got) == 0 || got[0].Label != "Charizard" {
		t.Errorf("Lookup char: %v", labels(got))
	}
}

func TestBuild_Errors(t *testing.T) {
	sets, cards := smallCatalog(t)
	ctx := context.Background()
	dup := append([]*snapshots.Card{}, cards...)
	dup = append(dup, cards[0])
	for _, tc := range []struct {
		name  string
		sets  []*snapshots.Set
		cards []*snapshots.Card
	}{
		{"duplicate card", sets, dup},
		{"nil card", sets, []*snapshots.Card{nil}},
		{"card without id", sets, []*snapshots.Card{{Game: "pokemon"}}},
		{"duplicate set", append(append([]*snapshots.Set{}, sets...), sets[0]), cards[:1]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := index.Build(ctx, filepath.Join(t.TempDir(), "ix"), tc.sets, tc.cards, index.BuildOptions{})
			if apperr.ErrorCode(err) != apperr.EINVALID {
				t.Errorf("err = %v, want EINVALID", err)
			}
		})
	}
	t.Run("exists", func(t *testing.T) {
		_, dir := MustBuild(t, sets, cards[:20], index.BuildOptions{})
		if err := index.Build(ctx, dir, sets, cards[:20], index.BuildOptions{}); !errors.Is(err, index.ErrExists) {
			t.Errorf("err = %v, want ErrExists", err)
		}
	})
	t.Run("canceled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		err := index.Build(cctx, filepath.Join(t.TempDir(), "ix"), sets, cards, index.BuildOptions{})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("empty", func(t *testing.T) {
		ix, _ := MustBuild(t, nil, nil, index.BuildOptions{})
		if got := ix.Lookup("pokemon", "p", "", 5); got != nil {
			t.Errorf("Lookup on an empty index: %v", got)
		}
		if _, err := ix.Search(ctx, index.SearchRequest{Game: "pokemon"}); apperr.ErrorCode(err) != apperr.ENOTFOUND {
			t.Errorf("Search on an empty index: %v", err)
		}
	})
}

func TestOpen_Errors(t *testing.T) {
	sets, cards := smallCatalog(t)
	_, dir := MustBuild(t, sets, cards[:50], index.BuildOptions{})
	good, err := os.ReadFile(filepath.Join(dir, index.TypeaheadBin))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.Open(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing dir: %v", err)
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"flipped byte", func() []byte { b := append([]byte{}, good...); b[len(b)/2] ^= 0xff; return b }()},
		{"truncated", good[:len(good)/2]},
		{"empty", nil},
		{"other format", append([]byte("NOTATYPE"), good[8:]...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), "ix")
			if err := os.CopyFS(bad, os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(bad, index.TypeaheadBin), tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := index.Open(bad); !errors.Is(err, index.ErrFormat) {
				t.Errorf("err = %v, want ErrFormat", err)
			}
		})
	}
}

// TestIndex_Concurrent runs searches and lookups from many goroutines on
// one Index (run with -race).
func TestIndex_Concurrent(t *testing.T) {
	sets, cards := smallCatalog(t)
	ix, _ := MustBuild(t, sets, cards, index.BuildOptions{})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				q := []string{"charizard", "pika", "zoro", "リザ", "base1-4"}[(g+i)%5]
				if _, err := ix.Search(context.Background(), index.SearchRequest{
					Game: "pokemon", Q: q, MinPriceCents: 100, MaxPriceCents: -1, CollapseVariants: i%2 == 0,
				}); err != nil {
					t.Error(err)
					return
				}
				ix.Lookup("pokemon", q, "", 10)
			}
		}(g)
	}
	wg.Wait()
}
