package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"runtime/debug"
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
	// SwapGCPercent, when above the process's GOGC, is GOGC while a
	// snapshot opens beside the live one (paced), restored once it swapped
	// or was refused; 0 leaves GOGC alone. While two snapshots are live a
	// collection marks both; with a value high enough for the opening to
	// make none, the first collection after the swap marks the new
	// snapshot alone (the old one is garbage then), but it comes right
	// after the swap. The opening allocates several times one snapshot's
	// live heap, most of it kept, so the peak heap grows little. Off by
	// default: on the shared benchmark machine its effect on the swap's
	// p99 did not stand out of the noise (docs/operations.md).
	SwapGCPercent int
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
	rejected   string
	onSwap     []func(prev, next *View)
	beforeSwap []beforeSwap
	last       OpenReport // of the last snapshot opened

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
	v, err := l.open(id, l.verifyAtStart, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("open snapshot %s: %w", id, err)
	}
	l.cur.Store(v)
	l.log.Info("serving snapshot", "id", id, "as_of", v.Reader.Manifest().AsOf, "phases", l.last.logValue())
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

// BeforeSwap registers f to run when a snapshot was opened beside the live
// one and is about to replace it (not at the start, when nothing is served
// yet): prev is the live snapshot, next the new one, both pinned for the
// call. f prepares what the first requests on next would otherwise pay for
// (edge warms its response cache: the entries the old snapshot's requests
// filled, made again on the new one); meter paces it as it paced the
// opening (f calls meter.Tick in long loops). The new snapshot serves once
// every f returned, in registration order; name names f's phase in
// LastOpen and the swap's log line. f must not call Check.
func (l *Live) BeforeSwap(name string, f func(prev, next *View, meter *snapshots.Meter)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.beforeSwap = append(l.beforeSwap, beforeSwap{name, f})
}

type beforeSwap struct {
	name string
	f    func(prev, next *View, meter *snapshots.Meter)
}

// OpenReport says where the opening of a snapshot went: its phases in
// order, each with its wall time and, when paced, the CPU time the opening
// thread spent in it.
type OpenReport struct {
	ID      string
	Started time.Time
	// Paced is whether the opening was paced (a swap with a Pacer).
	Paced  bool
	Phases []Phase
	// Longest is the longest CPU time the paced opening ran without a
	// pause (a call that does not Tick): requests on the same processor
	// waited that long.
	Longest time.Duration
}

// Phase is one step of an opening: "verify", "reader" (the bbolt files and
// the catalog loaded), "index" (Bleve and the typeahead), "gold", each
// Derivation ("derive NAME") and each BeforeSwap ("before NAME").
type Phase struct {
	Name      string
	Wall, CPU time.Duration
	// Longest is the phase's longest unpaced stretch (Meter.Longest).
	Longest time.Duration
}

// LastOpen returns the report of the last snapshot opened (at the start or
// by a swap, refused or not).
func (l *Live) LastOpen() OpenReport {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.last
	r.Phases = append([]Phase(nil), r.Phases...)
	return r
}

// phaseLog is a Phase in a log line (JSON).
type phaseLog struct {
	Name      string  `json:"name"`
	WallMs    float64 `json:"wall_ms"`
	CPUMs     float64 `json:"cpu_ms,omitempty"`
	LongestMs float64 `json:"longest_ms,omitempty"`
}

func (r OpenReport) logValue() []phaseLog {
	out := make([]phaseLog, len(r.Phases))
	for i, p := range r.Phases {
		out[i] = phaseLog{p.Name, ms(p.Wall), ms(p.CPU), ms(p.Longest)}
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

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
	restore := l.raiseGC()
	v, err := l.open(id, l.verify, l.opts.Pacer, old)
	defer restore() // after the swap (or the refusal) and its listeners
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
	l.log.Info("swapped snapshot", "id", id, "as_of", v.Reader.Manifest().AsOf, "previous", old.ID(),
		"opened", l.last.Started, "phases", l.last.logValue(), "longest_unpaced_ms", ms(l.last.Longest))
	for _, f := range l.onSwap {
		f(old, v)
	}
	v.Release()
	old.Release()
	return nil
}

// raiseGC sets GOGC to Options.SwapGCPercent for a paced opening and
// returns what restores it.
func (l *Live) raiseGC() (restore func()) {
	pct := l.opts.SwapGCPercent
	if p := l.opts.Pacer; pct <= 0 || p == nil || p.Share <= 0 || p.Share >= 1 { // off, or not paced
		return func() {}
	}
	prev := debug.SetGCPercent(pct)
	if prev < 0 || prev >= pct { // off, or already as high
		debug.SetGCPercent(prev)
		return func() {}
	}
	return func() { debug.SetGCPercent(prev) }
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
// derivations and, when prev is the live snapshot it is to replace, runs
// the BeforeSwap functions; pacer (nil: full speed) paces the loading as
// verify paces the hashing. Files damaged before their manifest was written
// verify but may make a library panic at open (Bleve does on a broken
// segment): that is an error wrapping ErrVerify too, so a bad snapshot is
// refused instead of taking the watcher, and the process, down. The
// phases are timed into l.last.
func (l *Live) open(id string, verify func(dir, id string) (*snapshots.Manifest, error), pacer *snapshots.Pacer, prev *View) (_ *View, err error) {
	dir := filepath.Join(l.root, id)
	rep := OpenReport{ID: id, Started: time.Now()}
	defer func() { l.last = rep }()
	m, err := verify(dir, id) // paced in steps of its own
	if err != nil {
		return nil, err
	}
	// The verification's CPU time is the pacer's, not the meter's.
	meter := pacer.Begin()
	defer meter.End()
	rep.Paced = meter != nil
	last, lastCPU := time.Now(), meter.Busy()
	rep.Phases = append(rep.Phases, Phase{Name: "verify", Wall: last.Sub(rep.Started)})
	meter.Longest() // from here
	phase := func(name string) {
		now, cpu, long := time.Now(), meter.Busy(), meter.Longest()
		rep.Phases = append(rep.Phases, Phase{Name: name, Wall: now.Sub(last), CPU: cpu - lastCPU, Longest: long})
		rep.Longest = max(rep.Longest, long)
		last, lastCPU = now, cpu
	}
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
	if meter != nil {
		snapshots.Readahead(dir, m) // beside the live snapshot: its pages read outside the process
	}
	if r, err = bolt.OpenMetered(dir, m, meter); err != nil {
		return nil, err
	}
	phase("reader")
	if ix, err = index.Open(dir); err != nil {
		r.Close()
		return nil, fmt.Errorf("open index of %s: %w", id, err)
	}
	phase("index")
	g, err := gold.Open(filepath.Join(dir, "gold.sqlite"))
	if err != nil {
		ix.Close()
		r.Close()
		return nil, fmt.Errorf("open gold tables of %s: %w", id, err)
	}
	phase("gold")
	v = &View{Reader: r, Index: ix, Gold: g, AsOf: m.AsOfDay(), Gen: l.gen.Add(1), Opened: time.Now(), managed: true}
	for _, d := range l.opts.Derive {
		x, err := d.Build(v, meter)
		if err != nil {
			v.close()
			return nil, fmt.Errorf("%w: %s: %s: %v", snapshots.ErrVerify, dir, d.Name, err)
		}
		v.derived = append(v.derived, derivedValue{name: d.Name, value: x})
		phase("derive " + d.Name)
	}
	if prev != nil {
		for _, b := range l.beforeSwap {
			b.f(prev, v, meter)
			phase("before " + b.name)
		}
	}
	return v, nil
}
