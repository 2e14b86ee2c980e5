package pricing

import (
	"slices"
	"sort"
	"strings"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// ListingRow is one shop listing with its card and the card's fmv.
type ListingRow struct {
	ListingID          string   `json:"listing_id"`
	CardID             string   `json:"card_id"`
	Name               string   `json:"name"`
	SetID              string   `json:"set_id"`
	Platform           string   `json:"platform"`
	Grade              string   `json:"grade"`
	GradeName          string   `json:"grade_name"`
	Finish             *string  `json:"finish"`
	AskUSD             float64  `json:"ask_usd"`
	ShippingUSD        float64  `json:"shipping_usd"`
	ListedDate         string   `json:"listed_date"`
	Quantity           int      `json:"quantity"`
	FMVUSD             *float64 `json:"fmv_usd"`
	DealScore          float64  `json:"deal_score"`
	PlatformFreshnessH int      `json:"platform_freshness_h"`
}

// ListingPage is shop-listings.v1 (beta).
type ListingPage struct {
	Items  []ListingRow `json:"items"`
	Total  int          `json:"total"`
	Offset int          `json:"offset"`
	Limit  int          `json:"limit"`
	Beta   bool         `json:"beta"`
	Note   string       `json:"note"`
}

// ListingsRequest asks for a page of a game's shop listings: of some
// marketplaces (0: every one), of cards whose folded name contains Q
// (index.Fold), of one card (CardID; ENOTFOUND when there is no such card),
// sorted price_asc (the stored order), price_desc, deal_score or newest.
type ListingsRequest struct {
	Game          string
	Platforms     snapshots.MarketplaceSet
	Q, CardID     string
	Sort          string
	Offset, Limit int
}

// ShopListings is the page of a game's listings q asks for.
func ShopListings(r snapshots.Reader, q ListingsRequest) (ListingPage, error) {
	all, err := r.AllListings(q.Game)
	if err != nil {
		return ListingPage{}, err
	}
	text := index.Fold(strings.TrimSpace(q.Q))
	if q.CardID != "" {
		if _, err := r.Card(q.Game, q.CardID); err != nil {
			return ListingPage{}, err
		}
	}
	var matches []*snapshots.Listing
	for _, l := range all {
		if q.CardID != "" && !strings.EqualFold(l.CardID, q.CardID) {
			continue
		}
		if q.Platforms != 0 {
			if mk, _ := snapshots.ParseMarketplace(l.Platform); !q.Platforms.Has(mk) {
				continue
			}
		}
		if text != "" {
			c, err := r.Card(q.Game, l.CardID)
			if err != nil || !strings.Contains(index.Fold(c.Name), text) {
				continue
			}
		}
		matches = append(matches, l)
	}
	switch q.Sort {
	case "price_desc":
		matches = append([]*snapshots.Listing{}, matches...)
		slices.Reverse(matches)
		sort.SliceStable(matches, func(i, j int) bool { return matches[i].AskCents > matches[j].AskCents })
	case "deal_score":
		sort.SliceStable(matches, func(i, j int) bool { return matches[i].DealScore > matches[j].DealScore })
	case "newest":
		sort.SliceStable(matches, func(i, j int) bool { return matches[i].ListedDay > matches[j].ListedDay })
	}
	page := ListingPage{Items: []ListingRow{}, Total: len(matches), Offset: q.Offset, Limit: q.Limit, Beta: true,
		Note: "beta route: deal_score (100 x (1 - ask / fmv)) and platform_freshness_h are experimental and may change"}
	if q.Offset < len(matches) {
		matches = matches[q.Offset:min(len(matches), q.Offset+q.Limit)]
	} else {
		matches = nil
	}
	for _, l := range matches {
		row := ListingRow{ListingID: l.ID, CardID: l.CardID, Platform: l.Platform, Grade: l.Grade, GradeName: snapshots.GradeNameOf(l.Grade), Finish: jsontext.StrOrNil(l.Finish),
			AskUSD: snapshots.USD(l.AskCents), ShippingUSD: snapshots.USD(l.ShippingCents), ListedDate: l.ListedDay.String(), Quantity: l.Quantity,
			DealScore: snapshots.Round2(l.DealScore), PlatformFreshnessH: l.PlatformFreshnessH}
		if c, err := r.Card(q.Game, l.CardID); err == nil {
			row.Name, row.SetID = c.Name, c.SetID
			if price, err := snapshots.ShownPrice(r, c); err == nil {
				row.FMVUSD = snapshots.USDOrNil(price)
			}
		}
		page.Items = append(page.Items, row)
	}
	return page, nil
}
