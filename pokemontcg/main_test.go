package pokemontcg_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cardedge/cardedge/builder"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/pokemontcg"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// tiny is the tiny snapshot (the real builder's), built on first use.
var tiny snapshotstest.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	tiny.Close()
	os.Exit(code)
}

var (
	tinyOnce sync.Once
	tinyView *live.View
	tinyCat  *pokemontcg.Catalog
	tinyErr  error
)

// mustTiny returns the /v2 catalog Load makes of the tiny snapshot.
func mustTiny(tb testing.TB) *pokemontcg.Catalog {
	tb.Helper()
	ts := tiny.Get(tb)
	tinyOnce.Do(func() {
		tinyView = live.NewView(ts.Reader, ts.Index, nil)
		tinyCat, tinyErr = pokemontcg.Load(tinyView, pokemontcg.Options{}, nil)
	})
	if tinyErr != nil {
		tb.Fatal(tinyErr)
	}
	return tinyCat
}

// asOf is the snapshot day of the tests' catalogs (2026-11-20).
var asOf = func() snapshots.Day {
	d, err := snapshots.ParseDay("2026-11-20")
	if err != nil {
		panic(err)
	}
	return d
}()

// loaded is the shipped catalog read once, with ordinals as the builder
// gives them (position in the game), plain and joined to the hand-made
// pokemon-tcg-data fixture of package builder.
var (
	loadOnce           sync.Once
	loadErr            error
	plainCat, textCat  *pokemontcg.Catalog
	catSets            []*snapshots.Set
	plainCards, txCard []*snapshots.Card
)

func readCatalog() ([]*snapshots.Set, []*snapshots.Card, error) {
	cat, err := builder.ReadCatalog(filepath.Join("..", "builder", "catalog"))
	if err != nil {
		return nil, nil, err
	}
	ord := map[string]uint32{}
	for _, c := range cat.Cards {
		c.Ordinal = ord[c.Game]
		ord[c.Game]++
	}
	return cat.Sets, cat.Cards, nil
}

// MustCatalogs returns the /v2 catalog of the shipped catalog, without and
// with card text.
func MustCatalogs(tb testing.TB) (plain, text *pokemontcg.Catalog) {
	tb.Helper()
	loadOnce.Do(func() {
		var sets []*snapshots.Set
		sets, plainCards, loadErr = readCatalog()
		if loadErr != nil {
			return
		}
		catSets = sets
		if plainCat, loadErr = pokemontcg.NewCatalog(sets, plainCards, pokemontcg.Options{AsOf: asOf}); loadErr != nil {
			return
		}
		var cards []*snapshots.Card
		if _, cards, loadErr = readCatalog(); loadErr != nil {
			return
		}
		data, err := builder.ReadTCGData(filepath.Join("..", "builder", "testdata", "pokemon-tcg-data"))
		if err != nil {
			loadErr = err
			return
		}
		data.Join(cards)
		txCard = cards
		textCat, loadErr = pokemontcg.NewCatalog(sets, cards, pokemontcg.Options{AsOf: asOf})
	})
	if loadErr != nil {
		tb.Fatalf("catalog: %v", loadErr)
	}
	return plainCat, textCat
}

// MustCard returns the card object of a /v2 id.
func MustCard(tb testing.TB, cat *pokemontcg.Catalog, id string) *pokemontcg.Card {
	tb.Helper()
	c, ok := cat.CardByID(id)
	if !ok {
		tb.Fatalf("no card %s", id)
	}
	return cat.Card(c)
}

// stdJSON is v as encoding/json writes it without HTML escaping.
func stdJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		tb.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// checkGolden compares got (indented) with testdata/golden/name, or
// rewrites it with -update.
func checkGolden(tb testing.TB, name string, got []byte) {
	tb.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, got, "", "  "); err != nil {
		tb.Fatalf("%s: %v\n%s", name, err, got)
	}
	buf.WriteByte('\n')
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		tb.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", name, buf.Bytes())
	}
}
