package statetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cardedge/cardedge/state"
)

// Clock is a settable clock for a store's Options.Now. It is safe for
// concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock reading t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestStore runs the conformance suite of state.Store against the stores
// open returns: each call must return a new, empty store whose clock is now.
// Every implementation (state/bolt, a Redis store) passes it.
func TestStore(t *testing.T, open func(t *testing.T, now func() time.Time) state.Store) {
	ctx := context.Background()
	newStore := func(t *testing.T) (state.Store, *Clock) {
		c := NewClock(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
		st := open(t, c.Now)
		t.Cleanup(func() { MustCheck(t, st) })
		return st, c
	}
	update := func(t *testing.T, st state.Store, fn func(tx state.Tx) error) {
		t.Helper()
		if err := st.Update(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	view := func(t *testing.T, st state.Store, fn func(tx state.Tx) error) {
		t.Helper()
		if err := st.View(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	get := func(t *testing.T, st state.Store, b state.Bucket, key string) (string, error) {
		t.Helper()
		var v string
		err := st.View(ctx, func(tx state.Tx) error {
			b, err := tx.Get(b, key)
			v = string(b)
			return err
		})
		return v, err
	}
	keys := func(t *testing.T, st state.Store, b state.Bucket, o state.ScanOptions) []string {
		t.Helper()
		out := []string{}
		view(t, st, func(tx state.Tx) error {
			if b.Kind() == state.KindCounters {
				return tx.ScanCounts(b, o, func(k string, _ int64) error { out = append(out, k); return nil })
			}
			return tx.Scan(b, o, func(k string, _ []byte) error { out = append(out, k); return nil })
		})
		return out
	}

	t.Run("Records", func(t *testing.T) {
		st, _ := newStore(t)
		if _, err := get(t, st, state.Keys, "k_a"); !errors.Is(err, state.ErrNotFound) {
			t.Fatalf("empty store: %v, want ErrNotFound", err)
		}
		update(t, st, func(tx state.Tx) error { return tx.Put(state.Keys, "k_a", []byte(`{"n":1}`), 0) })
		if v, err := get(t, st, state.Keys, "k_a"); err != nil || v != `{"n":1}` {
			t.Fatalf("get: %q, %v", v, err)
		}
		update(t, st, func(tx state.Tx) error {
			if err := tx.Put(state.Keys, "k_a", []byte(`{"n":2}`), 0); err != nil {
				return err
			}
			v, err := tx.Get(state.Keys, "k_a") // the transaction reads its own write
			if err != nil || string(v) != `{"n":2}` {
				return fmt.Errorf("read own write: %q, %v", v, err)
			}
			return nil
		})
		update(t, st, func(tx state.Tx) error { return tx.Delete(state.Keys, "k_a") })
		if _, err := get(t, st, state.Keys, "k_a"); !errors.Is(err, state.ErrNotFound) {
			t.Fatalf("deleted: %v", err)
		}
		update(t, st, func(tx state.Tx) error { return tx.Delete(state.Keys, "k_a") }) // again: no error
		// Records are stored as given: any byte of a key, JSON values.
		key := "a/\x00\xff/é"
		update(t, st, func(tx state.Tx) error { return tx.Put(state.Secrets, key, []byte(`"x"`), 0) })
		if v, err := get(t, st, state.Secrets, key); err != nil || v != `"x"` {
			t.Fatalf("binary key: %q, %v", v, err)
		}
	})

	t.Run("ErrBadCalls", func(t *testing.T) {
		st, _ := newStore(t)
		bad := []struct {
			name string
			fn   func(tx state.Tx) error
		}{
			{"unknown bucket", func(tx state.Tx) error { return tx.Put("nope", "k", []byte(`1`), 0) }},
			{"counter bucket", func(tx state.Tx) error { return tx.Put(state.Usage, "k", []byte(`1`), 0) }},
			{"records bucket", func(tx state.Tx) error { return tx.Add(state.Keys, "k", 1, 0) }},
			{"empty key", func(tx state.Tx) error { return tx.Put(state.Keys, "", []byte(`1`), 0) }},
			{"long key", func(tx state.Tx) error {
				return tx.Put(state.Keys, string(bytes.Repeat([]byte("k"), state.MaxKeyLen+1)), []byte(`1`), 0)
			}},
			{"negative ttl", func(tx state.Tx) error { return tx.Put(state.Keys, "k", []byte(`1`), -time.Second) }},
		}
		for _, c := range bad {
			if err := st.Update(ctx, c.fn); err == nil {
				t.Errorf("%s: no error", c.name)
			}
		}
		if err := st.View(ctx, func(tx state.Tx) error { return tx.Put(state.Keys, "k", []byte(`1`), 0) }); err == nil {
			t.Errorf("Put in View: no error")
		}
		if got := keys(t, st, state.Keys, state.ScanOptions{}); len(got) != 0 {
			t.Errorf("refused writes left %v", got)
		}
	})

	t.Run("Rollback", func(t *testing.T) {
		st, _ := newStore(t)
		boom := errors.New("boom")
		err := st.Update(ctx, func(tx state.Tx) error {
			if err := tx.Put(state.Keys, "k_a", []byte(`1`), 0); err != nil {
				return err
			}
			if err := tx.Add(state.Usage, "k_a/2026-11-20", 5, 0); err != nil {
				return err
			}
			return fmt.Errorf("wrapped: %w", boom)
		})
		if !errors.Is(err, boom) {
			t.Fatalf("Update: %v, want fn's error", err)
		}
		if _, err := get(t, st, state.Keys, "k_a"); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("record of a failed Update: %v", err)
		}
		if got := keys(t, st, state.Usage, state.ScanOptions{}); len(got) != 0 {
			t.Errorf("counters of a failed Update: %v", got)
		}
	})

	t.Run("Insert", func(t *testing.T) {
		st, clock := newStore(t)
		update(t, st, func(tx state.Tx) error { return tx.Insert(state.AccountEmails, "a@example.com", []byte(`"acc_1"`), 0) })
		err := st.Update(ctx, func(tx state.Tx) error { return tx.Insert(state.AccountEmails, "a@example.com", []byte(`"acc_2"`), 0) })
		if !errors.Is(err, state.ErrConflict) {
			t.Fatalf("second Insert: %v, want ErrConflict", err)
		}
		if v, _ := get(t, st, state.AccountEmails, "a@example.com"); v != `"acc_1"` {
			t.Fatalf("Insert replaced the record: %s", v)
		}
		// An expired record does not block an Insert.
		update(t, st, func(tx state.Tx) error { return tx.Insert(state.Sessions, "s", []byte(`1`), time.Minute) })
		clock.Advance(time.Minute)
		update(t, st, func(tx state.Tx) error { return tx.Insert(state.Sessions, "s", []byte(`2`), 0) })
		if v, err := get(t, st, state.Sessions, "s"); err != nil || v != `2` {
			t.Fatalf("insert over expired: %q, %v", v, err)
		}
		// Concurrent inserts of one key: exactly one wins.
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := 0
		for i := range 8 {
			wg.Go(func() {
				err := st.Update(ctx, func(tx state.Tx) error {
					return tx.Insert(state.AccountEmails, "b@example.com", fmt.Appendf(nil, `"acc_%d"`, i), 0)
				})
				if err == nil {
					mu.Lock()
					wins++
					mu.Unlock()
				} else if !errors.Is(err, state.ErrConflict) {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if wins != 1 {
			t.Fatalf("%d concurrent inserts won, want 1", wins)
		}
	})

	t.Run("Expiry", func(t *testing.T) {
		st, clock := newStore(t)
		update(t, st, func(tx state.Tx) error {
			for _, k := range []string{"a", "b", "c"} {
				if err := tx.Put(state.ImportPreviews, k, []byte(`{}`), time.Hour); err != nil {
					return err
				}
			}
			return tx.Put(state.ImportPreviews, "forever", []byte(`{}`), 0)
		})
		clock.Advance(time.Hour - time.Second)
		if got := keys(t, st, state.ImportPreviews, state.ScanOptions{}); !slices.Equal(got, []string{"a", "b", "c", "forever"}) {
			t.Fatalf("before expiry: %v", got)
		}
		update(t, st, func(tx state.Tx) error { return tx.Put(state.ImportPreviews, "b", []byte(`{}`), time.Hour) }) // renewed
		update(t, st, func(tx state.Tx) error { return tx.Put(state.ImportPreviews, "c", []byte(`{}`), 0) })         // made permanent
		clock.Advance(time.Second)
		if _, err := get(t, st, state.ImportPreviews, "a"); !errors.Is(err, state.ErrNotFound) {
			t.Fatalf("expired record: %v, want ErrNotFound", err)
		}
		if got := keys(t, st, state.ImportPreviews, state.ScanOptions{}); !slices.Equal(got, []string{"b", "c", "forever"}) {
			t.Fatalf("after expiry: %v", got)
		}
		update(t, st, func(tx state.Tx) error { return nil }) // a write: may sweep
		clock.Advance(time.Hour)
		if got := keys(t, st, state.ImportPreviews, state.ScanOptions{}); !slices.Equal(got, []string{"c", "forever"}) {
			t.Fatalf("after the renewed expiry: %v", got)
		}
		update(t, st, func(tx state.Tx) error { return nil })
	})

	t.Run("Scan", func(t *testing.T) {
		st, _ := newStore(t)
		all := []string{"a/1", "a/2", "a/3", "a\xff", "a\xff/x", "b", "b/1", "c"}
		update(t, st, func(tx state.Tx) error {
			for _, k := range slices.Backward(all) {
				if err := tx.Put(state.Audit, k, []byte(`1`), 0); err != nil {
					return err
				}
				if err := tx.Add(state.Usage, k, 1, 0); err != nil {
					return err
				}
			}
			return nil
		})
		tests := []struct {
			o    state.ScanOptions
			want []string
		}{
			{state.ScanOptions{}, all},
			{state.ScanOptions{Prefix: "a/"}, []string{"a/1", "a/2", "a/3"}},
			{state.ScanOptions{Prefix: "a/", Reverse: true}, []string{"a/3", "a/2", "a/1"}},
			{state.ScanOptions{Prefix: "a\xff"}, []string{"a\xff", "a\xff/x"}},
			{state.ScanOptions{Prefix: "a\xff", Reverse: true}, []string{"a\xff/x", "a\xff"}},
			{state.ScanOptions{Prefix: "a/", Limit: 2}, []string{"a/1", "a/2"}},
			{state.ScanOptions{Prefix: "a/", Reverse: true, Limit: 2}, []string{"a/3", "a/2"}},
			{state.ScanOptions{Prefix: "a/", After: "a/1"}, []string{"a/2", "a/3"}},
			{state.ScanOptions{Prefix: "a/", After: "a/1x"}, []string{"a/2", "a/3"}},
			{state.ScanOptions{Prefix: "a/", After: "a/2", Reverse: true}, []string{"a/1"}},
			{state.ScanOptions{Prefix: "a/", After: "a/9", Reverse: true}, []string{"a/3", "a/2", "a/1"}},
			{state.ScanOptions{Prefix: "a/", After: "0"}, []string{"a/1", "a/2", "a/3"}},
			{state.ScanOptions{Prefix: "a/", After: "b"}, []string{}},
			{state.ScanOptions{Prefix: "a/", After: "0", Reverse: true}, []string{}},
			{state.ScanOptions{After: "b", Reverse: true}, []string{"a\xff/x", "a\xff", "a/3", "a/2", "a/1"}},
			{state.ScanOptions{Reverse: true, Limit: 1}, []string{"c"}},
			{state.ScanOptions{Prefix: "d"}, []string{}},
			{state.ScanOptions{Prefix: "\xff", Reverse: true}, []string{}},
		}
		for _, tt := range tests {
			for _, b := range []state.Bucket{state.Audit, state.Usage} {
				if got := keys(t, st, b, tt.o); !slices.Equal(got, tt.want) {
					t.Errorf("%s %#v: %q, want %q", b, tt.o, got, tt.want)
				}
			}
		}
		// An error of fn stops the scan and is returned.
		stop := errors.New("stop")
		n := 0
		err := st.View(ctx, func(tx state.Tx) error {
			return tx.Scan(state.Audit, state.ScanOptions{}, func(string, []byte) error { n++; return stop })
		})
		if !errors.Is(err, stop) || n != 1 {
			t.Errorf("stopped scan: %v after %d", err, n)
		}
	})

	t.Run("Counters", func(t *testing.T) {
		st, clock := newStore(t)
		count := func(key string) int64 {
			t.Helper()
			var n int64
			view(t, st, func(tx state.Tx) (err error) { n, err = tx.Count(state.Usage, key); return err })
			return n
		}
		if n := count("k_a/2026-11-20"); n != 0 {
			t.Fatalf("missing counter: %d", n)
		}
		update(t, st, func(tx state.Tx) error {
			if err := tx.Add(state.Usage, "k_a/2026-11-20", 5, 2*time.Hour); err != nil {
				return err
			}
			if err := tx.Add(state.Usage, "k_a/2026-11-20", -2, 0); err != nil { // keeps its expiry
				return err
			}
			n, err := tx.Count(state.Usage, "k_a/2026-11-20")
			if err == nil && n != 3 {
				err = fmt.Errorf("count inside the Update: %d, want 3", n)
			}
			return err
		})
		counts := func(tx state.Tx, want ...int64) error {
			ns, err := tx.Counts(state.Usage, []string{"k_a/2026-11-20", "k_b/2026-11-20", "k_a/2026-11-20"})
			if err == nil && fmt.Sprint(ns) != fmt.Sprint(want) {
				err = fmt.Errorf("Counts: %v, want %v", ns, want)
			}
			return err
		}
		view(t, st, func(tx state.Tx) error { return counts(tx, 3, 0, 3) })
		update(t, st, func(tx state.Tx) error {
			if err := tx.Add(state.Usage, "k_b/2026-11-20", 7, 2*time.Hour); err != nil {
				return err
			}
			return counts(tx, 3, 7, 3) // with this transaction's own Adds
		})
		view(t, st, func(tx state.Tx) error { return counts(tx, 3, 7, 3) })
		update(t, st, func(tx state.Tx) error { return tx.Add(state.Usage, "k_b/2026-11-20", -7, 0) })
		view(t, st, func(tx state.Tx) error {
			if _, err := tx.Counts(state.Keys, []string{"k_a"}); err == nil {
				return errors.New("Counts of a bucket of records: no error")
			}
			return nil
		})
		update(t, st, func(tx state.Tx) error { return tx.Add(state.Meta, state.MetaKeysRev, 1, 0) })
		update(t, st, func(tx state.Tx) error { return tx.Add(state.Meta, state.MetaKeysRev, 1, 0) })
		var rev int64
		view(t, st, func(tx state.Tx) (err error) { rev, err = tx.Count(state.Meta, state.MetaKeysRev); return err })
		if rev != 2 {
			t.Fatalf("keys.rev %d, want 2", rev)
		}
		clock.Advance(time.Hour)
		if n := count("k_a/2026-11-20"); n != 3 {
			t.Fatalf("counter: %d, want 3", n)
		}
		clock.Advance(time.Hour)
		if n := count("k_a/2026-11-20"); n != 0 {
			t.Fatalf("expired counter: %d, want 0", n)
		}
		update(t, st, func(tx state.Tx) error { return tx.Add(state.Usage, "k_a/2026-11-20", 1, 0) }) // starts afresh
		if n := count("k_a/2026-11-20"); n != 1 {
			t.Fatalf("counter after expiry: %d, want 1", n)
		}
		got := map[string]int64{}
		view(t, st, func(tx state.Tx) error {
			return tx.ScanCounts(state.Meta, state.ScanOptions{}, func(k string, n int64) error { got[k] = n; return nil })
		})
		if len(got) != 1 || got[state.MetaKeysRev] != 2 {
			t.Fatalf("meta counters: %v", got)
		}
		// Concurrent Adds all count.
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 10 {
					if err := st.Update(ctx, func(tx state.Tx) error { return tx.Add(state.Usage, "k_b/2026-11-20", 1, time.Hour) }); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		if n := count("k_b/2026-11-20"); n != 80 {
			t.Fatalf("concurrent adds: %d, want 80", n)
		}
	})

	t.Run("Table", func(t *testing.T) {
		type rec struct {
			Name string   `json:"name"`
			IDs  []string `json:"ids"`
		}
		st, clock := newStore(t)
		tab := state.NewTable[rec](state.Cohorts)
		update(t, st, func(tx state.Tx) error {
			if err := tab.Put(tx, "k_a/1", rec{Name: "one", IDs: []string{"x"}}, time.Hour); err != nil {
				return err
			}
			if err := tab.Put(tx, "k_a/2", rec{Name: "two"}, 0); err != nil {
				return err
			}
			return tab.Insert(tx, "k_b/1", rec{Name: "b"}, 0)
		})
		var got []string
		view(t, st, func(tx state.Tx) error {
			r, err := tab.Get(tx, "k_a/1")
			if err != nil || r.Name != "one" || len(r.IDs) != 1 {
				return fmt.Errorf("get: %+v, %v", r, err)
			}
			if _, err := tab.Get(tx, "k_a/3"); !errors.Is(err, state.ErrNotFound) {
				return fmt.Errorf("get missing: %v", err)
			}
			return tab.Scan(tx, state.ScanOptions{Prefix: "k_a/", Reverse: true}, func(k string, r rec) error {
				got = append(got, k+"="+r.Name)
				return nil
			})
		})
		if !slices.Equal(got, []string{"k_a/2=two", "k_a/1=one"}) {
			t.Fatalf("scan: %v", got)
		}
		// Update: read-modify-write, creating and deleting.
		update(t, st, func(tx state.Tx) error {
			if err := tab.Update(tx, "k_a/1", time.Hour, func(r *rec, found bool) error {
				if !found {
					return errors.New("k_a/1 not found")
				}
				r.IDs = append(r.IDs, "y")
				return nil
			}); err != nil {
				return err
			}
			if err := tab.Update(tx, "k_c/1", 0, func(r *rec, found bool) error {
				if found {
					return errors.New("k_c/1 found")
				}
				r.Name = "new"
				return nil
			}); err != nil {
				return err
			}
			return tab.Update(tx, "k_b/1", 0, func(*rec, bool) error { return state.ErrDelete })
		})
		view(t, st, func(tx state.Tx) error {
			if r, err := tab.Get(tx, "k_a/1"); err != nil || len(r.IDs) != 2 {
				return fmt.Errorf("updated: %+v, %v", r, err)
			}
			if r, err := tab.Get(tx, "k_c/1"); err != nil || r.Name != "new" {
				return fmt.Errorf("created: %+v, %v", r, err)
			}
			if _, err := tab.Get(tx, "k_b/1"); !errors.Is(err, state.ErrNotFound) {
				return fmt.Errorf("deleted: %v", err)
			}
			return nil
		})
		clock.Advance(time.Hour)
		view(t, st, func(tx state.Tx) error {
			if _, err := tab.Get(tx, "k_a/1"); !errors.Is(err, state.ErrNotFound) {
				return fmt.Errorf("expired: %v", err)
			}
			return nil
		})
		// A value that is not a T is ErrCorrupt naming the key.
		update(t, st, func(tx state.Tx) error { return tx.Put(state.Cohorts, "k_d/1", []byte(`[1,2]`), 0) })
		err := st.View(ctx, func(tx state.Tx) error { _, err := tab.Get(tx, "k_d/1"); return err })
		if !errors.Is(err, state.ErrCorrupt) || !bytes.Contains([]byte(err.Error()), []byte("k_d/1")) {
			t.Fatalf("undecodable record: %v, want ErrCorrupt naming it", err)
		}
		update(t, st, func(tx state.Tx) error { return tab.Delete(tx, "k_d/1") })
	})
}
