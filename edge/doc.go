// Package edge is cardedge's front door: a fasthttp server that answers the
// REST interface under /api/v3 (and /prices, /keys/usage, /health, /metrics)
// from the live snapshot, streams the agent chat, mounts the MCP server
// under /api/v3/mcp/ and the dashboard (package web) under /dashboard
// (dashboard.go: not keyed, not charged).
//
// Every request goes through one pipeline (server.go): route -> validate
// (every parameter of the route, all errors at once, 422) -> authenticate
// (access) -> tier, quota and rate (429 with Retry-After) -> clamp (row
// cap, history window) -> response cache (edge/cache, keyed by snapshot
// generation, route, normalized parameters, window and row cap) -> the
// handler. A keyed GET seen before, byte for byte, takes a shortcut
// (memo.go): the front-door memo hands back its route, caller and cached
// response, valid for the snapshot and key table it was made under, and the
// request is only charged and answered.
//
// Handlers are thin: decode and validate the request, call the domain,
// return its payload. The domain lives in packages that know no transport:
// resolve (what card a reference names), catalog (the card and set lists'
// sorted views of a snapshot, top cards, trending rows by set, editions in
// other languages), pricing (quotes, current prices per source, a card's
// market, its history, VWAP and include analytics, trending pages, volumes,
// set values, shop listings, a card's market object with its provenance:
// pricing.MarketObject; the card-gold.v3 card, card detail with its
// includes and the analytics payload, which encode themselves), bulk (a
// snapshot's bulk files), collection (collection imports), agent (the
// chat's agent and tools; its model is Options.Model), and snapshots (the
// data). The payloads of most routes are pricing's values; edge keeps the
// list pages it encodes from its own per-snapshot data (the card list's
// cardPage, the set list's items). Errors are apperr's
// codes: errors.go answers them as error.v1 (apperr.HTTPStatus), and
// apperr.FieldErrors and validationErrors as the 422 body.
//
// One file per resource or feature:
//
//	cards.go          the card routes' table and the card list (catalog.Cards; its page copies the encoded cards)
//	card_detail.go    card detail and its includes (pricing.CardDetail, pricing.CardIncludes in the caller's window)
//	card_history.go   market-history, marketplace-sales, partner-history, price-history
//	card_sales.go     sales and their signed cursors (pricing.SalePosition.Cursor)
//	card_analytics.go analytics windows (pricing.CardAnalytics, also the market_summary include)
//	card_vwap.go      vwap
//	card_batch.go     batch
//	sets.go           sets, and the set list's items encoded once per snapshot
//	market.go         trending, market volume, shop listings
//	bulk.go           the bulk files' listing, downloads (tiers, limits, sendfile; bulk.ParseRange, the files' validators) and schemas
//	search.go, quote.go, prices.go, sql.go, imports.go, chat.go, v2.go (pokemontcg.io's /v2: package pokemontcg)
//	routes.go         the route table's registration, usage, openapi.json
//	health.go         /health and /metrics
//	ready.go          /ready (live.Ready; 503 while draining) and the snapshot source's metrics
//	server.go, router.go, params.go, errors.go, memo.go, metrics.go   the front door
//	snapshot.go       the edge's data of each live snapshot (its live.Derivation)
//	mcpmount.go       the MCP mount (Host/Origin guard, authentication, adaptor)
//	openapi.go, schema.go   the routes as the OpenAPI document's operations (package openapi builds it), their payload types
//	docs.go           the API reference page, GET /api/v3/docs (Redoc, embedded from edge/assets/redoc)
//
// The live snapshot is swapped when CURRENT changes (snapshot.go): the new
// one is verified and opened first; a snapshot that fails is refused and the
// old one keeps serving; the old one is closed when its last request is
// done. Before a snapshot serves, the edge builds its data of it
// (Derivation): the catalog's views (catalog.Catalog), every card's object
// encoded once (pricing.EncodeCards), which card detail and the card list
// copy, the set list's items encoded once, and the bulk files.
//
// It imports the standard library, fasthttp (and fasthttpadaptor),
// apperr, snapshots, snapshots/gold, snapshots/jsontext, index,
// index/syntax, estimate, openapi, live, access, edge/cache, pokemontcg,
// edge/connguard, resolve, catalog, pricing, bulk, collection, alert and
// webhook (alerts.go, feed.go, webhooks.go: the caller's alert rules, want
// list, events, feed and webhook endpoints through the small interfaces
// Alerts and Webhooks), agent and mcp (for its version); it is the only
// package that imports fasthttp. Commands import it: cmd/cardedge, and
// cmd/benchedge for the benchmarks.
//
// # Caveats
//
// fasthttp's RequestCtx bytes die with the handler: parameters are parsed
// into plain values (params.go) and bodies copied before use. Cached entries
// are shared between requests and never modified. The request struct of a
// routed request is pooled (serveRoute): a payload may live in it (card
// detail's does) because it is encoded before serveRoute returns; a raw
// handler, which may write after that (the chat streams), keeps its own.
// The card payloads are pricing's and encode themselves (AppendJSON: card
// detail, its includes, the market object; the play object is
// resolve.AppendPlay); the pooled request embeds card detail's
// (pricing.CardDetail, pricing.CardIncludes), so the hot path allocates
// none of them.
package edge
