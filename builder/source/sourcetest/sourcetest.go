package sourcetest

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/cardedge/cardedge/builder"
	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/snapshots"
)

// Dir is the sources' fixture directory, builder/testdata/sources.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "sources")
}

// Path is a fixture's path below Dir.
func Path(elem ...string) string { return filepath.Join(append([]string{Dir()}, elem...)...) }

// MustCatalog reads the fixture catalog, sets the cards' ordinals and
// indexes it.
func MustCatalog(tb testing.TB) *source.Catalog {
	tb.Helper()
	cat, err := builder.ReadCatalog(Path("catalog"))
	if err != nil {
		tb.Fatal(err)
	}
	n := map[string]uint32{}
	for _, c := range cat.Cards {
		c.Ordinal = n[c.Game]
		n[c.Game]++
	}
	return source.NewCatalog(cat.Cards, cat.Sets)
}

// Card returns a card of the catalog by id.
func Card(tb testing.TB, cat *source.Catalog, id string) *snapshots.Card {
	tb.Helper()
	for _, c := range cat.Cards {
		if c.ID == id {
			return c
		}
	}
	tb.Fatalf("no card %s in the fixture catalog", id)
	return nil
}

// Obs is an observation in a comparable form.
type Obs struct {
	Card, Variant, Grade, Field string
	Day                         string
	Amount                      int64
	Currency, Product, Match    string
}

// Flatten makes observations comparable.
func Flatten(obs []source.Observation) []Obs {
	out := make([]Obs, len(obs))
	for i, o := range obs {
		out[i] = Obs{Card: o.Card.ID, Variant: source.VariantOf(o.Card, o.Finish), Grade: o.Grade.String(), Field: o.Field,
			Day: o.Day.String(), Amount: o.Amount, Currency: o.Currency, Product: o.Product, Match: o.Match}
	}
	return out
}

// BuildDays builds the fixtures' two days of Cardmarket's guide and
// TCGplayer's prices (2026-11-19 and 2026-11-20) into the snapshots root
// dir/snapshots, with the history store dir/history and the reports in
// dir/reports, as cardbuild build --source does night after night: the
// second day is live (snapshots r1 and r2). It returns the root. The
// serving tests (edge's OpenAPI examples, e2e's TestRealData_Served) read
// the fixtures' numbers back through it.
func BuildDays(dir string) (string, error) {
	root := filepath.Join(dir, "snapshots")
	for i, day := range []struct{ cm, tcg string }{
		{"price_guide_6-2026-11-19.json", "day1"},
		{"price_guide_6-2026-11-20.json", "day2"},
	} {
		opts := builder.Options{Out: root, CatalogDir: Path("catalog"), SnapshotID: []string{"r1", "r2"}[i],
			History: filepath.Join(dir, "history"), ReportDir: filepath.Join(dir, "reports"), Rates: Path("ecb", "eurofxref-hist.csv"),
			Keep: 5, Now: func() time.Time { return time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC) }}
		for _, s := range []string{"cardmarket=" + Path("cardmarket", day.cm), "tcgplayer=" + Path("tcgplayer", day.tcg)} {
			in, err := source.ParseInput(s)
			if err != nil {
				return "", err
			}
			opts.Sources = append(opts.Sources, in)
		}
		m, err := builder.Compile(context.Background(), opts)
		if err != nil {
			return "", err
		}
		if m.MarketSource != snapshots.MarketSources {
			return "", fmt.Errorf("%s: market_source %s, want %s", m.SnapshotID, m.MarketSource, snapshots.MarketSources)
		}
	}
	return root, nil
}
