package chattoken_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/chattoken"
	"github.com/cardedge/cardedge/state/statetest"
	"github.com/golang-jwt/jwt/v5"
)

var t0 = time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)

func mustService(tb testing.TB, o chattoken.Options) *chattoken.Service {
	tb.Helper()
	s, err := chattoken.New(context.Background(), o)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// refused checks that token is a 401 whose message contains want.
func refused(t *testing.T, s *chattoken.Service, token, want string) {
	t.Helper()
	_, err := s.VerifyChat([]byte(token))
	if apperr.ErrorCode(err) != apperr.EUNAUTHORIZED || !strings.Contains(apperr.ErrorMessage(err), want) {
		t.Errorf("VerifyChat: %v, want a 401 saying %q", err, want)
	}
}

func TestService_MintVerify(t *testing.T) {
	st := statetest.MustOpen(t)
	clock := statetest.NewClock(t0)
	s := mustService(t, chattoken.Options{State: st, Now: clock.Now})

	t.Run("OK", func(t *testing.T) {
		tok, err := s.Mint("a_abc", access.Pro)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := tok.Expires, t0.Add(15*time.Minute); !got.Equal(want) {
			t.Errorf("expires %v, want %v", got, want)
		}
		if !access.LooksLikeJWT([]byte(tok.Value)) {
			t.Errorf("token %q does not look like a JWT", tok.Value)
		}
		cl, err := s.VerifyChat([]byte(tok.Value))
		if err != nil {
			t.Fatal(err)
		}
		if cl.Account != "a_abc" || cl.Tier != access.Pro || !cl.Expires.Equal(tok.Expires) {
			t.Errorf("claims %+v", cl)
		}
		// The claims say what the package doc says.
		parts := strings.Split(tok.Value, ".")
		payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
		for _, want := range []string{`"iss":"cardedge"`, `"aud":["chat"]`, `"sub":"a_abc"`, `"tier":"pro"`, `"jti":`} {
			if !strings.Contains(string(payload), want) {
				t.Errorf("payload %s lacks %s", payload, want)
			}
		}
		head, _ := base64.RawURLEncoding.DecodeString(parts[0])
		if !strings.Contains(string(head), `"alg":"HS256"`) || !strings.Contains(string(head), `"kid":"ck_`) {
			t.Errorf("header %s", head)
		}
	})

	t.Run("ErrExpired", func(t *testing.T) {
		tok, _ := s.Mint("a_abc", access.Free)
		clock.Advance(15*time.Minute - time.Second)
		if _, err := s.VerifyChat([]byte(tok.Value)); err != nil {
			t.Fatalf("a second before expiry: %v", err)
		}
		clock.Advance(time.Second)
		refused(t, s, tok.Value, "chat token expired at 2026-11-03T10:15:00Z")
	})

	t.Run("ErrTampered", func(t *testing.T) {
		tok, _ := s.Mint("a_abc", access.Free)
		parts := strings.Split(tok.Value, ".")
		payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
		elite := strings.Replace(string(payload), `"tier":"free"`, `"tier":"elite"`, 1)
		forged := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(elite)) + "." + parts[2]
		refused(t, s, forged, "invalid chat token")
		sig := []byte(parts[2])
		sig[3] ^= 1
		refused(t, s, parts[0]+"."+parts[1]+"."+string(sig), "invalid chat token")
		refused(t, s, parts[0]+"."+parts[1]+".", "invalid chat token")
		refused(t, s, "eyJhbGciOiJub25lIn0."+parts[1]+".", "invalid chat token") // alg none
	})

	t.Run("ErrAudience", func(t *testing.T) {
		now := clock.Now()
		// with returns valid claims changed by pairs of name and value (nil
		// deletes the claim).
		with := func(kv ...any) jwt.MapClaims {
			c := jwt.MapClaims{"iss": "cardedge", "aud": "chat", "sub": "a_abc", "tier": "pro", "iat": now.Unix(), "exp": now.Add(time.Minute).Unix()}
			for i := 0; i < len(kv); i += 2 {
				if kv[i+1] == nil {
					delete(c, kv[i].(string))
				} else {
					c[kv[i].(string)] = kv[i+1]
				}
			}
			return c
		}
		if _, err := s.VerifyChat([]byte(s.SignForTest(with(), ""))); err != nil {
			t.Fatalf("valid claims: %v", err)
		}
		refused(t, s, s.SignForTest(with("aud", []string{"api"}), ""), "not a chat token")
		refused(t, s, s.SignForTest(with("aud", nil), ""), "not a chat token")
		refused(t, s, s.SignForTest(with("iss", "someone-else"), ""), "invalid chat token")
		refused(t, s, s.SignForTest(with("exp", nil), ""), "invalid chat token")
		refused(t, s, s.SignForTest(with("iat", now.Add(time.Hour).Unix()), ""), "invalid chat token")
		refused(t, s, s.SignForTest(with("tier", "playground"), ""), "invalid chat token")
		refused(t, s, s.SignForTest(with("tier", "gold"), ""), "invalid chat token")
		refused(t, s, s.SignForTest(with("sub", nil), ""), "invalid chat token")
		refused(t, s, s.SignForTest(with(), "ck_unknown"), "invalid chat token")
	})

	t.Run("ErrMint", func(t *testing.T) {
		if _, err := s.Mint("a_abc", access.Playground); apperr.ErrorCode(err) != apperr.EINVALID {
			t.Errorf("playground: %v", err)
		}
		if _, err := s.Mint("", access.Pro); apperr.ErrorCode(err) != apperr.EINVALID {
			t.Errorf("no account: %v", err)
		}
	})
}

// TestRotate: tokens of the retired key verify for the grace period only;
// a second service on the same store (another replica) learns of the
// rotation from the first token the new key signed.
func TestRotate(t *testing.T) {
	st := statetest.MustOpen(t)
	clock := statetest.NewClock(t0)
	a := mustService(t, chattoken.Options{State: st, Now: clock.Now})
	b := mustService(t, chattoken.Options{State: st, Now: clock.Now})
	old, _ := a.Mint("a_1", access.Elite)
	if _, err := b.VerifyChat([]byte(old.Value)); err != nil {
		t.Fatalf("another service on the store: %v", err)
	}

	kid, err := chattoken.Rotate(context.Background(), st, clock.Now(), 20*time.Minute)
	if err != nil || !strings.HasPrefix(kid, "ck_") {
		t.Fatalf("rotate: %q %v", kid, err)
	}
	// a still mints with the old key until its copy is a minute old; then
	// with the new one.
	clock.Advance(time.Minute)
	fresh, _ := a.Mint("a_1", access.Elite)
	if fresh.Value[:strings.IndexByte(fresh.Value, '.')] == old.Value[:strings.IndexByte(old.Value, '.')] {
		t.Fatal("a minted with the old key after a minute")
	}
	for name, s := range map[string]*chattoken.Service{"a": a, "b": b} {
		if _, err := s.VerifyChat([]byte(fresh.Value)); err != nil {
			t.Errorf("%s: the new key's token: %v", name, err)
		}
		if _, err := s.VerifyChat([]byte(old.Value)); err != nil {
			t.Errorf("%s: the old key's token within the grace: %v", name, err)
		}
	}
	// A second rotation drops the key retired over the grace ago; the
	// previous one keeps verifying within its grace.
	clock.Advance(20 * time.Minute)
	if _, err := chattoken.Rotate(context.Background(), st, clock.Now(), 20*time.Minute); err != nil {
		t.Fatal(err)
	}
	refused(t, a, old.Value, "invalid chat token") // its key is gone (and it expired anyway)
	if fresh, err = b.Mint("a_1", access.Free); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	if _, err := a.VerifyChat([]byte(fresh.Value)); err != nil {
		t.Errorf("the previous key's token within the grace: %v", err)
	}
}

// TestRotate_Grace: past its grace a retired key verifies nothing, even a
// token that has not expired yet.
func TestRotate_Grace(t *testing.T) {
	st := statetest.MustOpen(t)
	clock := statetest.NewClock(t0)
	s := mustService(t, chattoken.Options{State: st, Now: clock.Now, TTL: 2 * time.Hour})
	tok, _ := s.Mint("a_1", access.Pro)
	if _, err := chattoken.Rotate(context.Background(), st, clock.Now(), time.Hour); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour - time.Second) // s's copy of the keys is reloaded: it is over a minute old
	if _, err := s.VerifyChat([]byte(tok.Value)); err != nil {
		t.Fatalf("within the grace: %v", err)
	}
	clock.Advance(time.Second)
	refused(t, s, tok.Value, "invalid chat token")
}
