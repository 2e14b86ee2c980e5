package edge

import (
	"crypto/subtle"
	"hash/maphash"
	"math/bits"
	"sync/atomic"

	"github.com/cardedge/cardedge/edge/access"
	"github.com/cardedge/cardedge/edge/cache"
)

// frontMemo remembers, for a keyed GET exactly as it arrived (raw request URI
// and Authorization value), the route, the authenticated caller and the
// cached response it was answered with. A repeated request then skips
// routing, validation, authentication, the cache key and the cache lookup;
// it is still charged (quota and rate), gets its access headers, ETag/304
// and content negotiation, and is counted in the metrics. On a saturated core
// that was most of the gap to a bare fasthttp handler (measured with wrk at
// 64 connections on one card-detail URI: 0.85-0.87 of the ceiling's req/s,
// the full front door 0.57; over cardbench's 6,744 Zipf card-detail
// requests 0.58-0.76).
//
// An entry is valid only for the snapshot generation and the key-table
// generation it was made under, so a swap, a new or revoked key or a changed
// tier is never answered from it. The memo is two-way set-associative: a
// request may live in either slot of its pair, and a new entry takes the slot
// that is empty or stale, else the one its hash picks. It holds responses of
// at most memoMaxBody bytes, in as many slots as half the cache budget allows
// at that size (so at most that much on top of the budget; the entries are
// mostly the cache's own). Slots are chosen with a per-process random seed
// and the Authorization value is compared in constant time, so a caller
// learns nothing about another caller's key from timing.
type frontMemo struct {
	seed  maphash.Seed
	slots []atomic.Pointer[memoEntry] // a power of two, at least 2
	hits  atomic.Int64
}

const (
	memoMaxBody  = 8 << 10
	memoMinSlots = 256
	memoMaxSlots = 1 << 16
)

// memoEntry is one remembered request; immutable once stored.
type memoEntry struct {
	uri     string // raw request URI
	auth    []byte // raw Authorization value
	snapGen uint64
	keyGen  uint64
	route   *route
	caller  access.Caller
	entry   *cache.Entry
}

// newFrontMemo sizes the memo for a response cache of cacheBytes.
func newFrontMemo(cacheBytes int64) *frontMemo {
	n := memoMinSlots
	for n < memoMaxSlots && int64(2*n)*memoMaxBody <= cacheBytes/2 {
		n *= 2
	}
	return &frontMemo{seed: maphash.MakeSeed(), slots: make([]atomic.Pointer[memoEntry], n)}
}

// pair returns the two slots of the request with URI hash uriHash and
// Authorization auth, the hash's pick first.
func (m *frontMemo) pair(uriHash uint64, auth []byte) (*atomic.Pointer[memoEntry], *atomic.Pointer[memoEntry]) {
	h := uriHash ^ bits.RotateLeft64(maphash.Bytes(m.seed, auth), 32)
	i := h & uint64(len(m.slots)-1)
	return &m.slots[i], &m.slots[i^1]
}

func (e *memoEntry) is(uri, auth []byte, snapGen, keyGen uint64) bool {
	return e != nil && e.snapGen == snapGen && e.keyGen == keyGen && e.uri == string(uri) &&
		subtle.ConstantTimeCompare(e.auth, auth) == 1
}

// lookup returns the entry remembered for (uri, auth) under the given
// generations, or nil.
func (m *frontMemo) lookup(uri, auth []byte, snapGen, keyGen uint64) *memoEntry {
	a, b := m.pair(maphash.Bytes(m.seed, uri), auth)
	e := a.Load()
	if !e.is(uri, auth, snapGen, keyGen) {
		if e = b.Load(); !e.is(uri, auth, snapGen, keyGen) {
			return nil
		}
	}
	m.hits.Add(1)
	return e
}

// remember stores e as the answer of the request (uri, auth), copying both,
// unless its body is over memoMaxBody (checked before anything is copied:
// the full path calls it for every keyed GET it answers).
func (m *frontMemo) remember(uri, auth []byte, e memoEntry) {
	if len(e.entry.Body) > memoMaxBody {
		return
	}
	e.uri, e.auth = string(uri), append([]byte(nil), auth...)
	a, b := m.pair(maphash.Bytes(m.seed, uri), auth)
	if o := a.Load(); o != nil && o.snapGen == e.snapGen && o.keyGen == e.keyGen {
		if o := b.Load(); o == nil || o.snapGen != e.snapGen || o.keyGen != e.keyGen {
			a = b // the pick is current, the other slot is free
		}
	}
	a.Store(&e)
}
