package edge

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/edge/cache"
	"github.com/cardedge/cardedge/state"
	"github.com/cardedge/cardedge/state/statetest"
	"github.com/google/go-cmp/cmp"
	"github.com/valyala/fasthttp"
)

// memoEnv is a server over the test snapshot with keys of two tiers.
type memoEnv struct {
	srv         *Server
	acc         *access.Service
	store       access.Keys
	elite, free string // secrets
	eliteID     string // the elite key's id
	st          state.Store
}

func newMemoEnv(t *testing.T, root string, cacheBytes int64) *memoEnv {
	t.Helper()
	st := statetest.MustOpen(t)
	store := access.Keys{State: st}
	elite, ek, err := store.Create(context.Background(), access.KeySpec{Tier: access.Elite, Name: "elite"})
	if err != nil {
		t.Fatal(err)
	}
	free, _, err := store.Create(context.Background(), access.KeySpec{Tier: access.Free, Name: "free"})
	if err != nil {
		t.Fatal(err)
	}
	acc, err := access.Open(access.Options{State: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { acc.Close() })
	srv := newTestServer(t, root, st, acc, cacheBytes)
	return &memoEnv{srv: srv, acc: acc, store: store, elite: elite, free: free, eliteID: ek.ID, st: st}
}

// memoReply is what a test compares of a response.
type memoReply struct {
	Status  int
	Headers map[string]string // all but Date and X-Request-Id
	Body    string
}

func (e *memoEnv) get(t *testing.T, uri string, headers ...string) memoReply {
	t.Helper()
	var req fasthttp.Request
	req.SetRequestURI("http://edge" + uri)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4000}, nil)
	e.srv.handle(&ctx)
	r := memoReply{Status: ctx.Response.StatusCode(), Headers: map[string]string{}, Body: string(ctx.Response.Body())}
	for k, v := range ctx.Response.Header.All() {
		if k := string(k); k != "Date" && k != "X-Request-Id" {
			r.Headers[k] = string(v)
		}
	}
	return r
}

func (e *memoEnv) memoHits() int64 { return e.srv.memo.hits.Load() }

// TestFrontMemo runs the memo's tests over one test snapshot.
func TestFrontMemo(t *testing.T) {
	root := tinyRoot(t)
	t.Run("answers as the front door", func(t *testing.T) { testMemoAnswers(t, newMemoEnv(t, root, 64<<20)) })
	t.Run("charges and revokes", func(t *testing.T) { testMemoCharges(t, newMemoEnv(t, root, 64<<20)) })
	t.Run("off without cache", func(t *testing.T) { testMemoOff(t, newMemoEnv(t, root, 0)) })
	t.Run("concurrent", func(t *testing.T) { testMemoConcurrent(t, newMemoEnv(t, root, 64<<20)) })
}

// testMemoConcurrent: goroutines repeating a few requests of two keys while
// the key table is reloaded (a new key each time) all get the answer of
// their own key; under -race it checks the memo's publication.
func testMemoConcurrent(t *testing.T, e *memoEnv) {
	uris := []string{"/api/v3/cards/en:base1-4", "/api/v3/cards/en:base1-2?include=market_summary", "/api/v3/sets?limit=2", "/api/v3/cards?limit=3"}
	keys := map[string]string{e.elite: "elite", e.free: "free"}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 150; i++ {
				key := e.elite
				if (g+i)%2 == 1 {
					key = e.free
				}
				var req fasthttp.Request
				req.SetRequestURI("http://edge" + uris[(g*7+i)%len(uris)])
				req.Header.Set("Authorization", "Bearer "+key)
				var ctx fasthttp.RequestCtx
				ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4000}, nil)
				e.srv.handle(&ctx)
				status, tier := ctx.Response.StatusCode(), string(ctx.Response.Header.Peek("X-Service-Tier"))
				if (status != 200 && status != 429) || tier != keys[key] {
					select {
					case errs <- fmt.Sprintf("%s as %s: %d tier %q", req.URI(), keys[key], status, tier):
					default:
					}
				}
			}
		}()
	}
	for i := 0; i < 5; i++ { // reload the key table while they run
		if _, _, err := e.store.Create(context.Background(), access.KeySpec{Tier: access.Pro, Name: fmt.Sprintf("extra-%d", i)}); err != nil {
			t.Fatal(err)
		}
		if err := e.acc.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
	if e.memoHits() == 0 {
		t.Error("no memo hits")
	}
}

// testMemoAnswers: a repeated keyed GET is answered by the memo with the
// response the whole front door gives, its RateLimit counting down (the memo
// still charges), 304 for its ETag, and another key or another spelling of
// the request never sees another entry.
func testMemoAnswers(t *testing.T, e *memoEnv) {
	const uri = "/api/v3/cards/en:base1-4?include=market_summary"
	first := e.get(t, uri, "Authorization", "Bearer "+e.elite)
	if first.Status != 200 || e.memoHits() != 0 {
		t.Fatalf("first request: %d (memo hits %d): %s", first.Status, e.memoHits(), first.Body)
	}
	second := e.get(t, uri, "Authorization", "Bearer "+e.elite)
	if e.memoHits() != 1 {
		t.Fatalf("second request: memo hits %d, want 1", e.memoHits())
	}
	if st := e.srv.cacheStats(); st.Hits != 1 || st.MemoHits != 1 || st.Misses != 1 {
		t.Errorf("cache stats after a miss and a memo hit: %+v, want 1 hit (the memo's) and 1 miss", st)
	}
	if first.Headers["RateLimit"] == second.Headers["RateLimit"] {
		t.Errorf("RateLimit did not count down on the memo hit: %q", second.Headers["RateLimit"])
	}
	delete(first.Headers, "RateLimit")
	delete(second.Headers, "RateLimit")
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("memo hit differs from the front door's answer (-front door +memo):\n%s", diff)
	}

	// The memo copies the entry's header block whole: the request id is
	// set after it, the client's own when it sent a usable one.
	for _, sent := range []string{"", "trace-42"} {
		var req fasthttp.Request
		req.SetRequestURI("http://edge" + uri)
		req.Header.Set("Authorization", "Bearer "+e.elite)
		if sent != "" {
			req.Header.Set("X-Request-Id", sent)
		}
		var ctx fasthttp.RequestCtx
		ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4000}, nil)
		hits := e.memoHits()
		e.srv.handle(&ctx)
		got := string(ctx.Response.Header.Peek("X-Request-Id"))
		if e.memoHits() != hits+1 || got == "" || (sent != "" && got != sent) {
			t.Errorf("memo hit with X-Request-Id %q: memo hits %d->%d, response X-Request-Id %q", sent, hits, e.memoHits(), got)
		}
	}

	notModified := e.get(t, uri, "Authorization", "Bearer "+e.elite, "If-None-Match", first.Headers["ETag"])
	if notModified.Status != 304 || e.memoHits() != 4 {
		t.Errorf("If-None-Match on a memo hit: %d (memo hits %d)", notModified.Status, e.memoHits())
	}
	gz := e.get(t, uri, "Authorization", "Bearer "+e.elite, "Accept-Encoding", "gzip")
	if gz.Headers["Content-Encoding"] != "gzip" {
		t.Errorf("Accept-Encoding gzip on a memo hit: Content-Encoding %q", gz.Headers["Content-Encoding"])
	}

	// An unmetered key's memo hit has no RateLimit headers, as its first
	// answer: the header block is made for the entry's caller.
	unmetered, _, err := e.store.Create(context.Background(), access.KeySpec{Tier: access.Elite, Name: "unmetered", Unmetered: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.acc.Sync(); err != nil {
		t.Fatal(err)
	}
	u1 := e.get(t, uri, "Authorization", "Bearer "+unmetered)
	before := e.memoHits()
	u2 := e.get(t, uri, "Authorization", "Bearer "+unmetered)
	if e.memoHits() != before+1 || u2.Headers["RateLimit"] != "" || u2.Headers["RateLimit-Policy"] != "" {
		t.Errorf("unmetered key: memo hits %d->%d, RateLimit %q, RateLimit-Policy %q", before, e.memoHits(), u2.Headers["RateLimit"], u2.Headers["RateLimit-Policy"])
	}
	if diff := cmp.Diff(u1, u2); diff != "" {
		t.Errorf("unmetered key's memo hit differs from the front door's answer (-front door +memo):\n%s", diff)
	}

	// The free key's first request of the same URI is not the elite key's
	// entry: its own tier, its own window.
	hits := e.memoHits()
	free := e.get(t, uri, "Authorization", "Bearer "+e.free)
	if free.Status != 200 || free.Headers["X-Service-Tier"] != "free" || e.memoHits() != hits {
		t.Errorf("free key after the elite key: %d tier %q (memo hits %d, want %d)", free.Status, free.Headers["X-Service-Tier"], e.memoHits(), hits)
	}
	// Another spelling of the scheme is another entry, with the same answer.
	lower := e.get(t, uri, "Authorization", "bearer "+e.elite)
	if lower.Status != 200 || e.memoHits() != hits {
		t.Errorf("bearer in lower case: %d (memo hits %d, want %d)", lower.Status, e.memoHits(), hits)
	}
	// A wrong key never reaches the memo's entry of the right one.
	wrong := []byte(e.elite)
	wrong[len(wrong)-1] ^= 1
	if r := e.get(t, uri, "Authorization", "Bearer "+string(wrong)); r.Status != 401 {
		t.Errorf("wrong key: %d", r.Status)
	}
}

// testMemoCharges: memo hits spend the quota and rate like any request,
// and a revoked key is refused as soon as the access layer reloads its keys.
func testMemoCharges(t *testing.T, e *memoEnv) {
	const uri = "/api/v3/sets?limit=1"
	refused := 0
	for i := 0; i < 101; i++ {
		r := e.get(t, uri, "Authorization", "Bearer "+e.free)
		if r.Status == 429 {
			refused++
		}
	}
	// The free key's rate (burst 10, 5/s) refuses most of a tight loop; what
	// matters is that the memo refused too, not only the first request.
	if refused == 0 || e.memoHits() == 0 {
		t.Fatalf("101 requests of a free key: %d refused, %d memo hits", refused, e.memoHits())
	}
	// A metered key's memo hit says its remainder (the header block holds
	// a placeholder) and a refusal by the memo has its request id.
	var req fasthttp.Request
	req.SetRequestURI("http://edge" + uri)
	req.Header.Set("Authorization", "Bearer "+e.free)
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4000}, nil)
	e.srv.handle(&ctx)
	if got := ctx.Response.Header.PeekCanonical([]byte("RateLimit")); ctx.Response.StatusCode() != 429 || !strings.Contains(string(got), `"burst";r=0`) ||
		len(ctx.Response.Header.Peek("X-Request-Id")) == 0 || len(ctx.Response.Header.Peek("Retry-After")) == 0 {
		t.Errorf("free key refused by the memo: %d, RateLimit %q, X-Request-Id %q, Retry-After %q", ctx.Response.StatusCode(), got,
			ctx.Response.Header.Peek("X-Request-Id"), ctx.Response.Header.Peek("Retry-After"))
	}

	const card = "/api/v3/cards/en:base1-4"
	for range 2 {
		if r := e.get(t, card, "Authorization", "Bearer "+e.elite); r.Status != 200 {
			t.Fatalf("before revoking: %d", r.Status)
		}
	}
	if _, err := e.store.Revoke(context.Background(), e.eliteID); err != nil {
		t.Fatal(err)
	}
	if err := e.acc.Sync(); err != nil {
		t.Fatal(err)
	}
	if r := e.get(t, card, "Authorization", "Bearer "+e.elite); r.Status != 401 {
		t.Fatalf("revoked key after a sync: %d, want 401", r.Status)
	}
}

// testMemoOff: a server without a cache has no memo (its requests are all
// answered by the data plane).
func testMemoOff(t *testing.T, e *memoEnv) {
	if e.srv.memo != nil {
		t.Fatal("memo with the cache disabled")
	}
	for range 2 {
		if r := e.get(t, "/api/v3/cards/en:base1-4", "Authorization", "Bearer "+e.elite); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	}
}

// TestFrontMemo_TwoWay: a pair of slots holds two current requests; a third
// replaces one of them, and an entry of an older generation is never
// answered and gives its slot up first.
func TestFrontMemo_TwoWay(t *testing.T) {
	m := newFrontMemoSlots(2, 1<<20)
	entry := cache.NewEntry(200, []byte(`{}`))
	remember := func(uri string, gen uint64) {
		m.remember([]byte(uri), []byte("Bearer k"), memoEntry{snapGen: gen, keyGen: 1, entry: entry})
	}
	found := func(uri string, gen uint64) bool {
		return m.lookup([]byte(uri), []byte("Bearer k"), false, gen, 1) != nil
	}
	remember("/a", 1)
	remember("/b", 1)
	if !found("/a", 1) || !found("/b", 1) {
		t.Fatal("two requests in one pair: not both found")
	}
	if found("/a", 2) || m.lookup([]byte("/a"), []byte("Bearer x"), false, 1, 1) != nil {
		t.Fatal("found under another generation or another Authorization")
	}
	remember("/c", 1)
	if !found("/c", 1) || found("/a", 1) == found("/b", 1) {
		t.Fatalf("third request: /c %v, /a %v, /b %v; want /c and one of the others", found("/c", 1), found("/a", 1), found("/b", 1))
	}
	// Generation 2 (a swap): the first new entry takes a stale slot, the
	// second the other one.
	remember("/d", 2)
	remember("/e", 2)
	if !found("/d", 2) || !found("/e", 2) {
		t.Fatal("after a swap: the new entries did not take the stale slots")
	}
	m.remember([]byte("/big"), []byte("Bearer k"), memoEntry{snapGen: 2, keyGen: 1, entry: cache.NewEntry(200, make([]byte, memoMaxBody+1))})
	if found("/big", 2) {
		t.Fatal("a body over memoMaxBody was remembered")
	}
}

// TestFrontMemo_Budget: the memo holds what fits its byte budget, counts what
// a replaced entry held, and stays within the budget.
func TestFrontMemo_Budget(t *testing.T) {
	body := make([]byte, 1000)
	entry := cache.NewEntry(200, body)
	size := int64(2*len(body)) + memoEntryOverhead
	m := newFrontMemoSlots(memoSlots, 3*size)
	remembered := 0
	for i := range 10 {
		uri := []byte("/" + string(rune('a'+i)))
		m.remember(uri, []byte("Bearer k"), memoEntry{snapGen: 1, keyGen: 1, entry: entry})
		if m.lookup(uri, []byte("Bearer k"), false, 1, 1) != nil {
			remembered++
		}
	}
	if remembered != 3 || m.bytes.Load() != 3*size {
		t.Fatalf("remembered %d entries in %d bytes, want 3 in %d", remembered, m.bytes.Load(), 3*size)
	}
	// A new generation's entries replace the stale ones they land on and
	// take their bytes; the count never passes the budget.
	for i := range 10 {
		m.remember([]byte("/"+string(rune('a'+i))), []byte("Bearer k"), memoEntry{snapGen: 2, keyGen: 1, entry: entry})
		if n := m.bytes.Load(); n > 3*size {
			t.Fatalf("%d bytes counted, over the budget of %d", n, 3*size)
		}
	}
}

// TestFrontMemo_Key: the key is the URI and the Authorization value, each
// compared whole (not their concatenation), up to memoMaxKey bytes.
func TestFrontMemo_Key(t *testing.T) {
	m := newFrontMemoSlots(memoSlots, 1<<20)
	entry := cache.NewEntry(200, []byte(`{"data":1}`))
	remember := func(uri, auth string) {
		m.remember([]byte(uri), []byte(auth), memoEntry{snapGen: 1, keyGen: 1, entry: entry})
	}
	found := func(uri, auth string) bool { return m.lookup([]byte(uri), []byte(auth), false, 1, 1) != nil }
	remember("/ab", "Bearer k")
	for _, c := range []struct {
		uri, auth string
		want      bool
	}{
		{"/ab", "Bearer k", true},
		{"/ab", "Bearer j", false},
		{"/ab", "Bearer kk", false},
		{"/ab", "", false},
		{"/a", "bBearer k", false}, // same bytes, split elsewhere
		{"/abB", "earer k", false},
	} {
		if got := found(c.uri, c.auth); got != c.want {
			t.Errorf("lookup(%q, %q) found %v, want %v", c.uri, c.auth, got, c.want)
		}
	}
	if e := m.lookup([]byte("/ab"), []byte("Bearer k"), false, 1, 1); e == nil || string(e.body) != `{"data":1}` || e.etag != [cache.ETagLen]byte(entry.ETagBytes()) {
		t.Fatalf("the remembered entry does not carry the response's body and ETag: %+v", e)
	}
	auth := "Bearer " + strings.Repeat("k", memoMaxKey-len("/x")-len("Bearer "))
	remember("/x", auth)
	remember("/y", auth+"k")
	if !found("/x", auth) || found("/y", auth+"k") {
		t.Fatalf("a key of memoMaxKey bytes found %v (want true), one byte longer found %v (want false)", found("/x", auth), found("/y", auth+"k"))
	}
}

// TestConstantTimeEqual: the memo's comparison of Authorization values
// agrees with bytes.Equal on every length around its 8-byte words, with the
// difference anywhere.
func TestConstantTimeEqual(t *testing.T) {
	for n := 0; n <= 25; n++ {
		a := []byte(strings.Repeat("k", n))
		if !constantTimeEqual(a, bytes.Clone(a)) {
			t.Errorf("equal %d bytes: false", n)
		}
		if constantTimeEqual(a, append(bytes.Clone(a), 'k')) {
			t.Errorf("%d bytes against %d: true", n, n+1)
		}
		for i := 0; i < n; i++ {
			b := bytes.Clone(a)
			b[i] ^= 0x80
			if constantTimeEqual(a, b) {
				t.Errorf("%d bytes differing at %d: true", n, i)
			}
		}
	}
}
