package pokemontcg_test

import (
	"testing"

	"github.com/cardedge/cardedge/pokemontcg"
	"github.com/cardedge/cardedge/snapshots"
)

// BenchmarkNewCatalog builds the /v2 catalog of the shipped catalog (what
// the edge does once per snapshot).
func BenchmarkNewCatalog(b *testing.B) {
	MustCatalogs(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := pokemontcg.NewCatalog(catSets, plainCards, pokemontcg.Options{AsOf: asOf}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCard builds and writes one card object (base1-4), all fields:
// the work per card of a /v2 page that is not cached.
func BenchmarkCard(b *testing.B) {
	plain, _ := MustCatalogs(b)
	c, _ := plain.CardByID("base1-4")
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		buf = plain.Card(c).AppendJSON(buf[:0], pokemontcg.All)
	}
	b.ReportMetric(float64(len(buf)), "bytes/op")
}

// BenchmarkSortCards sorts every English card, from catalog order, by
// -set.releaseDate,number (ranks warm).
func BenchmarkSortCards(b *testing.B) {
	plain, _ := MustCatalogs(b)
	keys, err := pokemontcg.ParseOrderBy("cards", "-set.releaseDate,number")
	if err != nil {
		b.Fatal(err)
	}
	cards := append([]*snapshots.Card(nil), plain.Cards()...)
	plain.SortCards(cards, keys) // the ranks
	b.ReportAllocs()
	for b.Loop() {
		copy(cards, plain.Cards()) // catalog order: oldest first
		plain.SortCards(cards, keys)
	}
	b.ReportMetric(float64(len(cards)), "cards/op")
}
