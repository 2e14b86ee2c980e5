package redis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cardedge/cardedge/state"
	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// chargeScript applies a batch of charges (state.Charge), each in turn,
// atomically, in one round trip (EVALSHA, EVAL on a cold script cache).
//
// ARGV[1] is the day counter's TTL in seconds. Charge i (from 0) has
// KEYS[3i+1] its day counter (an integer), KEYS[3i+2] its bucket ("tokens
// ms", a string that expires once the bucket would be full again),
// KEYS[3i+3] its day's grants (a hash: holder -> "balance expiry_ms", on
// Redis's clock; any key when it names no holder) and ARGV[14i+2..14i+15]
// now_ms, rate/s, burst, quota, units, floor, admitted, calls, holder, want,
// return, slack, lease_ms, times. The reply is one string, "status used
// tokens*1000 grant near ok" per charge, comma-separated: ok of the times
// calls of units each were allowed, in turn, until one was refused; status
// 0 quota refused, 1 rate refused, 2 allowed (used and tokens after the
// charge).
//
// In order: floor seeds a missing counter (a Redis that lost its data);
// admitted units and calls (answered by the caller on its own) are added and
// taken without a check (the bucket may go below zero); the holder's grant
// loses them and what it returns; units, when above 0, are checked against
// the quota and the bucket; the grant is topped up towards want while every
// grant of the day together holds at most slack and the counter plus the
// grants stay slack below the quota ("near" past that). Expired grants are
// dropped as they are met. The keys of one batch span hash slots: one Redis
// (or Sentinel), not Redis Cluster, as for the state store.
const chargeScript = `
local cttl = ARGV[1]
local out = {}
local rnow
for i = 0, #KEYS / 3 - 1 do
  local qk, bk, gk, a = KEYS[3*i+1], KEYS[3*i+2], KEYS[3*i+3], 1 + 14*i
  local now = tonumber(ARGV[a+1])
  local rate = tonumber(ARGV[a+2])
  local burst = tonumber(ARGV[a+3])
  local quota = tonumber(ARGV[a+4])
  local units = tonumber(ARGV[a+5])
  local floor = tonumber(ARGV[a+6])
  local admitted = tonumber(ARGV[a+7])
  local calls = tonumber(ARGV[a+8])
  local holder = ARGV[a+9]
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
  local taken = false
  if admitted > 0 then
    used = redis.call('INCRBY', qk, admitted)
    if fresh then
      redis.call('EXPIRE', qk, cttl)
      fresh = false
    end
  end
  if calls > 0 then
    tokens = tokens - calls
    taken = true
  end
  local mine, others = 0, 0
  if holder ~= '' then
    if not rnow then
      local t = redis.call('TIME')
      rnow = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    end
    local g = redis.call('HGETALL', gk)
    for j = 1, #g, 2 do
      local sp = string.find(g[j+1], ' ', 1, true)
      local bal = tonumber(string.sub(g[j+1], 1, sp - 1))
      local exp = tonumber(string.sub(g[j+1], sp + 1))
      if g[j] == holder then
        if exp > rnow then mine = bal end
      elseif exp <= rnow then
        redis.call('HDEL', gk, g[j])
      else
        others = others + bal
      end
    end
    mine = math.max(0, mine - admitted - tonumber(ARGV[a+11]))
  end
  local status = 2
  local ok = 0
  if units > 0 then
    for r = 1, tonumber(ARGV[a+14]) do
      if used + (ok + 1) * units > quota then
        status = 0
        break
      elseif tokens < 1 then
        status = 1
        break
      end
      tokens = tokens - 1
      ok = ok + 1
    end
    if ok > 0 then
      taken = true
      used = redis.call('INCRBY', qk, ok * units)
      if fresh then
        redis.call('EXPIRE', qk, cttl)
      end
    end
  end
  if taken then
    redis.call('SET', bk, tostring(tokens) .. ' ' .. string.format('%d', ts), 'PX', math.ceil((burst - tokens) / rate * 1000) + 1000)
  end
  local near = 0
  if holder ~= '' then
    local want = tonumber(ARGV[a+10])
    local slack = tonumber(ARGV[a+12])
    local lease = tonumber(ARGV[a+13])
    local room = quota - slack - used - others - mine
    if want > mine and room > 0 then
      local add = math.min(want - mine, room, slack - others - mine)
      if add > 0 then
        mine = mine + add
        room = room - add
      end
    end
    if room < 0 or (mine < want and room <= 0) then
      near = 1
    end
    if mine > 0 then
      redis.call('HSET', gk, holder, string.format('%d', mine) .. ' ' .. string.format('%d', rnow + lease))
      redis.call('PEXPIRE', gk, lease + 1000)
    else
      redis.call('HDEL', gk, holder)
    end
  end
  out[i + 1] = status .. ' ' .. string.format('%d', used) .. ' ' .. string.format('%d', math.floor(tokens * 1000)) .. ' ' .. string.format('%d', mine) .. ' ' .. near .. ' ' .. ok
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

// counterTTL is how long a day counter lives in Redis, in seconds.
const counterTTL = 2 * 86400

// CounterOptions configure a Counter. Every zero value has a documented
// default.
type CounterOptions struct {
	// Prefix prefixes every Redis key of the counters; empty means
	// "cardedge:" (the prefix they had before they moved beside the state
	// store, so that replicas of both versions share them during a rolling
	// upgrade).
	Prefix string
	// Timeout bounds one round trip (a batch of charges, a read); zero
	// means 50 ms. A Redis slower than that is an error: the access layer
	// then counts locally (its breaker).
	Timeout time.Duration
}

// Counter keeps the access layer's shared day counters, token buckets and
// grants in Redis (state.Charge): one counter "<prefix>{<id>}:q:<day>" (an
// integer that lives two days), one bucket "<prefix>{<id>}:t" (a string
// "tokens ms" that expires once the bucket would be full again) and one
// hash of grants "<prefix>{<id>}:g:<day>" (holder -> "balance expiry_ms",
// each grant expiring on Redis's clock unless renewed, the hash a second
// after the last renewal) per key or account. Charges made while another
// round trip of this Counter is in flight wait for it and then go together,
// in one script run: under load, one command carries many charges; alone, a
// charge makes its round trip at once. Settle sends a replica's background
// batch. Its methods are safe for concurrent use.
type Counter struct {
	c       *goredis.Client
	own     bool
	prefix  string
	timeout time.Duration
	script  *goredis.Script
	batch   batcher
	calls   sync.Pool // *chargeCall
}

// NewCounter returns the counters over client c (which the caller closes):
// the state store's own client in a fleet (Store.Counter).
func NewCounter(c *goredis.Client, o CounterOptions) *Counter {
	if o.Prefix == "" {
		o.Prefix = "cardedge:"
	}
	if o.Timeout <= 0 {
		o.Timeout = 50 * time.Millisecond
	}
	k := &Counter{c: c, prefix: o.Prefix, timeout: o.Timeout, script: goredis.NewScript(chargeScript),
		calls: sync.Pool{New: func() any { return &chargeCall{args: make([]any, 0, argsPerCharge), lead: make(chan bool, 1)} }}}
	ctx, cancel := context.WithTimeout(context.Background(), 4*o.Timeout)
	defer cancel()
	_ = k.script.Load(ctx, c).Err() // EVALSHA hits from the first call; a Redis down now loads it later (EVAL)
	return k
}

// OpenCounter connects to the Redis at url for the counters alone (a node
// whose state is a file while its quotas are shared: serve --state FILE
// --redis URL). It does not fail when Redis does not answer yet: the calls
// do, and the access layer counts locally meanwhile.
func OpenCounter(url string, o CounterOptions) (*Counter, error) {
	opt, err := goredis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("state/redis: counters: %w", err)
	}
	if o.Timeout <= 0 {
		o.Timeout = 50 * time.Millisecond
	}
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout, opt.PoolTimeout = o.Timeout, o.Timeout, o.Timeout, o.Timeout
	opt.MaxRetries = -1   // the access layer's breaker decides, not retries
	opt.DialerRetries = 1 // a dial fails fast
	opt.DisableIdentity = true
	opt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	k := NewCounter(goredis.NewClient(opt), o)
	k.own = true
	return k, nil
}

// Counter returns the access layer's counters over the store's client: one
// Redis client per process.
func (s *Store) Counter(o CounterOptions) *Counter { return NewCounter(s.c, o) }

// Close closes the client when OpenCounter made it.
func (k *Counter) Close() error {
	if k.own {
		return k.c.Close()
	}
	return nil
}

// bucketKey returns the Redis key of the token bucket of id.
func (k *Counter) bucketKey(id string) string { return k.prefix + "{" + id + "}:t" }

// grantsKey returns the Redis key of id's grants of day.
func (k *Counter) grantsKey(id string, day int) string {
	return k.prefix + "{" + id + "}:g:" + strconv.Itoa(day)
}

// dayKey returns the Redis key of id's counter of day.
func (k *Counter) dayKey(id string, day int) string {
	return k.prefix + "{" + id + "}:q:" + strconv.Itoa(day)
}

// Ping reports whether Redis answers.
func (k *Counter) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 4*k.timeout)
	defer cancel()
	return k.c.Ping(ctx).Err()
}

// Charge applies c atomically (chargeScript), batched with the charges of
// other goroutines in flight.
func (k *Counter) Charge(ctx context.Context, c state.Charge) (state.ChargeResult, error) {
	call := k.calls.Get().(*chargeCall)
	k.set(call, c)
	k.batch.do(call, func(batch []*chargeCall) { k.run(ctx, batch) })
	res, err := call.res, call.err
	call.res, call.err = state.ChargeResult{}, nil
	k.calls.Put(call)
	return res, err
}

// Settle applies cs in order, in script runs of up to maxBatch charges made
// one after the other (not batched with Charge's): the access layer's
// background sends of what a replica admitted on its own, with its grants.
// On an error, the charges of the runs before it were applied and the others
// may have been.
func (k *Counter) Settle(ctx context.Context, cs []state.Charge) ([]state.ChargeResult, error) {
	out := make([]state.ChargeResult, len(cs))
	calls := make([]chargeCall, min(len(cs), maxBatch))
	batch := make([]*chargeCall, 0, len(calls))
	for i := 0; i < len(cs); i += len(batch) {
		batch = batch[:0]
		for j := range min(len(cs)-i, maxBatch) {
			k.set(&calls[j], cs[i+j])
			batch = append(batch, &calls[j])
		}
		k.run(ctx, batch)
		for j, c := range batch {
			if c.err != nil {
				return nil, c.err
			}
			out[i+j] = c.res
		}
	}
	return out, nil
}

// set fills call with the keys and arguments of c.
func (k *Counter) set(call *chargeCall, c state.Charge) {
	call.keys[0], call.keys[1] = k.dayKey(c.ID, c.Day), k.bucketKey(c.ID)
	call.keys[2] = call.keys[1] // not read without a holder
	if c.Holder != "" {
		call.keys[2] = k.grantsKey(c.ID, c.Day)
	}
	call.args = append(call.args[:0], c.NowMs, c.RatePerSec, c.Burst, c.Quota, c.Units, c.Floor,
		c.Admitted, c.Calls, c.Holder, c.Want, c.Return, c.Slack, c.LeaseMs, 1)
	call.plain = c.Units > 0 && c.Admitted == 0 && c.Calls == 0 && c.Holder == ""
	call.c = c
}

// chargeCall is one charge waiting for, or carried by, a round trip.
type chargeCall struct {
	keys [3]string
	args []any
	// c is the charge; plain says that it only decides Units (nothing
	// admitted locally, no grant): run merges the plain charges of one
	// counter with the same limits into one entry of the script.
	c     state.Charge
	plain bool
	res   state.ChargeResult
	err   error
	lead  chan bool // true: carry the next batch; false: res and err are set
}

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

// run charges a batch in one script run: one round trip, one command. A
// batch whose context ended while it waited (the access layer cancels it when
// it stops trusting Redis) fails at once, without a round trip.
func (k *Counter) run(ctx context.Context, batch []*chargeCall) {
	if err := ctx.Err(); err != nil {
		for _, c := range batch {
			c.err = err
		}
		return
	}
	// Entries: a charge each, except that the plain charges of one counter
	// with the same limits and units go in one entry (the first's), decided
	// in turn by the script: a hot key's batch costs one entry, not one per
	// charge.
	entries := make([][]*chargeCall, 0, len(batch))
	for _, c := range batch {
		j := -1
		if c.plain {
			for e := len(entries) - 1; e >= 0; e-- {
				if f := entries[e][0]; f.plain && f.keys[0] == c.keys[0] && f.c.Units == c.c.Units && f.c.Quota == c.c.Quota &&
					f.c.RatePerSec == c.c.RatePerSec && f.c.Burst == c.c.Burst {
					j = e
					break
				}
			}
		}
		if j < 0 {
			entries = append(entries, []*chargeCall{c})
			continue
		}
		entries[j] = append(entries[j], c)
	}
	keys := make([]string, 0, 3*len(entries))
	args := make([]any, 0, 1+argsPerCharge*len(entries))
	args = append(args, counterTTL)
	for _, e := range entries {
		f := e[0]
		keys = append(keys, f.keys[:]...)
		if len(e) == 1 {
			args = append(args, f.args...)
			continue
		}
		// The latest clock reading and the highest floor of the merged.
		now, floor := f.c.NowMs, f.c.Floor
		for _, c := range e[1:] {
			now, floor = max(now, c.c.NowMs), max(floor, c.c.Floor)
		}
		args = append(append(args, now), f.args[1:5]...)
		args = append(append(args, floor), f.args[6:argsPerCharge-1]...)
		args = append(args, len(e))
	}
	ctx, cancel := context.WithTimeout(ctx, k.timeout)
	reply, err := k.script.Run(ctx, k.c, keys, args...).Text()
	cancel()
	for i, e := range entries {
		if err != nil {
			for _, c := range e {
				c.err = err
			}
			continue
		}
		var one string
		one, reply, _ = strings.Cut(reply, ",")
		res, ok, rerr := result(one)
		if rerr == nil && (ok < 0 || ok > int64(len(e))) {
			rerr = errReply
		}
		if i == len(entries)-1 && reply != "" {
			rerr = errReply
		}
		// The first ok were allowed in turn: each sees the counter and the
		// bucket as they were after it; the others were refused.
		for m, c := range e {
			c.res, c.err = res, rerr
			if rerr == nil && int64(m) < ok {
				back := ok - 1 - int64(m)
				c.res.Status = state.ChargeAllowed
				c.res.Used -= back * c.c.Units
				c.res.TokensMilli += back * 1000
			}
		}
	}
}

// argsPerCharge is the script's arguments per charge (chargeScript).
const argsPerCharge = 14

// result decodes the script's reply to one entry: "status used
// tokens*1000 grant near ok" (ok: how many of its charges were allowed).
func result(s string) (res state.ChargeResult, ok int64, err error) {
	var status, near int64
	for _, p := range []*int64{&status, &res.Used, &res.TokensMilli, &res.Grant, &near, &ok} {
		var f string
		f, s, _ = strings.Cut(s, " ")
		x, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return state.ChargeResult{}, 0, errReply
		}
		*p = x
	}
	if s != "" || status < 0 || status > 2 || near < 0 || near > 1 {
		return state.ChargeResult{}, 0, errReply
	}
	res.Status, res.Near = state.ChargeStatus(status), near == 1
	return res, ok, nil
}

// errReply is a script reply this code cannot read.
var errReply = errors.New("state/redis: counters: unexpected script reply")

// DayCount returns id's shared counter of day (0 when there is none).
func (k *Counter) DayCount(ctx context.Context, id string, day int) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, k.timeout)
	defer cancel()
	n, err := k.c.Get(ctx, k.dayKey(id, day)).Int64()
	if errors.Is(err, goredis.Nil) {
		return 0, nil
	}
	return n, err
}

// Reconcile adds what was owed, in one pipeline (reconcileScript), and
// returns the units added. On an error some may have landed: a counter may
// then count them twice when the caller retries, never lose them
// (overcounting is the safe side).
func (k *Counter) Reconcile(ctx context.Context, owed []state.Owed) (int64, error) {
	if len(owed) == 0 {
		return 0, nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	var total int64
	_, err := k.c.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for _, o := range owed {
			p.Eval(ctx, reconcileScript, []string{k.dayKey(o.ID, o.Day)}, o.Units, o.Floor, counterTTL)
			total += o.Units
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return total, nil
}
