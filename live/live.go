package live

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
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/bolt"
	"github.com/cardedge/cardedge/snapshots/gold"
)

// Options configure a Live. Every zero value has a documented default.
type Options struct {
	// Source fills the snapshots root from elsewhere (a fleet replica:
	// snapshots/s3's Puller mirrors a bucket into it); nil means a local
	// build does. A snapshot the source verified as it wrote its files is not
	// hashed again.
	Source snapshots.Source
	// Pacer paces the verification, the loading and the derivations of a
	// snapshot opened beside the live one, so that the requests served
	// meanwhile keep their latency; nil means full speed. The first snapshot
	// opens at full speed: nothing is served yet.
	Pacer *snapshots.Pacer
	// Derive lists the data adapters derive from each snapshot before it
	// serves (View.Derived), in order.
	Derive []Derivation
	// Logger receives swaps and refusals; nil means slog.Default().
	Logger *slog.Logger
}

// A Derivation is data of an adapter's own, built from each snapshot once,
// when it opens, before it serves. Build may read anything of v but its
// derived values; it calls meter.Tick in long loops, so that the build of a
// snapshot opened beside the live one is paced. An error refuses the
// snapshot (as a snapshot that does not verify is refused).
type Derivation struct {
	Name  string
	Build func(v *View, meter *snapshots.Meter) (any, error)
}

// Live holds the snapshot being served and swaps it when CURRENT changes.
type Live struct {
	root string
	opts Options
	log  *slog.Logger
	cur  atomic.Pointer[View]
	gen  atomic.Uint64

	mu sync.Mutex // serializes swaps
	// rejected is the last id that failed to open, so that a bad snapshot is
	// tried and logged once, not on every poll.
	rejected string
	onSwap   []func(prev, next *View)

	swaps      atomic.Int64
	rejections sync.Map // reason -> *atomic.Int64
}

// Open verifies and opens the snapshot CURRENT names in root. It fails when
// there is none or it does not verify: a server never starts without a
// snapshot to answer from.
func Open(root string, o Options) (*Live, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	l := &Live{root: root, opts: o, log: o.Logger}
	id, err := snapshots.ReadCurrent(root)
	if err != nil {
		return nil, err
	}
	v, err := l.open(id, l.verifyAtStart, nil)
	if err != nil {
		return nil, fmt.Errorf("open snapshot %s: %w", id, err)
	}
	l.cur.Store(v)
	l.log.Info("serving snapshot", "id", id, "as_of", v.Reader.Manifest().AsOf)
	return l, nil
}

// Root returns the snapshots root.
func (l *Live) Root() string { return l.root }

// Acquire returns the live snapshot pinned for the caller: call Release.
func (l *Live) Acquire() *View {
	for {
		v := l.cur.Load()
		v.refs.Add(1)
		if l.cur.Load() == v {
			return v
		}
		v.Release()
	}
}

// Gen returns the generation of the live snapshot, without pinning it.
func (l *Live) Gen() uint64 { return l.cur.Load().Gen }

// RejectedID returns the last snapshot id refused ("" when the last swap
// succeeded).
func (l *Live) RejectedID() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rejected
}

// Swaps returns how many swaps this Live made.
func (l *Live) Swaps() int64 { return l.swaps.Load() }

// Rejections returns how many snapshots were refused, by reason ("verify":
// files or format; "open": a library or a derivation failed).
func (l *Live) Rejections() map[string]int64 {
	out := map[string]int64{}
	l.rejections.Range(func(k, v any) bool {
		out[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
	return out
}

// OnSwap registers f to run after each swap, with the previous and the new
// snapshot pinned for the duration of the call. Calls are made in
// registration order, one swap at a time; f must not call Check.
func (l *Live) OnSwap(f func(prev, next *View)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.onSwap = append(l.onSwap, f)
}

// Check swaps to the snapshot CURRENT names if it changed. A snapshot that
// fails to verify or open is refused, the old one keeps serving, and the
// error says why.
func (l *Live) Check() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	id, err := snapshots.ReadCurrent(l.root)
	if err != nil {
		return err
	}
	old := l.cur.Load()
	if id == old.ID() || id == l.rejected {
		return nil
	}
	v, err := l.open(id, l.verify, l.opts.Pacer)
	if err != nil {
		l.rejected = id
		reason := "open"
		if errors.Is(err, snapshots.ErrVerify) || errors.Is(err, snapshots.ErrFormat) {
			reason = "verify"
		}
		c, _ := l.rejections.LoadOrStore(reason, new(atomic.Int64))
		c.(*atomic.Int64).Add(1)
		l.log.Error("refused new snapshot; still serving the old one", "id", id, "serving", old.ID(), "reason", reason, "err", err)
		return fmt.Errorf("refuse snapshot %s: %w", id, err)
	}
	l.rejected = ""
	old.refs.Add(1) // pinned for the OnSwap listeners
	v.refs.Add(1)
	l.cur.Store(v)
	old.retired.Store(true)
	l.swaps.Add(1)
	l.log.Info("swapped snapshot", "id", id, "as_of", v.Reader.Manifest().AsOf, "previous", old.ID())
	for _, f := range l.onSwap {
		f(old, v)
	}
	v.Release()
	old.Release()
	return nil
}

// Watch polls CURRENT every interval (0: 1 s) until ctx ends.
func (l *Live) Watch(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			l.Check()
		}
	}
}

// Close retires the live snapshot: it is closed once its readers release
// it. Acquire must not be called after.
func (l *Live) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cur.Load().retire()
}

// verifyAtStart verifies a snapshot before anything is served: at full
// speed, unless the source verified it already.
func (l *Live) verifyAtStart(dir, id string) (*snapshots.Manifest, error) {
	if m, ok := l.verifiedBySource(dir, id); ok {
		return m, nil
	}
	return snapshots.Verify(dir)
}

// verify verifies a snapshot opened beside the live one: not again when the
// source hashed every file as it wrote them, else paced.
func (l *Live) verify(dir, id string) (*snapshots.Manifest, error) {
	if m, ok := l.verifiedBySource(dir, id); ok {
		return m, nil
	}
	return snapshots.VerifyPaced(dir, l.opts.Pacer)
}

// verifiedBySource returns the manifest of dir when the source verified
// snapshot id and dir's manifest is the one it verified.
func (l *Live) verifiedBySource(dir, id string) (*snapshots.Manifest, bool) {
	if l.opts.Source == nil {
		return nil, false
	}
	want, ok := l.opts.Source.Verified(id)
	if !ok {
		return nil, false
	}
	m, err := snapshots.ReadManifest(dir)
	if err != nil || snapshots.CheckManifest(dir, m) != nil || !maps.Equal(m.Files, want.Files) {
		return nil, false
	}
	return m, true
}

// open verifies (with verify) and opens root/<id>, then builds the
// derivations; pacer (nil: full speed) paces the loading as verify paces
// the hashing. Files damaged before their manifest was written verify but
// may make a library panic at open (Bleve does on a broken segment): that
// is an error wrapping ErrVerify too, so a bad snapshot is refused instead
// of taking the watcher, and the process, down.
func (l *Live) open(id string, verify func(dir, id string) (*snapshots.Manifest, error), pacer *snapshots.Pacer) (_ *View, err error) {
	dir := filepath.Join(l.root, id)
	m, err := verify(dir, id)
	if err != nil {
		return nil, err
	}
	meter := pacer.Begin()
	defer meter.End()
	var r *bolt.Reader
	var ix *index.Index
	var v *View
	defer func() {
		if p := recover(); p != nil {
			switch {
			case v != nil:
				v.close()
			default:
				if ix != nil {
					ix.Close()
				}
				if r != nil {
					r.Close()
				}
			}
			err = fmt.Errorf("%w: %s: damaged: %v", snapshots.ErrVerify, dir, p)
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
	v = &View{Reader: r, Index: ix, Gold: g, AsOf: m.AsOfDay(), Gen: l.gen.Add(1), Opened: time.Now(), managed: true}
	for _, d := range l.opts.Derive {
		x, err := d.Build(v, meter)
		if err != nil {
			v.close()
			return nil, fmt.Errorf("%w: %s: %s: %v", snapshots.ErrVerify, dir, d.Name, err)
		}
		v.derived = append(v.derived, derivedValue{name: d.Name, value: x})
	}
	return v, nil
}
