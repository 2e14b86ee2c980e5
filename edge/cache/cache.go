package cache

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"sync"

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
}

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
}

type call struct {
	wg  sync.WaitGroup
	e   *Entry
	err error
}

// New makes a cache of at most maxBytes (0 disables caching: every Lookup
// misses and nothing is stored).
func New(maxBytes int64) (*Cache, error) {
	c := &Cache{inflight: map[string]*call{}}
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
	return c.rc.Get(key)
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
	return Stats{
		Hits: int64(m.Hits()), Misses: int64(m.Misses()), Evictions: int64(m.KeysEvicted()),
		CostBytes: int64(m.CostAdded() - m.CostEvicted()),
	}
}

// Close stops the cache's goroutines.
func (c *Cache) Close() {
	if c.rc != nil {
		c.rc.Close()
	}
}
