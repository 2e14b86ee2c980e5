package pricing_test

import (
	"strings"
	"testing"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext/jsontexttest"
)

func TestShopListings(t *testing.T) {
	all, err := pricing.ShopListings(src.Reader, pricing.ListingsRequest{Game: "pokemon", Limit: 100000})
	if err != nil {
		t.Fatal(err)
	}
	if all.Total < 10 || len(all.Items) != all.Total || !all.Beta {
		t.Fatalf("%d listings: the tiny snapshot is smaller than expected", all.Total)
	}
	ebay := snapshots.MarketplaceSet(1 << snapshots.MarketEbay)
	for _, tc := range []struct {
		name string
		q    pricing.ListingsRequest
		ok   func(a, b pricing.ListingRow) bool // holds for every two rows in order
		keep func(r pricing.ListingRow) bool    // holds for every row
	}{
		{"PriceDesc", pricing.ListingsRequest{Sort: "price_desc"}, func(a, b pricing.ListingRow) bool { return a.AskUSD >= b.AskUSD }, nil},
		{"DealScore", pricing.ListingsRequest{Sort: "deal_score"}, func(a, b pricing.ListingRow) bool { return a.DealScore >= b.DealScore }, nil},
		{"Newest", pricing.ListingsRequest{Sort: "newest"}, func(a, b pricing.ListingRow) bool { return a.ListedDate >= b.ListedDate }, nil},
		{"Platform", pricing.ListingsRequest{Platforms: ebay}, nil, func(r pricing.ListingRow) bool { return r.Platform == "ebay" }},
		{"Q", pricing.ListingsRequest{Q: " CHAR "}, nil, func(r pricing.ListingRow) bool { return strings.Contains(index.Fold(r.Name), "char") }},
		{"Card", pricing.ListingsRequest{CardID: "EN:BASE1-4"}, nil, func(r pricing.ListingRow) bool { return r.CardID == "en:base1-4" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.Game, q.Limit = "pokemon", 100000
			got, err := pricing.ShopListings(src.Reader, q)
			if err != nil {
				t.Fatal(err)
			}
			if got.Total != len(got.Items) || got.Total == 0 {
				t.Fatalf("%d listings of %d", len(got.Items), got.Total)
			}
			for i, r := range got.Items {
				if (tc.keep != nil && !tc.keep(r)) || (tc.ok != nil && i > 0 && !tc.ok(got.Items[i-1], r)) {
					t.Fatalf("row %d: %s", i, jsontexttest.MustMarshal(t, r))
				}
			}
			q.Offset, q.Limit = 1, 2
			page, err := pricing.ShopListings(src.Reader, q)
			if err != nil || page.Total != got.Total || jsontexttest.MustMarshal(t, page.Items) != jsontexttest.MustMarshal(t, got.Items[1:min(3, len(got.Items))]) {
				t.Fatalf("page 1+2: %s, %v", jsontexttest.MustMarshal(t, page), err)
			}
		})
	}
	_, err = pricing.ShopListings(src.Reader, pricing.ListingsRequest{Game: "pokemon", CardID: "nope", Limit: 1})
	if apperr.ErrorCode(err) != apperr.ENOTFOUND {
		t.Fatalf("an unknown card: %v", err)
	}
	if got, err := pricing.ShopListings(src.Reader, pricing.ListingsRequest{Game: "pokemon", Offset: 100000, Limit: 5}); err != nil || got.Items == nil || len(got.Items) != 0 {
		t.Fatalf("past the end: %s, %v", jsontexttest.MustMarshal(t, got), err)
	}
}
