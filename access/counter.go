package access

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
)

// Counter shares the day counters and token buckets of keys (and of
// accounts' chat) between the replicas of a fleet, so that a quota and a
// rate limit are one across them: state/redis's Counter, over the state
// store's Redis client. An error means it could not be reached (or answered
// too late): the Service then counts locally until it answers again.
type Counter interface {
	// Charge applies c atomically: what the caller admitted on its own
	// recorded, then a token taken and the units counted, or nothing more
	// changed and the status says which limit refused.
	Charge(ctx context.Context, c state.Charge) (state.ChargeResult, error)
	// Settle applies cs in order (each as Charge does): a replica's
	// background send of what it admitted on its own, with its grants.
	Settle(ctx context.Context, cs []state.Charge) ([]state.ChargeResult, error)
	// DayCount returns id's counter of day (0 when there is none).
	DayCount(ctx context.Context, id string, day int) (int64, error)
	// Reconcile adds what was admitted while it could not be reached, and
	// returns the units added.
	Reconcile(ctx context.Context, owed []state.Owed) (int64, error)
	// Ping reports whether it answers.
	Ping(ctx context.Context) error
}

// shared is the Counter behind a circuit breaker: the first failed call
// opens it, every charge then counts locally without touching the Counter
// (what it admits is owed), and the sync loop pings once per tick; when the
// Counter answers, what was owed is added and the breaker closes.
//
// Charges carry the breaker's epoch as their context: when the breaker
// opens, the epoch is cancelled, so that charges queued behind a failing
// round trip fail at once instead of each waiting for a timeout.
//
// With local admission (grant.go), it also holds this replica's grants and
// sends what it admitted on its own in the background.
type shared struct {
	c     Counter
	log   *slog.Logger
	down  atomic.Bool
	epoch atomic.Pointer[epoch]

	local    bool             // local admission on (Options.SendInterval >= 0)
	now      func() time.Time // Options.Now: the days and buckets
	t0       time.Time        // mono's origin
	id       string           // this replica's grant holder name
	wakec    chan struct{}    // a charge asks for a send now
	sendDone chan struct{}    // closed when sendLoop returns

	mu       sync.Mutex
	incoming []*keyState   // keys made active since the last send
	sendEnd  chan struct{} // closed when the send in flight (or the next) ends

	sendMu sync.Mutex // one send at a time; guards the fields below
	keys   []*keyState
	cs     []state.Charge
	es     []entry
}

// pingTimeout bounds the pings of a breaker's probe.
const pingTimeout = time.Second

type epoch struct {
	ctx    context.Context
	cancel context.CancelFunc
}

func newShared(c Counter, log *slog.Logger, now func() time.Time, local bool) *shared {
	var id [8]byte
	rand.Read(id[:])
	r := &shared{c: c, log: log, local: local, now: now, t0: time.Now(), id: "r" + hex.EncodeToString(id[:]),
		wakec: make(chan struct{}, 1), sendDone: make(chan struct{}), sendEnd: make(chan struct{})}
	r.newEpoch()
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	if err := c.Ping(ctx); err != nil {
		r.trip(err)
		log.Warn("access: the shared counters are unreachable at start; counting locally until they answer", "err", err)
	}
	return r
}

func (r *shared) newEpoch() {
	ctx, cancel := context.WithCancel(context.Background())
	r.epoch.Store(&epoch{ctx: ctx, cancel: cancel})
}

func (r *shared) up() bool { return !r.down.Load() }

// trip opens the breaker.
func (r *shared) trip(err error) {
	if r.down.CompareAndSwap(false, true) {
		r.epoch.Load().cancel()
		r.log.Warn("access: the shared counters failed; counting locally until they answer again", "err", err)
	}
}

// charge runs one exact charge of key st, carrying the units and calls st
// admitted on its own and did not send yet (so that the answer counts them);
// on an error the caller hands them back (uncarry).
func (r *shared) charge(st *keyState, today snapshots.Day, nowNs int64, lim Limits, n int64) (res state.ChargeResult, units, calls int64, err error) {
	st.mu.Lock()
	var floor int64
	if st.day == today {
		units, calls = st.grant.carry(today)
		u, _ := st.grant.unconfirmed(today)
		floor = max(0, st.admittedFloor(today)-u)
	}
	st.mu.Unlock()
	res, err = r.c.Charge(r.epoch.Load().ctx, state.Charge{
		ID: st.id, Day: int(today), NowMs: nowNs / 1e6, RatePerSec: lim.RatePerSec, Burst: lim.Burst,
		Quota: int64(lim.DailyQuota), Units: n, Floor: floor, Admitted: units, Calls: calls,
	})
	return res, units, calls, err
}

// uncarry takes back what a failed exact charge carried: owed to the
// counter (it may have landed: counted twice then, the safe side).
func (r *shared) uncarry(st *keyState, today snapshots.Day, units, calls int64) {
	if units == 0 && calls == 0 {
		return
	}
	st.mu.Lock()
	if g := &st.grant; g.day == today {
		g.sent -= units
		g.sentCalls -= calls
	}
	st.owed.add(today, units)
	st.mu.Unlock()
}

// admittedFloor is what st admitted on day d as far as this replica knows:
// the state store's count at the last sync plus what was admitted since and
// not yet flushed (pend, and what a sync is flushing now). A Counter that
// lost its data is seeded with it; the store's count alone would drop the
// charges the Counter admitted in the last sync interval before it died.
// Call with st.mu held.
func (st *keyState) admittedFloor(d snapshots.Day) int64 {
	n := st.floor + st.pend.on(d)
	for _, c := range st.flushing {
		if c.day == d {
			n += c.n
		}
	}
	return n
}

// dayCount reads the shared counter of st's day d (for Usage).
func (r *shared) dayCount(st *keyState, d snapshots.Day) (int64, bool) {
	if !r.up() {
		return 0, false
	}
	n, err := r.c.DayCount(r.epoch.Load().ctx, st.id, int(d))
	if err != nil {
		r.trip(err)
		return 0, false
	}
	return n, true
}

// tick pings the Counter when the breaker is open and adds the counts owed
// to it.
func (r *shared) tick(states []*keyState) {
	if !r.up() {
		ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
		err := r.c.Ping(ctx)
		cancel()
		if err != nil {
			return
		}
		n, err := r.reconcile(states)
		if err != nil {
			r.log.Warn("access: the shared counters answer again but reconciling failed; retrying next sync", "err", err)
			return
		}
		r.newEpoch()
		r.down.Store(false)
		r.log.Info("access: the shared counters answer again; local counts reconciled", "units", n)
	}
	// Charges that saw the breaker open just before it closed.
	if _, err := r.reconcile(states); err != nil {
		r.trip(err)
	}
}

// reconcile adds every count owed to the Counter. On failure the counts stay
// owed (a Reconcile that failed mid-way may have added some: the counter may
// then count them twice, never lose them; overcounting is the safe side).
func (r *shared) reconcile(states []*keyState) (int64, error) {
	type taken struct {
		st     *keyState
		counts []dayCount
	}
	var all []taken
	var owed []state.Owed
	for _, st := range states {
		st.mu.Lock()
		c := st.owed.take()
		for _, x := range c {
			var floor int64
			if x.day == st.day {
				floor = st.admittedFloor(x.day)
			}
			owed = append(owed, state.Owed{ID: st.id, Day: int(x.day), Units: x.n, Floor: floor})
		}
		st.mu.Unlock()
		if c != nil {
			all = append(all, taken{st, c})
		}
	}
	if len(owed) == 0 {
		return 0, nil
	}
	n, err := r.c.Reconcile(context.Background(), owed)
	if err != nil {
		for _, t := range all {
			t.st.mu.Lock()
			for _, c := range t.counts {
				t.st.owed.add(c.day, c.n)
			}
			t.st.mu.Unlock()
		}
		return 0, err
	}
	return n, nil
}
