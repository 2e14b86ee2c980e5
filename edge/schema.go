package edge

import (
	"reflect"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/pricing"
)

// payloadTypes names the Go type of each route's data payload. The OpenAPI
// document derives its response schemas from them by reflection (package
// schema), so the published shapes are the ones the handlers encode.
var payloadTypes = map[string]any{
	"cards_list":             page[cardGold]{},
	"card_get":               cardGold{},
	"card_analytics":         analyticsPayload{},
	"card_market_history":    pricing.MarketHistory{},
	"card_marketplace_sales": pricing.MarketplaceSales{},
	"card_price_history":     pricing.PriceHistory{},
	"card_sales":             salesPage{},
	"card_partner_history":   pricing.PartnerHistory{},
	"card_vwap":              pricing.VWAP{},
	"cards_batch":            batchPayload{},
	"trending":               trendingPayload{},
	"market_volume":          pricing.MarketVolume{},
	"shop_listings":          pricing.ListingPage{},
	"sets_list":              page[setGold]{},
	"set_get":                setGold{},
	"set_breakdown":          pricing.SetBreakdown{},
	"set_price_distribution": pricing.SetPriceDistribution{},
	"set_trending_cards":     pricing.SetTrendingCards{},
	"set_volume_history":     pricing.SetVolumeHistory{},
	"search":                 searchPayload{},
	"lookup":                 lookupPayload{},
	"keys_usage":             access.Usage{},
	"quote":                  quotePayload{},
	"methodology":            estimate.Methodology{},
	"prices_get":             pricing.Prices{},
	"prices_post":            pricing.Prices{},
	"imports_preview":        previewPayload{},
	"imports_confirm":        confirmPayload{},
	"collection_get":         collectionPayload{},
	"bulk_list":              bulkListPayload{},
}

// reflectType is the type of a payloadTypes value.
func reflectType(v any) reflect.Type { return reflect.TypeOf(v) }
