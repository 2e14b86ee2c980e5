package main_test

import (
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	main "github.com/cardedge/cardedge/cmd/cardedge"
	"github.com/cardedge/cardedge/e2e/e2etest"
)

// TestAccess_UsageExactUnderConcurrency sends 10,000 concurrent requests with an
// unmetered key (counted, never refused), reads the usage, restarts the edge
// gracefully and reads it again.
func TestAccess_UsageExactUnderConcurrency(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state.bolt")
	secret, _, err := createKey(t, state, access.Pro, "load", false, true)
	if err != nil {
		t.Fatal(err)
	}
	e := startEdge(t, main.ServeConfig{Snapshots: env.root, State: state, CacheMB: 16})
	const n, workers = 10000, 32
	var sent, failed atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
			for sent.Add(1) <= n {
				status, err := e2etest.Get(c, e.base+"/api/v3/sets?limit=1", secret)
				if err != nil || status != 200 {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if failed.Load() > 0 {
		t.Fatalf("%d of %d requests failed", failed.Load(), n)
	}
	if got := e2etest.UsageOf(t, e.base, secret); got != n+1 { // the usage call counts itself
		t.Fatalf("usage after %d requests: %d, want %d", n, got, n+1)
	}
	e.stop(t)
	e2 := startEdge(t, main.ServeConfig{Snapshots: env.root, State: state, CacheMB: 16})
	if got := e2etest.UsageOf(t, e2.base, secret); got != n+2 {
		t.Fatalf("usage after a graceful restart: %d, want %d", got, n+2)
	}
}
