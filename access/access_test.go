package access_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/snapshots"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	"github.com/cardedge/cardedge/state/statetest"
)

var ctx = context.Background()

// Clock is a settable clock for Options.Now.
type Clock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration // added after every reading
}

// NewClock returns a clock at RFC 3339 time s.
func NewClock(tb testing.TB, s string) *Clock {
	tb.Helper()
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		tb.Fatal(err)
	}
	return &Clock{t: t}
}

func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.t
	c.t = c.t.Add(c.step)
	return t
}

// Peek returns the clock's time without stepping it: the state store's
// clock.
func (c *Clock) Peek() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// SetStep sets how far each Now moves the clock (safe while services read
// it).
func (c *Clock) SetStep(d time.Duration) {
	c.mu.Lock()
	c.step = d
	c.mu.Unlock()
}

func (c *Clock) Set(s string) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// StatePath returns a fresh state file path in a temporary directory.
func StatePath(tb testing.TB) string {
	tb.Helper()
	return filepath.Join(tb.TempDir(), "state.bolt")
}

// Store opens the state file at path, whose expiry follows clock (nil: the
// wall clock), and checks it when the test ends.
func Store(tb testing.TB, path string, clock *Clock) *statebolt.Store {
	tb.Helper()
	o := statebolt.Options{LockTimeout: 200 * time.Millisecond}
	if clock != nil {
		o.Now = clock.Peek
	}
	return statetest.MustOpenPath(tb, path, o)
}

// Keys manages the keys of the state file at path.
func Keys(tb testing.TB, path string) access.Keys {
	tb.Helper()
	return access.Keys{State: Store(tb, path, nil)}
}

// MustKey creates a key in the state file at path.
func MustKey(tb testing.TB, path string, t access.Tier, sql, unmetered bool) (string, access.Key) {
	tb.Helper()
	secret, k, err := Keys(tb, path).Create(ctx, access.KeySpec{Tier: t, Name: "test " + t.String(), SQL: sql, Unmetered: unmetered})
	if err != nil {
		tb.Fatal(err)
	}
	return secret, k
}

// MustOpen opens a Service over the state file at path with no background
// sync (tests call Sync) and closes it at the end of the test.
func MustOpen(tb testing.TB, path string, clock *Clock) *access.Service {
	tb.Helper()
	opts := access.Options{State: Store(tb, path, clock), SyncInterval: -1, LockTimeout: 200 * time.Millisecond}
	if clock != nil {
		opts.Now = clock.Now
	}
	s, err := access.Open(opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// MustAuth authenticates a secret.
func MustAuth(tb testing.TB, s *access.Service, secret string) access.Caller {
	tb.Helper()
	c, err := s.Authenticate([]byte("Bearer "+secret), "192.0.2.1")
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func bearer(secret string) []byte { return []byte("Bearer " + secret) }

func code(err error) string {
	if err == nil {
		return ""
	}
	return apperr.ErrorCode(err)
}

func TestService_Authenticate(t *testing.T) {
	path := StatePath(t)
	free, freeKey := MustKey(t, path, access.Free, false, false)
	pro, proKey := MustKey(t, path, access.Pro, true, false)
	revoked, revokedKey := MustKey(t, path, access.Elite, false, false)
	if _, err := Keys(t, path).Revoke(ctx, revokedKey.ID); err != nil {
		t.Fatal(err)
	}
	s := MustOpen(t, path, nil)

	// The same secret with another tier letter: well formed, unknown hash.
	otherTier := []byte(free)
	otherTier[3] = 'e'

	tests := []struct {
		name    string
		header  []byte
		wantKey string // "" with no error: Playground
		wantErr string // substring of the message of an EUNAUTHORIZED error
	}{
		{"OK", bearer(free), freeKey.ID, ""},
		{"OKLowerScheme", []byte("bearer " + pro), proKey.ID, ""},
		{"OKUpperScheme", []byte("BEARER " + pro), proKey.ID, ""},
		{"OKMissing", nil, "", ""},
		{"OKEmptySlice", []byte{}, "", ""},
		{"ErrWrongScheme", []byte("Basic " + free), "", "want \"Bearer <API_KEY>\""},
		{"ErrSchemeGlued", []byte("Bearer" + free), "", "want \"Bearer <API_KEY>\""},
		{"ErrSchemeOnly", []byte("Bearer"), "", "empty"},
		{"ErrEmptyKey", []byte("Bearer "), "", "empty"},
		{"ErrTwoSpaces", []byte("Bearer  " + free), "", "whitespace"},
		{"ErrTab", []byte("Bearer\t" + free), "", "whitespace"},
		{"ErrTrailingSpace", []byte("Bearer " + free + " "), "", "whitespace"},
		{"ErrSpaceInKey", []byte("Bearer " + free[:10] + " " + free[10:]), "", "whitespace"},
		{"ErrNewlineInKey", []byte("Bearer " + free[:10] + "\n" + free[11:]), "", "whitespace"},
		{"ErrBlank", []byte("   "), "", "want \"Bearer <API_KEY>\""},
		{"ErrNotAKey", []byte("Bearer abc"), "", "not a cardedge key"},
		{"ErrOtherTierLetter", bearer(string(otherTier)), "", "invalid API key"},
		{"ErrUnknown", bearer("ce_f_" + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), "", "invalid API key"},
		{"ErrRevoked", bearer(revoked), "", "revoked"},
		{"ErrTwoTokens", []byte("Bearer " + free + " " + pro), "", "whitespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := s.Authenticate(tt.header, "198.51.100.7")
			if tt.wantErr != "" {
				var e *apperr.Error
				if !errors.As(err, &e) || e.Code != apperr.EUNAUTHORIZED {
					t.Fatalf("err = %v, want EUNAUTHORIZED", err)
				}
				if !contains(e.Message, tt.wantErr) {
					t.Fatalf("message %q does not mention %q", e.Message, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, want := c.KeyID, tt.wantKey; got != want {
				t.Fatalf("KeyID = %q, want %q", got, want)
			}
			if got, want := c.ClientAddr, "198.51.100.7"; got != want {
				t.Fatalf("ClientAddr = %q, want %q", got, want)
			}
			if tt.wantKey == "" && c.Tier != access.Playground {
				t.Fatalf("Tier = %v, want playground", c.Tier)
			}
		})
	}

	c := MustAuth(t, s, pro)
	if got, want := [3]any{c.Tier, c.SQL, c.Unmetered}, [3]any{access.Pro, true, false}; got != want {
		t.Fatalf("pro caller = %v, want %v", got, want)
	}
}

// TestService_AuthenticateKey: a key as pokemontcg.io's SDKs send it
// (X-Api-Key, the key alone): the same keys as Authenticate's, no key the
// Playground, anything else EUNAUTHORIZED.
func TestService_AuthenticateKey(t *testing.T) {
	path := StatePath(t)
	pro, proKey := MustKey(t, path, access.Pro, false, false)
	revoked, revokedKey := MustKey(t, path, access.Elite, false, false)
	if _, err := Keys(t, path).Revoke(ctx, revokedKey.ID); err != nil {
		t.Fatal(err)
	}
	s := MustOpen(t, path, nil)
	for _, tt := range []struct {
		name, key, wantKey, wantErr string
	}{
		{"OK", pro, proKey.ID, ""},
		{"OKMissing", "", "", ""},
		{"ErrBearer", "Bearer " + pro, "", "not a cardedge key"},
		{"ErrSpace", pro + " ", "", "not a cardedge key"},
		{"ErrPokemonTCGKey", "12345678-1234-1234-1234-123456789abc", "", "invalid X-Api-Key"},
		{"ErrUnknown", "ce_p_" + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "", "invalid API key"},
		{"ErrRevoked", revoked, "", "revoked"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := s.AuthenticateKey([]byte(tt.key), "198.51.100.7")
			if tt.wantErr != "" {
				if apperr.ErrorCode(err) != apperr.EUNAUTHORIZED || !contains(apperr.ErrorMessage(err), tt.wantErr) {
					t.Fatalf("err = %v, want EUNAUTHORIZED %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || c.KeyID != tt.wantKey || (tt.wantKey == "") != (c.Tier == access.Playground) {
				t.Fatalf("caller %+v, %v; want key %q", c, err, tt.wantKey)
			}
		})
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestLimitsOf(t *testing.T) {
	tests := []struct {
		tier access.Tier
		name string
		want access.Limits
	}{
		{access.Playground, "playground", access.Limits{RatePerSec: 1, Burst: 1, HistoryDays: 3, RowCap: 50}},
		{access.Free, "free", access.Limits{DailyQuota: 100, RatePerSec: 5, Burst: 10, HistoryDays: 3, AlertRules: 10}},
		{access.Pro, "pro", access.Limits{DailyQuota: 2000, RatePerSec: 20, Burst: 40, HistoryDays: 7, BatchMax: 50, AlertRules: 200, AlertSetRules: 10, WebhookEndpoints: 3}},
		{access.Elite, "elite", access.Limits{DailyQuota: 10000, RatePerSec: 50, Burst: 100, HistoryDays: 0, BatchMax: 100, AlertRules: 5000, AlertSetRules: 100, WebhookEndpoints: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := access.LimitsOf(tt.tier); got != tt.want {
				t.Fatalf("LimitsOf = %+v, want %+v", got, tt.want)
			}
			if got := tt.tier.String(); got != tt.name {
				t.Fatalf("String = %q, want %q", got, tt.name)
			}
			got, err := access.ParseTier(tt.name)
			if err != nil || got != tt.tier {
				t.Fatalf("ParseTier = %v, %v", got, err)
			}
		})
	}
	if _, err := access.ParseTier("gold"); code(err) != apperr.EINVALID {
		t.Fatalf("ParseTier(gold) err = %v, want EINVALID", err)
	}
	if got, want := access.LimitsOf(access.Tier(9)), access.LimitsOf(access.Playground); got != want {
		t.Fatalf("LimitsOf(invalid) = %+v, want Playground's", got)
	}
}

func TestCheckBatch(t *testing.T) {
	tests := []struct {
		name string
		tier access.Tier
		n    int
		want string
	}{
		{"ErrPlayground", access.Playground, 1, apperr.EUNAUTHORIZED},
		{"ErrFree", access.Free, 1, apperr.EFORBIDDEN},
		{"OKPro50", access.Pro, 50, ""},
		{"ErrPro51", access.Pro, 51, apperr.EINVALID},
		{"OKElite100", access.Elite, 100, ""},
		{"ErrElite101", access.Elite, 101, apperr.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := access.Caller{Tier: tt.tier}
			if tt.tier != access.Playground {
				c.KeyID = "k_test"
			}
			if got := code(access.CheckBatch(c, tt.n)); got != tt.want {
				t.Fatalf("CheckBatch = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCheckSQL(t *testing.T) {
	if got := code(access.CheckSQL(access.Caller{})); got != apperr.EUNAUTHORIZED {
		t.Fatalf("playground: %q", got)
	}
	if got := code(access.CheckSQL(access.Caller{KeyID: "k", Tier: access.Elite})); got != apperr.EFORBIDDEN {
		t.Fatalf("no flag: %q", got)
	}
	if err := access.CheckSQL(access.Caller{KeyID: "k", Tier: access.Free, SQL: true}); err != nil {
		t.Fatalf("flag: %v", err)
	}
	if got := code(access.RequireKey(access.Caller{})); got != apperr.EUNAUTHORIZED {
		t.Fatalf("RequireKey: %q", got)
	}
}

func TestCapRows(t *testing.T) {
	if got := access.CapRows(access.Playground, 200); got != 50 {
		t.Fatalf("playground 200 -> %d", got)
	}
	if got := access.CapRows(access.Playground, 20); got != 20 {
		t.Fatalf("playground 20 -> %d", got)
	}
	if got := access.CapRows(access.Free, 200); got != 200 {
		t.Fatalf("free 200 -> %d", got)
	}
}

func TestClampSince(t *testing.T) {
	asOf, _ := snapshots.ParseDay("2026-11-05")
	day := func(s string) snapshots.Day {
		d, err := snapshots.ParseDay(s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	tests := []struct {
		name  string
		tier  access.Tier
		since string
		set   bool
		want  string
	}{
		{"PlaygroundUnset", access.Playground, "1970-01-01", false, "2026-11-03"},
		{"FreeOld", access.Free, "2025-01-01", true, "2026-11-03"},
		{"FreeInside", access.Free, "2026-11-04", true, "2026-11-04"},
		{"FreeFuture", access.Free, "2026-12-01", true, "2026-12-01"},
		{"ProOld", access.Pro, "2025-01-01", true, "2026-10-30"},
		{"ProEdge", access.Pro, "2026-10-30", true, "2026-10-30"},
		{"EliteOld", access.Elite, "2020-01-01", true, "2020-01-01"},
		{"EliteUnset", access.Elite, "1970-01-01", false, "1970-01-01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := access.ClampSince(asOf, tt.tier, day(tt.since), tt.set)
			if got.String() != tt.want {
				t.Fatalf("ClampSince = %s, want %s", got, tt.want)
			}
			if again := access.ClampSince(asOf, tt.tier, got, true); again != got {
				t.Fatalf("not idempotent: %s then %s", got, again)
			}
		})
	}
}

func FuzzClamp(f *testing.F) {
	f.Add(int32(20397), uint8(1), int32(0), false)
	f.Add(int32(20397), uint8(2), int32(20300), true)
	f.Add(int32(20397), uint8(3), int32(-5), true)
	f.Add(int32(0), uint8(0), int32(-2147483648), true)
	f.Add(int32(20397), uint8(9), int32(20397), true)
	f.Fuzz(func(t *testing.T, asOf int32, tier uint8, since int32, set bool) {
		if asOf < -1<<30 || asOf > 1<<30 { // days of real snapshots; keeps the window arithmetic in range
			t.Skip()
		}
		a, tr, s := snapshots.Day(asOf), access.Tier(tier), snapshots.Day(since)
		got := access.ClampSince(a, tr, s, set)
		if again := access.ClampSince(a, tr, got, true); again != got {
			t.Fatalf("not idempotent: %d then %d", got, again)
		}
		if set && got < s {
			t.Fatalf("lowered since %d to %d", s, got)
		}
		start, ok := access.WindowStart(a, tr)
		if !ok {
			if got != s {
				t.Fatalf("unlimited tier changed since %d to %d", s, got)
			}
			return
		}
		if got < start {
			t.Fatalf("since %d before window start %d", got, start)
		}
		if w := access.LimitsOf(tr).HistoryDays; int(a-start)+1 != w {
			t.Fatalf("window of %d days, want %d", a-start+1, w)
		}
	})
}
