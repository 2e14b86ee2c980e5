package pricing_test

import (
	"path/filepath"
	"testing"

	"github.com/cardedge/cardedge/builder/source/sourcetest"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// sourcesCard opens the sources' fixtures' second day (sourcetest.BuildDays)
// and reads en:base1-4: two sources, three priced printings, two days.
func sourcesCard(b *testing.B) (snapshots.Reader, *snapshots.Card) {
	b.Helper()
	root, err := sourcetest.BuildDays(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	r := snapshotstest.MustOpen(b, filepath.Join(root, "r2"))
	c, err := r.Card("pokemon", "en:base1-4")
	if err != nil {
		b.Fatal(err)
	}
	return r, c
}

// BenchmarkReadProvenance: what each card payload of a snapshot built from
// sources reads besides its market (one bbolt value decoded); the
// synthetic default reads nothing.
func BenchmarkReadProvenance(b *testing.B) {
	benchSourcesAndSynthetic(b, func(r snapshots.Reader, c *snapshots.Card) error {
		_, err := pricing.ReadProvenance(r, c)
		return err
	})
}

// benchSourcesAndSynthetic runs read on a card of a snapshot built from
// sources and on en:base1-4 of the synthetic default.
func benchSourcesAndSynthetic(b *testing.B, read func(snapshots.Reader, *snapshots.Card) error) {
	r, c := sourcesCard(b)
	b.Run("sources", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := read(r, c); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("synthetic", func(b *testing.B) {
		c := mustCard(b, "en:base1-4")
		b.ReportAllocs()
		for b.Loop() {
			if err := read(src.Reader, c); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCardPrices_Sources: one card's prices.v1 item per source.
func BenchmarkCardPrices_Sources(b *testing.B) {
	r, c := sourcesCard(b)
	asOf := r.Manifest().AsOfDay()
	for _, s := range []string{pricing.SourceOwn, pricing.SourceTCGplayer, pricing.SourceCardmarket, pricing.SourcePartner} {
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := pricing.CardPrices(r, asOf, c, 0, snapshots.RawNearMint, []string{s}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadMarketObject: a card's market object (card detail with a
// finish, the batch, and once per card when the snapshot opens).
func BenchmarkReadMarketObject(b *testing.B) {
	benchSourcesAndSynthetic(b, func(r snapshots.Reader, c *snapshots.Card) error {
		_, err := pricing.DefaultMarketObject(r, c)
		return err
	})
}
