package cache_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/cardedge/cardedge/edge/cache"
)

func TestCache_GetOnceUnderConcurrentMisses(t *testing.T) {
	c, err := cache.New(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var fills atomic.Int32
	release := make(chan struct{})
	fill := func() (*cache.Entry, error) {
		fills.Add(1)
		<-release
		return cache.NewEntry(200, []byte(`{"ok":true}`)), nil
	}
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, _, err := get(c, "k", fill)
			if err != nil || string(e.Body) != `{"ok":true}` {
				t.Errorf("get: %v %v", e, err)
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := fills.Load(); n != 1 {
		t.Fatalf("fill ran %d times for 16 concurrent misses, want 1", n)
	}
	// Stored: a later Get hits (ristretto admits asynchronously).
	deadline := time.Now().Add(2 * time.Second)
	for {
		_, hit, _ := get(c, "k", fill)
		if hit {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("entry never became a hit")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCache_ErrorsAreNotCached(t *testing.T) {
	c, _ := cache.New(1 << 20)
	defer c.Close()
	boom := errors.New("boom")
	if _, _, err := get(c, "k", func() (*cache.Entry, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	e, hit, err := get(c, "k", func() (*cache.Entry, error) { return cache.NewEntry(200, []byte("x")), nil })
	if err != nil || hit || string(e.Body) != "x" {
		t.Fatalf("after an error: %v %v %v", e, hit, err)
	}
}

func TestCache_PanicInFillIsAnError(t *testing.T) {
	c, _ := cache.New(0) // disabled: every Get fills
	defer c.Close()
	_, _, err := get(c, "k", func() (*cache.Entry, error) { panic("bad handler") })
	if err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Fatalf("err %v", err)
	}
	if _, _, err := get(c, "k", func() (*cache.Entry, error) { return cache.NewEntry(200, nil), nil }); err != nil {
		t.Fatalf("key stuck after a panic: %v", err)
	}
}

func TestEntry_Encodings(t *testing.T) {
	body := bytes.Repeat([]byte(`{"card_id":"en:base1-4","price_usd":123.45},`), 50)
	e := cache.NewEntry(200, body)
	zr, err := gzip.NewReader(bytes.NewReader(e.Gzip()))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(zr)
	if !bytes.Equal(got, body) {
		t.Fatal("gzip round trip differs")
	}
	got, _ = io.ReadAll(brotli.NewReader(bytes.NewReader(e.Brotli())))
	if !bytes.Equal(got, body) {
		t.Fatal("brotli round trip differs")
	}
	if len(e.Gzip()) >= len(body) {
		t.Errorf("gzip did not compress: %d >= %d", len(e.Gzip()), len(body))
	}
	small := cache.NewEntry(200, []byte(`{}`))
	if small.Gzip() != nil || small.Brotli() != nil {
		t.Error("tiny bodies are sent as they are")
	}
	if cache.NewEntry(200, body).ETag() != e.ETag() || cache.NewEntry(200, []byte("other")).ETag() == e.ETag() {
		t.Error("ETag must follow the body")
	}
}

// TestCache_CountsEachLookupOnce: a miss filled through Lookup and Fill (the
// edge's path) counts one miss, and the next Lookup one hit.
func TestCache_CountsEachLookupOnce(t *testing.T) {
	c, err := cache.New(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := c.Lookup("k"); ok {
		t.Fatal("hit in an empty cache")
	}
	if _, err := c.Fill("k", func() (*cache.Entry, error) { return cache.NewEntry(200, []byte("x")), nil }); err != nil {
		t.Fatal(err)
	}
	misses := int64(1) // the lookup before the fill
	var ok bool
	for i := 0; i < 100 && !ok; i++ { // ristretto admits asynchronously
		if _, ok = c.Lookup("k"); !ok {
			misses++
			time.Sleep(time.Millisecond)
		}
	}
	if st := c.Stats(); !ok || st.Hits != 1 || st.Misses != misses {
		t.Fatalf("found %v; stats %+v, want 1 hit and %d misses (one per lookup that missed)", ok, st, misses)
	}
}

// get is the edge's path: Lookup, then Fill on a miss; hit reports whether
// the entry came from the cache.
func get(c *cache.Cache, key string, fill func() (*cache.Entry, error)) (e *cache.Entry, hit bool, err error) {
	if e, ok := c.Lookup(key); ok {
		return e, true, nil
	}
	e, err = c.Fill(key, fill)
	return e, false, err
}

// TestCache_HottestAndPreload ranks remembered entries by their hits (the
// cold and the unhit left out), and a preloaded entry answers Lookup even
// when ristretto never stored it, counted as a hit.
func TestCache_HottestAndPreload(t *testing.T) {
	c, err := cache.New(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i, hits := range []int{1, 5, 0, 3} {
		key := fmt.Sprintf("1|k%d", i)
		e, err := c.Fill(key, func() (*cache.Entry, error) { return cache.NewEntry(200, []byte(key)), nil })
		if err != nil {
			t.Fatal(err)
		}
		c.Remember(key, e, i)
		for range hits {
			e.Hit()
		}
	}
	var got []string
	for _, h := range c.Hottest(10) {
		got = append(got, fmt.Sprintf("%s:%d:%v", h.Key, h.Hits, h.Recipe))
	}
	if got, want := strings.Join(got, " "), "1|k1:5:1 1|k3:3:3 1|k0:1:0"; got != want {
		t.Errorf("Hottest(10) = %s, want %s", got, want)
	}
	if got := c.Hottest(1); len(got) != 1 || got[0].Key != "1|k1" {
		t.Errorf("Hottest(1) = %v", got)
	}

	e := cache.NewEntry(200, []byte("warmed"))
	c.Preload([]cache.Warmed{{Key: "2|k1", Entry: e, Recipe: 1, Hits: 5}})
	st0 := c.Stats()
	if got, ok := c.Lookup("2|k1"); !ok || got != e {
		t.Fatalf("Lookup of a preloaded key: %v %v", got, ok)
	}
	if _, ok := c.Lookup("2|nope"); ok {
		t.Fatal("Lookup of a key never stored hit")
	}
	st1 := c.Stats()
	if got, want := [2]int64{st1.Hits - st0.Hits, st1.Misses - st0.Misses}, [2]int64{1, 1}; got != want {
		t.Errorf("hits, misses = %v, want %v", got, want)
	}
	if h := c.Hottest(1); len(h) != 1 || h[0].Key != "2|k1" || h[0].Hits != 6 {
		t.Errorf("after Preload, Hottest(1) = %v, want 2|k1 with its 5 hits carried over and 1 more", h)
	}
}
