package edge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/bolt"
	"github.com/cardedge/cardedge/snapshots/gold"
)

// Snapshot is one open, verified snapshot with its index and gold tables.
// Requests hold a reference while they use it; a retired snapshot is closed
// when its last reference is released.
type Snapshot struct {
	snapshots.Reader
	Index *index.Index
	Gold  *gold.DB
	AsOf  snapshots.Day
	// Gen numbers the snapshots this process opened; cache keys carry it.
	Gen uint64

	// cardOrders caches per-game sorted views of the catalog (cardlist_index.go).
	cardOrders sync.Map
	// setViews caches per-game views of the set directory (setlist_index.go).
	setViews sync.Map
	// encoded holds each game's cards encoded (card_encode.go), built by warm
	// and read-only after.
	encoded map[string]*encodedCards
	// bulk is the bulk files (bulk.go), loaded by warm.
	bulk *snapshotBulk

	refs      atomic.Int64
	retired   atomic.Bool
	closeOnce sync.Once
	opened    time.Time
}

// openSnapshot verifies (with verify) and opens root/<id>. Files damaged
// before their manifest was written verify but may make a library panic at
// open (Bleve does on a broken segment): that is an error wrapping ErrVerify
// too, so a bad snapshot is refused instead of taking the watcher, and the
// process, down.
func openSnapshot(root, id string, gen uint64) (*Snapshot, error) {
	return openSnapshotWith(root, id, gen, func(dir, _ string) (*snapshots.Manifest, error) { return snapshots.Verify(dir) }, nil)
}

// openSnapshotWith verifies root/<id> with verify and opens it; pacer (nil:
// full speed) paces the loading of its catalog and the warm-up, as verify
// paces the hashing, when it opens beside the live snapshot.
func openSnapshotWith(root, id string, gen uint64, verify func(dir, id string) (*snapshots.Manifest, error), pacer *snapshots.Pacer) (_ *Snapshot, err error) {
	dir := filepath.Join(root, id)
	m, err := verify(dir, id)
	if err != nil {
		return nil, err
	}
	meter := pacer.Begin()
	defer meter.End()
	var r *bolt.Reader
	var ix *index.Index
	defer func() {
		if v := recover(); v != nil {
			if ix != nil {
				ix.Close()
			}
			if r != nil {
				r.Close()
			}
			err = fmt.Errorf("%w: %s: damaged: %v", snapshots.ErrVerify, dir, v)
		}
	}()
	if r, err = bolt.OpenMetered(dir, m, meter); err != nil {
		return nil, err
	}
	if ix, err = index.Open(dir); err != nil {
		r.Close()
		return nil, fmt.Errorf("open index of %s: %w", id, err)
	}
	g, err := gold.Open(filepath.Join(dir, "gold.sqlite"))
	if err != nil {
		ix.Close()
		r.Close()
		return nil, fmt.Errorf("open gold tables of %s: %w", id, err)
	}
	s := &Snapshot{Reader: r, Index: ix, Gold: g, AsOf: m.AsOfDay(), Gen: gen, opened: time.Now()}
	if err := s.warm(meter); err != nil {
		s.close()
		return nil, fmt.Errorf("%w: %s: %v", snapshots.ErrVerify, dir, err)
	}
	return s, nil
}

// warm builds the per-game card and set orders of the list routes and the
// encoded cards before the snapshot serves (about 0.6 s for 51k cards), so
// that the first requests after a start or a swap do not pay for them.
func (s *Snapshot) warm(meter *snapshots.Meter) error {
	var err error
	if s.bulk, err = loadBulk(s.Dir(), s.Manifest()); err != nil {
		return err
	}
	s.encoded = map[string]*encodedCards{}
	for _, game := range s.Manifest().Games {
		o, err := s.orders(game)
		if err != nil {
			return fmt.Errorf("card orders of %s: %w", game, err)
		}
		if s.encoded[game], err = encodeCards(o.cards, s.setOf, func(c *snapshots.Card) (*cardMarket, error) {
			meter.Tick()
			return defaultMarket(s.Reader, c)
		}); err != nil {
			return err
		}
		if _, err := s.setOrders(game); err != nil {
			return fmt.Errorf("set orders of %s: %w", game, err)
		}
	}
	return nil
}

// source is the snapshot as the domain packages read it.
func (s *Snapshot) source() resolve.Source {
	return resolve.Source{Reader: s.Reader, Index: s.Index, AsOf: s.AsOf}
}

// setOf returns c's set, or nil when the snapshot does not have it.
func (s *Snapshot) setOf(c *snapshots.Card) *snapshots.Set {
	set, err := s.Set(c.Game, c.SetID)
	if err != nil {
		return nil
	}
	return set
}

// cardDetail returns the card detail payload of c, without includes, from
// its encoded object (encodedCards).
func (s *Snapshot) cardDetail(c *snapshots.Card) cardDetail {
	if obj := s.encoded[c.Game].object(c.Ordinal); obj != nil {
		return cardDetail{card: c, object: obj}
	}
	// Not warmed: encoded per request.
	m, err := defaultMarket(s.Reader, c)
	if err != nil {
		mm := newCardMarket(c, nil, snapshots.BasePrinting(c), c.PriceDay)
		m = &mm
	}
	return cardDetail{card: c, set: s.setOf(c), market: m}
}

func (s *Snapshot) close() {
	s.closeOnce.Do(func() {
		s.Gold.Close()
		s.Index.Close()
		s.Reader.Close()
	})
}

// release drops a reference taken by liveSnapshot.acquire.
func (s *Snapshot) release() {
	if s.refs.Add(-1) == 0 && s.retired.Load() {
		s.close()
	}
}

// liveSnapshot holds the snapshot being served and swaps it when CURRENT
// changes.
type liveSnapshot struct {
	root    string
	log     *slog.Logger
	cur     atomic.Pointer[Snapshot]
	gen     atomic.Uint64
	mu      sync.Mutex // serializes swaps
	metrics *metrics
	// rejected remembers the last id that failed to open, so a bad snapshot
	// is logged once, not on every poll.
	rejected string
	// source fills root from elsewhere (nil: a local build does); pacer
	// paces the verification of a snapshot opened beside the live one.
	source snapshots.Source
	pacer  *snapshots.Pacer
}

func newLiveSnapshot(root string, log *slog.Logger, m *metrics, source snapshots.Source, pacer *snapshots.Pacer) (*liveSnapshot, error) {
	l := &liveSnapshot{root: root, log: log, metrics: m, source: source, pacer: pacer}
	id, err := snapshots.ReadCurrent(root)
	if err != nil {
		return nil, err
	}
	s, err := openSnapshotWith(root, id, l.gen.Add(1), l.verifyAtStart, nil)
	if err != nil {
		return nil, fmt.Errorf("open snapshot %s: %w", id, err)
	}
	l.cur.Store(s)
	log.Info("serving snapshot", "id", id, "as_of", s.Manifest().AsOf)
	return l, nil
}

// verifyAtStart verifies a snapshot before anything is served: at full
// speed, unless the source verified it already.
func (l *liveSnapshot) verifyAtStart(dir, id string) (*snapshots.Manifest, error) {
	if m, ok := l.verifiedBySource(dir, id); ok {
		return m, nil
	}
	return snapshots.Verify(dir)
}

// verify verifies a snapshot opened beside the live one: not again when the
// source hashed every file as it wrote them, else paced.
func (l *liveSnapshot) verify(dir, id string) (*snapshots.Manifest, error) {
	if m, ok := l.verifiedBySource(dir, id); ok {
		return m, nil
	}
	return snapshots.VerifyPaced(dir, l.pacer)
}

// verifiedBySource returns the manifest of dir when the source verified
// snapshot id and dir's manifest is the one it verified.
func (l *liveSnapshot) verifiedBySource(dir, id string) (*snapshots.Manifest, bool) {
	if l.source == nil {
		return nil, false
	}
	want, ok := l.source.Verified(id)
	if !ok {
		return nil, false
	}
	m, err := snapshots.ReadManifest(dir)
	if err != nil || snapshots.CheckManifest(dir, m) != nil || !maps.Equal(m.Files, want.Files) {
		return nil, false
	}
	return m, true
}

// rejectedID returns the last snapshot id refused ("" when the last swap
// succeeded).
func (l *liveSnapshot) rejectedID() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rejected
}

// acquire returns the live snapshot with a reference held; call release.
func (l *liveSnapshot) acquire() *Snapshot {
	for {
		s := l.cur.Load()
		s.refs.Add(1)
		if l.cur.Load() == s {
			return s
		}
		s.release()
	}
}

// check swaps to the snapshot CURRENT names if it changed. A snapshot that
// fails to verify or open is refused and the old one keeps serving.
func (l *liveSnapshot) check() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	id, err := snapshots.ReadCurrent(l.root)
	if err != nil {
		return err
	}
	old := l.cur.Load()
	if id == old.Manifest().SnapshotID || id == l.rejected {
		return nil
	}
	s, err := openSnapshotWith(l.root, id, l.gen.Add(1), l.verify, l.pacer)
	if err != nil {
		l.rejected = id
		reason := "open"
		if errors.Is(err, snapshots.ErrVerify) || errors.Is(err, snapshots.ErrFormat) {
			reason = "verify"
		}
		l.metrics.rejections.Add(reason, 1)
		l.log.Error("refused new snapshot; still serving the old one", "id", id, "serving", old.Manifest().SnapshotID, "reason", reason, "err", err)
		return fmt.Errorf("refuse snapshot %s: %w", id, err)
	}
	l.rejected = ""
	l.cur.Store(s)
	old.retired.Store(true)
	if old.refs.Load() == 0 {
		old.close()
	}
	l.metrics.swaps.Add(1)
	l.log.Info("swapped snapshot", "id", id, "as_of", s.Manifest().AsOf, "previous", old.Manifest().SnapshotID)
	return nil
}

// watch polls CURRENT every interval until ctx ends.
func (l *liveSnapshot) watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			l.check()
		}
	}
}

// close retires the live snapshot (closed once its requests drain).
func (l *liveSnapshot) close() {
	s := l.cur.Load()
	s.retired.Store(true)
	if s.refs.Load() == 0 {
		s.close()
	}
}
