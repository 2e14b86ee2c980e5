package redis

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cardedge/cardedge/state"
	goredis "github.com/redis/go-redis/v9"
)

// Layout (below the store's prefix, "cardedge:state:" by default):
//
//	format            "1"
//	d:<bucket>:<key>  a hash: a record {v: bytes, e: expiry}, a counter {n: int64, e: expiry}
//	i:<bucket>        a sorted set of the bucket's keys, every score 0 (ZRANGEBYLEX scans)
//	x                 a sorted set of the data keys that expire, scored by their expiry
//
// Expiries are Unix milliseconds of the store's clock (0: none): a record is
// live while e == 0 or e > now. A data key that expires also gets a Redis
// TTL of its remaining time plus backstopGrace, so that Redis reclaims it
// even if no Update sweeps; scans skip index members whose data key is gone
// and sweeps remove them.
const backstopGrace = time.Hour

type bkey struct {
	b   state.Bucket
	key string
}

// op is a buffered write.
type op struct {
	kind byte // 'P' put, 'D' delete, 'A' add
	b    state.Bucket
	key  string
	val  []byte
	n    int64
	ttl  int64 // milliseconds, 0: none
}

// tx is a state.Tx: plain reads in View; in Update, watched reads and
// buffered writes.
type tx struct {
	s        *Store
	ctx      context.Context
	rt       *goredis.Tx // nil in View
	now      int64
	writable bool
	ops      []op
	recs     map[bkey]*[]byte // own record writes; nil value: deleted
	adds     map[bkey]int64   // own counter adds
	watched  map[string]bool
}

var _ state.Tx = (*tx)(nil)

func (t *tx) run(fn func(state.Tx) error) error { return fn(t) }

func (t *tx) cmd() goredis.Cmdable {
	if t.rt != nil {
		return t.rt
	}
	return t.s.c
}

// watch WATCHes keys not watched yet (Update only).
func (t *tx) watch(keys ...string) error {
	if t.rt == nil {
		return nil
	}
	var todo []string
	for _, k := range keys {
		if !t.watched[k] {
			todo = append(todo, k)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	if t.watched == nil {
		t.watched = map[string]bool{}
	}
	if err := t.rt.Watch(t.ctx, todo...).Err(); err != nil {
		return t.s.wrap("watch", err)
	}
	for _, k := range todo {
		t.watched[k] = true
	}
	return nil
}

func (t *tx) live(e int64) bool { return e == 0 || e > t.now }

func checkBucket(b state.Bucket, want state.Kind) error {
	if k := b.Kind(); k != want {
		if k == state.KindNone {
			return fmt.Errorf("state/redis: unknown bucket %q", b)
		}
		what := "records"
		if want == state.KindCounters {
			what = "counters"
		}
		return fmt.Errorf("state/redis: bucket %q does not hold %s", b, what)
	}
	return nil
}

func checkKey(b state.Bucket, want state.Kind, key string) error {
	if err := checkBucket(b, want); err != nil {
		return err
	}
	if len(key) == 0 || len(key) > state.MaxKeyLen {
		return fmt.Errorf("state/redis: %s key of %d bytes: want 1 to %d", b, len(key), state.MaxKeyLen)
	}
	return nil
}

func (t *tx) checkWrite(b state.Bucket, ttl time.Duration) error {
	if !t.writable {
		return fmt.Errorf("state/redis: write to %s in a read-only transaction", b)
	}
	if ttl < 0 {
		return fmt.Errorf("state/redis: negative ttl %s", ttl)
	}
	return nil
}

func corrupt(b state.Bucket, key, what string) error {
	return fmt.Errorf("%w: %s %q: %s", ErrCorrupt, b, key, what)
}

// decoded is a data key's hash as read.
type decoded struct {
	found   bool
	record  bool
	v       string
	n, e    int64
	corrupt string
}

// decode reads HMGET v n e.
func decode(vals []any) decoded {
	var d decoded
	if len(vals) != 3 {
		return decoded{corrupt: "unexpected reply"}
	}
	v, hasV := vals[0].(string)
	n, hasN := vals[1].(string)
	e, hasE := vals[2].(string)
	if !hasV && !hasN && !hasE {
		return d // no such key
	}
	d.found = true
	var err error
	if d.e, err = strconv.ParseInt(e, 10, 64); !hasE || err != nil {
		return decoded{found: true, corrupt: "no expiry field"}
	}
	switch {
	case hasV && hasN:
		d.corrupt = "both a record and a counter"
	case hasV:
		d.record, d.v = true, v
	case hasN:
		if d.n, err = strconv.ParseInt(n, 10, 64); err != nil {
			d.corrupt = "a counter that is not an integer"
		}
	default:
		d.corrupt = "neither a record nor a counter"
	}
	return d
}

var fields = []string{"v", "n", "e"}

// Get implements state.Tx.
func (t *tx) Get(b state.Bucket, key string) ([]byte, error) {
	if err := checkKey(b, state.KindRecords, key); err != nil {
		return nil, err
	}
	if v, ok := t.recs[bkey{b, key}]; ok {
		if v == nil {
			return nil, fmt.Errorf("%w: %s %q", state.ErrNotFound, b, key)
		}
		return *v, nil
	}
	d, err := t.read(b, key)
	if err != nil {
		return nil, err
	}
	if !d.found || !t.live(d.e) {
		return nil, fmt.Errorf("%w: %s %q", state.ErrNotFound, b, key)
	}
	return []byte(d.v), nil
}

// read reads the record at key, watched in Update.
func (t *tx) read(b state.Bucket, key string) (decoded, error) {
	k := t.s.dataKey(b, key)
	if err := t.watch(k); err != nil {
		return decoded{}, err
	}
	vals, err := t.cmd().HMGet(t.ctx, k, fields...).Result()
	if err != nil {
		return decoded{}, t.s.wrap("read "+string(b), err)
	}
	d := decode(vals)
	if d.corrupt != "" {
		return d, corrupt(b, key, d.corrupt)
	}
	if d.found && !d.record {
		return d, corrupt(b, key, "a counter in a bucket of records")
	}
	return d, nil
}

// Put implements state.Tx.
func (t *tx) Put(b state.Bucket, key string, value []byte, ttl time.Duration) error {
	if err := checkKey(b, state.KindRecords, key); err != nil {
		return err
	}
	if err := t.checkWrite(b, ttl); err != nil {
		return err
	}
	t.put(b, key, value, ttl)
	return nil
}

func (t *tx) put(b state.Bucket, key string, value []byte, ttl time.Duration) {
	v := append([]byte(nil), value...)
	t.ops = append(t.ops, op{kind: 'P', b: b, key: key, val: v, ttl: ttl.Milliseconds()})
	if t.recs == nil {
		t.recs = map[bkey]*[]byte{}
	}
	t.recs[bkey{b, key}] = &v
}

// Insert implements state.Tx.
func (t *tx) Insert(b state.Bucket, key string, value []byte, ttl time.Duration) error {
	if err := checkKey(b, state.KindRecords, key); err != nil {
		return err
	}
	if err := t.checkWrite(b, ttl); err != nil {
		return err
	}
	exists := false
	if v, ok := t.recs[bkey{b, key}]; ok {
		exists = v != nil
	} else {
		d, err := t.read(b, key)
		if err != nil {
			return err
		}
		exists = d.found && t.live(d.e)
	}
	if exists {
		return fmt.Errorf("%w: %s %q exists", state.ErrConflict, b, key)
	}
	t.put(b, key, value, ttl)
	return nil
}

// Delete implements state.Tx.
func (t *tx) Delete(b state.Bucket, key string) error {
	if err := checkKey(b, state.KindRecords, key); err != nil {
		return err
	}
	if err := t.checkWrite(b, 0); err != nil {
		return err
	}
	t.ops = append(t.ops, op{kind: 'D', b: b, key: key})
	if t.recs == nil {
		t.recs = map[bkey]*[]byte{}
	}
	t.recs[bkey{b, key}] = nil
	return nil
}

// Count implements state.Tx. Counters are not watched: Adds commute.
func (t *tx) Count(b state.Bucket, key string) (int64, error) {
	if err := checkKey(b, state.KindCounters, key); err != nil {
		return 0, err
	}
	vals, err := t.cmd().HMGet(t.ctx, t.s.dataKey(b, key), fields...).Result()
	if err != nil {
		return 0, t.s.wrap("count "+string(b), err)
	}
	d := decode(vals)
	if d.corrupt != "" {
		return 0, corrupt(b, key, d.corrupt)
	}
	if d.found && d.record {
		return 0, corrupt(b, key, "a record in a bucket of counters")
	}
	var n int64
	if d.found && t.live(d.e) {
		n = d.n
	}
	return n + t.adds[bkey{b, key}], nil
}

// countsChunk is how many counters Counts reads in one pipeline.
const countsChunk = 1024

// Counts implements state.Tx: the HMGETs of Count, pipelined (one round
// trip per countsChunk keys; on the watched connection inside Update).
func (t *tx) Counts(b state.Bucket, keys []string) ([]int64, error) {
	for _, k := range keys {
		if err := checkKey(b, state.KindCounters, k); err != nil {
			return nil, err
		}
	}
	ns := make([]int64, len(keys))
	for i := 0; i < len(keys); i += countsChunk {
		chunk := keys[i:min(i+countsChunk, len(keys))]
		cmds := make([]*goredis.SliceCmd, len(chunk))
		_, err := t.cmd().Pipelined(t.ctx, func(p goredis.Pipeliner) error {
			for j, k := range chunk {
				cmds[j] = p.HMGet(t.ctx, t.s.dataKey(b, k), fields...)
			}
			return nil
		})
		if err != nil {
			return nil, t.s.wrap("count "+string(b), err)
		}
		for j, c := range cmds {
			d := decode(c.Val())
			if d.corrupt != "" {
				return nil, corrupt(b, chunk[j], d.corrupt)
			}
			if d.found && d.record {
				return nil, corrupt(b, chunk[j], "a record in a bucket of counters")
			}
			if d.found && t.live(d.e) {
				ns[i+j] = d.n
			}
			ns[i+j] += t.adds[bkey{b, chunk[j]}]
		}
	}
	return ns, nil
}

// Add implements state.Tx.
func (t *tx) Add(b state.Bucket, key string, n int64, ttl time.Duration) error {
	if err := checkKey(b, state.KindCounters, key); err != nil {
		return err
	}
	if err := t.checkWrite(b, ttl); err != nil {
		return err
	}
	t.ops = append(t.ops, op{kind: 'A', b: b, key: key, n: n, ttl: ttl.Milliseconds()})
	if t.adds == nil {
		t.adds = map[bkey]int64{}
	}
	t.adds[bkey{b, key}] += n
	return nil
}

// Scan implements state.Tx.
func (t *tx) Scan(b state.Bucket, o state.ScanOptions, fn func(key string, value []byte) error) error {
	if err := checkBucket(b, state.KindRecords); err != nil {
		return err
	}
	own := false
	for k := range t.recs {
		if k.b == b && inRange(k.key, o) {
			own = true
			break
		}
	}
	if !own {
		return t.scan(b, o, func(key string, d decoded) error { return fn(key, []byte(d.v)) })
	}
	// The transaction wrote into the range: merge its writes with what the
	// store holds, then order and limit.
	all := map[string][]byte{}
	lim := o
	lim.Limit = 0
	if err := t.scan(b, lim, func(key string, d decoded) error { all[key] = []byte(d.v); return nil }); err != nil {
		return err
	}
	for k, v := range t.recs {
		if k.b != b || !inRange(k.key, o) {
			continue
		}
		if v == nil {
			delete(all, k.key)
		} else {
			all[k.key] = *v
		}
	}
	for _, k := range ordered(all, o) {
		if err := fn(k, all[k]); err != nil {
			return err
		}
	}
	return nil
}

// ScanCounts implements state.Tx.
func (t *tx) ScanCounts(b state.Bucket, o state.ScanOptions, fn func(key string, n int64) error) error {
	if err := checkBucket(b, state.KindCounters); err != nil {
		return err
	}
	own := false
	for k := range t.adds {
		if k.b == b && inRange(k.key, o) {
			own = true
			break
		}
	}
	if !own {
		return t.scan(b, o, func(key string, d decoded) error { return fn(key, d.n) })
	}
	all := map[string]int64{}
	lim := o
	lim.Limit = 0
	if err := t.scan(b, lim, func(key string, d decoded) error { all[key] = d.n; return nil }); err != nil {
		return err
	}
	for k, n := range t.adds {
		if k.b == b && inRange(k.key, o) {
			all[k.key] += n
		}
	}
	for _, k := range ordered(all, o) {
		if err := fn(k, all[k]); err != nil {
			return err
		}
	}
	return nil
}

// inRange reports whether key is selected by o (prefix and after).
func inRange(key string, o state.ScanOptions) bool {
	if !strings.HasPrefix(key, o.Prefix) {
		return false
	}
	if o.After == "" {
		return true
	}
	if o.Reverse {
		return key < o.After
	}
	return key > o.After
}

// ordered returns m's keys in o's order, limited.
func ordered[V any](m map[string]V, o state.ScanOptions) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	if o.Reverse {
		sort.Sort(sort.Reverse(sort.StringSlice(keys)))
	} else {
		sort.Strings(keys)
	}
	if o.Limit > 0 && len(keys) > o.Limit {
		keys = keys[:o.Limit]
	}
	return keys
}

// scanPage is how many index members a scan reads per round trip.
const scanPage = 256

// scan visits the live values of b that o selects, in order, reading the
// index a page at a time and the values of a page in one pipeline. In
// Update the index and every value read are watched.
func (t *tx) scan(b state.Bucket, o state.ScanOptions, visit func(key string, d decoded) error) error {
	ix := t.s.indexKey(b)
	if err := t.watch(ix); err != nil {
		return err
	}
	min, max := lexRange(o)
	want := state.KindRecords
	if b.Kind() == state.KindCounters {
		want = state.KindCounters
	}
	n := 0
	for offset := int64(0); ; offset += scanPage {
		by := &goredis.ZRangeBy{Min: min, Max: max, Offset: offset, Count: scanPage}
		var members []string
		var err error
		if o.Reverse {
			members, err = t.cmd().ZRevRangeByLex(t.ctx, ix, by).Result()
		} else {
			members, err = t.cmd().ZRangeByLex(t.ctx, ix, by).Result()
		}
		if err != nil {
			return t.s.wrap("scan "+string(b), err)
		}
		if len(members) == 0 {
			return nil
		}
		keys := make([]string, len(members))
		for i, m := range members {
			keys[i] = t.s.dataKey(b, m)
		}
		if err := t.watch(keys...); err != nil {
			return err
		}
		cmds, err := t.s.c.Pipelined(t.ctx, func(p goredis.Pipeliner) error {
			for _, k := range keys {
				p.HMGet(t.ctx, k, fields...)
			}
			return nil
		})
		if err != nil {
			return t.s.wrap("scan "+string(b), err)
		}
		for i, c := range cmds {
			d := decode(c.(*goredis.SliceCmd).Val())
			if d.corrupt != "" {
				return corrupt(b, members[i], d.corrupt)
			}
			if !d.found || !t.live(d.e) {
				continue // expired, or reclaimed by Redis before a sweep
			}
			if d.record != (want == state.KindRecords) {
				return corrupt(b, members[i], "a value of the other kind")
			}
			if err := visit(members[i], d); err != nil {
				return err
			}
			if n++; o.Limit > 0 && n >= o.Limit {
				return nil
			}
		}
		if len(members) < scanPage {
			return nil
		}
	}
}

// lexRange returns the ZRANGEBYLEX bounds of o (the forward order's min
// and max; ZREVRANGEBYLEX takes them the other way round).
func lexRange(o state.ScanOptions) (min, max string) {
	end := prefixEnd(o.Prefix)
	if !o.Reverse {
		min = "-"
		if o.Prefix != "" {
			min = "[" + o.Prefix
		}
		if o.After != "" && o.After >= o.Prefix {
			min = "(" + o.After
		}
		max = "+"
		if end != "" {
			max = "(" + end
		}
		return min, max
	}
	min = "-"
	if o.Prefix != "" {
		min = "[" + o.Prefix
	}
	if o.After != "" && (end == "" || o.After < end) {
		end = o.After
	}
	max = "+"
	if end != "" {
		max = "(" + end
	}
	return min, max
}

// prefixEnd returns the least string greater than every string with prefix
// p, "" when there is none (p empty or all 0xff).
func prefixEnd(p string) string {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return ""
}

// commitArgs encodes the buffered writes for commitScript: KEYS are each
// op's data key and index key, then the expiry set; ARGV are now, the
// backstop grace, then op, member, argument and ttl of each op.
func (t *tx) commitArgs() ([]string, []any) {
	keys := make([]string, 0, 2*len(t.ops)+1)
	args := make([]any, 0, 2+4*len(t.ops))
	args = append(args, t.now, backstopGrace.Milliseconds())
	for _, o := range t.ops {
		keys = append(keys, t.s.dataKey(o.b, o.key), t.s.indexKey(o.b))
		var arg any
		switch o.kind {
		case 'P':
			arg = o.val
		case 'A':
			arg = o.n
		default:
			arg = ""
		}
		args = append(args, string(o.kind), o.key, arg, o.ttl)
	}
	keys = append(keys, t.s.expiryKey())
	return keys, args
}

// commitScript applies a transaction's writes, all in one script (so that a
// MULTI holding it is all or nothing).
const commitScript = `
local now = tonumber(ARGV[1])
local grace = tonumber(ARGV[2])
local xkey = KEYS[#KEYS]
local n = (#KEYS - 1) / 2
for i = 1, n do
  local k, ix = KEYS[2*i-1], KEYS[2*i]
  local a = 2 + 4*(i-1)
  local op, member, arg, ttl = ARGV[a+1], ARGV[a+2], ARGV[a+3], tonumber(ARGV[a+4])
  if op == 'P' then
    redis.call('DEL', k)
    if ttl > 0 then
      redis.call('HSET', k, 'v', arg, 'e', now + ttl)
      redis.call('PEXPIRE', k, ttl + grace)
      redis.call('ZADD', xkey, now + ttl, k)
    else
      redis.call('HSET', k, 'v', arg, 'e', 0)
      redis.call('ZREM', xkey, k)
    end
    redis.call('ZADD', ix, 0, member)
  elseif op == 'D' then
    redis.call('DEL', k)
    redis.call('ZREM', ix, member)
    redis.call('ZREM', xkey, k)
  elseif op == 'A' then
    local e = tonumber(redis.call('HGET', k, 'e') or '0')
    if e > 0 and e <= now then
      redis.call('DEL', k)
      redis.call('ZREM', xkey, k)
      e = 0
    end
    redis.call('HINCRBY', k, 'n', arg)
    if ttl > 0 then
      redis.call('HSET', k, 'e', now + ttl)
      redis.call('PEXPIRE', k, ttl + grace)
      redis.call('ZADD', xkey, now + ttl, k)
    else
      redis.call('HSET', k, 'e', e)
    end
    redis.call('ZADD', ix, 0, member)
  end
end
return n
`

// sweepScript deletes up to ARGV[2] data keys that expired by ARGV[1] (the
// store's clock), with their index members. KEYS[1] is the expiry set;
// ARGV[3] the prefix.
const sweepScript = `
local now = tonumber(ARGV[1])
local pfx = ARGV[3]
local xs = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
for _, k in ipairs(xs) do
  local e = redis.call('HGET', k, 'e')
  if e == false or (tonumber(e) > 0 and tonumber(e) <= now) then
    local rest = string.sub(k, #pfx + 3)
    local c = string.find(rest, ':', 1, true)
    if c then
      redis.call('ZREM', pfx .. 'i:' .. string.sub(rest, 1, c - 1), string.sub(rest, c + 1))
    end
    redis.call('DEL', k)
  end
  redis.call('ZREM', KEYS[1], k)
end
return #xs
`
