package bench

import (
	"bytes"
	"log/slog"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/edge"
	"github.com/cardedge/cardedge/live"
	cardmcp "github.com/cardedge/cardedge/mcp"
	"github.com/cardedge/cardedge/pokemontcg"
	"github.com/cardedge/cardedge/state"
)

// benchEdge is an edge wired as cardedge serve wires it: the live snapshot
// with the edge's derivation, one collection service, MCP mounted.
type benchEdge struct {
	*edge.Server
	live *live.Live
	mcp  *cardmcp.Server
}

// newBenchEdge wires an edge over the snapshots root with o's other
// options. Nothing watches CURRENT. Close it after Shutdown.
func newBenchEdge(root string, st state.Store, acc *access.Service, o edge.Options) (*benchEdge, error) {
	log := slog.New(slog.DiscardHandler)
	l, err := live.Open(root, live.Options{Logger: log, Derive: []live.Derivation{edge.Derivation(), pokemontcg.Derivation(pokemontcg.Options{})}})
	if err != nil {
		return nil, err
	}
	e := &benchEdge{live: l}
	if e.mcp, err = cardmcp.New(cardmcp.Options{Snapshots: l, Access: acc, State: st}); err != nil {
		l.Close()
		return nil, err
	}
	o.Snapshots, o.Access, o.Collections, o.MCP = l, acc, collection.New(collection.Options{State: st}), e.mcp
	o.CursorSecret, o.Logger = bytes.Repeat([]byte("k"), 32), log
	if e.Server, err = edge.New(o); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// Close closes the MCP server and the live snapshot.
func (e *benchEdge) Close() {
	e.mcp.Close()
	e.live.Close()
}
