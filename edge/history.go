package edge

import (
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/snapshots"
)

// A collection's history and set completion (package collection, issue
// #33): GET /api/v3/me/collection/history reads the value recorded at each
// snapshot (per source, split by the confidence of the prices behind it),
// within the tier's history window; GET /api/v3/me/collection/completion
// gives, for each set the collection holds a card of, the printings held
// against the set's and the cost of the rest at the live snapshot's fmv.

func (s *Server) registerHistoryRoutes() {
	s.router.add(&route{method: "GET", pattern: "/api/v3/me/collection/history", name: "collection_history", contract: "collection-history.v1",
		summary: "The caller's collection's value as recorded at each snapshot (one point a day): per source, with the value split by the confidence of the prices behind it",
		schema:  "CollectionHistory",
		params: []paramSpec{
			pDate("since", "First day (default: the start of the tier's history window; every point kept when unlimited)."),
		},
		handle: s.handleCollectionHistory})
	s.router.add(&route{method: "GET", pattern: "/api/v3/me/collection/completion", name: "collection_completion", contract: "collection-completion.v1",
		summary: "Set completion: for each set the collection holds a card of, the printings held against the set's, and the cost of the missing ones at today's fmv",
		schema:  "CollectionCompletion",
		params: []paramSpec{
			pStr("game", 32, "Only this game's sets (default: every game)."),
			pStr("grade", 32, "The grade the missing printings are priced in (default raw:near_mint)."),
		},
		handle: s.handleCollectionCompletion})
}

func (s *Server) handleCollectionHistory(r *request) (any, error) {
	since, set := r.p.day("since")
	from, limited := r.clampSince(since, set)
	if !limited {
		from = snapshots.NoDay
	}
	pts, err := s.collections.History(r.ctx, s.owner(r), from)
	if err != nil {
		return nil, err
	}
	return collection.NewHistory(pts, from), nil
}

func (s *Server) handleCollectionCompletion(r *request) (any, error) {
	game := r.p.str("game")
	if game != "" && !r.snap.Manifest().HasGame(game) {
		return nil, validationErrors{queryError("game", "Input should be "+enumList(r.snap.Manifest().Games), "enum", game, map[string]any{"expected": enumList(r.snap.Manifest().Games)})}
	}
	g, err := snapshots.ReadGradeOr(r.p.str("grade"), snapshots.RawNearMint)
	if err != nil {
		return nil, validationErrors{queryError("grade", "grade: "+err.Error(), "value_error", r.p.str("grade"), nil)}
	}
	sets, err := s.collections.Completion(r.ctx, r.view(), s.owner(r), game, g)
	if err != nil {
		return nil, err
	}
	return collection.Completion{AsOf: r.snap.AsOf.String(), SnapshotID: r.view().ID(), Sets: sets}, nil
}
