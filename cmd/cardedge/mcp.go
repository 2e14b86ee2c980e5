package main

import (
	"log/slog"
	"net/http"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/edge"
	cardmcp "github.com/cardedge/cardedge/mcp"
	"github.com/cardedge/cardedge/state"
)

// newMCP builds the MCP server mounted at /api/v3/mcp/ (nil: not mounted).
// Its tools read the edge's live snapshot and charge through acc; cohorts
// and collections are kept in the state store.
func newMCP(srv *edge.Server, acc *access.Service, st state.Store, log *slog.Logger) http.Handler {
	h, err := cardmcp.New(cardmcp.Options{
		Snapshot: func() (cardmcp.Snapshot, func()) {
			s := srv.Snapshot()
			return cardmcp.Snapshot{Reader: s.Reader, Index: s.Index, AsOf: s.AsOf, ID: s.Manifest().SnapshotID}, s.Release
		},
		Access:      acc,
		State:       st,
		Collections: collection.New(collection.Options{State: st}),
		Logger:      log,
	})
	if err != nil {
		log.Error("MCP server not mounted", "err", err)
		return nil
	}
	return h
}
