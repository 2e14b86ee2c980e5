package mcp

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/cardedge/cardedge/apperr"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	"github.com/cardedge/cardedge/state/statetest"
)

func TestCohortStore_PinGet(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	st := statetest.MustOpenPath(t, filepath.Join(t.TempDir(), "state.bolt"), statebolt.Options{Now: clock})
	s := newCohortStore(st, 7*24*time.Hour, 3, clock)

	c, err := s.pin("k_a", "pokemon", "mine", CohortSource{Kind: "ids"}, []string{"en:base1-4", "en:base1-2"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.ExpiresAt, now.Add(7*24*time.Hour); !got.Equal(want) {
		t.Errorf("expires %v, want %v", got, want)
	}
	// A fresh store on the same file (a restart) reads it back.
	s2 := newCohortStore(st, 7*24*time.Hour, 3, clock)
	got, err := s2.get("k_a", c.Handle)
	if err != nil || got.Name != "mine" || len(got.IDs) != 2 {
		t.Fatalf("after restart: %+v %v", got, err)
	}
	// Another key does not see it.
	if _, err := s2.get("k_b", c.Handle); apperr.ErrorCode(err) != apperr.ENOTFOUND {
		t.Errorf("other key: %v", err)
	}
	// Same key, game, name and ids: same handle.
	again, _ := s.pin("k_a", "pokemon", "mine", CohortSource{Kind: "ids"}, []string{"EN:BASE1-4", "en:base1-2"})
	if again.Handle != c.Handle {
		t.Errorf("re-pin handle %s, want %s", again.Handle, c.Handle)
	}
	// Expiry.
	now = now.Add(7*24*time.Hour + time.Second)
	if _, err := s2.get("k_a", c.Handle); apperr.ErrorCode(err) != apperr.ENOTFOUND {
		t.Errorf("expired cohort: %v", err)
	}
	if _, err := s.get("k_a", c.Handle); apperr.ErrorCode(err) != apperr.ENOTFOUND {
		t.Errorf("expired cohort (cached): %v", err)
	}
}

func TestCohortStore_PerKeyCap(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	st := statetest.MustOpenPath(t, filepath.Join(t.TempDir(), "state.bolt"), statebolt.Options{Now: func() time.Time { return now }})
	s := newCohortStore(st, time.Hour, 3, func() time.Time { return now })
	var handles []string
	for i, name := range []string{"a", "b", "c", "d"} {
		now = now.Add(time.Duration(i+1) * time.Second)
		c, err := s.pin("k_a", "pokemon", name, CohortSource{Kind: "ids"}, []string{"en:base1-4"})
		if err != nil {
			t.Fatal(err)
		}
		handles = append(handles, c.Handle)
	}
	fresh := newCohortStore(st, time.Hour, 3, func() time.Time { return now })
	if _, err := fresh.get("k_a", handles[0]); err == nil {
		t.Errorf("the oldest cohort survived the cap of 3")
	}
	for _, h := range handles[1:] {
		if _, err := fresh.get("k_a", h); err != nil {
			t.Errorf("cohort %s: %v", h, err)
		}
	}
	// Expired cohorts are gone from the store (whatever the reader's clock).
	now = now.Add(2 * time.Hour)
	if _, err := s.pin("k_b", "pokemon", "x", CohortSource{Kind: "ids"}, []string{"en:base1-4"}); err != nil {
		t.Fatal(err)
	}
	fresh = newCohortStore(st, time.Hour, 3, func() time.Time { return now.Add(-2 * time.Hour) })
	for _, h := range handles[1:] {
		if _, err := fresh.get("k_a", h); err == nil {
			t.Errorf("expired cohort %s still in the file", h)
		}
	}
}

func TestSessions(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	s := newSessions(2, func() time.Time { return now })
	a := sessionManager{s: s, key: "k_a"}
	b := sessionManager{s: s, key: "k_b"}
	sweeper := sessionManager{s: s}

	id1 := a.Generate()
	if _, err := a.Validate(id1); err != nil {
		t.Errorf("own session: %v", err)
	}
	if _, err := b.Validate(id1); err == nil {
		t.Errorf("another key's session validated")
	}
	if _, err := a.Validate("cs_unknown"); err == nil {
		t.Errorf("unknown session validated")
	}
	b.Terminate(id1) // not b's: no effect
	if !s.valid(id1, "k_a") {
		t.Errorf("another key ended the session")
	}
	// A third session of one key ends its least recently used.
	now = now.Add(time.Second)
	id2 := a.Generate()
	now = now.Add(time.Second)
	s.valid(id1, "k_a") // id1 is now the most recently used
	now = now.Add(time.Second)
	id3 := a.Generate()
	if s.valid(id2, "k_a") || !s.valid(id1, "k_a") || !s.valid(id3, "k_a") {
		t.Errorf("LRU eviction: id1 %v id2 %v id3 %v", s.valid(id1, "k_a"), s.valid(id2, "k_a"), s.valid(id3, "k_a"))
	}
	// Result handles and the active cohort live in the session.
	h := s.addResult(id1, "quote", "pokemon", []string{"en:base1-4"})
	if r, ok := s.result(id1, h); !ok || r.ids[0] != "en:base1-4" {
		t.Errorf("result %v %v", r, ok)
	}
	if _, ok := s.result(id3, h); ok {
		t.Errorf("result visible in another session")
	}
	for range ResultHandlesPerSession {
		s.addResult(id1, "quote", "pokemon", []string{"x"})
	}
	if _, ok := s.result(id1, h); ok {
		t.Errorf("oldest result kept beyond %d", ResultHandlesPerSession)
	}
	s.setCohort(id1, "coh_x")
	if s.activeCohort(id1) != "coh_x" || s.activeCohort(id3) != "" {
		t.Errorf("active cohorts %q %q", s.activeCohort(id1), s.activeCohort(id3))
	}
	// The sweeper (no key) may end any session.
	sweeper.Terminate(id1)
	if s.valid(id1, "k_a") {
		t.Errorf("swept session still valid")
	}
	if s.addResult("", "quote", "pokemon", []string{"x"}) != "" {
		t.Errorf("a sessionless call got a result handle")
	}
}
