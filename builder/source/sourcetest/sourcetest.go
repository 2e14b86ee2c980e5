package sourcetest

import (
	"path/filepath"
	"runtime"
	"testing"

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
