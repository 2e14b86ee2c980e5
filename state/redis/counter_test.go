package redis_test

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/cardedge/cardedge/state"
	stateredis "github.com/cardedge/cardedge/state/redis"
	"github.com/cardedge/cardedge/state/redis/redistest"
)

// Concurrent exact charges of one key share round trips, and the charges of
// one round trip go in one entry of the script: each still gets its own
// answer, as if decided in turn. Exactly the quota is allowed, the allowed
// see every count from 1 to the quota once (and the bucket's tokens each
// once), the refused the full counter.
func TestCounter_ConcurrentChargesOneKey(t *testing.T) {
	rs := redistest.Start(t, false)
	k, err := stateredis.OpenCounter(rs.URL(), stateredis.CounterOptions{Prefix: "one:", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	const quota, n = 100, 300
	now := time.Date(2026, 11, 5, 12, 0, 0, 0, time.UTC).UnixMilli()
	res := make([]state.ChargeResult, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			var err error
			res[i], err = k.Charge(context.Background(), state.Charge{ID: "k_one", Day: 20397, NowMs: now,
				RatePerSec: 1, Burst: 1000, Quota: quota, Units: 1})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	close(start)
	wg.Wait()
	var used, tokens []int64
	for _, r := range res {
		switch r.Status {
		case state.ChargeAllowed:
			used, tokens = append(used, r.Used), append(tokens, r.TokensMilli)
		case state.ChargeQuota:
			if r.Used != quota {
				t.Errorf("a refused charge saw the counter at %d, want %d", r.Used, quota)
			}
		default:
			t.Errorf("charge: %+v", r)
		}
	}
	if len(used) != quota {
		t.Fatalf("%d allowed of %d, want the quota of %d", len(used), n, quota)
	}
	sort.Slice(used, func(i, j int) bool { return used[i] < used[j] })
	sort.Slice(tokens, func(i, j int) bool { return tokens[i] > tokens[j] })
	for i := range used {
		if got, want := used[i], int64(i+1); got != want {
			t.Fatalf("allowed answers saw the counters %v, want 1 to %d once each", used, quota)
		}
		if got, want := tokens[i], int64(1000-i-1)*1000; got != want {
			t.Fatalf("allowed answers saw the tokens %v, want 999,000 down to %d once each", tokens, (1000-quota)*1000)
		}
	}
}
