package edge

import (
	"github.com/cardedge/cardedge/collection"
)

// The caller's collection (package collection): GET /api/v3/me/collection
// reads it back valued as of the live snapshot. A collection belongs to the
// account: every key of an account (and its dashboard pages and chat) sees
// one collection; a key without an account keeps its own.

// collectionPayload is collection.v1.
type collectionPayload = collection.View

// Defaults of the collection route.
const (
	collectionLimit       = 100
	collectionMaxLimit    = 1000
	collectionHistoryDays = 90 // the value history's default span, before the tier's window
)

func (s *Server) registerCollectionRoutes() {
	s.router.add(&route{method: "GET", pattern: "/api/v3/me/collection", name: "collection_get", contract: "collection.v1",
		summary: "The caller's collection (its account's, shared by the account's keys, pages and chat; a key without an account has its own): holdings by card, printing and grade valued as of the snapshot, with gain, 30-day change and the value over time",
		schema:  "Collection", hasLimit: true,
		params: []paramSpec{
			pStr("game", 32, "Only this game's holdings (default: every game)."),
			pEnum("sort", "value", collection.Sorts, "Order of the holdings, highest first (name: A to Z)."),
			pInt("limit", 1, collectionMaxLimit, "100", "Holdings per page."),
			pIntMin("offset", 0, "0", "Holdings to skip."),
			pBool("history", "true", "Include the value of today's holdings on each day from since to as_of."),
			pDate("since", "First day of the value history (default as_of - 89 days); raised to the start of the tier's history window, at most 365 days back."),
		},
		handle: s.handleCollectionGet})
}

func (s *Server) handleCollectionGet(r *request) (any, error) {
	p := r.p
	game := p.str("game")
	if game != "" && !r.snap.Manifest().HasGame(game) {
		return nil, validationErrors{queryError("game", "Input should be "+enumList(r.snap.Manifest().Games), "enum", game, map[string]any{"expected": enumList(r.snap.Manifest().Games)})}
	}
	since, set := p.day("since")
	if !set {
		since, set = r.snap.AsOf-collectionHistoryDays+1, true
	}
	since, _ = r.clampSince(since, set)
	return s.collections.View(r.ctx, r.view(), s.owner(r), collection.ViewOptions{
		Game: game, Sort: p.str("sort"), Offset: p.int("offset"), Limit: p.int("limit"),
		History: p.flag("history"), HistoryFrom: since,
	})
}
