package bolt_test

import (
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/bolt"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// TestReader_ConcurrentReads: the per-card reads share pooled read
// transactions; many goroutines get the same values, Close returns once they
// are done, and a read after Close is an error.
func TestReader_ConcurrentReads(t *testing.T) {
	dir, m := MustWrite(t, newFixture())
	r, err := bolt.Open(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	read := func() (*bolt.CardMarket, snapshots.WindowAnalytics, error) {
		var got bolt.CardMarket
		var err error
		if got.Sales, err = r.Sales("pokemon", "en:base1-4"); err != nil {
			return nil, snapshots.WindowAnalytics{}, err
		}
		if got.Series, err = r.PriceSeries("pokemon", "en:base1-4"); err != nil {
			return nil, snapshots.WindowAnalytics{}, err
		}
		if got.Analytics, err = r.Analytics("pokemon", "en:base1-4"); err != nil {
			return nil, snapshots.WindowAnalytics{}, err
		}
		if got.Cum, err = r.Cum("onepiece", "en:OP01-001"); err != nil {
			return nil, snapshots.WindowAnalytics{}, err
		}
		w, _, err := r.AnalyticsWindow("pokemon", "en:base1-4", "all", nil)
		return &got, w, err
	}
	want, wantW, err := read()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				got, w, err := read()
				if err != nil {
					t.Error(err)
					return
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("read %d (-want +got):\n%s", i, diff)
					return
				}
				if diff := cmp.Diff(wantW, w); diff != "" {
					t.Errorf("window %d (-want +got):\n%s", i, diff)
					return
				}
			}
		}()
	}
	wg.Wait()
	closed := make(chan error, 1)
	go func() { closed <- r.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return: a read transaction was left open")
	}
	if _, err := r.Sales("pokemon", "en:base1-4"); err == nil {
		t.Error("Sales after Close: no error")
	}
}

// BenchmarkReader_AnalyticsWindow is the read behind the market_summary
// include: one window of one card.
func BenchmarkReader_AnalyticsWindow(b *testing.B) {
	dir, _ := MustWrite(b, newFixture())
	r := snapshotstest.MustOpen(b, dir)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, ok, err := r.AnalyticsWindow("pokemon", "en:base1-4", "1w", nil); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
}
