package pricing_test

import (
	"strconv"
	"testing"

	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext/jsontexttest"
)

func TestCurrentPrices(t *testing.T) {
	c := mustCard(t, "en:base1-4")
	// The card by its id and by its partner product id costs one unit.
	q := pricing.PricesRequest{IDs: []string{"en:base1-4", "nope", "EN:BASE1-2", strconv.FormatInt(c.PartnerProductID, 10)}, Requested: 5, Source: "all",
		Grade: snapshots.RawNearMint, Game: "pokemon"}
	got, err := pricing.CurrentPrices(src, q)
	if err != nil {
		t.Fatal(err)
	}
	if got.Cost != 2 || len(got.Items) != 4 || jsontexttest.MustMarshal(t, got.Summary) != jsontexttest.MustMarshal(t, pricing.PricesSummary{Requested: 5, Unique: 4, Found: 3, NotFound: 1, Priced: got.Summary.Priced}) ||
		len(got.Sources) != 2 || got.SnapshotID != src.ID() || got.AsOf != src.AsOf.String() {
		t.Fatalf("prices: %s", jsontexttest.MustMarshal(t, got))
	}
	it := got.Items[0]
	own, partner := it.Prices[pricing.SourceOwn], it.Prices[pricing.SourcePartner]
	if it.Status != "ok" || it.Card.CardID != c.ID || own == nil || partner == nil || it.Prices[pricing.SourceObserved] != nil {
		t.Fatalf("item: %s", jsontexttest.MustMarshal(t, it))
	}
	sp, err := pricing.Own(src.Reader, c, snapshots.BasePrinting(c), snapshots.RawNearMint, src.AsOf)
	if err != nil {
		t.Fatal(err)
	}
	if want := snapshots.USDOrNil(sp.Cents); (own.PriceUSD == nil) != (want == nil) || (want != nil && *own.PriceUSD != *want) || *own.Confidence != sp.Estimate.Confidence.String() {
		t.Fatalf("own: %s, want %+v", jsontexttest.MustMarshal(t, own), sp)
	}
	if got.Items[1].Status != "not_found" || got.Items[1].Card != nil || got.Items[1].Message == "" {
		t.Fatalf("unknown id: %s", jsontexttest.MustMarshal(t, got.Items[1]))
	}

	q = pricing.PricesRequest{IDs: []string{c.ID}, Requested: 1, Source: pricing.SourceObserved, Grade: snapshots.RawNearMint, Finish: "no-such-finish", Game: "pokemon"}
	got, err = pricing.CurrentPrices(src, q)
	if err != nil {
		t.Fatal(err)
	}
	if it := got.Items[0]; it.Message == "" || it.Finish != nil || it.Prices[pricing.SourceObserved].Note != it.Message || got.Summary.Priced[pricing.SourceObserved] != 0 {
		t.Fatalf("a finish the card has not: %s", jsontexttest.MustMarshal(t, got))
	}
}

func TestPricesRequest_Sources(t *testing.T) {
	for source, want := range map[string]string{"all": `["own","partner"]`, "own": `["own"]`, "observed": `["observed"]`} {
		if got := jsontexttest.MustMarshal(t, pricing.PricesRequest{Source: source}.Sources()); got != want {
			t.Errorf("%s: %s, want %s", source, got, want)
		}
	}
}
