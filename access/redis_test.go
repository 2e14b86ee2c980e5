package access_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	stateredis "github.com/cardedge/cardedge/state/redis"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state/redis/redistest"
	"github.com/redis/go-redis/v9"
)

// sharedCount reads the shared day counter of key id on the day of t.
func sharedCount(tb testing.TB, rs *redistest.Server, prefix, id string, t time.Time) int64 {
	tb.Helper()
	c := rs.Client()
	defer c.Close()
	k := fmt.Sprintf("%s{%s}:q:%d", prefix, id, snapshots.DayOf(t))
	n, err := c.Get(context.Background(), k).Int64()
	if err != nil && err != redis.Nil {
		tb.Fatal(err)
	}
	return n
}

// mustCounter opens the shared counters at url under prefix (state/redis's
// Counter with its own client, as serve --state FILE --redis URL does),
// closed when the test ends; timeout 0 is the default 50 ms.
func mustCounter(tb testing.TB, url, prefix string, timeout time.Duration) access.Counter {
	tb.Helper()
	c, err := stateredis.OpenCounter(url, stateredis.CounterOptions{Prefix: prefix, Timeout: timeout})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// openRedis opens a Service over the state file at path sharing its
// counters at url under prefix, with the counters' round trips bounded by
// 2 s: a loaded machine (make test runs packages side by side) must not trip
// the breaker of a Redis that answers, which would count locally and fail
// the tests' exact counts; a Redis that is down refuses connections at once.
// TestRedis_Hung, which needs a timeout to trip it, opens its own.
func openRedis(tb testing.TB, path, url, prefix string, clock *Clock) *access.Service {
	return openRedisTimeout(tb, path, url, prefix, clock, 2*time.Second)
}

func openRedisTimeout(tb testing.TB, path, url, prefix string, clock *Clock, timeout time.Duration) *access.Service {
	tb.Helper()
	s, err := access.Open(access.Options{
		State: Store(tb, path, clock), Counter: mustCounter(tb, url, prefix, timeout), Now: clock.Now,
		SyncInterval: -1, LockTimeout: 500 * time.Millisecond,
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// Two replicas sharing Redis enforce one quota and one rate bucket.
func TestRedis_SharedQuota(t *testing.T) {
	rs := redistest.Start(t, false)
	path := StatePath(t)
	free, fk := MustKey(t, path, access.Free, false, false)
	pro, _ := MustKey(t, path, access.Pro, false, false)
	clock := NewClock(t, "2026-11-05T20:00:00Z")
	clock.step = time.Second
	a := openRedis(t, path, rs.URL(), "shared:", clock)
	b := openRedis(t, path, rs.URL(), "shared:", clock)
	ca, cb := MustAuth(t, a, free), MustAuth(t, b, free)

	for i := 1; i <= 100; i++ {
		s, c := a, ca
		if i%2 == 0 {
			s, c = b, cb
		}
		d, err := s.Charge(c, 1)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if got, want := d.Remaining, 100-i; got != want {
			t.Fatalf("request %d: Remaining = %d, want %d (one shared counter)", i, got, want)
		}
	}
	for _, x := range []struct {
		s *access.Service
		c access.Caller
	}{{a, ca}, {b, cb}} {
		d, err := x.s.Charge(x.c, 1)
		if code(err) != apperr.EQUOTA || d.Reason != access.ReasonQuota || d.RetryAfter < 3*3600-200 {
			t.Fatalf("101st: %+v, %v", d, err)
		}
	}
	if got := sharedCount(t, rs, "shared:", fk.ID, clock.Now()); got != 100 {
		t.Fatalf("Redis counter = %d, want 100", got)
	}

	// One bucket: Pro's burst of 40 is shared, not 40 per replica.
	clock.step = 0
	pa, pb := MustAuth(t, a, pro), MustAuth(t, b, pro)
	allowed := 0
	for range 30 {
		for _, x := range []struct {
			s *access.Service
			c access.Caller
		}{{a, pa}, {b, pb}} {
			if _, err := x.s.Charge(x.c, 1); err == nil {
				allowed++
			}
		}
	}
	if allowed != 40 {
		t.Fatalf("allowed %d of 60 at one instant, want the burst of 40", allowed)
	}
}

// Charges made at once on two replicas share round trips (each replica
// batches the charges that wait for one in flight): the quota stays exact
// and each charge gets its own answer.
func TestRedis_ConcurrentCharges(t *testing.T) {
	rs := redistest.Start(t, false)
	path := StatePath(t)
	free, fk := MustKey(t, path, access.Free, false, false)
	clock := NewClock(t, "2026-11-05T08:00:00Z")
	clock.step = 10 * time.Second // every bucket full: only the quota refuses
	open := func() *access.Service {
		s, err := access.Open(access.Options{State: Store(t, path, clock), Counter: mustCounter(t, rs.URL(), "batch:", 5*time.Second), Now: clock.Now, SyncInterval: -1, LockTimeout: 500 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	replicas := []*access.Service{open(), open()}
	callers := []access.Caller{MustAuth(t, replicas[0], free), MustAuth(t, replicas[1], free)}

	const n = 300
	type answer struct {
		remaining int
		err       error
	}
	answers := make(chan answer, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			d, err := replicas[i%2].Charge(callers[i%2], 1)
			answers <- answer{d.Remaining, err}
		}()
	}
	close(start)
	wg.Wait()
	close(answers)
	seen := map[int]bool{}
	refused := 0
	for a := range answers {
		switch {
		case a.err == nil:
			if seen[a.remaining] {
				t.Fatalf("two allowed charges answered Remaining %d: answers crossed", a.remaining)
			}
			seen[a.remaining] = true
		case code(a.err) == apperr.EQUOTA:
			refused++
		default:
			t.Fatalf("charge: %v", a.err)
		}
	}
	if len(seen) != 100 || refused != n-100 {
		t.Fatalf("%d allowed and %d refused of %d, want 100 allowed (the quota)", len(seen), refused, n)
	}
	for r := range 100 {
		if !seen[r] {
			t.Fatalf("no allowed charge answered Remaining %d", r)
		}
	}
	for _, s := range replicas {
		if !s.SharedUp() {
			t.Fatal("the breaker opened: the charges were counted locally")
		}
	}
	if got := sharedCount(t, rs, "batch:", fk.ID, clock.Now()); got != 100 {
		t.Fatalf("Redis counter = %d, want 100", got)
	}
}

// Redis killed mid-way: callers see no error and no added latency, counting
// goes on locally, and the local counts are added to Redis when it returns.
func TestRedis_Outage(t *testing.T) {
	rs := redistest.StartDurable(t)
	path := StatePath(t)
	secret, k := MustKey(t, path, access.Pro, false, false)
	clock := NewClock(t, "2026-11-05T12:00:00Z")
	clock.step = time.Second
	a := openRedis(t, path, rs.URL(), "outage:", clock)
	b := openRedis(t, path, rs.URL(), "outage:", clock)
	ca, cb := MustAuth(t, a, secret), MustAuth(t, b, secret)

	charge := func(s *access.Service, c access.Caller, n int) time.Duration {
		t.Helper()
		start := time.Now()
		for i := range n {
			if _, err := s.Charge(c, 1); err != nil {
				t.Fatalf("charge %d: %v", i, err)
			}
		}
		return time.Since(start)
	}
	charge(a, ca, 30)
	if got := sharedCount(t, rs, "outage:", k.ID, clock.Now()); got != 30 {
		t.Fatalf("counter before the outage = %d, want 30", got)
	}

	rs.Kill()
	charge(a, ca, 1) // the failing call opens the breaker
	charge(b, cb, 1)
	if a.SharedUp() || b.SharedUp() {
		t.Fatal("breaker still closed after a failed call")
	}
	if took := charge(a, ca, 19) + charge(b, cb, 19); took > 200*time.Millisecond {
		t.Fatalf("38 charges with Redis down took %v: the breaker should skip Redis", took)
	}
	if err := a.Sync(); err != nil { // flush to the file; Redis probe fails quietly
		t.Fatal(err)
	}

	rs.Start() // with its data (AOF)
	for _, s := range []*access.Service{a, b} {
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	if !a.SharedUp() || !b.SharedUp() {
		t.Fatal("breaker still open after a sync with Redis back")
	}
	if got := sharedCount(t, rs, "outage:", k.ID, clock.Now()); got != 70 {
		t.Fatalf("counter after reconciling = %d, want 70", got)
	}
	d, err := a.Charge(ca, 1)
	if err != nil || d.Remaining != 2000-71 {
		t.Fatalf("after the outage: %+v, %v", d, err)
	}
	u, err := b.Usage(k.ID)
	if err != nil || u.Today.Used != 71 {
		t.Fatalf("usage: %+v, %v", u, err)
	}
}

// A Redis restarted empty is seeded from the state file.
func TestRedis_RestartEmpty(t *testing.T) {
	rs := redistest.Start(t, false)
	path := StatePath(t)
	secret, k := MustKey(t, path, access.Free, false, false)
	clock := NewClock(t, "2026-11-05T12:00:00Z")
	clock.step = time.Second
	s := openRedis(t, path, rs.URL(), "empty:", clock)
	c := MustAuth(t, s, secret)
	for range 50 {
		if _, err := s.Charge(c, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	rs.Kill()
	rs.Start() // empty
	// The first charge fails over to local counting.
	if _, err := s.Charge(c, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	if got := sharedCount(t, rs, "empty:", k.ID, clock.Now()); got != 51 {
		t.Fatalf("counter after the restart = %d, want 51", got)
	}
	d, err := s.Charge(c, 1)
	if err != nil || d.Remaining != 48 {
		t.Fatalf("after the restart: %+v, %v", d, err)
	}
}

// A Redis that is down at start is not an error.
func TestRedis_DownAtStart(t *testing.T) {
	path := StatePath(t)
	secret, _ := MustKey(t, path, access.Free, false, false)
	clock := NewClock(t, "2026-11-05T12:00:00Z")
	s := openRedis(t, path, "redis://127.0.0.1:1/0", "down:", clock)
	if _, err := s.Charge(MustAuth(t, s, secret), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := stateredis.OpenCounter("http://nope", stateredis.CounterOptions{}); err == nil {
		t.Fatal("a bad Redis URL should fail OpenCounter")
	}
}

// openBenchRedis is an access layer counting in a local redis-server (its
// timeout raised so that a loaded machine does not trip the breaker) and the
// Authorization value of an Elite key of it; both end with b.
func openBenchRedis(b *testing.B) (*access.Service, []byte) {
	rs := redistest.Start(b, false)
	path := StatePath(b)
	secret, _ := MustKey(b, path, access.Elite, false, false)
	clock := NewClock(b, "2026-11-05T00:00:00Z")
	clock.step = 10 * time.Second
	s, err := access.Open(access.Options{State: Store(b, path, clock), Counter: mustCounter(b, rs.URL(), "bench:", time.Second), Now: clock.Now, SyncInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s, bearer(secret)
}

// BenchmarkAuthenticateCharge_Redis is a keyed charge with Redis: one round
// trip to a local redis-server (timeout raised so a loaded machine does not
// trip the breaker, which would measure the local path instead).
func BenchmarkAuthenticateCharge_Redis(b *testing.B) {
	s, hdr := openBenchRedis(b)
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		c, err := s.Authenticate(hdr, "192.0.2.1")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Charge(c, 1); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	if !s.SharedUp() {
		b.Fatal("the breaker opened: this measured local counting")
	}
}

// A hung Redis (SIGSTOP) costs one timeout, then the breaker skips it.
func TestRedis_Hung(t *testing.T) {
	rs := redistest.Start(t, false)
	path := StatePath(t)
	secret, k := MustKey(t, path, access.Pro, false, false)
	clock := NewClock(t, "2026-11-05T12:00:00Z")
	clock.step = time.Second
	s := openRedisTimeout(t, path, rs.URL(), "hung:", clock, 0) // the default 50 ms: a hung Redis trips the breaker
	c := MustAuth(t, s, secret)
	if _, err := s.Charge(c, 1); err != nil {
		t.Fatal(err)
	}
	rs.Pause()
	start := time.Now()
	for i := range 50 {
		if _, err := s.Charge(c, 1); err != nil {
			t.Fatalf("charge %d: %v", i, err)
		}
	}
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Fatalf("50 charges against a hung Redis took %v, want about one 50ms timeout", took)
	}
	if err := s.Sync(); err != nil { // the probe times out quietly
		t.Fatal(err)
	}
	rs.Resume()
	time.Sleep(50 * time.Millisecond) // let the server drain the abandoned requests
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	// The timed-out call may have run on the server too: the counter may then
	// be one above the 51 charges, never below.
	if got := sharedCount(t, rs, "hung:", k.ID, clock.Now()); got != 51 && got != 52 {
		t.Fatalf("counter = %d, want 51 (or 52)", got)
	}
}

// processCPU is this process's CPU time (user and system), not its
// children's (redis-server).
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkAuthenticateCharge_RedisParallel is the same charge from 64
// goroutines at once, as an edge under load makes them: charges in flight
// together share round trips (the batcher).
func BenchmarkAuthenticateCharge_RedisParallel(b *testing.B) {
	s, hdr := openBenchRedis(b)
	b.ReportAllocs()
	b.SetParallelism(64 / runtime.GOMAXPROCS(0))
	cpu0 := processCPU()
	defer func() { b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op") }()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c, err := s.Authenticate(hdr, "192.0.2.1")
			if err != nil {
				b.Error(err)
				return
			}
			if _, err := s.Charge(c, 1); err != nil {
				b.Error(err)
				return
			}
		}
	})
	if !s.SharedUp() {
		b.Fatal("the breaker opened: this measured local counting")
	}
}
