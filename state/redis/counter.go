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

// Counter keeps the access layer's shared day counters and token buckets
// in Redis (state.Charge): one counter "<prefix>{<id>}:q:<day>" (an
// integer that lives two days) and one bucket "<prefix>{<id>}:t" (a string
// "tokens ms" that expires once the bucket would be full again) per key or
// account. Charges made while another round trip of this Counter is in
// flight wait for it and then go together, in one script run: under load,
// one command carries many charges; alone, a charge makes its round trip at
// once. Its methods are safe for concurrent use.
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
		calls: sync.Pool{New: func() any { return &chargeCall{args: make([]any, 0, 6), lead: make(chan bool, 1)} }}}
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
	call.keys[0], call.keys[1] = k.dayKey(c.ID, c.Day), k.bucketKey(c.ID)
	call.args = append(call.args[:0], c.NowMs, c.RatePerSec, c.Burst, c.Quota, c.Units, c.Floor)
	k.batch.do(call, func(batch []*chargeCall) { k.run(ctx, batch) })
	res, err := call.res, call.err
	call.res, call.err = state.ChargeResult{}, nil
	k.calls.Put(call)
	return res, err
}

// chargeCall is one charge waiting for, or carried by, a round trip.
type chargeCall struct {
	keys [2]string
	args []any
	res  state.ChargeResult
	err  error
	lead chan bool // true: carry the next batch; false: res and err are set
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
	keys := make([]string, 0, 2*len(batch))
	args := make([]any, 0, 1+6*len(batch))
	args = append(args, counterTTL)
	for _, c := range batch {
		keys = append(keys, c.keys[:]...)
		args = append(args, c.args...)
	}
	ctx, cancel := context.WithTimeout(ctx, k.timeout)
	reply, err := k.script.Run(ctx, k.c, keys, args...).Text()
	cancel()
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

// result decodes the script's reply to one charge: "status used tokens*1000".
func result(s string) (state.ChargeResult, error) {
	var res state.ChargeResult
	var status int64
	for _, p := range []*int64{&status, &res.Used, &res.TokensMilli} {
		var f string
		f, s, _ = strings.Cut(s, " ")
		x, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return state.ChargeResult{}, errReply
		}
		*p = x
	}
	if s != "" || status < 0 || status > 2 {
		return state.ChargeResult{}, errReply
	}
	res.Status = state.ChargeStatus(status)
	return res, nil
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
