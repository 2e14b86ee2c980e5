package account_test

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/account"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	"github.com/cardedge/cardedge/state/statetest"
)

var ctx = context.Background()

// Clock is a settable clock.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// env is a Service over a fresh state store with a clock.
type env struct {
	st    state.Store
	svc   *account.Service
	clock *Clock
}

// MustService returns a Service over a fresh store; o's State and Now are
// filled in.
func MustService(tb testing.TB, o account.Options) *env {
	tb.Helper()
	clock := &Clock{t: time.Date(2026, 11, 5, 10, 0, 0, 0, time.UTC)}
	st := statetest.MustOpenPath(tb, filepath.Join(tb.TempDir(), "state.bolt"), statebolt.Options{Now: clock.Now})
	o.State, o.Now = st, clock.Now
	svc, err := account.New(o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { svc.Close() })
	return &env{st: st, svc: svc, clock: clock}
}

const goodPassword = "correct horse battery staple"

// MustAccount creates an account.
func (e *env) MustAccount(tb testing.TB, email string) account.Account {
	tb.Helper()
	a, err := e.svc.Create(ctx, email, goodPassword, access.Free, account.Client{Addr: "192.0.2.1"})
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

// MustSignIn signs in and returns the session id.
func (e *env) MustSignIn(tb testing.TB, email, addr string) string {
	tb.Helper()
	id, _, err := e.svc.SignIn(ctx, email, goodPassword, account.Client{Addr: addr})
	if err != nil {
		tb.Fatal(err)
	}
	return id
}

func code(err error) string {
	if err == nil {
		return ""
	}
	return apperr.ErrorCode(err)
}

func TestCheckPassword(t *testing.T) {
	tests := []struct {
		name, password, email string
		ok                    bool
	}{
		{"OK", goodPassword, "a@example.com", true},
		{"OKEightCharacters", "k8#Lq2!x", "a@example.com", true},
		{"OKSpacesAndUnicode", "  été à Zürich  ", "a@example.com", true},
		{"OK256", strings.Repeat("ab3", 85) + "x", "a@example.com", true},
		{"ErrShort", "k8#Lq2!", "a@example.com", false},
		{"ErrLong", strings.Repeat("ab3", 86), "a@example.com", false},
		{"ErrCommon", "password123", "a@example.com", false},
		{"ErrCommonUpper", "SUNSHINE", "a@example.com", false},
		{"ErrCommonWord", "football", "a@example.com", false},
		{"ErrQwerty", "qwertyuiop", "a@example.com", false},
		{"ErrRepeated", "zzzzzzzzzzzz", "a@example.com", false},
		{"ErrServiceName", "cardedge1", "a@example.com", false},
		{"ErrEmail", "mallory.x@example.com", "mallory.x@example.com", false},
		{"ErrInvalidUTF8", "abcdefgh\xff", "a@example.com", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := account.CheckPassword(tt.password, tt.email)
			if tt.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tt.ok && code(err) != apperr.EINVALID {
				t.Fatalf("err = %v, want EINVALID", err)
			}
		})
	}
	if n := account.BlocklistLen(); n < 30000 {
		t.Fatalf("the blocklist has %d entries", n)
	}
}

func TestService_Create(t *testing.T) {
	e := MustService(t, account.Options{})
	a := e.MustAccount(t, "  Ada@Example.COM ")
	if a.Email != "ada@example.com" || a.Tier != access.Free || !strings.HasPrefix(a.ID, "a_") {
		t.Fatalf("created %+v", a)
	}
	t.Run("PHC", func(t *testing.T) {
		got, err := e.svc.Get(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(got.Password, "$argon2id$v=19$m=19456,t=2,p=1$") || len(strings.Split(got.Password, "$")) != 6 {
			t.Fatalf("stored password %q is not an argon2id PHC string with OWASP's parameters", got.Password)
		}
	})
	t.Run("ErrTaken", func(t *testing.T) {
		_, err := e.svc.Create(ctx, "ada@example.com", goodPassword, access.Free, account.Client{})
		if code(err) != apperr.EINVALID || !strings.Contains(err.Error(), "already exists") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("ErrEmail", func(t *testing.T) {
		for _, bad := range []string{"", "ada", "ada@", "Ada <ada@example.com>", "ada@localhost", "a b@example.com"} {
			if _, err := e.svc.Create(ctx, bad, goodPassword, access.Free, account.Client{}); code(err) != apperr.EINVALID {
				t.Errorf("%q: %v", bad, err)
			}
		}
	})
	t.Run("Lookup", func(t *testing.T) {
		for _, q := range []string{a.ID, "ADA@example.com"} {
			got, err := e.svc.Lookup(ctx, q)
			if err != nil || got.ID != a.ID {
				t.Errorf("Lookup(%q) = %v, %v", q, got.ID, err)
			}
		}
		if _, err := e.svc.Lookup(ctx, "nobody@example.com"); code(err) != apperr.ENOTFOUND {
			t.Errorf("unknown: %v", err)
		}
	})
}

func TestService_SignIn(t *testing.T) {
	e := MustService(t, account.Options{})
	a := e.MustAccount(t, "ada@example.com")

	t.Run("OK", func(t *testing.T) {
		id1 := e.MustSignIn(t, "ADA@example.com", "192.0.2.1")
		id2 := e.MustSignIn(t, "ada@example.com", "192.0.2.1")
		if id1 == id2 || len(id1) != 43 {
			t.Fatalf("session ids %q %q", id1, id2)
		}
		sess, got, err := e.svc.Session(ctx, id1)
		if err != nil || got.ID != a.ID || sess.CSRF == "" {
			t.Fatalf("Session: %+v %+v %v", sess, got, err)
		}
	})
	t.Run("ErrSameAnswer", func(t *testing.T) {
		_, _, errWrong := e.svc.SignIn(ctx, "ada@example.com", "not the password", account.Client{Addr: "198.51.100.1"})
		_, _, errUnknown := e.svc.SignIn(ctx, "bob@example.com", "not the password", account.Client{Addr: "198.51.100.2"})
		if code(errWrong) != apperr.EUNAUTHORIZED || errWrong.Error() != errUnknown.Error() {
			t.Fatalf("wrong password: %v; unknown email: %v", errWrong, errUnknown)
		}
	})
	t.Run("SameWork", func(t *testing.T) {
		// An unknown email costs what a wrong password costs: one Argon2id
		// check with the service's parameters (against a dummy hash), so the
		// answer's timing says nothing about which emails exist. Counted,
		// not timed: wall time on a shared machine proves nothing.
		p, err := e.svc.DummyParams()
		if err != nil {
			t.Fatal(err)
		}
		if want := account.DefaultHashParams; p != want {
			t.Fatalf("the dummy hash's parameters %+v, want the service's %+v", p, want)
		}
		for i, email := range []string{"ada@example.com", "nobody@example.com"} {
			before := e.svc.Checked()
			t0 := time.Now()
			_, _, err := e.svc.SignIn(ctx, email, "not the password", account.Client{Addr: "203.0.113." + strconv.Itoa(10+i)})
			d := time.Since(t0)
			if code(err) != apperr.EUNAUTHORIZED {
				t.Fatalf("%s: %v", email, err)
			}
			if n := e.svc.Checked() - before; n != 1 {
				t.Fatalf("%s: %d password checks, want 1", email, n)
			}
			t.Logf("%s: one check, %v", email, d)
		}
	})
	t.Run("Throttled", func(t *testing.T) {
		e := MustService(t, account.Options{})
		e.MustAccount(t, "ada@example.com")
		throttled := 0
		for range 20 {
			_, _, err := e.svc.SignIn(ctx, "ada@example.com", "guess", account.Client{Addr: "198.51.100.66"})
			var te *account.ThrottleError
			if errors.As(err, &te) {
				throttled++
				if code(err) != apperr.EQUOTA || te.RetryAfter < 1 {
					t.Fatalf("throttled with %v (retry after %d)", err, te.RetryAfter)
				}
			}
		}
		if throttled == 0 {
			t.Fatal("20 wrong passwords in a row were not throttled")
		}
		// The attacker's address is refused even with the right password...
		if _, _, err := e.svc.SignIn(ctx, "ada@example.com", goodPassword, account.Client{Addr: "198.51.100.66"}); code(err) != apperr.EQUOTA {
			t.Fatalf("the right password from the throttled address: %v", err)
		}
		// ... while the owner, elsewhere, signs in.
		e.MustSignIn(t, "ada@example.com", "192.0.2.200")
		// An unknown email is throttled alike.
		for range 20 {
			e.svc.SignIn(ctx, "nobody@example.com", "guess", account.Client{Addr: "198.51.100.67"})
		}
		if _, _, err := e.svc.SignIn(ctx, "nobody@example.com", "guess", account.Client{Addr: "198.51.100.67"}); code(err) != apperr.EQUOTA {
			t.Fatalf("unknown email after 20 attempts: %v", err)
		}
		// Time refills the address's budget.
		e.clock.Advance(time.Hour)
		e.MustSignIn(t, "ada@example.com", "198.51.100.66")
	})
	t.Run("Rehash", func(t *testing.T) {
		st := statetest.MustOpen(t)
		weak, err := account.New(account.Options{State: st, Hash: account.HashParams{Memory: 8 * 1024, Time: 1, Threads: 1}})
		if err != nil {
			t.Fatal(err)
		}
		a, err := weak.Create(ctx, "old@example.com", goodPassword, access.Free, account.Client{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(a.Password, "m=8192,t=1,p=1") {
			t.Fatalf("weak hash %q", a.Password)
		}
		strong, err := account.New(account.Options{State: st})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := strong.SignIn(ctx, "old@example.com", goodPassword, account.Client{}); err != nil {
			t.Fatal(err)
		}
		got, _ := strong.Get(ctx, a.ID)
		if !strings.Contains(got.Password, "m=19456,t=2,p=1") {
			t.Fatalf("after sign-in: %q, want the current parameters", got.Password)
		}
		if _, _, err := strong.SignIn(ctx, "old@example.com", goodPassword, account.Client{}); err != nil {
			t.Fatalf("signing in with the rehashed password: %v", err)
		}
	})
	t.Run("ErrDisabled", func(t *testing.T) {
		e := MustService(t, account.Options{})
		a := e.MustAccount(t, "ada@example.com")
		id := e.MustSignIn(t, "ada@example.com", "192.0.2.1")
		if _, err := e.svc.SetDisabled(ctx, a.ID, true, account.Client{}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := e.svc.Session(ctx, id); code(err) != apperr.EUNAUTHORIZED {
			t.Fatalf("session of a disabled account: %v", err)
		}
		if _, _, err := e.svc.SignIn(ctx, "ada@example.com", goodPassword, account.Client{}); code(err) != apperr.EFORBIDDEN {
			t.Fatalf("sign-in of a disabled account: %v", err)
		}
	})
}

func TestService_Session(t *testing.T) {
	e := MustService(t, account.Options{SessionIdle: time.Hour, SessionMax: 5 * time.Hour})
	a := e.MustAccount(t, "ada@example.com")

	t.Run("ErrMalformed", func(t *testing.T) {
		for _, id := range []string{"", "x", strings.Repeat("A", 43), strings.Repeat("!", 43)} {
			if _, _, err := e.svc.Session(ctx, id); code(err) != apperr.EUNAUTHORIZED {
				t.Errorf("%q: %v", id, err)
			}
		}
	})
	t.Run("IdleExpiry", func(t *testing.T) {
		id := e.MustSignIn(t, "ada@example.com", "192.0.2.1")
		for range 6 { // used every 50 minutes: stays
			e.clock.Advance(50 * time.Minute)
			if _, _, err := e.svc.Session(ctx, id); err != nil && e.clock.Now().Before(time.Date(2026, 11, 5, 14, 59, 0, 0, time.UTC)) {
				t.Fatalf("used session ended at %v: %v", e.clock.Now(), err)
			}
		}
		// 5 hours after sign-in: past SessionMax.
		if _, _, err := e.svc.Session(ctx, id); code(err) != apperr.EUNAUTHORIZED {
			t.Fatalf("after SessionMax: %v", err)
		}
		id = e.MustSignIn(t, "ada@example.com", "192.0.2.1")
		e.clock.Advance(61 * time.Minute)
		if _, _, err := e.svc.Session(ctx, id); code(err) != apperr.EUNAUTHORIZED {
			t.Fatalf("idle for 61 minutes: %v", err)
		}
	})
	t.Run("SignOut", func(t *testing.T) {
		id := e.MustSignIn(t, "ada@example.com", "192.0.2.1")
		if err := e.svc.SignOut(ctx, id, account.Client{}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := e.svc.Session(ctx, id); code(err) != apperr.EUNAUTHORIZED {
			t.Fatalf("after sign-out: %v", err)
		}
	})
	t.Run("SignOutEverywhere", func(t *testing.T) {
		ids := []string{e.MustSignIn(t, "ada@example.com", "192.0.2.1"), e.MustSignIn(t, "ada@example.com", "192.0.2.2")}
		if err := e.svc.SignOutEverywhere(ctx, ids[0], account.Client{}); err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if _, _, err := e.svc.Session(ctx, id); code(err) != apperr.EUNAUTHORIZED {
				t.Fatalf("after sign out everywhere: %v", err)
			}
		}
		if n, _ := e.svc.SessionCount(ctx, a.ID); n != 0 {
			t.Fatalf("%d sessions left", n)
		}
	})
	t.Run("ChangePassword", func(t *testing.T) {
		here := e.MustSignIn(t, "ada@example.com", "192.0.2.1")
		there := e.MustSignIn(t, "ada@example.com", "192.0.2.2")
		const next = "a new and long passphrase"
		if err := e.svc.ChangePassword(ctx, here, "wrong", next, account.Client{}); code(err) != apperr.EUNAUTHORIZED {
			t.Fatalf("wrong current password: %v", err)
		}
		if err := e.svc.ChangePassword(ctx, here, goodPassword, "password1", account.Client{}); code(err) != apperr.EINVALID {
			t.Fatalf("a common new password: %v", err)
		}
		if err := e.svc.ChangePassword(ctx, here, goodPassword, next, account.Client{}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := e.svc.Session(ctx, here); err != nil {
			t.Fatalf("this session ended: %v", err)
		}
		if _, _, err := e.svc.Session(ctx, there); code(err) != apperr.EUNAUTHORIZED {
			t.Fatalf("the other session: %v", err)
		}
		if _, _, err := e.svc.SignIn(ctx, "ada@example.com", next, account.Client{}); err != nil {
			t.Fatalf("the new password: %v", err)
		}
		if err := e.svc.ResetPassword(ctx, a.ID, goodPassword, account.Client{}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := e.svc.Session(ctx, here); code(err) != apperr.EUNAUTHORIZED {
			t.Fatalf("after a reset: %v", err)
		}
	})
	t.Run("Flash", func(t *testing.T) {
		id := e.MustSignIn(t, "ada@example.com", "192.0.2.1")
		if err := e.svc.SetFlash(ctx, id, []byte("the secret")); err != nil {
			t.Fatal(err)
		}
		got, err := e.svc.TakeFlash(ctx, id)
		if err != nil || string(got) != "the secret" {
			t.Fatalf("TakeFlash = %q, %v", got, err)
		}
		if got, err := e.svc.TakeFlash(ctx, id); err != nil || got != nil {
			t.Fatalf("second TakeFlash = %q, %v", got, err)
		}
		e.svc.SetFlash(ctx, id, []byte("old"))
		e.clock.Advance(6 * time.Minute)
		if got, _ := e.svc.TakeFlash(ctx, id); got != nil {
			t.Fatalf("a flash six minutes old: %q", got)
		}
		// The store holds it sealed.
		e.svc.SetFlash(ctx, id, []byte("sealed secret"))
		e.st.View(ctx, func(tx state.Tx) error {
			return tx.Scan(state.Sessions, state.ScanOptions{}, func(k string, v []byte) error {
				if strings.Contains(string(v), "sealed secret") {
					t.Errorf("the flash is stored in clear at %s", k)
				}
				return nil
			})
		})
	})
}

func TestService_Keys(t *testing.T) {
	e := MustService(t, account.Options{KeyMaxDays: 365, MaxKeys: 3})
	ada := e.MustAccount(t, "ada@example.com")
	bob := e.MustAccount(t, "bob@example.com")
	by := account.Client{Addr: "192.0.2.1"}

	secret, k, err := e.svc.CreateKey(ctx, ada.ID, "laptop", 90, by)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, "ce_f_") || k.Account != ada.ID || k.Tier != access.Free || k.Name != "laptop" ||
		!k.Expires.Equal(e.clock.Now().AddDate(0, 0, 90)) {
		t.Fatalf("created %q %+v", secret, k)
	}
	acc, err := access.Open(access.Options{State: e.st, SyncInterval: -1, Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer acc.Close()
	auth := func(secret string) error {
		_, err := acc.Authenticate([]byte("Bearer "+secret), "192.0.2.1")
		return err
	}
	if err := auth(secret); err != nil {
		t.Fatal(err)
	}

	t.Run("ErrOtherAccount", func(t *testing.T) {
		_, missing := e.svc.Key(ctx, bob.ID, "k_aaaaaaaa")
		_, other := e.svc.Key(ctx, bob.ID, k.ID)
		if code(other) != apperr.ENOTFOUND || strings.Replace(other.Error(), k.ID, "k_aaaaaaaa", 1) != missing.Error() {
			t.Fatalf("another account's key: %v (a missing one: %v)", other, missing)
		}
		if _, _, err := e.svc.RollKey(ctx, bob.ID, k.ID, 0, by); code(err) != apperr.ENOTFOUND {
			t.Fatalf("roll: %v", err)
		}
		if _, err := e.svc.RevokeKey(ctx, bob.ID, k.ID, by); code(err) != apperr.ENOTFOUND {
			t.Fatalf("revoke: %v", err)
		}
		if keys, _ := e.svc.Keys(ctx, bob.ID); len(keys) != 0 {
			t.Fatalf("bob sees %v", keys)
		}
		if err := auth(secret); err != nil {
			t.Fatalf("ada's key after bob's attempts: %v", err)
		}
	})
	t.Run("ErrLifetime", func(t *testing.T) {
		for _, days := range []int{0, 366, -1} {
			if _, _, err := e.svc.CreateKey(ctx, ada.ID, "x", days, by); code(err) != apperr.EINVALID {
				t.Errorf("%d days: %v", days, err)
			}
		}
	})
	t.Run("RollWithGrace", func(t *testing.T) {
		newSecret, nk, err := e.svc.RollKey(ctx, ada.ID, k.ID, time.Hour, by)
		if err != nil {
			t.Fatal(err)
		}
		if nk.Name != "laptop" || nk.Tier != access.Free || !nk.Expires.Equal(e.clock.Now().AddDate(0, 0, 90)) {
			t.Fatalf("rolled to %+v", nk)
		}
		acc.Sync()
		if err := auth(secret); err != nil {
			t.Fatalf("the old key within its grace: %v", err)
		}
		if err := auth(newSecret); err != nil {
			t.Fatalf("the new key: %v", err)
		}
		if _, _, err := e.svc.RollKey(ctx, ada.ID, k.ID, 0, by); code(err) != apperr.EINVALID {
			t.Fatalf("rolling twice: %v", err)
		}
		e.clock.Advance(time.Hour)
		if err := auth(secret); code(err) != apperr.EKEYEXPIRED {
			t.Fatalf("the old key after its grace: %v", err)
		}
		k = nk
		secret = newSecret
	})
	t.Run("RollNow", func(t *testing.T) {
		newSecret, nk, err := e.svc.RollKey(ctx, ada.ID, k.ID, 0, by)
		if err != nil {
			t.Fatal(err)
		}
		acc.Sync()
		if err := auth(secret); code(err) != apperr.EUNAUTHORIZED {
			t.Fatalf("the old key: %v", err)
		}
		if err := auth(newSecret); err != nil {
			t.Fatal(err)
		}
		k, secret = nk, newSecret
	})
	t.Run("MaxKeys", func(t *testing.T) {
		for i := 0; ; i++ {
			_, _, err := e.svc.CreateKey(ctx, ada.ID, "more", 30, by)
			if err != nil {
				if code(err) != apperr.EINVALID || i != 2 {
					t.Fatalf("key %d: %v", i+2, err)
				}
				break
			}
		}
	})
	t.Run("SetTier", func(t *testing.T) {
		if _, err := e.svc.SetTier(ctx, ada.ID, access.Pro, account.Client{}); err != nil {
			t.Fatal(err)
		}
		acc.Sync()
		c, err := acc.Authenticate([]byte("Bearer "+secret), "192.0.2.1")
		if err != nil || c.Tier != access.Pro {
			t.Fatalf("tier after SetTier and a sync: %v, %v", c.Tier, err)
		}
		keys, _ := e.svc.Keys(ctx, ada.ID)
		for _, k := range keys {
			if k.Tier != access.Pro {
				t.Fatalf("key %s still %v", k.ID, k.Tier)
			}
		}
	})
	t.Run("Revoke", func(t *testing.T) {
		if _, err := e.svc.RevokeKey(ctx, ada.ID, k.ID, by); err != nil {
			t.Fatal(err)
		}
		acc.Sync()
		if err := auth(secret); code(err) != apperr.EUNAUTHORIZED {
			t.Fatalf("revoked key: %v", err)
		}
	})
	t.Run("Audit", func(t *testing.T) {
		events, err := e.svc.Audit(ctx, ada.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		var whats []string
		for _, ev := range events {
			whats = append(whats, ev.What)
		}
		got := strings.Join(whats, " ")
		for _, want := range []string{"key_revoked tier_changed", "key_rolled key_rolled key_created account_created"} {
			if !strings.Contains(got, want) {
				t.Fatalf("audit log (newest first) %q lacks %q", got, want)
			}
		}
		if events[len(events)-1].Addr != "192.0.2.1" {
			t.Fatalf("oldest event %+v", events[len(events)-1])
		}
	})
	t.Run("Disable", func(t *testing.T) {
		keys, _ := e.svc.Keys(ctx, ada.ID)
		if _, err := e.svc.SetDisabled(ctx, ada.ID, true, account.Client{}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := e.svc.CreateKey(ctx, ada.ID, "x", 30, by); code(err) != apperr.EFORBIDDEN {
			t.Fatalf("a disabled account creates a key: %v", err)
		}
		for _, k := range mustKeys(t, e, ada.ID) {
			if !k.Suspended {
				t.Fatalf("key %s not suspended", k.ID)
			}
		}
		if _, err := e.svc.SetDisabled(ctx, ada.ID, false, account.Client{}); err != nil {
			t.Fatal(err)
		}
		for i, k := range mustKeys(t, e, ada.ID) {
			if k.Suspended || k != keys[i] {
				t.Fatalf("key %s after enabling: %+v, was %+v", k.ID, k, keys[i])
			}
		}
	})
}

func mustKeys(tb testing.TB, e *env, id string) []access.Key {
	tb.Helper()
	keys, err := e.svc.Keys(ctx, id)
	if err != nil {
		tb.Fatal(err)
	}
	return keys
}

// BenchmarkSignIn is one sign-in: the Argon2id check with the default
// parameters, the session and its audit event written to a state file.
func BenchmarkSignIn(b *testing.B) {
	e := MustService(b, account.Options{Throttle: account.Throttle{AddrBurst: 1 << 30, AccountBurst: 1 << 30}})
	e.MustAccount(b, "ada@example.com")
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := e.svc.SignIn(ctx, "ada@example.com", goodPassword, account.Client{Addr: "192.0.2.1"}); err != nil {
			b.Fatal(err)
		}
	}
}
