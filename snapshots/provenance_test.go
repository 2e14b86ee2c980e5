package snapshots_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/snapshots"
)

func TestCardSources_Encoding(t *testing.T) {
	d := func(s string) snapshots.Day {
		x, err := snapshots.ParseDay(s)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	cs := &snapshots.CardSources{
		Quotes: []snapshots.Quote{
			{Source: "tcgplayer", Finish: 0, Grade: snapshots.RawNearMint, Field: "market", Day: d("2026-11-20"), Cents: 36525, Amount: 36525, Currency: "USD", Rate: 1, Product: "42382", Match: "id"},
			{Source: "cardmarket", Finish: 2, Grade: snapshots.RawNearMint, Field: "trend", Day: d("2026-11-20"), Cents: 33653, Amount: 32050, Currency: "EUR",
				Rate: 1.05, RateDay: d("2026-11-20"), Product: "273699", Match: "id", Stale: true},
		},
		History: []snapshots.SourceSeries{{Source: "cardmarket", Field: "trend", Finish: 2, Grade: snapshots.RawNearMint, Currency: "EUR",
			Points: []snapshots.SourcePoint{{Day: d("2026-11-19"), Cents: 32266, Amount: 31025, RateDay: d("2026-11-19")}, {Day: d("2026-11-22"), Cents: 33653, Amount: 32050, RateDay: d("2026-11-20")}}},
			{Source: "tcgplayer", Field: "market", Finish: 0, Grade: snapshots.RawNearMint, Currency: "USD",
				Points: []snapshots.SourcePoint{{Day: d("2026-11-19"), Cents: 35000, Amount: 35000}, {Day: d("2026-11-20"), Cents: 34990, Amount: 34990}}}},
		Series:    []snapshots.SeriesSource{{Finish: 0, Grade: snapshots.RawNearMint, Source: "tcgplayer", Field: "market"}, {Finish: 1, Grade: 40, Source: "observed"}},
		Synthetic: true,
	}
	b, err := snapshots.EncodeCardSources(nil, cs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := snapshots.DecodeCardSources(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cs, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	for i := range b {
		if _, err := snapshots.DecodeCardSources(b[:i]); err == nil {
			t.Fatalf("a value cut at %d of %d bytes decoded", i, len(b))
		}
	}
	if _, err := snapshots.EncodeCardSources(nil, &snapshots.CardSources{Series: []snapshots.SeriesSource{{Source: "ebay"}}}); err == nil {
		t.Error("an unknown source encoded")
	}
	if s, ok := cs.SeriesSourceOf(0, snapshots.RawNearMint); !ok || s.Source != "tcgplayer" {
		t.Errorf("SeriesSourceOf = %+v %v", s, ok)
	}
	var none *snapshots.CardSources
	if _, ok := none.SeriesSourceOf(0, snapshots.RawNearMint); ok {
		t.Error("nil card sources have a series")
	}
}

// FuzzDecodeCardSources: no panic; what decodes encodes back to the same
// value.
func FuzzDecodeCardSources(f *testing.F) {
	b, _ := snapshots.EncodeCardSources(nil, &snapshots.CardSources{Quotes: []snapshots.Quote{{Source: "own", Field: "x", Currency: "USD"}},
		History: []snapshots.SourceSeries{{Source: "observed", Points: []snapshots.SourcePoint{{Day: 3, Cents: 1}}}}})
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		cs, err := snapshots.DecodeCardSources(b)
		if err != nil {
			return
		}
		again, err := snapshots.EncodeCardSources(nil, cs)
		if err != nil {
			t.Fatal(err)
		}
		back, err := snapshots.DecodeCardSources(again)
		if err != nil || !cmp.Equal(cs, back, cmpopts.EquateNaNs()) {
			t.Fatalf("re-encoded value differs: %v", err)
		}
	})
}

// TestStaleAfterDays_Methodology: the provenance's names of the feeds and
// its stale rule are the methodology's (estimate.Default.Sources), which
// the API publishes.
func TestStaleAfterDays_Methodology(t *testing.T) {
	if snapshots.StaleAfterDays != estimate.Default.Sources.StaleAfterDays {
		t.Errorf("StaleAfterDays %d, methodology %d", snapshots.StaleAfterDays, estimate.Default.Sources.StaleAfterDays)
	}
	want := []string{snapshots.SourceTCGplayer, snapshots.SourceCardmarket, snapshots.SourcePriceCharting}
	if diff := cmp.Diff(want, estimate.Default.Sources.Priority); diff != "" {
		t.Errorf("priority (-want +got):\n%s", diff)
	}
}
