package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/bench/load"
	main "github.com/cardedge/cardedge/cmd/cardedge"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/bolt"
	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	"github.com/cardedge/cardedge/sweep"
)

// TestAlerts_Bench measures, through the real program over a real snapshot
// (make snapshot: the default preset), how long serve's background
// evaluation of 100,000 rules takes after a swap, and the p99 of a
// fixed-rate read mix (open loop, keyed) before the swap (steady), while
// the new snapshot is verified and opened, during the evaluation, and
// after. It runs only when asked:
//
//	CARDEDGE_ALERTS_BENCH=var/snapshots go test -run TestAlerts_Bench -v -timeout 30m ./cmd/cardedge
//
// CARDEDGE_ALERTS_RULES (100000), CARDEDGE_ALERTS_SHARE (serve's
// --alerts-share, 0.1), CARDEDGE_ALERTS_RATE (requests/s, 200) and
// CARDEDGE_ALERTS_STEADY (seconds, 20) change the run;
// CARDEDGE_ALERTS_CACHE_MB (256) is serve's --cache-mb, and
// CARDEDGE_ALERTS_WINDOW (seconds) fixes the length of the window counted
// as "during the evaluation" (a control run with CARDEDGE_ALERTS_RULES=0
// measures the same window after a swap without the evaluation's work). The new snapshot is
// the current one again under another id (hard links: no copy), so the
// rules' states carry over and what fires is what the rules say of prices
// that do not move (the first evaluation of a rule fires where its
// condition holds).
func TestAlerts_Bench(t *testing.T) {
	src := os.Getenv("CARDEDGE_ALERTS_BENCH")
	if src == "" {
		t.Skip("set CARDEDGE_ALERTS_BENCH to a snapshots root (make snapshot builds var/snapshots)")
	}
	nRules := envInt(t, "CARDEDGE_ALERTS_RULES", 100000)
	share := envFloat(t, "CARDEDGE_ALERTS_SHARE", 0.1)
	rate := envFloat(t, "CARDEDGE_ALERTS_RATE", 200)
	steady := time.Duration(envInt(t, "CARDEDGE_ALERTS_STEADY", 20)) * time.Second
	cacheMB := envInt(t, "CARDEDGE_ALERTS_CACHE_MB", 256)
	window := time.Duration(envFloat(t, "CARDEDGE_ALERTS_WINDOW", 0) * float64(time.Second))
	if !filepath.IsAbs(src) {
		src = filepath.Join("..", "..", src)
	}
	cur, err := snapshots.ReadCurrent(src)
	if err != nil {
		t.Fatal(err)
	}
	// A root of the test's own beside src (hard links need the same file
	// system).
	work, err := os.MkdirTemp(filepath.Dir(filepath.Clean(src)), "alerts-bench-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(work)
	root := filepath.Join(work, "snapshots")
	linkDir(t, filepath.Join(src, cur), filepath.Join(root, cur), "")
	if err := snapshots.Publish(root, cur); err != nil {
		t.Fatal(err)
	}

	// The cards, from the snapshot itself.
	m, err := snapshots.ReadManifest(filepath.Join(root, cur))
	if err != nil {
		t.Fatal(err)
	}
	r, err := bolt.Open(filepath.Join(root, cur), m)
	if err != nil {
		t.Fatal(err)
	}
	game := m.Games[0]
	cards, err := r.Cards(game)
	if err != nil {
		t.Fatal(err)
	}
	sets, err := r.Sets(game)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("snapshot %s (%s, as of %s): %d cards, %d sets of %s", cur, m.Preset, m.AsOf, len(cards), len(sets), game)

	// The state file: 100,000 rules of 1,000 accounts (a hundred each, one
	// of them on a whole set), and a key for the read mix.
	stateFile := filepath.Join(t.TempDir(), "state.bolt")
	st, err := statebolt.Open(stateFile, statebolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	rng := rand.New(rand.NewPCG(1, 2))
	const perAccount = 100
	for a := 0; a*perAccount < nRules; a++ {
		err := st.Update(context.Background(), func(tx state.Tx) error {
			for i := range perAccount {
				n := a*perAccount + i
				if n >= nRules {
					break
				}
				c := cards[rng.IntN(len(cards))]
				rule := alert.Rule{ID: fmt.Sprintf("r_%016d", n), Account: fmt.Sprintf("a_bench%06d", a), Game: game, CardID: c.ID,
					Grade: snapshots.RawNearMint.String(), Source: "own", Created: now, Updated: now}
				switch {
				case i == 0:
					rule.CardID, rule.SetID = "", sets[rng.IntN(len(sets))].ID
					rule.Condition = alert.Condition{Kind: alert.AtOrBelow, TargetCents: 100}
				case i%4 == 1:
					rule.Condition = alert.Condition{Kind: alert.AtOrBelow, TargetCents: int64(100 + rng.IntN(5000))}
				case i%4 == 2:
					rule.Condition = alert.Condition{Kind: alert.Move, Pct: 10, Days: []int{1, 7, 30}[rng.IntN(3)], Direction: "either"}
				case i%4 == 3:
					rule.Condition = alert.Condition{Kind: alert.FirstListing}
				default:
					rule.Condition = alert.Condition{Kind: alert.AtOrAbove, TargetCents: int64(1000 + rng.IntN(50000))}
				}
				v, _ := json.Marshal(rule)
				if err := tx.Put(state.AlertRules, rule.Account+"/"+rule.ID, v, 0); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	key, _, err := access.Keys{State: st}.Create(context.Background(), access.KeySpec{Tier: access.Elite, Name: "bench", Unmetered: true})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()

	// serve, the real program, with the evaluation's share and its GC
	// target (runServe sets --gc-percent's default, 400, unless GOGC is
	// set; Serve alone does not).
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready, done := make(chan string, 1), make(chan error, 1)
	go func() {
		done <- main.Serve(ctx, main.ServeConfig{Snapshots: root, State: stateFile, Addr: "127.0.0.1:0", CacheMB: cacheMB, LogLevel: "warn",
			Alerts: main.AlertsConfig{Share: share},
			Ready:  func(addr string) { ready <- addr }}, io.Discard, os.Stderr)
	}()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("serve: %v", err)
	case <-time.After(5 * time.Minute):
		t.Fatal("serve did not start")
	}
	defer func() { cancel(); <-done }()
	waitJobFor(t, stateFile, alert.JobID(cur), 30*time.Minute) // the start-up evaluation: the rules' first states

	// The read mix: card detail, the card list, set breakdowns and
	// searches, over many cards (most first requests miss the cache).
	var paths []string
	for i := range 2000 {
		c := cards[rng.IntN(len(cards))]
		switch i % 4 {
		case 0, 1:
			paths = append(paths, "/api/v3/cards/"+url.PathEscape(c.ID))
		case 2:
			paths = append(paths, "/api/v3/sets/"+url.PathEscape(c.SetID)+"/breakdown")
		default:
			paths = append(paths, "/api/v3/search?limit=5&q="+url.QueryEscape(strings.Fields(c.Name + " x")[0]))
		}
	}
	auth := []string{"Authorization", "Bearer " + key}
	const horizon = 30 * time.Minute
	shots := make([]load.Shot, int(rate*horizon.Seconds()))
	for i := range shots {
		shots[i] = load.Shot{At: time.Duration(float64(i) / rate * float64(time.Second)), Path: paths[i%len(paths)], Headers: auth}
	}
	lctx, stopLoad := context.WithCancel(ctx)
	t0 := time.Now()
	res := make(chan []load.Sample, 1)
	go func() {
		res <- load.OpenLoop{Addr: addr, MaxConns: 128, Timeout: 10 * time.Second, Grace: 10 * time.Second}.Run(lctx, shots)
	}()
	time.Sleep(steady + 5*time.Second) // 5 s of warm-up, then the steady window
	next := cur + "b"
	published := time.Since(t0)
	linkDir(t, filepath.Join(root, cur), filepath.Join(root, next), next)
	if err := snapshots.Publish(root, next); err != nil {
		t.Fatal(err)
	}
	p := waitJobFor(t, stateFile, alert.JobID(next), 30*time.Minute)
	evalFrom, evalTo := p.Started.Sub(t0), p.Finished.Sub(t0)
	evalSecs := (evalTo - evalFrom).Seconds()
	if window > 0 {
		evalTo = evalFrom + window
	}
	time.Sleep(time.Until(t0.Add(evalTo + 10*time.Second)))
	stopLoad()
	samples := <-res
	var sent []load.Sample
	for _, s := range samples {
		if s.Err != "not_sent" && (s.Lat != 0 || s.Status != 0 || s.Err != "") {
			sent = append(sent, s)
		}
	}
	before := load.Summarize(sent, 5*time.Second, published)
	swap := load.Summarize(sent, published, evalFrom)
	during := load.Summarize(sent, evalFrom, evalTo)
	after := load.Summarize(sent, evalTo, evalTo+10*time.Second)
	load1 := "?"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load1 = strings.Fields(string(b))[0]
	}
	t.Logf("alerts bench: %d rules (%d on whole sets) over %s (%s, %d cards), --alerts-share %g, --cache-mb %d, %d CPUs, load average %s",
		nRules, (nRules+perAccount-1)/perAccount, cur, m.Preset, len(cards), share, cacheMB, runtime.NumCPU(), load1)
	t.Logf("evaluation after the swap: %.1f s (%.0f rules/s, %.0f µs a rule in wall time), %d chunks, holders %d; the window counted as during it: %.1f s",
		evalSecs, float64(nRules)/max(evalSecs, 1e-9), evalSecs/float64(max(nRules, 1))*1e6, p.Chunks, len(p.Holders), (evalTo - evalFrom).Seconds())
	t.Logf("read mix at %.0f req/s (open loop, keyed, cache on): p50 / p99 / max ms", rate)
	for _, w := range []struct {
		name string
		f    load.Figures
	}{{"steady (before the swap)", before}, {"swap (verify and open)", swap}, {"during the evaluation", during}, {"after", after}} {
		t.Logf("  %-26s %6d requests, %3d failed: %6.2f / %6.2f / %7.2f", w.name, w.f.Requests, w.f.Errors, w.f.P50Ms, w.f.P99Ms, w.f.MaxMs)
	}
	t.Logf("p99 during the evaluation / steady p99: %.2f", load.Ratio(during.P99Ms, before.P99Ms))
}

// linkDir hard-links the files of src into dst (a snapshot's files are
// never changed); with id set, dst's manifest is rewritten naming it.
func linkDir(t *testing.T, src, dst, id string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if id != "" && rel == snapshots.ManifestFile {
			return nil
		}
		if err := os.Link(p, filepath.Join(dst, rel)); err != nil {
			b, rerr := os.ReadFile(p) // another file system: a copy
			if rerr != nil {
				return rerr
			}
			return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if id != "" {
		m, err := snapshots.ReadManifest(src)
		if err != nil {
			t.Fatal(err)
		}
		m.SnapshotID = id
		if err := snapshots.WriteManifest(dst, m); err != nil {
			t.Fatal(err)
		}
	}
}

// waitJobFor waits until the background job id is done and returns its
// progress.
func waitJobFor(t *testing.T, stateFile, id string, within time.Duration) sweep.Progress {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		st, err := statebolt.Open(stateFile, statebolt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := sweep.Status(context.Background(), st, id)
		st.Close()
		if err == nil && p.Done {
			return p
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("job %s not done in %s", id, within)
	return sweep.Progress{}
}

func envInt(t *testing.T, name string, def int) int {
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return n
	}
	return def
}

func envFloat(t *testing.T, name string, def float64) float64 {
	if v := os.Getenv(name); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return f
	}
	return def
}
