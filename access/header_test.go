package access_test

import (
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/google/go-cmp/cmp"
	"github.com/valyala/fasthttp"
)

// headers records SetBytesKV calls, copying as fasthttp does.
type headers map[string]string

func (h headers) SetBytesKV(k, v []byte) { h[string(k)] = string(v) }

// nopHeaders discards headers (for allocation counts).
type nopHeaders struct{ n int }

func (h *nopHeaders) SetBytesKV(k, v []byte) { h.n += len(k) + len(v) }

func TestSetHeaders(t *testing.T) {
	tests := []struct {
		name string
		d    access.Decision
		want headers
	}{
		{"Playground", access.Decision{Allowed: true, Tier: access.Playground, RateRemaining: 0, RateReset: 1}, headers{
			"X-Service-Tier": "playground", "X-Service-History-Days": "3",
			"RateLimit-Policy": `"burst";q=1;w=1`, "RateLimit": `"burst";r=0;t=1`,
		}},
		{"Free", access.Decision{Allowed: true, Tier: access.Free, Limit: 100, Remaining: 42, Reset: 3600, RateRemaining: 9, RateReset: 1}, headers{
			"X-Service-Tier": "free", "X-Service-History-Days": "3",
			"RateLimit-Policy": `"daily";q=100;w=86400, "burst";q=10;w=2`, "RateLimit": `"daily";r=42;t=3600, "burst";r=9;t=1`,
		}},
		{"ProQuotaRefused", access.Decision{Reason: access.ReasonQuota, RetryAfter: 3600, Tier: access.Pro, Limit: 2000, Reset: 3600, RateRemaining: 40}, headers{
			"X-Service-Tier": "pro", "X-Service-History-Days": "7",
			"RateLimit-Policy": `"daily";q=2000;w=86400, "burst";q=40;w=2`, "RateLimit": `"daily";r=0;t=3600, "burst";r=40;t=0`,
			"Retry-After": "3600",
		}},
		{"EliteRateRefused", access.Decision{Reason: access.ReasonRate, RetryAfter: 1, Tier: access.Elite, Limit: 10000, Remaining: 5000, Reset: 60, RateReset: 2}, headers{
			"X-Service-Tier": "elite", "X-Service-History-Days": "unlimited",
			"RateLimit-Policy": `"daily";q=10000;w=86400, "burst";q=100;w=2`, "RateLimit": `"daily";r=5000;t=60, "burst";r=0;t=2`,
			"Retry-After": "1",
		}},
		{"Unmetered", access.Decision{Allowed: true, Unmetered: true, Tier: access.Pro}, headers{
			"X-Service-Tier": "pro", "X-Service-History-Days": "7",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := headers{}
			access.SetHeaders(got, tt.d, nil)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("headers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSetHeaders_NoAlloc(t *testing.T) {
	d := access.Decision{Reason: access.ReasonQuota, RetryAfter: 3600, Tier: access.Elite, Limit: 10000, Remaining: 12345, Reset: 86400, RateRemaining: 100, RateReset: 2}
	h := &nopHeaders{}
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() { buf = access.SetHeaders(h, d, buf) }); n != 0 {
		t.Fatalf("SetHeaders allocates %v times", n)
	}
}

// Authenticate and Charge of a valid key allocate nothing (no Redis).
func TestService_NoAlloc(t *testing.T) {
	path := StatePath(t)
	secret, _ := MustKey(t, path, access.Elite, false, false)
	clock := NewClock(t, "2026-11-05T00:00:00Z")
	clock.step = 10 * time.Second // refills the bucket; 8,640 charges a day stay under the quota
	s := MustOpen(t, path, clock)
	if n := authChargeAllocs(t, s, secret); n != 0 {
		t.Fatalf("Authenticate+Charge allocates %v times", n)
	}
	play, _ := s.Authenticate(nil, "192.0.2.9")
	n := testing.AllocsPerRun(1000, func() { s.Charge(play, 1) })
	if n != 0 {
		t.Fatalf("Playground Charge allocates %v times", n)
	}
}

func FuzzAuthorization(f *testing.F) {
	path := StatePath(f)
	secret, k := MustKey(f, path, access.Pro, false, false)
	s := MustOpen(f, path, nil)
	for _, seed := range []string{
		"", " ", "Bearer", "Bearer ", "Bearer  x", "bearer " + secret, "BEARER " + secret,
		"Bearer " + secret, "Bearer " + secret + " ", "Bearer\t" + secret, "Basic " + secret,
		"Bearer ce_p_", "Bearer ce_x_" + secret[5:], "Bearer " + secret[:47] + "\x00",
		"Bearer " + secret[:47] + "é", "Bearer " + secret + secret,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, h []byte) {
		c, err := s.Authenticate(h, "192.0.2.1")
		switch {
		case err != nil:
			if got := apperr.ErrorCode(err); got != apperr.EUNAUTHORIZED {
				t.Fatalf("code %q for %q", got, h)
			}
		case len(h) == 0:
			if c.KeyID != "" || c.Tier != access.Playground {
				t.Fatalf("empty header gave %+v", c)
			}
		default:
			if c.KeyID != k.ID || c.Tier != access.Pro {
				t.Fatalf("header %q accepted as %+v", h, c)
			}
			if len(h) != len("Bearer ")+len(secret) || string(h[7:]) != secret {
				t.Fatalf("header %q accepted", h)
			}
		}
	})
}

// BenchmarkAuthenticateCharge is the access layer's cost on a keyed request:
// parse the header, hash the key, look it up, take a token and a quota unit.
func BenchmarkAuthenticateCharge(b *testing.B) {
	// setup opens a fresh service with one key (every sub-benchmark run starts
	// from an empty state file).
	setup := func(b *testing.B, tier access.Tier, unmetered bool, clock *Clock) (*access.Service, []byte) {
		path := StatePath(b)
		secret, _ := MustKey(b, path, tier, false, unmetered)
		return MustOpen(b, path, clock), bearer(secret)
	}
	b.Run("Keyed", func(b *testing.B) {
		clock := NewClock(b, "2026-11-05T00:00:00Z")
		clock.step = 10 * time.Second // every charge allowed: buckets refill, days roll over
		s, hdr := setup(b, access.Elite, false, clock)
		b.ReportAllocs()
		for b.Loop() {
			c, err := s.Authenticate(hdr, "192.0.2.1")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Charge(c, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("KeyedExpiring", func(b *testing.B) { // a key with an expiry: one more clock read
		clock := NewClock(b, "2026-11-05T00:00:00Z")
		clock.step = 10 * time.Second
		path := StatePath(b)
		secret, _, err := Keys(b, path).Create(ctx, access.KeySpec{Tier: access.Elite, Expires: clock.Peek().AddDate(10, 0, 0)})
		if err != nil {
			b.Fatal(err)
		}
		s, hdr := MustOpen(b, path, clock), bearer(secret)
		b.ReportAllocs()
		for b.Loop() {
			c, err := s.Authenticate(hdr, "192.0.2.1")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Charge(c, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("KeyedRealClock", func(b *testing.B) {
		s, hdr := setup(b, access.Elite, true, nil)
		b.ReportAllocs()
		for b.Loop() {
			c, err := s.Authenticate(hdr, "192.0.2.1")
			if err != nil {
				b.Fatal(err)
			}
			s.Charge(c, 1)
		}
	})
	b.Run("KeyedParallel", func(b *testing.B) {
		s, hdr := setup(b, access.Elite, true, nil)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				c, _ := s.Authenticate(hdr, "192.0.2.1")
				s.Charge(c, 1)
			}
		})
	})
	b.Run("Playground", func(b *testing.B) {
		clock := NewClock(b, "2026-11-05T00:00:00Z")
		clock.step = time.Second
		s := MustOpen(b, StatePath(b), clock)
		b.ReportAllocs()
		for b.Loop() {
			c, _ := s.Authenticate(nil, "192.0.2.1")
			if _, err := s.Charge(c, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Refused", func(b *testing.B) {
		s, hdr := setup(b, access.Free, false, NewClock(b, "2026-11-05T00:00:00Z"))
		b.ReportAllocs()
		for b.Loop() {
			c, _ := s.Authenticate(hdr, "192.0.2.1")
			s.Charge(c, 1)
		}
	})
}

// BenchmarkAuthenticate is the header parse, hash and lookup alone.
func BenchmarkAuthenticate(b *testing.B) {
	path := StatePath(b)
	secret, _ := MustKey(b, path, access.Pro, false, false)
	s := MustOpen(b, path, nil)
	hdr := bearer(secret)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Authenticate(hdr, "192.0.2.1"); err != nil {
			b.Fatal(err)
		}
	}
}

// The fasthttp response header is a HeaderSetter, and writing the access
// headers into it allocates nothing once it has grown.
func TestSetHeaders_Fasthttp(t *testing.T) {
	var h fasthttp.ResponseHeader
	var _ access.HeaderSetter = &h
	d := access.Decision{Allowed: true, Tier: access.Pro, Limit: 2000, Remaining: 1999, Reset: 600, RateRemaining: 39, RateReset: 1}
	buf := make([]byte, 0, 64)
	buf = access.SetHeaders(&h, d, buf)
	if got, want := string(h.Peek("RateLimit")), `"daily";r=1999;t=600, "burst";r=39;t=1`; got != want {
		t.Fatalf("RateLimit = %q, want %q", got, want)
	}
	if got := string(h.Peek("X-Service-History-Days")); got != "7" {
		t.Fatalf("X-Service-History-Days = %q", got)
	}
	if n := testing.AllocsPerRun(100, func() { buf = access.SetHeaders(&h, d, buf) }); n != 0 {
		t.Fatalf("SetHeaders into fasthttp allocates %v times", n)
	}
}

// authChargeAllocs charges the key of secret once (its first charge), then
// returns the allocations of one Authenticate and Charge of it.
func authChargeAllocs(t *testing.T, s *access.Service, secret string) float64 {
	t.Helper()
	if _, err := s.Charge(MustAuth(t, s, secret), 1); err != nil {
		t.Fatal(err)
	}
	hdr := bearer(secret)
	return testing.AllocsPerRun(1000, func() {
		c, err := s.Authenticate(hdr, "192.0.2.1")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Charge(c, 1); err != nil {
			t.Fatal(err)
		}
	})
}
