package access_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
)

// fakeChat verifies the tokens it lists.
type fakeChat map[string]access.ChatClaims

func (f fakeChat) VerifyChat(tok []byte) (access.ChatClaims, error) {
	if c, ok := f[string(tok)]; ok {
		return c, nil
	}
	return access.ChatClaims{}, apperr.Errorf(apperr.EUNAUTHORIZED, "invalid chat token")
}

// Tokens of fakeChat: shaped like JWTs.
const (
	tokFree  = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhX2ZyZWUifQ.c2lnbmF0dXJlLWZyZWU"
	tokPro   = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhX3BybyJ9.c2lnbmF0dXJlLXBybw"
	tokOther = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhX290aGVyIn0.b3RoZXI"
)

func mustOpenChat(tb testing.TB, path string, clock *Clock, chat access.ChatVerifier) *access.Service {
	tb.Helper()
	opts := access.Options{State: Store(tb, path, clock), SyncInterval: -1, LockTimeout: 200 * time.Millisecond, Chat: chat}
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

var chats = fakeChat{
	tokFree: {Account: "a_free", Tier: access.Free},
	tokPro:  {Account: "a_pro", Tier: access.Pro},
}

func TestLooksLikeJWT(t *testing.T) {
	for _, tc := range []struct {
		tok  string
		want bool
	}{
		{tokFree, true},
		{"eyJ.eyJ.x", false}, // under 10 bytes
		{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.", false},
		{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0", false},
		{"eyJhbGciOiJIUzI1NiJ9.eyJ.zd.WIiOiJhIn0", false},
		{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIi+OiJhIn0.abc", false},
		{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIi OiJhIn0.abc", false},
		{"ce_p_" + strings.Repeat("A", 43), false},
		{"xyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.abc", false},
		{"eyJ" + strings.Repeat("A", 4096) + ".a.b", false},
	} {
		if got := access.LooksLikeJWT([]byte(tc.tok)); got != tc.want {
			t.Errorf("LooksLikeJWT(%.40q) = %v, want %v", tc.tok, got, tc.want)
		}
	}
}

func FuzzLooksLikeJWT(f *testing.F) {
	for _, s := range []string{tokFree, "ce_f_" + strings.Repeat("x", 43), "eyJ..", "Bearer x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if access.LooksLikeJWT(b) && (len(b) > 4096 || strings.Count(string(b), ".") != 2 || strings.HasPrefix(string(b), "ce_")) {
			t.Fatalf("LooksLikeJWT(%q) = true", b)
		}
	})
}

func TestService_AuthenticateChat(t *testing.T) {
	path := StatePath(t)
	secret, k := MustKey(t, path, access.Pro, false, false)
	s := mustOpenChat(t, path, nil, chats)

	t.Run("OK", func(t *testing.T) {
		c, err := s.AuthenticateChat(bearer(tokPro), "192.0.2.1")
		if err != nil {
			t.Fatal(err)
		}
		if c.KeyID != "a_pro" || c.Account != "a_pro" || c.Tier != access.Pro || !c.Chat() || c.ClientAddr != "192.0.2.1" {
			t.Errorf("caller %+v", c)
		}
		// "bearer" in any case, as for keys.
		if c, err = s.AuthenticateChat([]byte("BEARER "+tokFree), ""); err != nil || c.Tier != access.Free {
			t.Errorf("BEARER: %+v %v", c, err)
		}
		// An API key is Authenticate's.
		if c, err = s.AuthenticateChat(bearer(secret), ""); err != nil || c.KeyID != k.ID || c.Chat() {
			t.Errorf("API key: %+v %v", c, err)
		}
		if c, err = s.AuthenticateChat(nil, "192.0.2.9"); err != nil || c.Tier != access.Playground {
			t.Errorf("no header: %+v %v", c, err)
		}
	})
	t.Run("ErrUnauthorized", func(t *testing.T) {
		if _, err := s.AuthenticateChat(bearer(tokOther), ""); code(err) != apperr.EUNAUTHORIZED || !strings.Contains(apperr.ErrorMessage(err), "invalid chat token") {
			t.Errorf("unknown token: %v", err)
		}
		off := mustOpenChat(t, path, nil, nil)
		if _, err := off.AuthenticateChat(bearer(tokPro), ""); code(err) != apperr.EUNAUTHORIZED || !strings.Contains(apperr.ErrorMessage(err), "not enabled") {
			t.Errorf("no verifier: %v", err)
		}
		bad := mustOpenChat(t, path, nil, fakeChat{tokPro: {Account: "a_pro", Tier: access.Playground}, tokFree: {Tier: access.Free}})
		for _, tok := range []string{tokPro, tokFree} {
			if _, err := bad.AuthenticateChat(bearer(tok), ""); code(err) != apperr.EUNAUTHORIZED {
				t.Errorf("claims without a tier or account: %v", err)
			}
		}
	})
	t.Run("ErrElsewhere", func(t *testing.T) {
		// Every other route calls Authenticate: a token is a 401 that says
		// where it works.
		_, err := s.Authenticate(bearer(tokPro), "")
		if code(err) != apperr.EUNAUTHORIZED || !strings.Contains(apperr.ErrorMessage(err), "agent chat") {
			t.Errorf("Authenticate(token): %v", err)
		}
	})
}

// TestService_ChatQuota: a token's calls spend its account's quota of its
// tier, kept under the account id in the state store and read back after a
// restart; the account's keys have quotas of their own.
func TestService_ChatQuota(t *testing.T) {
	path := StatePath(t)
	secret, _ := MustKey(t, path, access.Free, false, false)
	clock := NewClock(t, "2026-11-05T10:00:00Z")
	s := mustOpenChat(t, path, clock, chats)
	c, err := s.AuthenticateChat(bearer(tokFree), "")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 60; i++ {
		clock.Advance(time.Second)
		if d, err := s.Charge(c, 1); err != nil || d.Remaining != 100-i || d.Tier != access.Free {
			t.Fatalf("charge %d: %+v %v", i, d, err)
		}
	}
	key := MustAuth(t, s, secret)
	if d, err := s.Charge(key, 1); err != nil || d.Remaining != 99 {
		t.Fatalf("the key's own quota: %+v %v", d, err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	var stored int64
	err = Store(t, path, clock).View(ctx, func(tx state.Tx) (err error) {
		stored, err = tx.Count(state.Usage, "a_free/2026-11-05")
		return err
	})
	if err != nil || stored != 60 {
		t.Fatalf("stored chat usage %d, %v", stored, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// After a restart the first charge knows the 60 units.
	s = mustOpenChat(t, path, clock, chats)
	if c, err = s.AuthenticateChat(bearer(tokFree), ""); err != nil {
		t.Fatal(err)
	}
	d, err := s.Charge(c, 40)
	if err != nil || d.Remaining != 0 {
		t.Fatalf("after the restart: %+v %v", d, err)
	}
	clock.Advance(time.Second)
	if _, err := s.Charge(c, 1); code(err) != apperr.EQUOTA {
		t.Fatalf("over the quota: %v", err)
	}
	// No last-used time is kept for an account (LastUsed holds keys).
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	err = Store(t, path, clock).View(ctx, func(tx state.Tx) error {
		if _, err := tx.Get(state.LastUsed, "a_free"); err == nil {
			t.Error("a last-used time was kept for the account")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestService_ChargeAccount: the dashboard's market pages spend the
// account's own quota, the one its chat-user tokens spend: what one uses the
// other has not.
func TestService_ChargeAccount(t *testing.T) {
	clock := NewClock(t, "2026-11-05T10:00:00Z")
	s := mustOpenChat(t, StatePath(t), clock, chats)
	if d, err := s.ChargeAccount("a_free", access.Free, 50); err != nil || d.Remaining != 50 || d.Tier != access.Free {
		t.Fatalf("OK: %+v %v", d, err)
	}
	c, err := s.AuthenticateChat(bearer(tokFree), "")
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if d, err := s.Charge(c, 1); err != nil || d.Remaining != 49 {
		t.Fatalf("the token after the pages: %+v %v", d, err)
	}
	clock.Advance(time.Minute)
	if d, err := s.ChargeAccount("a_free", access.Free, 49); err != nil || d.Remaining != 0 {
		t.Fatalf("the rest: %+v %v", d, err)
	}
	clock.Advance(time.Minute)
	d, err := s.ChargeAccount("a_free", access.Free, 1)
	if code(err) != apperr.EQUOTA || d.Reason != access.ReasonQuota || d.RetryAfter <= 0 {
		t.Fatalf("ErrQuota: %+v %v", d, err)
	}
	// Another account has its own.
	if d, err := s.ChargeAccount("a_pro", access.Pro, 1); err != nil || d.Remaining != 1999 {
		t.Fatalf("another account: %+v %v", d, err)
	}
}
