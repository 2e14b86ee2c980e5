package edge

import (
	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/webhook"
)

// payloadTypes names the Go type of each route's data payload. The OpenAPI
// document derives its response schemas from them by reflection (package
// schema), so the published shapes are the ones the handlers encode.
var payloadTypes = map[string]any{
	"cards_list":             page[pricing.CardGold]{},
	"card_get":               pricing.CardGold{},
	"card_analytics":         pricing.CardAnalytics{},
	"card_market_history":    pricing.MarketHistory{},
	"card_marketplace_sales": pricing.MarketplaceSales{},
	"card_price_history":     pricing.PriceHistory{},
	"card_sales":             salesPage{},
	"card_partner_history":   pricing.PartnerHistory{},
	"card_vwap":              pricing.VWAP{},
	"cards_batch":            batchPayload{},
	"trending":               pricing.TrendingBoard{},
	"market_volume":          pricing.MarketVolume{},
	"shop_listings":          pricing.ListingPage{},
	"sets_list":              page[setGold]{},
	"set_get":                setGold{},
	"set_breakdown":          pricing.SetBreakdown{},
	"set_price_distribution": pricing.SetPriceDistribution{},
	"set_trending_cards":     pricing.SetTrendingCards{},
	"set_volume_history":     pricing.SetVolumeHistory{},
	"search":                 searchPayload{},
	"lookup":                 index.LookupResult{},
	"keys_usage":             access.Usage{},
	"quote":                  quotePayload{},
	"methodology":            estimate.Methodology{},
	"prices_get":             pricing.Prices{},
	"prices_post":            pricing.Prices{},
	"imports_preview":        previewPayload{},
	"imports_confirm":        confirmPayload{},
	"collection_get":         collectionPayload{},
	"bulk_list":              bulkListPayload{},
	// Alerts, webhooks, a collection's history (#33).
	"alerts_list":           alert.RuleList{},
	"alerts_create":         alert.View{},
	"alerts_get":            alert.View{},
	"alerts_replace":        alert.View{},
	"alerts_delete":         alert.RuleDeleted{},
	"want_list_list":        alert.RuleList{},
	"want_list_create":      alert.View{},
	"want_list_get":         alert.View{},
	"want_list_replace":     alert.View{},
	"want_list_delete":      alert.RuleDeleted{},
	"alert_events":          alert.EventPage{},
	"alert_feed_get":        alert.FeedLink{},
	"alert_feed_roll":       alert.FeedLink{},
	"webhooks_list":         webhook.EndpointList{},
	"webhooks_create":       webhook.EndpointCreated{},
	"webhooks_get":          webhook.Endpoint{},
	"webhooks_replace":      webhook.Endpoint{},
	"webhooks_delete":       webhook.EndpointDeleted{},
	"webhooks_enable":       webhook.Endpoint{},
	"webhooks_disable":      webhook.Endpoint{},
	"webhooks_test":         webhook.TestQueued{},
	"webhooks_roll_secret":  webhook.SecretRolled{},
	"webhooks_log":          webhook.DeliveryLog{},
	"webhooks_notices":      webhook.NoticeList{},
	"collection_history":    collection.History{},
	"collection_completion": collection.Completion{},
}
