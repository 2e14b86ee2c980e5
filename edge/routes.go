package edge

import (
	"encoding/json"
)

// registerRoutes builds the route table: one register function per resource,
// whose routes the OpenAPI document tags with the resource's name.
func (s *Server) registerRoutes() {
	for _, r := range []struct {
		tag      string
		register func()
	}{
		{"Cards", s.registerCardRoutes},
		{"Sets", s.registerSetRoutes},
		{"Market", s.registerMarketRoutes},
		{"SQL", s.registerSQLRoutes},
		{"Prices", s.registerPriceRoutes},
		{"Imports", s.registerImportRoutes},
		{"Collection", s.registerCollectionRoutes},
		{"Chat", s.registerChatRoutes},
		{"Search", s.registerSearchRoutes},
		{"Quote", s.registerQuoteRoutes},
		{"Methodology", s.registerMethodologyRoutes},
		{"Bulk", s.registerBulkRoutes},
		{"Keys", s.registerKeyRoutes},
		{"Alerts", s.registerAlertRoutes},
		{"Alerts", s.registerFeedRoutes},
		{"Webhooks", s.registerWebhookRoutes},
		{"Collection", s.registerHistoryRoutes},
		{"pokemontcg-v2", s.registerV2Routes},
	} {
		n := len(s.router.routes)
		r.register()
		for _, rt := range s.router.routes[n:] {
			rt.tag = r.tag
		}
	}
	s.router.add(&route{method: "GET", pattern: "/api/v3/openapi.json", name: "openapi", keyless: true, raw: s.handleOpenAPI})
	for _, r := range removedRoutes {
		s.router.add(&route{method: r.method, pattern: r.pattern, name: "removed", removed: true, replacement: r.replacement})
	}
}

func (s *Server) registerKeyRoutes() {
	s.router.add(&route{method: "GET", pattern: "/keys/usage", name: "keys_usage", contract: "key-usage.v1",
		summary: "Daily usage of the calling key", schema: "KeyUsage", handle: s.handleKeyUsage})
}

func (s *Server) handleKeyUsage(r *request) (any, error) {
	u, err := s.access.Usage(r.caller.KeyID)
	if err != nil {
		return nil, err
	}
	return u, nil
}

// handleOpenAPI serves the document, built once (on the first request, when
// the listening address is known).
func (s *Server) handleOpenAPI(r *request) {
	s.openapiOnce.Do(func() { s.openapiJSON, s.openapiErr = json.Marshal(s.openAPI()) })
	if s.openapiErr != nil {
		s.writeError(r.ctx, s.openapiErr)
		return
	}
	r.ctx.SetContentType("application/json")
	r.ctx.SetBody(s.openapiJSON)
}

// removedRoutes are withdrawn routes: 404 with code removed and the path to
// use instead.
var removedRoutes = []struct{ method, pattern, replacement string }{
	{"GET", "/api/v3/analytics/grade-premium", ""},
	{"GET", "/api/v3/analytics/kfactor", ""},
	{"GET", "/api/v3/cards/summary", "GET /api/v3/cards/{id} or GET /api/v3/cards?limit=N"},
	{"GET", "/api/v3/cards/timeseries", "GET /api/v3/cards/{id}/market-history"},
	{"GET", "/api/v3/cards/{id}/bundle", "GET /api/v3/cards/{id}, /chart-series, /sales, and the partner history route individually"},
	{"GET", "/api/v3/lists", ""},
	{"GET", "/api/v3/lists/{id}", ""},
	{"PATCH", "/api/v3/lists/{id}", ""},
	{"PATCH", "/api/v3/lists/{id}/items/{item_id}", ""},
	{"POST", "/api/v3/lists", ""},
	{"POST", "/api/v3/lists/{id}/items", ""},
	{"GET", "/api/v3/marketplaces", ""},
	{"GET", "/api/v3/me/portfolio/history", ""},
	{"GET", "/api/v3/me/portfolio/mark-preview", ""},
	{"GET", "/api/v3/me/portfolio/valuation", ""},
	{"GET", "/api/v3/me/watchlist/movers", ""},
	{"GET", "/api/v3/sales", "GET /api/v3/cards/{id}/sales"},
	{"POST", "/api/v3/cards/analytics/batch", "GET /api/v3/cards/{id}/analytics per card"},
	{"POST", "/api/v3/events/share", ""},
	{"POST", "/api/v3/feedback", ""},
}
