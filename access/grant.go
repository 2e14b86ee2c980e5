package access

import (
	"time"

	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
)

// Local admission against the shared counters (issue 35's rule, doc.go
// "Several replicas: shared counters").
//
// A replica answers a metered charge on its own when it holds a grant of the
// key's day (units the shared counter set aside for it) and its view of the
// shared bucket is not near empty; it then sends what it admitted in the
// background, several calls of a key in one entry and every key in one
// round trip, and tops its grant up in the same round trip. A key near a
// limit is charged exactly: a round trip that the answer waits for.
//
// The bound, per key and day, whatever the number of replicas:
//   - quota: the grants of all replicas together hold at most the slack
//     (slackOf: 1 % of the quota, at least 5 units), and are topped up only
//     while the counter plus every grant stays a slack below the quota. An
//     exact charge is allowed while the counter has room, so the day ends at
//     most the grants outstanding, a slack, past the quota.
//   - rate: a replica answers on its own at most batchOf calls that the
//     shared bucket has not taken yet, and only while its view of the
//     bucket (the last one the counter returned, refilled since, less its
//     own calls not taken yet) holds a batch: the bucket is overspent by at
//     most one batch per replica. Calls taken past empty are a debt that the
//     refill pays before the bucket admits again.

// slackOf is how far a fleet may take a key past its daily quota q: 1 % of
// it, at least 5 units.
func slackOf(q int) int64 { return max(int64(q)/100, 5) }

// wantOf is the grant a replica asks for (a quarter of the slack, at least
// 1 unit): four replicas hold full grants at once, more share what is left
// and charge exactly meanwhile.
func wantOf(q int) int64 { return max(slackOf(q)/4, 1) }

// batchOf is the most calls of a key a replica answers on its own before
// the shared bucket has taken them: a quarter of the burst, at least 1.
func batchOf(lim Limits) int64 { return max(int64(lim.Burst)/4, 1) }

const (
	// defaultSendInterval is Options.SendInterval's default.
	defaultSendInterval = time.Second
	// grantLease is how long a grant lives on Redis's clock unless renewed;
	// the replica uses it for half as long from the moment it asked (its own
	// monotonic clock), and renews it when a quarter is left.
	grantLease = 10 * time.Second
	// grantIdle is how long a key goes uncharged before its replica gives
	// its grant back.
	grantIdle = 2 * time.Second
)

// grantState is what this replica holds of a key's grant. Under the key's mu.
type grantState struct {
	tier    Tier          // the tier of the key's last charge
	day     snapshots.Day // the day of balance, unsent and sent
	balance int64         // units this replica may still admit on its own on day
	until   int64         // mono() after which the balance is not used (the lease)
	near    bool          // the counter said day's quota is near: charge exactly
	// unsent: admitted on its own on day, not sent yet; sent: in round
	// trips in flight (a background send, exact charges carrying them).
	unsent, unsentCalls int64
	sent, sentCalls     int64
	// drawn is what was admitted on its own since the send in flight began.
	drawn int64
	// epoch is the breaker's epoch the grant was topped up in: a grant
	// outlives no outage (the counter may have lost it).
	epoch *epoch
	// last is mono() of the key's last charge; active says that the key is
	// in the sender's list.
	last   int64
	active bool
	// waiting is how many charges wait for a send to admit them.
	waiting int64
}

// unconfirmed is what st admitted on its own on day d that the counter may
// not have yet. Call with st.mu held.
func (g *grantState) unconfirmed(d snapshots.Day) (units, calls int64) {
	if g.day != d {
		return 0, 0
	}
	return g.unsent + g.sent, g.unsentCalls + g.sentCalls
}

// mono is the monotonic time since r started, in nanoseconds: the clock of
// the grants' leases (Options.Now may be a test's or a benchmark's).
func (r *shared) mono() int64 { return int64(time.Since(r.t0)) }

// admission is what admit did with a charge.
type admission int8

const (
	// chargeExact: no grant of today, the key near a limit, or the grant's
	// lease or epoch over: charge exactly.
	chargeExact admission = iota
	// admittedLocally: answered on the grant (d is filled in).
	admittedLocally
	// waitSend: the grant holds but its balance or the batch is spent; the
	// next send tops it up (waitSend), then admit may answer. The caller
	// counts among the key's waiters until it calls admit again (waited) or
	// unwait.
	waitSend
)

// admit answers n units of st on its own grant when it may: far from the
// key's limits, with a grant of today and a batch left. waited says that the
// caller waited for a send (admit said waitSend). At most a batch of
// charges of a key wait at once: a send makes room for about a batch, and
// the others are charged exactly at once rather than woken for nothing.
func (r *shared) admit(st *keyState, t Tier, lim Limits, today snapshots.Day, nowNs, n int64, d *Decision, waited bool) admission {
	b := batchOf(lim)
	mono := r.mono()
	ep := r.epoch.Load()
	st.mu.Lock()
	g := &st.grant
	if waited {
		g.waiting--
	}
	if g.day != today || g.near || mono >= g.until || g.epoch != ep || st.rollover(today) != today {
		st.mu.Unlock()
		return chargeExact
	}
	if g.balance < n || g.unsentCalls+g.sentCalls >= b {
		if g.waiting >= b {
			st.mu.Unlock()
			return chargeExact
		}
		g.waiting++
		st.mu.Unlock()
		r.wake()
		return waitSend
	}
	st.bucket.refill(nowNs, lim.RatePerSec, lim.Burst)
	if st.bucket.tokens < float64(b) { // near the rate limit
		st.mu.Unlock()
		return chargeExact
	}
	st.bucket.tokens--
	g.balance -= n
	g.drawn += n
	g.unsent += n
	g.unsentCalls++
	g.tier, g.last = t, mono
	st.used += n
	st.pend.add(today, n)
	st.last = nowNs
	used, tokens := st.used, st.bucket.tokens
	wake := 2*g.unsentCalls >= b || 2*g.balance < wantOf(lim.DailyQuota)
	st.mu.Unlock()
	if wake {
		r.wake()
	}
	d.Allowed = true
	d.Remaining = max(0, lim.DailyQuota-int(used))
	d.RateRemaining = int(tokens)
	d.RateReset = fullSeconds(tokens, lim.RatePerSec, lim.Burst)
	return admittedLocally
}

// maxWaits is how many sends a charge waits for (admit said waitSend)
// before it is charged exactly: under a burst, a send tops the grant up by
// about a batch, which the first waiters take.
const maxWaits = 8

// unwait takes a charge that waited and will not call admit again off
// st's waiters.
func (r *shared) unwait(st *keyState) {
	st.mu.Lock()
	st.grant.waiting--
	st.mu.Unlock()
}

// waitSend waits for the end of the next send (or of the sender); false
// when the sender has stopped.
func (r *shared) waitSend() bool {
	r.mu.Lock()
	c := r.sendEnd
	r.mu.Unlock()
	select {
	case <-c:
		return true
	case <-r.sendDone:
		return false
	}
}

// wake asks the sender to send now.
func (r *shared) wake() {
	select {
	case r.wakec <- struct{}{}:
	default:
	}
}

// wantGrant notes an exact charge of st allowed on day today: the key
// becomes active (the sender asks for a grant of it) unless its quota is
// near. Call with st.mu held.
func (r *shared) wantGrant(st *keyState, t Tier, lim Limits, today snapshots.Day, mono int64) (wake bool) {
	g := &st.grant
	g.tier, g.last = t, mono
	if g.day == today && g.near {
		return false
	}
	if !g.active {
		g.active = true
		r.mu.Lock()
		r.incoming = append(r.incoming, st)
		r.mu.Unlock()
	}
	return g.day != today || g.unsent > 0 || 2*g.balance < wantOf(lim.DailyQuota)
}

// entry is one charge of a send: st's on day, carrying units and calls,
// returning ret.
type entry struct {
	st           *keyState
	day          snapshots.Day
	units, calls int64
	ret          int64
	nowNs        int64
}

// send sends what the active keys admitted on their own, tops their grants
// up and renews them, gives back the grants of keys gone idle or near their
// quota (all of them when final), in one Settle; when an answer says that a
// key holding a grant is near its quota, a second Settle gives it back at
// once. With the breaker open it drops every grant and makes what was
// admitted on them owed.
func (r *shared) send(final bool) {
	r.sendMu.Lock()
	defer r.sendMu.Unlock()
	defer func() { // wake the charges waiting for a send
		r.mu.Lock()
		close(r.sendEnd)
		r.sendEnd = make(chan struct{})
		r.mu.Unlock()
	}()
	r.mu.Lock()
	r.keys = append(r.keys, r.incoming...)
	r.incoming = r.incoming[:0]
	r.mu.Unlock()
	for pass := 0; pass < 2; pass++ {
		if !r.up() {
			r.drop()
			return
		}
		again, err := r.settle(final)
		if err != nil {
			r.trip(err)
			r.fail()
			r.drop()
			return
		}
		if !again {
			break
		}
	}
	// Keys with nothing held, owed to the counter or wanted leave the list.
	mono := r.mono()
	keep := r.keys[:0]
	for _, st := range r.keys {
		st.mu.Lock()
		g := &st.grant
		if g.balance == 0 && g.unsent == 0 && g.sent == 0 && (final || g.near || mono-g.last >= int64(grantIdle)) {
			g.active = false
		} else {
			keep = append(keep, st)
		}
		st.mu.Unlock()
	}
	clear(r.keys[len(keep):])
	r.keys = keep
}

// settle makes one Settle of the active keys' entries (build) and applies
// its answers. again: a key still holds a grant that its answer says is
// near its quota (to give back now). Call with r.sendMu held.
func (r *shared) settle(final bool) (again bool, err error) {
	now := r.now()
	today, nowNs := dayOf(now), now.UnixNano()
	mono, ep := r.mono(), r.epoch.Load()
	r.cs, r.es = r.cs[:0], r.es[:0]
	for _, st := range r.keys {
		st.mu.Lock()
		r.build(st, today, nowNs, mono, final)
		st.mu.Unlock()
	}
	if len(r.cs) == 0 {
		return false, nil
	}
	res, err := r.c.Settle(ep.ctx, r.cs)
	if err != nil {
		return false, err
	}
	for i, e := range r.es {
		e.st.mu.Lock()
		r.apply(e, r.cs[i], res[i], mono, ep)
		if g := &e.st.grant; g.day == e.day && g.near && g.balance > 0 {
			again = true
		}
		e.st.mu.Unlock()
	}
	return again, nil
}

// build adds st's entries to the send: the day it held a grant of when that
// day is over, and today's. Call with st.mu held.
func (r *shared) build(st *keyState, today snapshots.Day, nowNs, mono int64, final bool) {
	g := &st.grant
	lim := LimitsOf(g.tier)
	if g.day != today && g.sent == 0 { // a new day: settle the old one's
		if g.unsent > 0 || g.balance > 0 {
			r.add(st, g.day, lim, nowNs, 0, g.balance)
			g.sent, g.sentCalls = 0, 0 // apply skips an entry of a day gone
		}
		g.day, g.balance, g.near, g.until, g.drawn = today, 0, false, 0, 0
	}
	if g.day != today {
		return // an exact charge carries the old day's calls: next time
	}
	idle := mono-g.last >= int64(grantIdle)
	release := final || g.near || idle
	want := wantOf(lim.DailyQuota)
	switch {
	case release && g.unsent == 0 && g.balance == 0:
		return
	case !release && g.unsent == 0 && 2*g.balance >= want && g.until-mono > int64(grantLease)/8 && !r.nearView(st, today, lim):
		return // nothing to say: the grant holds, is not about to lapse, and the key is far from its quota
	}
	var ret int64
	if release {
		want, ret = 0, g.balance
	}
	r.add(st, today, lim, nowNs, want, ret)
}

// nearView says whether st's last view of the shared counter of today is
// within four slacks of its quota: a grant it holds is then renewed at every
// send, so that the replica learns within a send that the key is near (the
// other replicas may be spending the rest). Call with st.mu held.
func (r *shared) nearView(st *keyState, today snapshots.Day, lim Limits) bool {
	used := int64(0)
	if st.day == today {
		used = st.used
	}
	return int64(lim.DailyQuota)-used <= 4*slackOf(lim.DailyQuota)
}

// add appends st's charge of day d to the send: its unsent calls, a grant
// topped up to want, ret units given back. Call with st.mu held.
func (r *shared) add(st *keyState, d snapshots.Day, lim Limits, nowNs, want, ret int64) {
	g := &st.grant
	var floor int64
	if st.day == d {
		u, _ := g.unconfirmed(d)
		floor = max(0, st.admittedFloor(d)-u)
	}
	r.cs = append(r.cs, state.Charge{
		ID: st.id, Day: int(d), NowMs: nowNs / 1e6, RatePerSec: lim.RatePerSec, Burst: lim.Burst,
		Quota: int64(lim.DailyQuota), Floor: floor,
		Admitted: g.unsent, Calls: g.unsentCalls, Holder: r.id, Want: want, Return: ret,
		Slack: slackOf(lim.DailyQuota), LeaseMs: grantLease.Milliseconds(),
	})
	r.es = append(r.es, entry{st: st, day: d, units: g.unsent, calls: g.unsentCalls, ret: ret, nowNs: nowNs})
	g.sent += g.unsent
	g.sentCalls += g.unsentCalls
	g.unsent, g.unsentCalls = 0, 0
	g.balance -= ret
	g.drawn = 0
}

// apply records the answer to entry e of a send that began at mono in
// breaker epoch ep. Call with e.st.mu held.
func (r *shared) apply(e entry, c state.Charge, res state.ChargeResult, mono int64, ep *epoch) {
	st, g := e.st, &e.st.grant
	if e.day != g.day { // the old day's entry: what was sent is in
		return
	}
	g.sent -= e.units
	g.sentCalls -= e.calls
	// The counter holds res.Grant for this replica: what was admitted on its
	// own since the send began comes out of it.
	g.balance = res.Grant - g.drawn
	g.near = res.Near
	if c.Want > 0 {
		g.until, g.epoch = mono+int64(grantLease)/2, ep
	} else {
		g.until = 0 // given back
	}
	r.view(st, e.day, e.nowNs, res)
}

// view sets st's views of the shared counter and bucket from res, a result
// of day d at nowNs, with what this replica admitted on its own and has not
// sent. (What another round trip in flight carries may be in res or not:
// left out, the view errs low by it until the next answer; never below what
// this replica itself knows was admitted.) Call with st.mu held.
func (r *shared) view(st *keyState, d snapshots.Day, nowNs int64, res state.ChargeResult) {
	if st.day != d {
		return
	}
	g := &st.grant
	var units, calls int64
	if g.day == d {
		units, calls = g.unsent, g.unsentCalls
	}
	st.used = max(res.Used+units, st.admittedFloor(d))
	st.bucket = bucket{tokens: float64(res.TokensMilli)/1000 - float64(calls), last: nowNs}
}

// fail undoes a send whose Settle failed: what it carried is owed to the
// counter (it may have landed: counted twice then, the safe side).
func (r *shared) fail() {
	for _, e := range r.es {
		e.st.mu.Lock()
		g := &e.st.grant
		if e.units > 0 {
			e.st.owed.add(e.day, e.units)
		}
		if e.day == g.day {
			g.sent -= e.units
			g.sentCalls -= e.calls
		}
		e.st.mu.Unlock()
	}
}

// drop ends every grant this replica holds (the breaker is open: it counts
// locally): what was admitted on them and not sent is owed to the counter.
func (r *shared) drop() {
	for _, st := range r.keys {
		st.mu.Lock()
		g := &st.grant
		if g.unsent > 0 {
			st.owed.add(g.day, g.unsent)
		}
		g.unsent, g.unsentCalls, g.balance, g.until, g.drawn = 0, 0, 0, 0, 0
		g.active = false
		st.mu.Unlock()
	}
	clear(r.keys)
	r.keys = r.keys[:0]
}

// sendLoop sends every interval, and at once when a charge wakes it, until
// stop is closed.
func (r *shared) sendLoop(interval time.Duration, stop <-chan struct{}) {
	defer close(r.sendDone)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		case <-r.wakec:
		}
		r.send(false)
	}
}

// carry takes what st admitted on its own on day d and did not send, for an
// exact charge to carry (so that its answer counts them). Call with st.mu
// held.
func (g *grantState) carry(d snapshots.Day) (units, calls int64) {
	if g.day != d || g.unsent == 0 {
		return 0, 0
	}
	units, calls = g.unsent, g.unsentCalls
	g.sent += units
	g.sentCalls += calls
	g.unsent, g.unsentCalls = 0, 0
	return units, calls
}
