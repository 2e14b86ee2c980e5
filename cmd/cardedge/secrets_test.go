package main_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/chattoken"
	"github.com/cardedge/cardedge/state"
	stateredis "github.com/cardedge/cardedge/state/redis"
	"github.com/cardedge/cardedge/state/redis/redistest"
)

// TestSecrets_Rotate: cardedge secrets rotate chat-token makes a new
// current signing key in the state file and in a fleet's Redis store, which
// the tokens minted next carry (their kid); the store flags are checked.
func TestSecrets_Rotate(t *testing.T) {
	kidOf := func(t *testing.T, st state.Store) string {
		t.Helper()
		svc, err := chattoken.New(context.Background(), chattoken.Options{State: st})
		if err != nil {
			t.Fatal(err)
		}
		tok, err := svc.Mint("a_rotate", access.Pro)
		if err != nil {
			t.Fatal(err)
		}
		head, err := base64.RawURLEncoding.DecodeString(strings.Split(tok.Value, ".")[0])
		if err != nil {
			t.Fatal(err)
		}
		var h struct {
			Kid string `json:"kid"`
		}
		if err := json.Unmarshal(head, &h); err != nil {
			t.Fatal(err)
		}
		return h.Kid
	}
	rotate := func(t *testing.T, flags ...string) string {
		t.Helper()
		out, err := mainRun(append(append([]string{"secrets", "rotate"}, flags...), "chat-token")...)
		if err != nil {
			t.Fatalf("secrets rotate %v: %v: %s", flags, err, out)
		}
		kid, _, ok := strings.Cut(strings.TrimPrefix(out, "chat-token: new signing key "), ";")
		if !ok || kid == "" {
			t.Fatalf("secrets rotate said %q", out)
		}
		return kid
	}
	t.Run("State", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "state.bolt")
		k1 := rotate(t, "--state", path)
		k2 := rotate(t, "--state", path)
		if k1 == k2 {
			t.Errorf("a second rotation kept key %s", k1)
		}
		if got := kidOf(t, stateAt(t, path)); got != k2 {
			t.Errorf("a token minted after the rotation carries kid %q, want %q", got, k2)
		}
	})
	t.Run("Redis", func(t *testing.T) {
		rs := redistest.Start(t, false)
		k := rotate(t, "--redis", rs.URL())
		st, err := stateredis.Open(rs.URL(), stateredis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if got := kidOf(t, st); got != k {
			t.Errorf("a token minted after the rotation carries kid %q, want %q", got, k)
		}
	})
	t.Run("ErrFlags", func(t *testing.T) {
		for _, args := range [][]string{
			{"secrets", "rotate", "chat-token"},
			{"secrets", "rotate", "--state", "x.bolt", "--redis", "redis://127.0.0.1:1/0", "chat-token"},
			{"secrets", "rotate", "--state", filepath.Join(t.TempDir(), "s.bolt"), "cursor"},
		} {
			if out, err := mainRun(args...); err == nil {
				t.Errorf("%v: no error: %s", args, out)
			}
		}
	})
}
