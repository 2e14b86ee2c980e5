package redis_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardedge/cardedge/state"
	stateredis "github.com/cardedge/cardedge/state/redis"
	"github.com/cardedge/cardedge/state/redis/redistest"
	"github.com/cardedge/cardedge/state/statetest"
)

func TestStore(t *testing.T) {
	srv := redistest.Start(t, false)
	n := 0
	statetest.TestStore(t, func(t *testing.T, now func() time.Time) state.Store {
		n++
		st, err := stateredis.Open(srv.URL(), stateredis.Options{Prefix: "test" + strings.Repeat("x", n) + ":", Now: now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	})
}

func TestStore_ErrUnavailable(t *testing.T) {
	srv := redistest.Start(t, true)
	ctx := context.Background()
	st, err := stateredis.Open(srv.URL(), stateredis.Options{Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Update(ctx, func(tx state.Tx) error { return tx.Put(state.Keys, "k_a", []byte(`1`), 0) }); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	err = st.Update(ctx, func(tx state.Tx) error {
		if err := tx.Put(state.Keys, "k_b", []byte(`2`), 0); err != nil {
			return err
		}
		return tx.Add(state.Meta, state.MetaKeysRev, 1, 0)
	})
	if !errors.Is(err, state.ErrUnavailable) {
		t.Fatalf("Update with Redis down: %v, want ErrUnavailable", err)
	}
	if err := st.View(ctx, func(tx state.Tx) error { _, err := tx.Get(state.Keys, "k_a"); return err }); !errors.Is(err, state.ErrUnavailable) {
		t.Fatalf("View with Redis down: %v, want ErrUnavailable", err)
	}
	if _, err := stateredis.Open(srv.URL(), stateredis.Options{Timeout: 200 * time.Millisecond}); !errors.Is(err, state.ErrUnavailable) {
		t.Fatalf("Open with Redis down: %v, want ErrUnavailable", err)
	}
	srv.Start()
	// Nothing of the failed Update was written; what was, survived.
	err = st.View(ctx, func(tx state.Tx) error {
		if _, err := tx.Get(state.Keys, "k_b"); !errors.Is(err, state.ErrNotFound) {
			return errors.New("half of a failed Update was written")
		}
		_, err := tx.Get(state.Keys, "k_a")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	statetest.MustCheck(t, st)
}

func TestStore_ErrFormat(t *testing.T) {
	srv := redistest.Start(t, false)
	c := srv.Client()
	defer c.Close()
	c.Set(context.Background(), "cardedge:state:format", "99", 0)
	if _, err := stateredis.Open(srv.URL(), stateredis.Options{}); !errors.Is(err, state.ErrFormat) {
		t.Fatalf("Open of another format: %v", err)
	}
}

func TestStore_Check(t *testing.T) {
	srv := redistest.Start(t, false)
	ctx := context.Background()
	st, err := stateredis.Open(srv.URL(), stateredis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := srv.Client()
	defer c.Close()
	c.Set(ctx, "other:key", "not ours", 0) // other prefixes are not the store's
	if err := st.Update(ctx, func(tx state.Tx) error { return tx.Put(state.Keys, "k_a", []byte(`{}`), time.Hour) }); err != nil {
		t.Fatal(err)
	}
	statetest.MustCheck(t, st)
	tests := []struct {
		name string
		do   func()
	}{
		{"not JSON", func() { c.HSet(ctx, "cardedge:state:d:keys:k_a", "v", "{") }},
		{"unknown bucket", func() { c.HSet(ctx, "cardedge:state:d:nope:k", "v", "1", "e", "0") }},
		{"not a hash", func() { c.Set(ctx, "cardedge:state:d:keys:k_b", "1", 0) }},
		{"not indexed", func() { c.ZRem(ctx, "cardedge:state:i:keys", "k_a") }},
		{"stray key", func() { c.Set(ctx, "cardedge:state:zzz", "1", 0) }},
	}
	for _, tt := range tests {
		c.FlushAll(ctx)
		st2, err := stateredis.Open(srv.URL(), stateredis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		st2.Update(ctx, func(tx state.Tx) error { return tx.Put(state.Keys, "k_a", []byte(`{}`), time.Hour) })
		tt.do()
		if err := st2.Check(ctx); !errors.Is(err, state.ErrCorrupt) {
			t.Errorf("%s: Check = %v, want ErrCorrupt", tt.name, err)
		}
		st2.Close()
	}
}

// TestStore_Update_Conflict runs read-modify-writes of one record from
// several goroutines: the optimistic transaction loses none.
func TestStore_Update_Conflict(t *testing.T) {
	srv := redistest.Start(t, false)
	st, err := stateredis.Open(srv.URL(), stateredis.Options{Attempts: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	type rec struct{ N int }
	tab := state.NewTable[rec](state.Collections)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				err := st.Update(context.Background(), func(tx state.Tx) error {
					return tab.Update(tx, "k_a", 0, func(r *rec, _ bool) error { r.N++; return nil })
				})
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	var got rec
	st.View(context.Background(), func(tx state.Tx) (err error) { got, err = tab.Get(tx, "k_a"); return err })
	if got.N != 80 {
		t.Fatalf("N = %d after 80 concurrent increments", got.N)
	}
}

// TestStore_Scan_OwnWrites: a scan inside an Update sees the
// transaction's own writes, in order.
func TestStore_Scan_OwnWrites(t *testing.T) {
	srv := redistest.Start(t, false)
	st, err := stateredis.Open(srv.URL(), stateredis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	st.Update(ctx, func(tx state.Tx) error {
		tx.Put(state.Audit, "a/1", []byte(`1`), 0)
		tx.Put(state.Audit, "a/3", []byte(`3`), 0)
		return tx.Add(state.Usage, "a/1", 1, 0)
	})
	err = st.Update(ctx, func(tx state.Tx) error {
		tx.Put(state.Audit, "a/2", []byte(`2`), 0)
		tx.Delete(state.Audit, "a/3")
		tx.Add(state.Usage, "a/1", 2, 0)
		tx.Add(state.Usage, "a/2", 5, 0)
		var got []string
		tx.Scan(state.Audit, state.ScanOptions{Prefix: "a/", Reverse: true}, func(k string, v []byte) error {
			got = append(got, k+"="+string(v))
			return nil
		})
		tx.ScanCounts(state.Usage, state.ScanOptions{Prefix: "a/"}, func(k string, n int64) error {
			got = append(got, k+"="+strconv.FormatInt(n, 10))
			return nil
		})
		if strings.Join(got, ",") != "a/2=2,a/1=1,a/1=3,a/2=5" {
			return fmt.Errorf("scan inside the Update: %v", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestStore_Sweep: expired records leave Redis (data and index) at the
// next write.
func TestStore_Sweep(t *testing.T) {
	srv := redistest.Start(t, false)
	clock := statetest.NewClock(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	st, err := stateredis.Open(srv.URL(), stateredis.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	st.Update(ctx, func(tx state.Tx) error {
		for i := range 50 {
			tx.Put(state.Sessions, fmt.Sprint("s", i), []byte(`{}`), time.Minute)
		}
		return tx.Add(state.Usage, "k/1", 1, time.Minute)
	})
	clock.Advance(time.Minute)
	st.Update(ctx, func(tx state.Tx) error { return nil }) // writes nothing: no sweep
	st.Update(ctx, func(tx state.Tx) error { return tx.Put(state.Keys, "k", []byte(`{}`), 0) })
	c := srv.Client()
	defer c.Close()
	keys, _ := c.Keys(ctx, "cardedge:state:*").Result()
	sort.Strings(keys)
	if strings.Join(keys, " ") != "cardedge:state:d:keys:k cardedge:state:format cardedge:state:i:keys" {
		t.Fatalf("after the sweep: %v", keys)
	}
	statetest.MustCheck(t, st)
}
