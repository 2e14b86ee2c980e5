package edge

import (
	"bytes"
	"context"
	"net/http"

	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/snapshots"
)

// Snapshots is the live snapshot as the edge reads it: package live's Live.
type Snapshots interface {
	// Acquire pins the live snapshot (View.Release unpins it).
	Acquire() *live.View
	// Gen is the live snapshot's generation, read without pinning it (the
	// front-door memo's check).
	Gen() uint64
	// RejectedID is the last snapshot refused ("" when none): /ready.
	RejectedID() string
	// Swaps and Rejections count swaps and refusals: /metrics.
	Swaps() int64
	Rejections() map[string]int64
}

// Collections keeps collections and their imports: package collection's
// Service.
type Collections interface {
	Preview(ctx context.Context, v *live.View, req collection.PreviewRequest) (*collection.Preview, error)
	Confirm(ctx context.Context, v *live.View, o collection.Owner, req collection.ConfirmRequest) (*collection.Confirmation, error)
	View(ctx context.Context, v *live.View, o collection.Owner, opts collection.ViewOptions) (*collection.View, error)
	// History and Completion: the value recorded at each snapshot, set
	// completion (history.go).
	History(ctx context.Context, o collection.Owner, from snapshots.Day) ([]collection.HistoryPoint, error)
	Completion(ctx context.Context, v *live.View, o collection.Owner, game string, g snapshots.Grade) ([]collection.SetCompletion, error)
}

// Apps is the authorization server of connected apps (package oauth's
// Server): the edge serves its endpoints (AppsPaths) and names it in every
// 401 of MCP.
type Apps interface {
	// Handler serves the metadata, registration, authorization, token and
	// revocation endpoints (net/http).
	Handler() http.Handler
	// Challenge is the WWW-Authenticate value of a 401 for err (nil: no
	// credential was sent).
	Challenge(err error) string
}

// isAppsPath reports whether p is one of the authorization server's: its
// metadata under /.well-known/ and its endpoints under /oauth/.
func isAppsPath(p []byte) bool {
	return bytes.HasPrefix(p, []byte("/.well-known/oauth-authorization-server")) ||
		bytes.HasPrefix(p, []byte("/.well-known/oauth-protected-resource")) ||
		bytes.HasPrefix(p, []byte("/oauth/"))
}

var (
	_ Snapshots   = (*live.Live)(nil)
	_ Collections = (*collection.Service)(nil)
)
