package access

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cardedge/cardedge/snapshots"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// chargeScript applies the token bucket and the day quota of one key, for
// each of a batch of charges in turn, atomically, in one round trip
// (EVALSHA, EVAL on a cold script cache).
//
// ARGV[1] is the day counter's TTL in seconds. Charge i (from 0) has
// KEYS[2i+1] its day counter (an integer), KEYS[2i+2] its bucket ("tokens
// ms", a string that expires once the bucket would be full again) and
// ARGV[6i+2..6i+7] now_ms, rate/s, burst, quota, units, floor. The reply is
// one string, "status used tokens*1000" per charge, comma-separated:
// status 0 quota refused, 1 rate refused, 2 allowed (used and tokens after
// the charge). floor, the state store's count of the day, seeds a missing
// counter (a Redis that lost its data). An allowed charge costs Redis three
// commands (MGET, SET, INCRBY), a refused one one. The keys of one batch
// span hash slots: one Redis (or Sentinel), not Redis Cluster, as for the
// state store.
const chargeScript = `
local cttl = ARGV[1]
local out = {}
for i = 0, #KEYS / 2 - 1 do
  local qk, bk, a = KEYS[2*i+1], KEYS[2*i+2], 1 + 6*i
  local now = tonumber(ARGV[a+1])
  local rate = tonumber(ARGV[a+2])
  local burst = tonumber(ARGV[a+3])
  local quota = tonumber(ARGV[a+4])
  local units = tonumber(ARGV[a+5])
  local floor = tonumber(ARGV[a+6])
  local v = redis.call('MGET', qk, bk)
  local used = tonumber(v[1] or '0')
  local fresh = not v[1]
  if fresh and floor > 0 then
    redis.call('SET', qk, floor, 'EX', cttl)
    used = floor
    fresh = false
  end
  local tokens, ts
  if v[2] then
    local sp = string.find(v[2], ' ', 1, true)
    if sp then
      tokens = tonumber(string.sub(v[2], 1, sp - 1))
      ts = tonumber(string.sub(v[2], sp + 1))
    end
  end
  if tokens == nil or ts == nil then
    tokens = burst
    ts = now
  end
  if now > ts then
    tokens = math.min(burst, tokens + (now - ts) * rate / 1000)
    ts = now
  end
  local status = 2
  if used + units > quota then
    status = 0
  elseif tokens < 1 then
    status = 1
  else
    tokens = tokens - 1
    redis.call('SET', bk, tostring(tokens) .. ' ' .. string.format('%d', ts), 'PX', math.ceil(burst / rate * 1000) + 1000)
    used = redis.call('INCRBY', qk, units)
    if fresh then
      redis.call('EXPIRE', qk, cttl)
    end
  end
  out[i + 1] = status .. ' ' .. string.format('%d', used) .. ' ' .. string.format('%d', math.floor(tokens * 1000))
end
return table.concat(out, ',')
`

// reconcileScript adds what a replica admitted while Redis was down: INCRBY
// when the counter exists; when it does not (Redis lost its data), it is set
// to max(floor, owed), floor being what the replica admitted that day (the
// state store's count plus the charges not yet flushed to it, which include
// the owed units).
// KEYS[1] day counter; ARGV owed, floor, counter TTL s.
const reconcileScript = `
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('INCRBY', KEYS[1], ARGV[1])
else
  redis.call('SET', KEYS[1], math.max(tonumber(ARGV[1]), tonumber(ARGV[2])))
end
return redis.call('EXPIRE', KEYS[1], ARGV[3])
`

const (
	redisQuota   = 0
	redisRate    = 1
	redisAllowed = 2

	counterTTL = 2 * 86400 // seconds a day counter lives in Redis
)

type redisResult struct {
	status      int64
	used        int64
	tokensMilli int64
}

// redisBackend is the shared store of day counters and buckets, behind a
// circuit breaker: the first failed call opens it, every call then counts
// locally without touching Redis, and the sync loop probes Redis (PING) once
// per tick; when it answers, the counts admitted meanwhile are added (INCRBY)
// and the breaker closes.
type redisBackend struct {
	c      *redis.Client
	script *redis.Script
	prefix string
	log    *slog.Logger
	down   atomic.Bool
	batch  batcher
}

func newRedis(url, prefix string, timeout time.Duration, log *slog.Logger) (*redisBackend, error) {
	o, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("access: Redis URL: %w", err)
	}
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.PoolTimeout = timeout, timeout, timeout, timeout
	o.MaxRetries = -1   // the breaker decides, not retries
	o.DialerRetries = 1 // a dial fails fast
	o.DisableIdentity = true
	o.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	r := &redisBackend{c: redis.NewClient(o), script: redis.NewScript(chargeScript), prefix: prefix, log: log}
	ctx, cancel := context.WithTimeout(context.Background(), 4*timeout)
	defer cancel()
	if err := r.c.Ping(ctx).Err(); err != nil {
		r.down.Store(true)
		log.Warn("access: Redis unreachable at start; counting locally until it answers", "err", err)
	} else {
		_ = r.script.Load(ctx, r.c).Err() // EVALSHA hits from the first call
	}
	return r, nil
}

func (r *redisBackend) up() bool { return !r.down.Load() }

// trip opens the breaker.
func (r *redisBackend) trip(err error) {
	if r.down.CompareAndSwap(false, true) {
		r.log.Warn("access: Redis failed; counting locally until it answers again", "err", err)
	}
}

// bucketKey returns the Redis key of the token bucket of key (or account)
// id: a string "tokens ms" (chargeScript).
func bucketKey(prefix, id string) string { return prefix + "{" + id + "}:t" }

// qkey returns the Redis key of st's counter of day d. Callers hold st.mu.
func (r *redisBackend) qkey(st *keyState, d snapshots.Day) string {
	if st.qkey == "" || st.qday != d {
		st.qkey = r.prefix + "{" + st.id + "}:q:" + strconv.Itoa(int(d))
		st.qday = d
	}
	return st.qkey
}

// admittedFloor is what st admitted on day d as far as this replica knows:
// the state store's count at the last sync plus what was admitted since and
// not yet flushed (pend). A Redis that lost its data is seeded with it; the
// file's count alone would drop the charges Redis admitted in the last sync
// interval before it died. Call with st.mu held.
func (st *keyState) admittedFloor(d snapshots.Day) int64 {
	return st.floor + st.pend.on(d)
}

// charge runs the script for key st. Charges that arrive while another
// round trip of this replica is in flight wait for it and then go together,
// in one script run (see batcher): under load, one command carries many
// charges; alone, a charge makes its round trip at once.
func (r *redisBackend) charge(st *keyState, today snapshots.Day, nowNs int64, lim Limits, n int64) (redisResult, error) {
	c := callPool.Get().(*chargeCall)
	st.mu.Lock()
	var floor int64
	if st.day == today {
		floor = st.admittedFloor(today)
	}
	c.keys[0], c.keys[1] = r.qkey(st, today), st.bkey
	st.mu.Unlock()
	c.args = append(c.args[:0], nowNs/1e6, lim.RatePerSec, lim.Burst, lim.DailyQuota, n, floor)
	r.batch.do(c, r.run)
	res, err := c.res, c.err
	c.res, c.err = redisResult{}, nil
	callPool.Put(c)
	return res, err
}

// chargeCall is one charge waiting for, or carried by, a round trip.
type chargeCall struct {
	keys [2]string
	args []any
	res  redisResult
	err  error
	lead chan bool // true: carry the next batch; false: res and err are set
}

var callPool = sync.Pool{New: func() any { return &chargeCall{args: make([]any, 0, 6), lead: make(chan bool, 1)} }}

// maxBatch bounds the charges of one round trip.
const maxBatch = 128

// batcher lets one charge at a time talk to Redis (the leader) and queues
// the others meanwhile; the leader carries its own charge and the queued
// ones (up to maxBatch) in one pipeline, then hands the lead to the first
// charge queued since, and wakes the ones it carried. No goroutine of its
// own, and nothing added to a charge that finds no round trip in flight.
type batcher struct {
	mu    sync.Mutex
	busy  bool
	queue []*chargeCall
}

// do runs c through run, alone or with others.
func (b *batcher) do(c *chargeCall, run func([]*chargeCall)) {
	b.mu.Lock()
	if b.busy {
		b.queue = append(b.queue, c)
		b.mu.Unlock()
		if !<-c.lead {
			return
		}
		b.mu.Lock()
	}
	b.busy = true
	n := min(len(b.queue), maxBatch-1)
	batch := make([]*chargeCall, 0, n+1)
	batch = append(append(batch, c), b.queue[:n]...)
	b.queue = append(b.queue[:0], b.queue[n:]...)
	b.mu.Unlock()

	run(batch)

	b.mu.Lock()
	if len(b.queue) > 0 {
		next := b.queue[0]
		b.queue = append(b.queue[:0], b.queue[1:]...)
		next.lead <- true
	} else {
		b.busy = false
	}
	b.mu.Unlock()
	for _, x := range batch[1:] {
		x.lead <- false
	}
}

// run charges a batch in one script run: one round trip, one command.
func (r *redisBackend) run(batch []*chargeCall) {
	if !r.up() { // tripped while this batch waited: count locally at once
		for _, c := range batch {
			c.err = errDown
		}
		return
	}
	keys := make([]string, 0, 2*len(batch))
	args := make([]any, 0, 1+6*len(batch))
	args = append(args, counterTTL)
	for _, c := range batch {
		keys = append(keys, c.keys[:]...)
		args = append(args, c.args...)
	}
	reply, err := r.script.Run(context.Background(), r.c, keys, args...).Text()
	for i, c := range batch {
		if err != nil {
			c.err = err
			continue
		}
		var one string
		one, reply, _ = strings.Cut(reply, ",")
		c.res, c.err = result(one)
		if i == len(batch)-1 && reply != "" {
			c.err = errReply
		}
	}
}

// errDown is a charge not sent: the breaker opened while it waited.
var errDown = errors.New("access: Redis is down (breaker open)")

// result decodes the script's reply to one charge: "status used tokens*1000".
func result(s string) (redisResult, error) {
	var res redisResult
	for _, p := range []*int64{&res.status, &res.used, &res.tokensMilli} {
		var f string
		f, s, _ = strings.Cut(s, " ")
		x, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return redisResult{}, errReply
		}
		*p = x
	}
	if s != "" {
		return redisResult{}, errReply
	}
	return res, nil
}

// errReply is a script reply this code cannot read.
var errReply = errors.New("access: Redis script: unexpected reply")

// dayCount reads the shared counter of st's day d (for Usage).
func (r *redisBackend) dayCount(st *keyState, d snapshots.Day) (int64, bool) {
	if !r.up() {
		return 0, false
	}
	st.mu.Lock()
	k := r.qkey(st, d)
	st.mu.Unlock()
	n, err := r.c.Get(context.Background(), k).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, true
	}
	if err != nil {
		r.trip(err)
		return 0, false
	}
	return n, true
}

// tick probes Redis when the breaker is open and adds the counts owed to it.
func (r *redisBackend) tick(states []*keyState) {
	if !r.up() {
		ctx, cancel := context.WithTimeout(context.Background(), 4*r.c.Options().ReadTimeout)
		err := r.c.Ping(ctx).Err()
		cancel()
		if err != nil {
			return
		}
		if n, err := r.reconcile(states); err != nil {
			r.log.Warn("access: Redis answers again but reconciling failed; retrying next sync", "err", err)
			return
		} else {
			r.down.Store(false)
			r.log.Info("access: Redis answers again; local counts reconciled", "units", n)
		}
	}
	// Charges that saw the breaker open just before it closed.
	if _, err := r.reconcile(states); err != nil {
		r.trip(err)
	}
}

// reconcile adds every count owed to Redis, in one pipeline. On failure the
// counts stay owed.
func (r *redisBackend) reconcile(states []*keyState) (int64, error) {
	type owed struct {
		st     *keyState
		counts []dayCount
		keys   []string
		floors []int64
	}
	var all []owed
	for _, st := range states {
		st.mu.Lock()
		c := st.owed.take()
		o := owed{st: st, counts: c}
		for _, x := range c {
			o.keys = append(o.keys, r.qkey(st, x.day))
			var floor int64
			if x.day == st.day {
				floor = st.admittedFloor(x.day)
			}
			o.floors = append(o.floors, floor)
		}
		st.mu.Unlock()
		if c != nil {
			all = append(all, o)
		}
	}
	if len(all) == 0 {
		return 0, nil
	}
	var total int64
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := r.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, o := range all {
			for i, c := range o.counts {
				p.Eval(ctx, reconcileScript, o.keys[i:i+1], c.n, o.floors[i], counterTTL)
				total += c.n
			}
		}
		return nil
	})
	if err != nil {
		// An INCRBY may have landed before the error: the counter may then
		// count it twice, never lose it (overcounting is the safe side).
		for _, o := range all {
			o.st.mu.Lock()
			for _, c := range o.counts {
				o.st.owed.add(c.day, c.n)
			}
			o.st.mu.Unlock()
		}
		return 0, err
	}
	return total, nil
}

func (r *redisBackend) close() error { return r.c.Close() }
