package sweep_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	stateredis "github.com/cardedge/cardedge/state/redis"
	"github.com/cardedge/cardedge/state/redis/redistest"
	"github.com/cardedge/cardedge/state/statetest"
	"github.com/cardedge/cardedge/sweep"
	"github.com/cardedge/cardedge/sweep/sweeptest"
)

// stores runs fn against a bbolt store and a Redis store (skipped without
// redis-server), each with a settable clock.
func stores(t *testing.T, fn func(t *testing.T, st state.Store, clock *statetest.Clock)) {
	t.Run("bolt", func(t *testing.T) {
		clock := statetest.NewClock(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
		st := statetest.MustOpenPath(t, t.TempDir()+"/state.bolt", boltOptions(clock))
		fn(t, st, clock)
	})
	t.Run("redis", func(t *testing.T) {
		srv := redistest.Start(t, false)
		clock := statetest.NewClock(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
		st, err := stateredis.Open(srv.URL(), stateredis.Options{Now: clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		fn(t, st, clock)
	})
}

// MustFill writes n records into the visited bucket.
func MustFill(tb testing.TB, st state.Store, n int) {
	tb.Helper()
	err := st.Update(context.Background(), func(tx state.Tx) error {
		for i := range n {
			if err := tx.Put(state.Collections, fmt.Sprintf("a_%04d", i), []byte(`{}`), 0); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// markJob is a job whose commit inserts one marker per record: a record
// committed twice makes the commit fail with ErrConflict.
func markJob(id string, visit func(ctx context.Context, chunk []sweep.Record) error) sweep.Job {
	return sweep.Job{ID: id, Bucket: state.Collections, Visit: func(ctx context.Context, chunk sweep.Chunk) (func(state.Tx) error, error) {
		if visit != nil {
			if err := visit(ctx, chunk.Records); err != nil {
				return nil, err
			}
		}
		return func(tx state.Tx) error {
			for _, r := range chunk.Records {
				if err := tx.Insert(state.AlertStates, id+"/"+r.Key, []byte(`1`), 0); err != nil {
					return err
				}
			}
			return nil
		}, nil
	}}
}

func marks(t *testing.T, st state.Store, id string) int {
	t.Helper()
	n := 0
	err := st.View(context.Background(), func(tx state.Tx) error {
		return tx.Scan(state.AlertStates, state.ScanOptions{Prefix: id + "/"}, func(string, []byte) error { n++; return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestRunner_Run(t *testing.T) {
	stores(t, func(t *testing.T, st state.Store, clock *statetest.Clock) {
		ctx := context.Background()
		MustFill(t, st, 95)
		r := sweeptest.MustRunner(t, st, "one", clock, 10)
		visited := 0
		job := markJob("j1", func(_ context.Context, chunk []sweep.Record) error { visited += len(chunk); return nil })
		p, err := r.Run(ctx, job)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprint(p.Done, p.Records, p.Chunks, visited, marks(t, st, "j1")), "true 95 10 95 95"; got != want {
			t.Fatalf("done records chunks visited marks = %s, want %s", got, want)
		}
		// Done: a second run visits nothing.
		if _, err := r.Run(ctx, job); err != nil {
			t.Fatal(err)
		}
		if visited != 95 {
			t.Fatalf("a second run visited %d more records", visited-95)
		}
	})
}

// TestRunner_Cancel: a runner canceled mid-way releases its lease and the
// next one carries on from its last chunk: every record committed once.
func TestRunner_Cancel(t *testing.T) {
	stores(t, func(t *testing.T, st state.Store, clock *statetest.Clock) {
		MustFill(t, st, 95)
		ctx, cancel := context.WithCancel(context.Background())
		chunks := 0
		a := sweeptest.MustRunner(t, st, "a", clock, 10)
		_, err := a.Run(ctx, markJob("j", func(context.Context, []sweep.Record) error {
			if chunks++; chunks == 4 {
				cancel() // dies while computing its fourth chunk
			}
			return nil
		}))
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("canceled run: %v", err)
		}
		if got := marks(t, st, "j"); got != 30 {
			t.Fatalf("after the cancel %d records committed, want 30", got)
		}
		b := sweeptest.MustRunner(t, st, "b", clock, 10)
		p, err := b.Run(context.Background(), markJob("j", nil))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprintf("%d %d %s", p.Records, marks(t, st, "j"), strings.Join(p.Holders, ",")), "95 95 a,b"; got != want {
			t.Fatalf("records marks holders = %s, want %s", got, want)
		}
	})
}

// TestRunner_Stalled: a runner stalls mid-chunk past its lease; another
// takes over and finishes; the first wakes up and its commit is refused.
func TestRunner_Stalled(t *testing.T) {
	stores(t, func(t *testing.T, st state.Store, clock *statetest.Clock) {
		MustFill(t, st, 95)
		stalled, wake := make(chan struct{}), make(chan struct{})
		chunks := 0
		a := sweeptest.MustRunner(t, st, "a", clock, 10)
		var aErr error
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, aErr = a.Run(context.Background(), markJob("j", func(context.Context, []sweep.Record) error {
				if chunks++; chunks == 3 {
					close(stalled)
					<-wake
				}
				return nil
			}))
		}()
		<-stalled
		b := sweeptest.MustRunner(t, st, "b", clock, 10)
		bDone := make(chan error, 1)
		go func() {
			_, err := b.Run(context.Background(), markJob("j", nil))
			bDone <- err
		}()
		// b waits while a's lease runs; then the lease expires.
		clock.Advance(2 * time.Minute)
		if err := <-bDone; err != nil {
			t.Fatal(err)
		}
		close(wake)
		wg.Wait()
		if !errors.Is(aErr, sweep.ErrLeaseLost) {
			t.Fatalf("stalled runner: %v, want ErrLeaseLost", aErr)
		}
		if got := marks(t, st, "j"); got != 95 {
			t.Fatalf("%d records committed, want 95", got)
		}
	})
}

func TestNew_ErrNoStore(t *testing.T) {
	if _, err := sweep.New(sweep.Options{}); err == nil {
		t.Fatal("New without a store: no error")
	}
}

func boltOptions(clock *statetest.Clock) statebolt.Options { return statebolt.Options{Now: clock.Now} }
