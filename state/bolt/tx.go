package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/cardedge/cardedge/state"
	bbolt "go.etcd.io/bbolt"
)

// Layout of the file (format "2"):
//
//   - one bbolt bucket per state bucket, named like it, flat;
//   - every value is a 9-byte header, then the payload: a kind byte ('r' a
//     record, 'c' a counter), the expiry as Unix nanoseconds of the store's
//     clock (uint64 big-endian, 0: none); a record's payload is its bytes, a
//     counter's its int64 big-endian;
//   - the bucket "_expiry" indexes the records that expire: expiry (8
//     bytes big-endian), bucket name, a 0 byte, key -> empty. Update sweeps
//     it from the start, so finding what expired costs one seek;
//   - the bucket "meta" also holds the format marker "access.format" (a
//     raw string, under the name format "1" used, so that an older binary
//     refuses the file with its own format error rather than misreading it);
//     transactions cannot reach it.
const (
	kindRecord  byte = 'r'
	kindCounter byte = 'c'
	headerLen        = 9
)

var expiryBucket = []byte("_expiry")

// tx is a state.Tx over a bbolt transaction.
type tx struct {
	btx *bbolt.Tx
	now int64 // Unix nanoseconds: what has expired
	// inStore is true while a method of tx runs bbolt code: a panic then is
	// the store's (a damaged page), not the caller's.
	inStore bool
}

var _ state.Tx = (*tx)(nil)

func newTx(btx *bbolt.Tx, now time.Time) *tx { return &tx{btx: btx, now: now.UnixNano()} }

// run runs fn, marking its own panics (not the store's) for guard.
func (t *tx) run(fn func(state.Tx) error) error {
	defer func() {
		if r := recover(); r != nil {
			if t.inStore {
				panic(r)
			}
			panic(callerPanic{r})
		}
	}()
	return fn(t)
}

func (t *tx) enter()            { t.inStore = true }
func (t *tx) leave()            { t.inStore = false }
func (t *tx) live(e int64) bool { return e == 0 || e > t.now }

func encode(kind byte, exp int64, payload []byte) []byte {
	v := make([]byte, headerLen+len(payload))
	v[0] = kind
	binary.BigEndian.PutUint64(v[1:], uint64(exp))
	copy(v[headerLen:], payload)
	return v
}

func decode(v []byte) (kind byte, exp int64, payload []byte, ok bool) {
	if len(v) < headerLen || (v[0] != kindRecord && v[0] != kindCounter) {
		return 0, 0, nil, false
	}
	return v[0], int64(binary.BigEndian.Uint64(v[1:])), v[headerLen:], true
}

func counterValue(p []byte) (int64, bool) {
	if len(p) != 8 {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(p)), true
}

func indexKey(exp int64, b, key []byte) []byte {
	k := make([]byte, 8, 8+len(b)+1+len(key))
	binary.BigEndian.PutUint64(k, uint64(exp))
	k = append(k, b...)
	k = append(k, 0)
	return append(k, key...)
}

func parseIndexKey(k []byte) (exp int64, b, key []byte, ok bool) {
	if len(k) < 8+1+1+1 {
		return 0, nil, nil, false
	}
	i := bytes.IndexByte(k[8:], 0)
	if i < 1 {
		return 0, nil, nil, false
	}
	return int64(binary.BigEndian.Uint64(k)), k[8 : 8+i], k[8+i+1:], len(k[8+i+1:]) > 0
}

// reserved reports whether key of bucket b is the store's own.
func reserved(b state.Bucket, key []byte) bool {
	return b == state.Meta && bytes.Equal(key, keyFormat)
}

func (t *tx) checkKey(b state.Bucket, want state.Kind, key string) error {
	if k := b.Kind(); k != want {
		if k == state.KindNone {
			return fmt.Errorf("state/bolt: unknown bucket %q", b)
		}
		return fmt.Errorf("state/bolt: bucket %q does not hold %s", b, kindName(want))
	}
	if len(key) == 0 || len(key) > state.MaxKeyLen {
		return fmt.Errorf("state/bolt: %s key of %d bytes: want 1 to %d", b, len(key), state.MaxKeyLen)
	}
	if reserved(b, []byte(key)) {
		return fmt.Errorf("state/bolt: %s key %q is reserved", b, key)
	}
	return nil
}

func kindName(k state.Kind) string {
	if k == state.KindCounters {
		return "counters"
	}
	return "records"
}

// writable returns the bbolt bucket of b, created if needed.
func (t *tx) writable(b state.Bucket, ttl time.Duration) (*bbolt.Bucket, error) {
	if !t.btx.Writable() {
		return nil, fmt.Errorf("state/bolt: write to %s in a read-only transaction", b)
	}
	if ttl < 0 {
		return nil, fmt.Errorf("state/bolt: negative ttl %s", ttl)
	}
	return t.btx.CreateBucketIfNotExists([]byte(b))
}

func (t *tx) expiry(ttl time.Duration) int64 {
	if ttl <= 0 {
		return 0
	}
	return t.now + int64(ttl)
}

func corrupt(b state.Bucket, key []byte, what string) error {
	return fmt.Errorf("%w: %s %q: %s", ErrCorrupt, b, key, what)
}

// Get implements state.Tx.
func (t *tx) Get(b state.Bucket, key string) ([]byte, error) {
	if err := t.checkKey(b, state.KindRecords, key); err != nil {
		return nil, err
	}
	t.enter()
	defer t.leave()
	var v []byte
	if bk := t.btx.Bucket([]byte(b)); bk != nil {
		v = bk.Get([]byte(key))
	}
	if v == nil {
		return nil, fmt.Errorf("%w: %s %q", state.ErrNotFound, b, key)
	}
	kind, exp, p, ok := decode(v)
	if !ok || kind != kindRecord {
		return nil, corrupt(b, []byte(key), "not a record")
	}
	if !t.live(exp) {
		return nil, fmt.Errorf("%w: %s %q", state.ErrNotFound, b, key)
	}
	return p, nil
}

// Put implements state.Tx.
func (t *tx) Put(b state.Bucket, key string, value []byte, ttl time.Duration) error {
	return t.put(b, key, value, ttl, false)
}

// Insert implements state.Tx.
func (t *tx) Insert(b state.Bucket, key string, value []byte, ttl time.Duration) error {
	return t.put(b, key, value, ttl, true)
}

func (t *tx) put(b state.Bucket, key string, value []byte, ttl time.Duration, insert bool) error {
	if err := t.checkKey(b, state.KindRecords, key); err != nil {
		return err
	}
	t.enter()
	defer t.leave()
	bk, err := t.writable(b, ttl)
	if err != nil {
		return err
	}
	k := []byte(key)
	oldExp, found, err := t.old(bk, b, k, kindRecord)
	if err != nil {
		return err
	}
	if insert && found {
		return fmt.Errorf("%w: %s %q exists", state.ErrConflict, b, key)
	}
	return t.write(bk, b, k, encode(kindRecord, t.expiry(ttl), value), oldExp)
}

// old returns the expiry of the value at k (0 when none), and whether it is
// a live value of kind.
func (t *tx) old(bk *bbolt.Bucket, b state.Bucket, k []byte, kind byte) (exp int64, live bool, err error) {
	v := bk.Get(k)
	if v == nil {
		return 0, false, nil
	}
	vk, exp, _, ok := decode(v)
	if !ok || vk != kind {
		return 0, false, corrupt(b, k, "not a "+map[byte]string{kindRecord: "record", kindCounter: "counter"}[kind])
	}
	return exp, t.live(exp), nil
}

// write puts v (whose header holds its expiry) at k, moving the expiry index
// entry from oldExp.
func (t *tx) write(bk *bbolt.Bucket, b state.Bucket, k, v []byte, oldExp int64) error {
	exp := int64(binary.BigEndian.Uint64(v[1:]))
	if oldExp != exp {
		if err := t.unindex(b, k, oldExp); err != nil {
			return err
		}
	}
	if err := bk.Put(k, v); err != nil {
		return err
	}
	if exp != 0 && exp != oldExp {
		ib, err := t.btx.CreateBucketIfNotExists(expiryBucket)
		if err != nil {
			return err
		}
		return ib.Put(indexKey(exp, []byte(b), k), nil)
	}
	return nil
}

func (t *tx) unindex(b state.Bucket, k []byte, exp int64) error {
	if exp == 0 {
		return nil
	}
	if ib := t.btx.Bucket(expiryBucket); ib != nil {
		return ib.Delete(indexKey(exp, []byte(b), k))
	}
	return nil
}

// Delete implements state.Tx.
func (t *tx) Delete(b state.Bucket, key string) error {
	if err := t.checkKey(b, state.KindRecords, key); err != nil {
		return err
	}
	return t.delete(b, []byte(key), kindRecord)
}

func (t *tx) delete(b state.Bucket, k []byte, kind byte) error {
	t.enter()
	defer t.leave()
	if !t.btx.Writable() {
		return fmt.Errorf("state/bolt: delete from %s in a read-only transaction", b)
	}
	bk := t.btx.Bucket([]byte(b))
	if bk == nil {
		return nil
	}
	exp, _, err := t.old(bk, b, k, kind)
	if err != nil {
		return err
	}
	if err := t.unindex(b, k, exp); err != nil {
		return err
	}
	return bk.Delete(k)
}

// Scan implements state.Tx.
func (t *tx) Scan(b state.Bucket, o state.ScanOptions, fn func(key string, value []byte) error) error {
	if err := t.checkBucket(b, state.KindRecords); err != nil {
		return err
	}
	return t.scan(b, o, func(k, v []byte) error {
		kind, exp, p, ok := decode(v)
		if !ok || kind != kindRecord {
			return corrupt(b, k, "not a record")
		}
		if !t.live(exp) {
			return errSkip
		}
		t.leave()
		err := fn(string(k), p)
		t.enter()
		return err
	})
}

// Counts implements state.Tx: Count of each key (bbolt reads in memory).
func (t *tx) Counts(b state.Bucket, keys []string) ([]int64, error) {
	ns := make([]int64, len(keys))
	for i, k := range keys {
		n, err := t.Count(b, k)
		if err != nil {
			return nil, err
		}
		ns[i] = n
	}
	return ns, nil
}

// Count implements state.Tx.
func (t *tx) Count(b state.Bucket, key string) (int64, error) {
	if err := t.checkKey(b, state.KindCounters, key); err != nil {
		return 0, err
	}
	t.enter()
	defer t.leave()
	bk := t.btx.Bucket([]byte(b))
	if bk == nil {
		return 0, nil
	}
	v := bk.Get([]byte(key))
	if v == nil {
		return 0, nil
	}
	kind, exp, p, ok := decode(v)
	n, nok := counterValue(p)
	if !ok || kind != kindCounter || !nok {
		return 0, corrupt(b, []byte(key), "not a counter")
	}
	if !t.live(exp) {
		return 0, nil
	}
	return n, nil
}

// Add implements state.Tx.
func (t *tx) Add(b state.Bucket, key string, n int64, ttl time.Duration) error {
	if err := t.checkKey(b, state.KindCounters, key); err != nil {
		return err
	}
	t.enter()
	defer t.leave()
	bk, err := t.writable(b, ttl)
	if err != nil {
		return err
	}
	k := []byte(key)
	var cur, oldExp int64
	if v := bk.Get(k); v != nil {
		kind, exp, p, ok := decode(v)
		c, cok := counterValue(p)
		if !ok || kind != kindCounter || !cok {
			return corrupt(b, k, "not a counter")
		}
		oldExp = exp
		if t.live(exp) {
			cur = c
		}
	}
	exp := t.expiry(ttl)
	if ttl == 0 && t.live(oldExp) {
		exp = oldExp
	}
	var p [8]byte
	binary.BigEndian.PutUint64(p[:], uint64(cur+n))
	return t.write(bk, b, k, encode(kindCounter, exp, p[:]), oldExp)
}

// ScanCounts implements state.Tx.
func (t *tx) ScanCounts(b state.Bucket, o state.ScanOptions, fn func(key string, n int64) error) error {
	if err := t.checkBucket(b, state.KindCounters); err != nil {
		return err
	}
	return t.scan(b, o, func(k, v []byte) error {
		kind, exp, p, ok := decode(v)
		n, nok := counterValue(p)
		if !ok || kind != kindCounter || !nok {
			return corrupt(b, k, "not a counter")
		}
		if !t.live(exp) {
			return errSkip
		}
		t.leave()
		err := fn(string(k), n)
		t.enter()
		return err
	})
}

func (t *tx) checkBucket(b state.Bucket, want state.Kind) error {
	if k := b.Kind(); k != want {
		if k == state.KindNone {
			return fmt.Errorf("state/bolt: unknown bucket %q", b)
		}
		return fmt.Errorf("state/bolt: bucket %q does not hold %s", b, kindName(want))
	}
	return nil
}

// errSkip, from a scan's visit, passes over a record without counting it.
var errSkip = errors.New("skip")

// scan visits the keys of b that o selects, in order. visit returns errSkip
// for a record that does not count (expired).
func (t *tx) scan(b state.Bucket, o state.ScanOptions, visit func(k, v []byte) error) error {
	t.enter()
	defer t.leave()
	bk := t.btx.Bucket([]byte(b))
	if bk == nil {
		return nil
	}
	prefix, after := []byte(o.Prefix), []byte(o.After)
	c := bk.Cursor()
	var k, v []byte
	if !o.Reverse {
		start := prefix
		if len(after) > 0 && bytes.Compare(after, start) >= 0 {
			start = after
		}
		k, v = c.Seek(start)
		if len(after) > 0 && bytes.Equal(k, after) {
			k, v = c.Next()
		}
	} else {
		// The first key beyond the range: after, or the end of the prefix.
		var end []byte
		if end = prefixEnd(prefix); len(after) > 0 && (end == nil || bytes.Compare(after, end) < 0) {
			end = after
		}
		if end == nil {
			k, v = c.Last()
		} else if k, _ = c.Seek(end); k == nil {
			k, v = c.Last()
		} else {
			k, v = c.Prev()
		}
	}
	n := 0
	for ; k != nil && bytes.HasPrefix(k, prefix); k, v = next(c, o.Reverse) {
		if v == nil { // a nested bucket: never written by this package
			return corrupt(b, k, "a nested bucket")
		}
		if reserved(b, k) {
			continue
		}
		switch err := visit(k, v); {
		case errors.Is(err, errSkip):
			continue
		case err != nil:
			return err
		}
		if n++; o.Limit > 0 && n >= o.Limit {
			return nil
		}
	}
	return nil
}

func next(c *bbolt.Cursor, reverse bool) ([]byte, []byte) {
	if reverse {
		return c.Prev()
	}
	return c.Next()
}

// prefixEnd returns the least key greater than every key with prefix p, nil
// when there is none (p empty or all 0xff).
func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// sweep deletes up to max records that have expired, earliest first.
func (t *tx) sweep(max int) error {
	t.enter()
	defer t.leave()
	ib := t.btx.Bucket(expiryBucket)
	if ib == nil {
		return nil
	}
	c := ib.Cursor()
	for k, _ := c.First(); k != nil && max > 0; k, _ = c.First() {
		exp, b, key, ok := parseIndexKey(k)
		if !ok {
			return fmt.Errorf("%w: expiry index entry %x", ErrCorrupt, k)
		}
		if t.live(exp) {
			return nil
		}
		b, key = bytes.Clone(b), bytes.Clone(key)
		if err := c.Delete(); err != nil {
			return err
		}
		if bk := t.btx.Bucket(b); bk != nil {
			if _, e, _, ok := decode(bk.Get(key)); ok && e == exp {
				if err := bk.Delete(key); err != nil {
					return err
				}
			}
		}
		max--
	}
	return nil
}
