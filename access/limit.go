package access

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cardedge/cardedge/snapshots"
)

// bucket is a token bucket. last == 0 means never used (full).
type bucket struct {
	tokens float64
	last   int64 // unix nanoseconds of the last refill
}

// refill adds the tokens earned since the last refill. A clock that goes back
// earns nothing.
func (b *bucket) refill(now int64, rate, burst float64) {
	if b.last == 0 {
		b.tokens, b.last = burst, now
		return
	}
	if now > b.last {
		b.tokens = math.Min(burst, b.tokens+float64(now-b.last)*rate/1e9)
		b.last = now
	}
}

// full reports whether the bucket would be full at now (so it can be dropped).
func (b *bucket) full(now int64, rate, burst float64) bool {
	return b.last == 0 || b.tokens+float64(now-b.last)*rate/1e9 >= burst
}

// waitSeconds is the whole number of seconds (at least 1) until a bucket
// holding tokens has one token again.
func waitSeconds(tokens, rate float64) int {
	s := int(math.Ceil((1 - tokens) / rate))
	if s < 1 {
		s = 1
	}
	return s
}

// fullSeconds is the whole number of seconds until the bucket is full again.
func fullSeconds(tokens, rate, burst float64) int {
	if tokens >= burst {
		return 0
	}
	return int(math.Ceil((burst - tokens) / rate))
}

// dayCount is a count of one day.
type dayCount struct {
	day snapshots.Day
	n   int64
}

// dayCounts accumulates counts per day; in steady state (one day) it is one
// add and never allocates.
type dayCounts struct {
	cur   dayCount
	older []dayCount
}

func (c *dayCounts) add(d snapshots.Day, n int64) {
	if c.cur.n != 0 && c.cur.day != d {
		c.older = append(c.older, c.cur)
		c.cur.n = 0
	}
	c.cur.day = d
	c.cur.n += n
}

// take returns every count and resets c.
func (c *dayCounts) take() []dayCount {
	if c.cur.n == 0 && len(c.older) == 0 {
		return nil
	}
	out := append(c.older, c.cur)
	if c.cur.n == 0 {
		out = out[:len(out)-1]
	}
	c.older, c.cur = nil, dayCount{}
	return out
}

// on returns the count of day d.
func (c *dayCounts) on(d snapshots.Day) int64 {
	var n int64
	if c.cur.day == d {
		n = c.cur.n
	}
	for _, o := range c.older {
		if o.day == d {
			n += o.n
		}
	}
	return n
}

// keyState is the mutable state of one key. It outlives reloads of the key
// table, so counts and buckets survive a key change or a revocation.
type keyState struct {
	id string
	// account marks the chat usage of an account (accountState): no
	// last-used time is kept for it.
	account bool

	mu     sync.Mutex
	bucket bucket
	day    snapshots.Day // the day used counts
	used   int64         // units spent on day, by every process as far as known
	floor  int64         // the state store's count of day at the last sync
	pend   dayCounts     // admitted here and not yet in the state store
	// flushing is what a sync took from pend and is adding to the state
	// store (nil outside a sync): still admitted, not yet in floor.
	flushing []dayCount
	owed     dayCounts  // admitted here while the shared counters were down, not yet in them
	grant    grantState // this replica's grant of the shared counters (grant.go)

	// exp is the key's expiry in unix nanoseconds (0: never), set when the
	// key table is installed; Authenticate and Charge read it.
	exp atomic.Int64
	// last is when the key was last charged (unix nanoseconds, 0: not by
	// this process); refused holds the refusals not yet in the state store,
	// by Refusal. Both under mu.
	last    int64
	refused [numRefusals]dayCounts
	// lastSaved is the last-used time the state store has (unix
	// nanoseconds), as this process last wrote or read it; under the
	// Service's syncMu.
	lastSaved int64
}

// rollover moves the day counter to today; a clock going back keeps the day.
// It returns the day to count on. Callers hold mu.
func (st *keyState) rollover(today snapshots.Day) snapshots.Day {
	if today > st.day {
		st.day, st.used, st.floor = today, 0, 0
	}
	return st.day
}

// addrShards holds the Playground buckets, one per client address.
const numAddrShards = 64

type addrShard struct {
	mu sync.Mutex
	m  map[string]*bucket
	_  [40]byte // keep shards on separate cache lines
}

func addrHash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// sweep drops the buckets that are full again: they are equivalent to a fresh
// one, so the map only holds addresses seen in the last second or so.
func (sh *addrShard) sweep(now int64, rate, burst float64) {
	sh.mu.Lock()
	for k, b := range sh.m {
		if b.full(now, rate, burst) {
			delete(sh.m, k)
		}
	}
	sh.mu.Unlock()
}

// secondsToMidnight returns the seconds from t to the next 00:00 UTC (1 to
// 86400).
func secondsToMidnight(t time.Time) int {
	s := t.Unix() % 86400
	if s < 0 {
		s += 86400
	}
	return int(86400 - s)
}

// dayOf is snapshots.DayOf without the UTC conversion's cost.
func dayOf(t time.Time) snapshots.Day {
	s := t.Unix()
	d := s / 86400
	if s%86400 < 0 {
		d--
	}
	return snapshots.Day(d)
}
