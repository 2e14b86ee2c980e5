package live

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/gold"
)

// View is one open, verified snapshot as its readers see it.
type View struct {
	// Reader reads the snapshot's catalog, market data and aggregates.
	Reader snapshots.Reader
	// Index is its full-text index and typeahead.
	Index *index.Index
	// Gold is its gold tables (nil when the snapshot was opened without
	// them, as NewView may be).
	Gold *gold.DB
	// AsOf is the snapshot's "today": history windows count back from it.
	AsOf snapshots.Day
	// Gen numbers the snapshots this process opened (from 1); cache keys
	// carry it.
	Gen uint64
	// Opened is when the snapshot was opened.
	Opened time.Time

	derived []derivedValue

	managed   bool // opened by a Live: reference counted and closed by it
	refs      atomic.Int64
	retired   atomic.Bool
	closeOnce sync.Once
}

type derivedValue struct {
	name  string
	value any
}

// NewView makes a View of a snapshot its caller opened (tests, tools): not
// reference counted, never closed here. g may be nil.
func NewView(r snapshots.Reader, ix *index.Index, g *gold.DB) *View {
	return &View{Reader: r, Index: ix, Gold: g, AsOf: r.Manifest().AsOfDay(), Opened: time.Now()}
}

// ID returns the snapshot id.
func (v *View) ID() string { return v.Reader.Manifest().SnapshotID }

// Game returns the game a request names, or the snapshot's first game when
// name is empty (explicit is then false). An unknown game is EINVALID.
func (v *View) Game(name string) (game string, explicit bool, err error) {
	m := v.Reader.Manifest()
	if name == "" {
		if len(m.Games) == 0 {
			return "", false, apperr.Errorf(apperr.EINTERNAL, "snapshot has no games")
		}
		return m.Games[0], false, nil
	}
	if !m.HasGame(name) {
		return "", false, apperr.Errorf(apperr.EINVALID, "game must be one of %s", strings.Join(m.Games, ", "))
	}
	return name, true, nil
}

// Derived returns what the Derivation named name built for this snapshot
// (nil when none of that name was registered, or for a View from NewView).
func (v *View) Derived(name string) any {
	for i := range v.derived {
		if v.derived[i].name == name {
			return v.derived[i].value
		}
	}
	return nil
}

// Retain takes one more reference on a View its caller holds pinned, for a
// use that outlives the caller's own (a response streamed after its handler
// returned): each Retain needs its own Release.
func (v *View) Retain() {
	if v.managed {
		v.refs.Add(1)
	}
}

// Release drops a reference Live.Acquire (or Retain) took. The View must not be used
// after.
func (v *View) Release() {
	if v.managed && v.refs.Add(-1) == 0 && v.retired.Load() {
		v.close()
	}
}

// retire marks v as no longer live: closed now when no reader holds it,
// else by the last Release.
func (v *View) retire() {
	v.retired.Store(true)
	if v.refs.Load() == 0 {
		v.close()
	}
}

func (v *View) close() {
	v.closeOnce.Do(func() {
		if v.Gold != nil {
			v.Gold.Close()
		}
		v.Index.Close()
		v.Reader.Close()
	})
}
