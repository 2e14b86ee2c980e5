package synth_test

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cardedge/cardedge/builder/synth"
	"github.com/cardedge/cardedge/snapshots"
)

var (
	catalogOnce  sync.Once
	catalogCards []*snapshots.Card
	catalogSets  []*snapshots.Set
	catalogErr   error
)

// MustLoadCatalog reads the shipped catalog (once per test binary). Callers
// must not modify what it returns.
func MustLoadCatalog(tb testing.TB) ([]*snapshots.Card, []*snapshots.Set) {
	tb.Helper()
	catalogOnce.Do(func() {
		dir := filepath.Join("..", "catalog")
		catalogErr = readJSONL(filepath.Join(dir, "cards.jsonl.gz"), func(dec *json.Decoder) error {
			// national_dex is not always an integer (384.1, a delta species).
			var row struct {
				snapshots.Card
				NationalDex []float64 `json:"national_dex"`
			}
			if err := dec.Decode(&row); err != nil {
				return err
			}
			c := row.Card
			for _, d := range row.NationalDex {
				c.NationalDex = append(c.NationalDex, int(d))
			}
			catalogCards = append(catalogCards, &c)
			return nil
		})
		if catalogErr == nil {
			catalogErr = readJSONL(filepath.Join(dir, "sets.jsonl.gz"), func(dec *json.Decoder) error {
				s := new(snapshots.Set)
				if err := dec.Decode(s); err != nil {
					return err
				}
				catalogSets = append(catalogSets, s)
				return nil
			})
		}
	})
	if catalogErr != nil {
		tb.Fatalf("load catalog: %v", catalogErr)
	}
	return catalogCards, catalogSets
}

func readJSONL(path string, decode func(*json.Decoder) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return err
	}
	dec := json.NewDecoder(zr)
	for dec.More() {
		if err := decode(dec); err != nil {
			return err
		}
	}
	return nil
}

// testAsOf is the as_of of the tests' snapshots.
var testAsOf = mustDay("2026-11-15")

func mustDay(s string) snapshots.Day {
	d, err := snapshots.ParseDay(s)
	if err != nil {
		panic(err)
	}
	return d
}

// MustPreset returns the preset called name.
func MustPreset(tb testing.TB, name string) synth.Preset {
	tb.Helper()
	p, err := synth.PresetByName(name)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// catalogFor returns preset name's catalog with ordinals set as the builder
// does (position within the game), and a set lookup.
func catalogFor(tb testing.TB, name string, seed int64) ([]*snapshots.Card, map[string]*snapshots.Set) {
	tb.Helper()
	cards, sets := MustLoadCatalog(tb)
	cards, sets = MustPreset(tb, name).Catalog(seed, cards, sets)
	out := make([]*snapshots.Card, len(cards))
	ord := map[string]uint32{}
	for i, c := range cards {
		cp := *c
		cp.Ordinal = ord[c.Game]
		ord[c.Game]++
		out[i] = &cp
	}
	bySet := make(map[string]*snapshots.Set, len(sets))
	for _, s := range sets {
		bySet[s.Game+"\x00"+s.ID] = s
	}
	return out, bySet
}

func setOf(sets map[string]*snapshots.Set, c *snapshots.Card) *snapshots.Set {
	return sets[c.Game+"\x00"+c.SetID]
}
