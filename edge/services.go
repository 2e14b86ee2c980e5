package edge

import (
	"context"

	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/live"
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
}

var (
	_ Snapshots   = (*live.Live)(nil)
	_ Collections = (*collection.Service)(nil)
)
