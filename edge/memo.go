package edge

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/edge/cache"
	"github.com/valyala/fasthttp"
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
// requests 0.58-0.76, and 0.75-0.95 once the slots sufficed and connguard
// replaced fasthttp's per-request deadlines).
//
// An entry is valid only for the snapshot generation and the key-table
// generation it was made under, so a swap, a new or revoked key or a changed
// tier is never answered from it. The memo is two-way set-associative: a
// request may live in either slot of its pair, and a new entry takes the slot
// that is empty or stale, else the one its hash picks. Slots are chosen with
// a per-process random seed and the Authorization value is compared in
// constant time, so a caller learns nothing about another caller's key from
// timing.
//
// The memo holds responses of at most memoMaxBody bytes to requests whose
// URI and Authorization value take at most memoMaxKey bytes, within a byte
// budget of half the cache's: an entry may keep a response alive after the
// cache evicted it, so the memo adds at most that much to the cache budget.
// An entry is counted as its identity body twice (room for the gzip and
// brotli forms computed later, each far smaller for JSON) and its own size.
// With memoSlots slots, the 6,744 distinct card-detail requests of cardbench
// find a free slot nearly always (with 16,384 slots one request in seventeen
// went through the full front door again).
type frontMemo struct {
	seed     maphash.Seed
	slots    []atomic.Pointer[memoEntry] // memoSlots
	hits     atomic.Int64
	bytes    atomic.Int64 // counted size of the entries in slots
	maxBytes int64
}

const (
	memoMaxBody     = 8 << 10
	memoMaxBareBody = 1 << 20 // /v2's pages: pageSize=250 of cards is about 0.5 MB
	memoMaxKey      = 256
	memoSlots       = 1 << 16
	// memoEntryOverhead is an entry's size besides its body: the struct
	// (the key array is most of it) and its header block (the struct and
	// about 300 bytes of names and values).
	memoEntryOverhead = int64(unsafe.Sizeof(memoEntry{})) + int64(unsafe.Sizeof(fasthttp.ResponseHeader{})) + 300
)

// memoEntry is one remembered request; immutable once stored.
type memoEntry struct {
	snapGen uint64
	keyGen  uint64
	route   *route
	caller  access.Caller
	entry   *cache.Entry // the response, for its compressed forms
	apiKey  bool         // the key came in X-Api-Key (/v2), not Authorization
	// header is the response's header block, the same for every request of
	// the entry (entryHeader): a hit copies it whole instead of setting
	// each header (each Set scans, copies and checks its value again).
	header *fasthttp.ResponseHeader
	// The identity response, copied from entry (body shares its bytes), so
	// that a hit reads this entry and the body and nothing else.
	body []byte
	etag [cache.ETagLen]byte
	// key holds the raw request URI, then the raw Authorization value, in
	// the entry itself: a lookup compares it without another pointer to
	// follow.
	uriLen, keyLen uint16
	key            [memoMaxKey]byte
}

// newFrontMemo makes the memo of a response cache of cacheBytes.
func newFrontMemo(cacheBytes int64) *frontMemo {
	return newFrontMemoSlots(memoSlots, cacheBytes/2)
}

// newFrontMemoSlots makes a memo of n slots (a power of two, at least 2)
// holding at most maxBytes.
func newFrontMemoSlots(n int, maxBytes int64) *frontMemo {
	return &frontMemo{seed: maphash.MakeSeed(), slots: make([]atomic.Pointer[memoEntry], n), maxBytes: maxBytes}
}

// pair returns the two slots of the request with URI hash uriHash and
// Authorization auth, the hash's pick first.
func (m *frontMemo) pair(uriHash uint64, auth []byte) (*atomic.Pointer[memoEntry], *atomic.Pointer[memoEntry]) {
	h := uriHash ^ bits.RotateLeft64(maphash.Bytes(m.seed, auth), 32)
	i := h & uint64(len(m.slots)-1)
	return &m.slots[i], &m.slots[i^1]
}

// cost is what an entry counts against the memo's byte budget: its identity
// body twice (room for the compressed forms) and its own size.
func (e *memoEntry) cost() int64 { return int64(2*len(e.body)) + memoEntryOverhead }

func (e *memoEntry) is(uri, auth []byte, apiKey bool, snapGen, keyGen uint64) bool {
	return e != nil && e.snapGen == snapGen && e.keyGen == keyGen && e.apiKey == apiKey && int(e.uriLen) == len(uri) && int(e.keyLen) == len(uri)+len(auth) &&
		bytes.Equal(e.key[:e.uriLen], uri) && constantTimeEqual(e.key[e.uriLen:e.keyLen], auth)
}

// constantTimeEqual reports whether a and b are equal in a time that depends
// on their length only, as crypto/subtle.ConstantTimeCompare, eight bytes at
// a time (subtle compares byte by byte: 400 of the 750 instructions of a
// memo lookup with a 40-byte key, callgrind).
func constantTimeEqual(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	var v uint64
	i := 0
	for ; i+8 <= len(a); i += 8 {
		v |= binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:])
	}
	for ; i < len(a); i++ {
		v |= uint64(a[i] ^ b[i])
	}
	return v == 0
}

// lookup returns the entry remembered for (uri, auth) under the given
// generations, or nil; apiKey says auth is an X-Api-Key value.
func (m *frontMemo) lookup(uri, auth []byte, apiKey bool, snapGen, keyGen uint64) *memoEntry {
	a, b := m.pair(maphash.Bytes(m.seed, uri), auth)
	e := a.Load()
	if !e.is(uri, auth, apiKey, snapGen, keyGen) {
		if e = b.Load(); !e.is(uri, auth, apiKey, snapGen, keyGen) {
			return nil
		}
	}
	m.hits.Add(1)
	return e
}

// remember stores e as the answer of the request (uri, auth), copying both,
// unless its body is over memoMaxBody, memoMaxBareBody for /v2 (checked before anything is copied:
// the full path calls it for every keyed GET it answers) or it does not fit
// the byte budget.
func (m *frontMemo) remember(uri, auth []byte, e memoEntry) {
	if n := len(e.entry.Body); n > memoMaxBody && (e.route == nil || !e.route.bare || n > memoMaxBareBody) || len(uri)+len(auth) > memoMaxKey {
		return
	}
	e.body = e.entry.Body
	size := e.cost()
	a, b := m.pair(maphash.Bytes(m.seed, uri), auth)
	if o := a.Load(); o != nil && o.snapGen == e.snapGen && o.keyGen == e.keyGen {
		if o := b.Load(); o == nil || o.snapGen != e.snapGen || o.keyGen != e.keyGen {
			a = b // the pick is current, the other slot is free
		}
	}
	var replaced int64
	if o := a.Load(); o != nil {
		replaced = o.cost()
	}
	if m.bytes.Load()-replaced+size > m.maxBytes {
		return
	}
	e.uriLen, e.keyLen = uint16(len(uri)), uint16(copy(e.key[copy(e.key[:], uri):], auth)+len(uri))
	e.etag = [cache.ETagLen]byte(e.entry.ETagBytes())
	e.header = entryHeader(e.entry, e.caller)
	if o := a.Swap(&e); o != nil {
		m.bytes.Add(-o.cost())
	}
	m.bytes.Add(size)
}
