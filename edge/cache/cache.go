package cache

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/andybalholm/brotli"
	"github.com/cespare/xxhash/v2"
	"github.com/dgraph-io/ristretto/v2"
	"github.com/klauspost/compress/gzip"
)

// Entry is one cached response.
type Entry struct {
	Status int
	Body   []byte // identity encoding

	etag [ETagLen]byte // strong ETag of Body, quoted

	gzipOnce, brOnce sync.Once
	gzip, br         []byte

	// hits counts the requests the entry answered (Lookup's hits, and the
	// callers' own copies' through Hit): Hottest ranks by it.
	hits atomic.Uint32
}

// Hit counts one request answered with e by a caller that keeps e outside
// the cache (edge's front-door memo); Lookup counts its own hits.
func (e *Entry) Hit() { e.hits.Add(1) }

// ETagLen is the length of an ETag: a 64-bit hash in unpadded base64url
// (11 characters) between quotes.
const ETagLen = 13

// NewEntry makes an entry and its ETag: the xxhash64 of the body. The ETag only has to tell two bodies of one URL apart, so a fast
// non-cryptographic hash is enough (SHA-256 cost 1.1-1.5 us per uncached
// response); nothing secret or attacker-chosen is hashed.
func NewEntry(status int, body []byte) *Entry {
	e := &Entry{Status: status, Body: body}
	var sum [8]byte
	binary.BigEndian.PutUint64(sum[:], xxhash.Sum64(body))
	e.etag[0] = '"'
	base64.RawURLEncoding.Encode(e.etag[1:ETagLen-1], sum[:])
	e.etag[ETagLen-1] = '"'
	return e
}

// ETag returns the entry's strong ETag, quoted.
func (e *Entry) ETag() string { return string(e.etag[:]) }

// ETagBytes returns the ETag as bytes (shared: do not modify).
func (e *Entry) ETagBytes() []byte { return e.etag[:] }

// minCompress is the smallest body worth compressing.
const minCompress = 512

// Gzip returns the gzip encoding of Body (computed once), or nil when the body
// is too small to gain from it.
func (e *Entry) Gzip() []byte {
	if len(e.Body) < minCompress {
		return nil
	}
	e.gzipOnce.Do(func() {
		var buf bytes.Buffer
		w, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
		w.Write(e.Body)
		w.Close()
		e.gzip = buf.Bytes()
	})
	return e.gzip
}

// Brotli returns the brotli encoding of Body (computed once, quality 5), or
// nil when the body is too small.
func (e *Entry) Brotli() []byte {
	if len(e.Body) < minCompress {
		return nil
	}
	e.brOnce.Do(func() {
		var buf bytes.Buffer
		w := brotli.NewWriterLevel(&buf, 5)
		w.Write(e.Body)
		w.Close()
		e.br = buf.Bytes()
	})
	return e.br
}

// Cache holds entries up to a byte budget.
type Cache struct {
	rc *ristretto.Cache[string, *Entry]

	mu       sync.Mutex
	inflight map[string]*call

	// warm holds the entries Preload made for a snapshot not served yet
	// (read-only once stored): Lookup answers from it what ristretto does
	// not hold (its admission policy refuses keys it never saw when it is
	// full).
	warm     atomic.Pointer[map[string]*Entry]
	warmHits atomic.Int64 // Lookups answered from warm (ristretto counted them as misses)
	// hot are the recipes of the entries filled (Remember), for Hottest:
	// slots indexed by the key's hash.
	hotMu sync.Mutex
	hot   []hotSlot
}

// hotSlot is a key Remember noted, what makes its entry again, and the
// entry, weakly: an entry ristretto evicted is collected, and its slot is
// then free.
type hotSlot struct {
	key    string
	recipe any
	e      weak.Pointer[Entry]
	// hits is the entry's count when a colliding key last found the slot
	// taken: the slot goes to a newcomer once its entry gains no hits
	// between two collisions (an old snapshot's entry, a cold one).
	hits uint32
}

// hotSlots is how many keys Remember keeps (about 10 KB of slots).
const hotSlots = 1 << 14

type call struct {
	wg  sync.WaitGroup
	e   *Entry
	err error
}

// New makes a cache of at most maxBytes (0 disables caching: every Lookup
// misses and nothing is stored).
func New(maxBytes int64) (*Cache, error) {
	c := &Cache{inflight: map[string]*call{}, hot: make([]hotSlot, hotSlots)}
	if maxBytes <= 0 {
		return c, nil
	}
	rc, err := ristretto.NewCache(&ristretto.Config[string, *Entry]{
		NumCounters: max(maxBytes/1000, 10_000), // ~10x the entries expected at ~10 KB each
		MaxCost:     maxBytes,
		BufferItems: 64,
		Metrics:     true,
	})
	if err != nil {
		return nil, fmt.Errorf("new response cache: %w", err)
	}
	c.rc = rc
	return c, nil
}

// Enabled reports whether the cache stores anything (New with maxBytes > 0).
func (c *Cache) Enabled() bool { return c.rc != nil }

// Lookup returns the cached entry of key, if any (no fill, no singleflight);
// on a miss, Fill computes it.
func (c *Cache) Lookup(key string) (*Entry, bool) {
	if c.rc == nil {
		return nil, false
	}
	e, ok := c.rc.Get(key)
	if !ok {
		if w := c.warm.Load(); w != nil {
			e, ok = (*w)[key]
		}
		if !ok {
			return nil, false
		}
		c.warmHits.Add(1)
	}
	e.hits.Add(1)
	return e, true
}

// Fill computes the entry of key with fill and caches it: the miss path after
// Lookup (the counters count every lookup, so Fill does not look up again). Concurrent fills
// of one key call fill once; the others wait for its result. Errors are not
// cached.
func (c *Cache) Fill(key string, fill func() (*Entry, error)) (e *Entry, err error) {
	c.mu.Lock()
	if cl, ok := c.inflight[key]; ok {
		c.mu.Unlock()
		cl.wg.Wait()
		return cl.e, cl.err
	}
	cl := &call{}
	cl.wg.Add(1)
	c.inflight[key] = cl
	c.mu.Unlock()

	defer func() {
		if r := recover(); r != nil {
			cl.err = fmt.Errorf("fill %q panicked: %v", key, r)
			err = cl.err
		}
		c.mu.Lock()
		delete(c.inflight, key)
		c.mu.Unlock()
		cl.wg.Done()
	}()
	cl.e, cl.err = fill()
	if cl.err == nil && c.rc != nil && cl.e.Status == 200 {
		c.rc.Set(key, cl.e, int64(len(cl.e.Body)+len(key)+256))
	}
	return cl.e, cl.err
}

// Remember notes that recipe makes key's entry e again (edge: the request
// that filled it), so that Hottest can name the most requested entries.
// Call it when e was filled (the miss path: it takes a lock); a key's
// slot may go to another key later, then the key is forgotten.
func (c *Cache) Remember(key string, e *Entry, recipe any) {
	if c.rc == nil {
		return
	}
	c.hotMu.Lock()
	defer c.hotMu.Unlock()
	c.remember(key, e, recipe)
}

func (c *Cache) remember(key string, e *Entry, recipe any) {
	s := &c.hot[xxhash.Sum64String(key)%hotSlots]
	if s.key == key {
		// Filled again (ristretto evicted it, or had not stored the first
		// fill yet): the new entry carries the old one's hits.
		if old := s.e.Value(); old != nil && old != e {
			e.hits.Add(old.hits.Load())
		}
	} else {
		if old := s.e.Value(); old != nil {
			if n := old.hits.Load(); n > s.hits {
				s.hits = n // gained hits since the last collision: keeps its slot
				return
			}
		}
	}
	*s = hotSlot{key: key, recipe: recipe, e: weak.Make(e), hits: e.hits.Load()}
}

// Hot is a remembered entry: its key, its recipe (Remember's) and the
// requests it answered.
type Hot struct {
	Key    string
	Recipe any
	Hits   uint32
}

// Hottest returns up to n remembered entries with at least one hit, the
// most requested first.
func (c *Cache) Hottest(n int) []Hot {
	if c.rc == nil || n <= 0 {
		return nil
	}
	var out []Hot
	c.hotMu.Lock()
	for i := range c.hot {
		s := &c.hot[i]
		if e := s.e.Value(); e != nil && e.hits.Load() > 0 {
			out = append(out, Hot{Key: s.key, Recipe: s.recipe, Hits: e.hits.Load()})
		}
	}
	c.hotMu.Unlock()
	slices.SortFunc(out, func(a, b Hot) int {
		return cmp.Or(cmp.Compare(b.Hits, a.Hits), cmp.Compare(a.Key, b.Key))
	})
	return out[:min(n, len(out))]
}

// Warmed is an entry made ahead of its first request: Preload's.
type Warmed struct {
	Key    string
	Entry  *Entry
	Recipe any
	// Hits is carried over to the new entry (the requests its recipe
	// answered on the previous snapshot), so that it stays as hot for
	// the next Hottest.
	Hits uint32
}

// Preload stores entries made before their first request (edge: the
// hottest entries of the snapshot being replaced, made again on the new
// one, before it serves). Lookup finds them until the next Preload even
// when ristretto's admission refuses them (it does when it is full: it
// never saw their keys), and Remember notes their recipes.
func (c *Cache) Preload(ws []Warmed) {
	if c.rc == nil {
		return
	}
	m := make(map[string]*Entry, len(ws))
	c.hotMu.Lock()
	for _, w := range ws {
		m[w.Key] = w.Entry
		w.Entry.hits.Store(w.Hits)
		c.remember(w.Key, w.Entry, w.Recipe)
	}
	c.hotMu.Unlock()
	c.warm.Store(&m)
	for _, w := range ws {
		c.rc.Set(w.Key, w.Entry, int64(len(w.Entry.Body)+len(w.Key)+256))
	}
}

// Wait returns once the entries stored so far are in ristretto (it
// stores asynchronously): tests.
func (c *Cache) Wait() {
	if c.rc != nil {
		c.rc.Wait()
	}
}

// Stats are the cache's counters.
type Stats struct {
	Hits, Misses, Evictions int64
	CostBytes               int64
}

// Stats returns the counters (zero when caching is disabled).
func (c *Cache) Stats() Stats {
	if c.rc == nil {
		return Stats{}
	}
	m := c.rc.Metrics
	w := c.warmHits.Load()
	return Stats{
		Hits: int64(m.Hits()) + w, Misses: int64(m.Misses()) - w, Evictions: int64(m.KeysEvicted()),
		CostBytes: int64(m.CostAdded() - m.CostEvicted()),
	}
}

// Close stops the cache's goroutines.
func (c *Cache) Close() {
	if c.rc != nil {
		c.rc.Close()
	}
}
