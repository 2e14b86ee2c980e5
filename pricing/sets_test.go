package pricing_test

import (
	"math"
	"testing"

	"github.com/cardedge/cardedge/pricing"
)

func TestSetValue(t *testing.T) {
	sets, err := src.Reader.Sets("pokemon")
	if err != nil {
		t.Fatal(err)
	}
	valued := 0
	for _, s := range sets {
		agg, err := src.Reader.SetAggregates("pokemon", s.ID)
		if err != nil {
			t.Fatal(err)
		}
		b := pricing.NewSetBreakdown(s, agg, src.AsOf)
		d := pricing.NewSetPriceDistribution(s, agg, src.AsOf)
		share, cards, priced := 0.0, 0, 0
		for _, r := range b.Rarities {
			share += r.ValueSharePct
			cards += r.Cards
		}
		pct := 0.0
		for _, x := range d.Buckets {
			priced += x.Cards
			pct += x.Pct
		}
		if cards != b.Totals.Cards || priced != d.PricedCards || d.PricedCards+d.UnpricedCards != d.Cards || b.Totals.Cards != d.Cards {
			t.Fatalf("%s: %d cards by rarity, %d in buckets: %s %s", s.ID, cards, priced, mustJSON(t, b), mustJSON(t, d))
		}
		if b.Totals.ValueUSD > 0 {
			valued++
			if math.Abs(share-100) > 0.01*float64(len(b.Rarities)) || math.Abs(pct-100) > 0.01*float64(len(d.Buckets)) {
				t.Fatalf("%s: value shares sum to %v, bucket shares to %v", s.ID, share, pct)
			}
		}
	}
	if valued == 0 {
		t.Fatal("no set with a value")
	}
}
