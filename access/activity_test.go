package access_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
)

// mustKeySpec creates a key of spec in the state file at path.
func mustKeySpec(tb testing.TB, path string, spec access.KeySpec) (string, access.Key) {
	tb.Helper()
	secret, k, err := Keys(tb, path).Create(ctx, spec)
	if err != nil {
		tb.Fatal(err)
	}
	return secret, k
}

func TestService_Expiry(t *testing.T) {
	path := StatePath(t)
	clock := NewClock(t, "2026-11-05T10:00:00Z")
	secret, k := mustKeySpec(t, path, access.KeySpec{Tier: access.Pro, Name: "expiring", Expires: clock.Peek().Add(time.Hour)})
	s := MustOpen(t, path, clock)

	t.Run("OK", func(t *testing.T) {
		c := MustAuth(t, s, secret)
		if _, err := s.Charge(c, 1); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("ErrExpired", func(t *testing.T) {
		c := MustAuth(t, s, secret) // authenticated before the expiry: the memo's case
		clock.Advance(time.Hour)
		if _, err := s.Charge(c, 1); code(err) != apperr.EKEYEXPIRED {
			t.Fatalf("Charge after the expiry: %v, want key_expired", err)
		}
		_, err := s.Authenticate(bearer(secret), "192.0.2.1")
		if code(err) != apperr.EKEYEXPIRED || !strings.Contains(apperr.ErrorMessage(err), "2026-11-05T11:00:00Z") {
			t.Fatalf("Authenticate after the expiry: %v, want key_expired naming the time", err)
		}
	})
	t.Run("Counted", func(t *testing.T) {
		acts, err := s.Activity(ctx, []access.Key{k}, 1)
		if err != nil {
			t.Fatal(err)
		}
		d := acts[0].Days[0]
		if got, want := d.Refused[access.Refused401], int64(2); got != want {
			t.Fatalf("401s counted = %d, want %d", got, want)
		}
		if got, want := d.Calls, int64(1); got != want {
			t.Fatalf("calls = %d, want %d", got, want)
		}
	})
}

// Revoked and suspended keys are 401s counted against the key; a token that
// names no key is counted nowhere.
func TestService_Refusals(t *testing.T) {
	path := StatePath(t)
	clock := NewClock(t, "2026-11-05T10:00:00Z")
	free, freeKey := mustKeySpec(t, path, access.KeySpec{Tier: access.Free, Name: "free"})
	revoked, revokedKey := mustKeySpec(t, path, access.KeySpec{Tier: access.Pro, Name: "revoked"})
	suspended, suspendedKey := mustKeySpec(t, path, access.KeySpec{Tier: access.Pro, Name: "suspended", Account: "a_test"})
	st := Store(t, path, clock)
	if _, err := (access.Keys{State: st}).Revoke(ctx, revokedKey.ID); err != nil {
		t.Fatal(err)
	}
	err := st.Update(ctx, func(tx state.Tx) error {
		k, err := access.GetKey(tx, suspendedKey.ID)
		if err != nil {
			return err
		}
		k.Suspended = true
		return access.UpdateKey(tx, k)
	})
	if err != nil {
		t.Fatal(err)
	}
	s := MustOpen(t, path, clock)

	if _, err := s.Authenticate(bearer(revoked), "192.0.2.1"); !strings.Contains(apperr.ErrorMessage(err), "revoked") {
		t.Fatalf("revoked: %v", err)
	}
	if _, err := s.Authenticate(bearer(suspended), "192.0.2.1"); !strings.Contains(apperr.ErrorMessage(err), "suspended") {
		t.Fatalf("suspended: %v", err)
	}
	s.Authenticate(bearer("ce_f_"+strings.Repeat("A", 43)), "192.0.2.1") // unknown: not attributable

	c := MustAuth(t, s, free)
	var refused int64 = 1 // the 101st charge below
	for range 100 {       // the Free quota
		if _, err := s.Charge(c, 1); err != nil { // the rate limit: a 429 too
			refused++
			clock.Advance(time.Second) // the rate bucket
			if _, err := s.Charge(c, 1); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := s.Charge(c, 1); code(err) != apperr.EQUOTA {
		t.Fatalf("101st charge: %v", err)
	}
	s.CountRefused(c, 403)
	s.CountRefused(c, 422)
	s.CountRefused(c, 404)               // not counted
	s.CountRefused(access.Caller{}, 403) // Playground: not counted
	// Before authentication: counted against the key, and the tier its
	// headers say is the key's (a valid key's 422 says its tier).
	if tier := s.CountRefusedBearer(bearer(free), 422); tier != access.Free {
		t.Errorf("CountRefusedBearer(free key) = %v, want free", tier)
	}
	if tier := s.CountRefusedBearer([]byte("Bearer x"), 422); tier != access.Playground { // not a key
		t.Errorf("CountRefusedBearer(no key) = %v, want playground", tier)
	}
	if tier := s.CountRefusedBearer(nil, 422); tier != access.Playground {
		t.Errorf("CountRefusedBearer(nil) = %v, want playground", tier)
	}

	check := func(t *testing.T, s *access.Service) {
		t.Helper()
		acts, err := s.Activity(ctx, []access.Key{freeKey, revokedKey, suspendedKey}, 30)
		if err != nil {
			t.Fatal(err)
		}
		if len(acts[0].Days) != 30 {
			t.Fatalf("%d days, want 30", len(acts[0].Days))
		}
		today := acts[0].Days[29]
		if got, want := today.Refused, [access.NumRefusals]int64{0, 1, 2, refused}; got != want {
			t.Errorf("free key's refusals = %v, want %v (401, 403, 422, 429)", got, want)
		}
		if got, want := today.Calls, int64(100); got != want {
			t.Errorf("free key's calls = %d, want %d", got, want)
		}
		if got := acts[0].Today.Remaining; got != 0 {
			t.Errorf("remaining = %d, want 0", got)
		}
		if acts[0].LastUsed.IsZero() {
			t.Errorf("free key's last use is unknown")
		}
		for i, name := range []string{"revoked", "suspended"} {
			if got := acts[i+1].Days[29].Refused[access.Refused401]; got != 1 {
				t.Errorf("%s key's 401s = %d, want 1", name, got)
			}
		}
	}
	t.Run("InMemory", func(t *testing.T) { check(t, s) })
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	t.Run("AfterSync", func(t *testing.T) { check(t, s) })
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	t.Run("Reopened", func(t *testing.T) { check(t, MustOpen(t, path, clock)) })
}

// Last-used times reach the state store coarsely: when they moved by a
// minute, and on Close.
func TestService_LastUsed(t *testing.T) {
	path := StatePath(t)
	clock := NewClock(t, "2026-11-05T10:00:00Z")
	secret, k := mustKeySpec(t, path, access.KeySpec{Tier: access.Pro})
	s := MustOpen(t, path, clock)
	other := MustOpen(t, path, clock) // another process on the same state file
	lastSeenByOther := func() time.Time {
		t.Helper()
		acts, err := other.Activity(ctx, []access.Key{k}, 1)
		if err != nil {
			t.Fatal(err)
		}
		return acts[0].LastUsed
	}
	c := MustAuth(t, s, secret)
	first := clock.Peek()
	s.Charge(c, 1)
	s.Sync()
	if got := lastSeenByOther(); !got.Equal(first) {
		t.Fatalf("after the first use: %v, want %v", got, first)
	}
	clock.Advance(10 * time.Second)
	s.Charge(c, 1)
	s.Sync()
	if got := lastSeenByOther(); !got.Equal(first) {
		t.Fatalf("10 s later: %v, want the stored %v (coarse)", got, first)
	}
	clock.Advance(time.Minute)
	later := clock.Peek()
	s.Charge(c, 1)
	s.Sync()
	if got := lastSeenByOther(); !got.Equal(later) {
		t.Fatalf("a minute later: %v, want %v", got, later)
	}
	clock.Advance(time.Second)
	last := clock.Peek()
	s.Charge(c, 1)
	s.Close()
	if got := lastSeenByOther(); !got.Equal(last) {
		t.Fatalf("after Close: %v, want %v", got, last)
	}
}

func TestKeyTx(t *testing.T) {
	path := StatePath(t)
	st := Store(t, path, nil)
	sec, err := access.NewSecret(access.Free)
	if err != nil {
		t.Fatal(err)
	}
	var k access.Key
	err = st.Update(ctx, func(tx state.Tx) (err error) {
		k, err = access.InsertKey(tx, sec, access.Key{Tier: access.Free, Name: " mine ", Account: "a_1", Created: time.Now()})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if k.Name != "mine" || k.Account != "a_1" || k.ID == "" || k.Hint != sec.Text[:5]+"…"+sec.Text[len(sec.Text)-4:] {
		t.Fatalf("inserted %+v", k)
	}
	s := MustOpen(t, path, nil)
	c := MustAuth(t, s, sec.Text)
	if c.Tier != access.Free {
		t.Fatalf("tier %v", c.Tier)
	}

	t.Run("UpdateTier", func(t *testing.T) {
		err := st.Update(ctx, func(tx state.Tx) error {
			k, err := access.GetKey(tx, k.ID)
			if err != nil {
				return err
			}
			k.Tier = access.Elite
			return access.UpdateKey(tx, k)
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		if c := MustAuth(t, s, sec.Text); c.Tier != access.Elite {
			t.Fatalf("tier after the sync: %v, want elite", c.Tier)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		for _, id := range []string{"", "k_aaaaaaaa", "../x", strings.Repeat("k", 600), "k_AAAAAAAA"} {
			err := st.View(ctx, func(tx state.Tx) error { _, err := access.GetKey(tx, id); return err })
			if code(err) != apperr.ENOTFOUND {
				t.Errorf("GetKey(%q): %v, want ENOTFOUND", id, err)
			}
		}
		err := st.Update(ctx, func(tx state.Tx) error {
			return access.UpdateKey(tx, access.Key{ID: "k_aaaaaaaa", Tier: access.Free})
		})
		if code(err) != apperr.ENOTFOUND {
			t.Errorf("UpdateKey of an unknown id: %v", err)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		err := st.Update(ctx, func(tx state.Tx) error {
			_, err := access.InsertKey(tx, sec, access.Key{Tier: access.Free, Name: "a\x00b"})
			return err
		})
		if code(err) != apperr.EINVALID {
			t.Errorf("a control character in the name: %v", err)
		}
		if _, err := access.NewSecret(access.Playground); code(err) != apperr.EINVALID {
			t.Errorf("a playground secret: %v", err)
		}
		err = st.Update(ctx, func(tx state.Tx) error {
			_, err := access.InsertKey(tx, access.Secret{}, access.Key{Tier: access.Free})
			return err
		})
		if err == nil || errors.Is(err, state.ErrConflict) {
			t.Errorf("no secret: %v", err)
		}
	})
}

// An expiring key adds one clock read to Authenticate and allocates nothing.
func TestService_NoAllocExpiring(t *testing.T) {
	path := StatePath(t)
	clock := NewClock(t, "2026-11-05T00:00:00Z")
	clock.step = 10 * time.Second
	secret, _ := mustKeySpec(t, path, access.KeySpec{Tier: access.Elite, Expires: clock.Peek().AddDate(1, 0, 0)})
	s := MustOpen(t, path, clock)
	if n := authChargeAllocs(t, s, secret); n != 0 {
		t.Fatalf("Authenticate+Charge of an expiring key allocates %v times", n)
	}
}
