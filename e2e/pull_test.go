package e2e_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardedge/cardedge/e2e/e2etest"
	"github.com/cardedge/cardedge/snapshots"
	snaps3 "github.com/cardedge/cardedge/snapshots/s3"
	"github.com/cardedge/cardedge/snapshots/s3/s3test"
)

// End-to-end test of a fleet replica's snapshots: the cardedge binary
// with --snapshots s3://BUCKET/PREFIX against a real S3-compatible server (versitygw; skipped
// when it is missing).

type readyAnswer struct {
	Ready      bool   `json:"ready"`
	Reason     string `json:"reason"`
	SnapshotID string `json:"snapshot_id"`
	Source     *struct {
		Published string `json:"published"`
		Refused   string `json:"refused"`
		Failures  int    `json:"failures"`
	} `json:"source"`
}

func getReady(t *testing.T, base string) (int, readyAnswer) {
	t.Helper()
	resp, err := http.Get(base + "/ready")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r readyAnswer
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, r
}

// waitFor polls cond every 50 ms until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestServe_SnapshotsFromS3(t *testing.T) {
	srv := s3test.Start(t)
	c := srv.Client(t) // sets AWS_* for Serve
	srv.MakeBucket(t, c, "fleet")
	loc, _ := snaps3.ParseURL("s3://fleet/prod")
	bucket := snaps3.New(c, loc, snaps3.Options{})
	ctx := context.Background()
	root := e2etest.CopyRoot(t, env.root, "s0001")
	if _, err := bucket.Publish(ctx, filepath.Join(root, "s0001"), snaps3.PublishOptions{}); err != nil {
		t.Fatal(err)
	}

	cache := filepath.Join(t.TempDir(), "cache")
	p := e2etest.Serve(t, env.bin, "serve", "--snapshots", "s3://fleet/prod", "--state", filepath.Join(t.TempDir(), "state.bolt"),
		"--cache-mb", "16", "--log-level", "error",
		"--cache-dir", cache, "--poll", "200ms", "--keep", "2", "--swap-share", "0.5", "--drain", "300ms")
	base := p.Base
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			p.Stop()
		}
	}

	code, r := getReady(t, base)
	if code != 200 || !r.Ready || r.SnapshotID != "s0001" || r.Source == nil || r.Source.Published != "s0001" {
		t.Fatalf("/ready = %d %+v", code, r)
	}

	// Requests keep succeeding through every change below.
	var failures, requests atomic.Int64
	loadStop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-loadStop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			resp, err := http.Get(base + "/api/v3/cards/en:base1-4")
			requests.Add(1)
			if err != nil {
				failures.Add(1)
				continue
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 && resp.StatusCode != 429 { // Playground: 1/s per address
				failures.Add(1)
			}
		}
	})
	serving := func() string {
		_, r := getReady(t, base)
		return r.SnapshotID
	}

	t.Run("Swap", func(t *testing.T) {
		e2etest.CloneSnapshot(t, root, "s0001", "s0002")
		published := time.Now()
		if _, err := bucket.Publish(ctx, filepath.Join(root, "s0002"), snaps3.PublishOptions{}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 30*time.Second, "serving s0002", func() bool { return serving() == "s0002" })
		t.Logf("publish to serve: %s", time.Since(published).Round(time.Millisecond))
		if code, r := getReady(t, base); code != 200 || !r.Ready {
			t.Fatalf("/ready after the swap = %d %+v", code, r)
		}
	})

	t.Run("ErrVerify", func(t *testing.T) {
		e2etest.CloneSnapshot(t, root, "s0001", "s0003")
		if _, err := bucket.Publish(ctx, filepath.Join(root, "s0003"), snaps3.PublishOptions{}); err != nil {
			t.Fatal(err)
		}
		path := srv.ObjectPath("fleet", "prod/s0003/catalog.bolt")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0xff
		os.WriteFile(path, b, 0o644)
		var r readyAnswer
		waitFor(t, 30*time.Second, "s0003 refused", func() bool {
			_, r = getReady(t, base)
			return r.Source.Refused == "s0003"
		})
		if code, r := getReady(t, base); code != 200 || r.SnapshotID != "s0002" || !strings.Contains(r.Reason, "refused") {
			t.Fatalf("/ready with a refused snapshot = %d %+v", code, r)
		}
		metrics := string(e2etest.Body(t, base+"/metrics"))
		if !strings.Contains(metrics, `cardedge_snapshot_source_polls_total{result="refused"}`) || strings.Contains(metrics, `cardedge_snapshot_source_polls_total{result="refused"} 0`) {
			t.Fatalf("/metrics does not count the refusal:\n%s", grepLines(metrics, "snapshot_source"))
		}
	})

	t.Run("Unreachable", func(t *testing.T) {
		srv.Stop()
		waitFor(t, 10*time.Second, "store down in /metrics", func() bool {
			return strings.Contains(string(e2etest.Body(t, base+"/metrics")), "cardedge_snapshot_source_up 0")
		})
		if code, r := getReady(t, base); code != 200 || r.SnapshotID != "s0002" {
			t.Fatalf("/ready with the store down = %d %+v", code, r)
		}
		srv.Restart(t)
		e2etest.CloneSnapshot(t, root, "s0001", "s0004")
		if _, err := bucket.Publish(ctx, filepath.Join(root, "s0004"), snaps3.PublishOptions{}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 30*time.Second, "caught up with s0004", func() bool { return serving() == "s0004" })
	})

	close(loadStop)
	wg.Wait()
	if n := failures.Load(); n != 0 {
		t.Errorf("%d of %d requests failed during the swaps", n, requests.Load())
	}
	if entries, _ := os.ReadDir(cache); len(entries) > 4 { // 2 snapshots, CURRENT, a .tmp of the refused one
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("cache not pruned: %v", names)
	}

	t.Run("Drain", func(t *testing.T) {
		go stop()
		waitFor(t, 5*time.Second, "/ready 503 while draining", func() bool {
			resp, err := http.Get(base + "/ready")
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == 503
		})
	})
	if id, _ := snapshots.ReadCurrent(cache); id != "s0004" {
		t.Fatalf("cache CURRENT %s", id)
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
