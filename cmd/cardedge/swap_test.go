package main_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/e2e/e2etest"
	"github.com/cardedge/cardedge/edge"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// End-to-end test of the live snapshot's swap, on an edge of its own.

// TestSnapshot_Swap publishes new snapshots while a client keeps requesting:
// no request fails, the new as_of is served, and a corrupted snapshot is
// refused while the old one keeps serving. It swaps an edge of its own, over
// a copy of the shared snapshot, so the other tests' edge keeps serving s0001
// whatever order the tests run in.
func TestSnapshot_Swap(t *testing.T) {
	root := copyRoot(t, "s0001")
	e := mustTestEdge(t, root, edge.Options{CacheBytes: 64 << 20}, nil)
	go e.live.Watch(t.Context(), time.Second) // as serve watches
	key := e.key(t, access.Pro, false, true)  // unmetered: no rate limit
	base := "http://" + e.addr
	stop := make(chan struct{})
	var failures, requests atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := e2etest.Client("127.0.0.1")
			for {
				select {
				case <-stop:
					return
				default:
				}
				for _, p := range []string{"/api/v3/cards/en:base1-4?include=price_history", "/api/v3/cards?limit=5", "/api/v3/sets/en:base1/breakdown"} {
					req, _ := http.NewRequest("GET", base+p, nil)
					req.Header.Set("Authorization", "Bearer "+key)
					resp, err := c.Do(req)
					requests.Add(1)
					if err != nil {
						failures.Add(1)
						continue
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						failures.Add(1)
					}
				}
			}
		}()
	}
	if _, err := snapshotstest.Build(root, 7, "2026-11-21", "s0002"); err != nil {
		t.Fatal(err)
	}
	e2etest.WaitAsOf(t, base, "2026-11-21")
	// A corrupted snapshot: copy s0002 as s0003, flip a byte, publish.
	src, dst := filepath.Join(root, "s0002"), filepath.Join(root, "s0003")
	if err := e2etest.CopyDir(src, dst); err != nil {
		t.Fatal(err)
	}
	var m snapshots.Manifest
	b, _ := os.ReadFile(filepath.Join(dst, snapshots.ManifestFile))
	json.Unmarshal(b, &m)
	m.SnapshotID = "s0003"
	snapshots.WriteManifest(dst, &m)
	f := filepath.Join(dst, "market.bolt")
	mb, _ := os.ReadFile(f)
	mb[len(mb)/2] ^= 0xff
	os.WriteFile(f, mb, 0o644)
	if err := snapshots.Publish(root, "s0003"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2500 * time.Millisecond) // two polls of CURRENT
	close(stop)
	wg.Wait()
	if h := e2etest.Health(t, base); h["snapshot_id"] != "s0002" {
		t.Errorf("serving %v after a corrupted publish, want s0002", h["snapshot_id"])
	}
	if failures.Load() > 0 {
		t.Errorf("%d of %d requests failed during the swaps", failures.Load(), requests.Load())
	}
	t.Logf("%d requests during two swaps, %d failed", requests.Load(), failures.Load())
	metrics := e2etest.Body(t, base+"/metrics")
	if !bytes.Contains(metrics, []byte(`cardedge_snapshot_rejections_total{reason="verify"} 1`)) {
		t.Errorf("metrics do not count the rejection")
	}
}
