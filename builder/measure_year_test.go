//go:build unix

package builder_test

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/cardedge/cardedge/builder"
	"github.com/cardedge/cardedge/builder/history"
	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/snapshots"
)

// TestMeasure_HistoryYear: what a year of both marketplaces' history costs
// a build of the shipped catalog. It files a generated year of Cardmarket
// and TCGplayer days (every id of the catalog, prices on a random walk:
// half the numbers unchanged from one day to the next, the others moved by
// up to 3 %) into a history store, then builds from the store with
// --history-days N for each N of CARDEDGE_MEASURE_DAYS (default 1,365),
// twice each: cold (no mapped day cached) and warm (the second build of
// the same day, as the nightly job's is). It prints the build's time, the
// time its sources took (map to markets), the peak Go heap, the snapshot's
// size by file and market.bolt's by bucket.
//
//	CARDEDGE_MEASURE=1 CARDEDGE_MEASURE_STORE=/tmp/cardedge-year \
//	    go test ./builder -run 'TestMeasure_HistoryYear$' -v -timeout 3h
//
// CARDEDGE_MEASURE_SPAN=N starts the prices' walk N days before the end
// (default 730, the most days it can generate).
// CARDEDGE_MEASURE_STORE keeps the generated store between runs (it takes
// minutes to write); without it the store is a temporary directory.
// CARDEDGE_MEASURE_RUNS=warm skips the cold builds; CARDEDGE_MEASURE_RUNS=none
// only generates the store (to measure it with cardbuild build, e.g. beside
// another branch's binary).
func TestMeasure_HistoryYear(t *testing.T) {
	measureOnly(t)
	counts := []int{1, 365}
	if s := os.Getenv("CARDEDGE_MEASURE_DAYS"); s != "" {
		counts = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 {
				t.Fatalf("CARDEDGE_MEASURE_DAYS: %q", s)
			}
			counts = append(counts, n)
		}
	}
	maxDays := 0
	for _, n := range counts {
		maxDays = max(maxDays, n)
	}
	store := os.Getenv("CARDEDGE_MEASURE_STORE")
	if store == "" {
		store = filepath.Join(t.TempDir(), "history")
	}
	end := mustDay("2026-11-20")
	rates := generateYear(t, store, end, maxDays)
	runs := []string{"cold", "warm"}
	if s := os.Getenv("CARDEDGE_MEASURE_RUNS"); s != "" {
		runs = strings.Split(s, ",")
	}
	if len(runs) == 1 && runs[0] == "none" {
		return
	}
	for _, n := range counts {
		for _, run := range runs {
			if run == "cold" {
				if err := os.RemoveAll(filepath.Join(store, history.MappedDir)); err != nil {
					t.Fatal(err)
				}
			}
			out := t.TempDir()
			opts := builder.Options{Out: out, CatalogDir: shippedCatalog, History: store, HistoryDays: n, Rates: rates,
				AsOf: end, SnapshotID: "y", ReportDir: filepath.Join(out, "reports")}
			r := measureBuild(t, opts)
			sizes, total := dirSizes(t, filepath.Join(out, "y"))
			t.Logf("%d days, %s: build %s (CPU %s), sources %s (%s), peak Go heap %d MiB, snapshot %.1f MiB: %s",
				n, run, r.took.Round(time.Millisecond), r.cpu.Round(time.Millisecond), r.sources.Round(time.Millisecond), strings.Join(r.stages, ", "),
				r.peak>>20, mib(total), sizes)
			t.Logf("%d days, %s: market.bolt by bucket (keys and values): %s; %d price points, %d sales", n, run,
				boltBuckets(t, filepath.Join(out, "y", "market.bolt")), r.m.Counts["price_points"], r.m.Counts["sales"])
			t.Logf("%d days, %s: gold.sqlite by table and index: %s; aggregates.bolt by bucket: %s", n, run,
				goldTables(t, filepath.Join(out, "y", "gold.sqlite")), boltBuckets(t, filepath.Join(out, "y", "aggregates.bolt")))
		}
	}
}

// generateYear files days end-n+1 .. end of both marketplaces into the
// store (the days already there are kept) and writes the rates of those
// days; it returns the rates file.
func generateYear(t *testing.T, store string, end snapshots.Day, n int) string {
	t.Helper()
	ctx := context.Background()
	st, err := history.Open(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, src := range []string{source.Cardmarket, source.TCGplayer} {
		days, err := st.Days(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range days {
			have[src+e.Date.String()] = true
		}
	}
	cat := shippedSourceCatalog(t)
	// The walk starts at a fixed first day, so that a store generated for
	// fewer days is the tail of a longer one; CARDEDGE_MEASURE_SPAN moves it
	// (a store of 90 days walked from 730 days back takes 8 times the time
	// to write).
	span := 730
	if s := os.Getenv("CARDEDGE_MEASURE_SPAN"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("CARDEDGE_MEASURE_SPAN: %q", s)
		}
		span = v
	}
	first := end - snapshots.Day(span) + 1
	if n > span {
		t.Fatalf("at most %d days", span)
	}
	rnd := rand.New(rand.NewPCG(11, 12))
	walk := map[string]int64{}
	step := func(key string, start func() int64) int64 {
		p, ok := walk[key]
		if !ok {
			p = start()
		} else if rnd.IntN(2) == 0 {
			p += int64(float64(p) * (rnd.Float64()*0.06 - 0.03))
		}
		p = max(p, 2)
		walk[key] = p
		return p
	}
	var csv strings.Builder
	csv.WriteString("Date,USD,\n")
	for d := first; d <= end; d++ {
		fmt.Fprintf(&csv, "%s,%.4f,\n", d, 1.05+0.02*rand.New(rand.NewPCG(uint64(d), 2)).Float64())
	}
	rates := filepath.Join(store, "..", filepath.Base(store)+"-rates.csv")
	if err := os.WriteFile(rates, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := false
	for d := end - snapshots.Day(n) + 1; d <= end; d++ {
		missing = missing || !have[source.Cardmarket+d.String()] || !have[source.TCGplayer+d.String()]
	}
	if !missing {
		return rates
	}
	start := time.Now()
	filed := 0
	for d := first; d <= end; d++ {
		base := rand.New(rand.NewPCG(uint64(d), 1))
		cm, tcg := catalogDays(cat, d, 0, base)
		for _, day := range []*source.Day{cm, tcg} {
			for i := range day.Rows {
				r := &day.Rows[i]
				for f, v := range r.Prices {
					r.Prices[f] = step(day.Source+r.Product+r.Printing+f, func() int64 { return v })
				}
			}
			if d <= end-snapshots.Day(n) || have[day.Source+d.String()] {
				continue
			}
			if _, _, _, err := st.Put(ctx, day, false); err != nil {
				t.Fatal(err)
			}
			filed++
		}
	}
	t.Logf("generated %d days into %s in %s", filed, store, time.Since(start).Round(time.Second))
	return rates
}

type measured struct {
	m       *snapshots.Manifest
	took    time.Duration
	cpu     time.Duration // user and system CPU time of the process
	sources time.Duration // from the first source stage to the first market stage
	stages  []string      // the sources' stages
	peak    uint64        // the peak Go heap
}

// measureBuild runs one build, timing its stages and sampling the Go heap.
func measureBuild(t *testing.T, opts builder.Options) measured {
	t.Helper()
	runtime.GC()
	stop := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var m runtime.MemStats
		var top uint64
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&m)
			top = max(top, m.HeapAlloc)
			select {
			case <-stop:
				peak <- top
				return
			case <-tick.C:
			}
		}
	}()
	var r measured
	var last time.Time
	var lastName string
	var srcStart time.Time
	opts.StageHook = func(stage string) error {
		now := time.Now()
		if lastName != "" && (strings.HasPrefix(lastName, "map:") || strings.HasPrefix(lastName, "source:")) {
			r.stages = append(r.stages, fmt.Sprintf("%s %s", lastName, now.Sub(last).Round(time.Millisecond)))
		}
		if srcStart.IsZero() && (strings.HasPrefix(stage, "map:") || strings.HasPrefix(stage, "source:")) {
			srcStart = now
		}
		if strings.HasPrefix(stage, "market:") && r.sources == 0 && !srcStart.IsZero() {
			r.sources = now.Sub(srcStart)
		}
		last, lastName = now, stage
		return nil
	}
	cpu0 := cpuTime(t)
	start := time.Now()
	m, err := builder.Compile(context.Background(), opts)
	r.took = time.Since(start)
	r.cpu = cpuTime(t) - cpu0
	close(stop)
	r.peak = <-peak
	if err != nil {
		t.Fatal(err)
	}
	r.m = m
	return r
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// dirSizes sums a snapshot's file sizes by top-level entry.
func dirSizes(t *testing.T, dir string) (string, int64) {
	t.Helper()
	by := map[string]int64{}
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		top, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		by[top] += fi.Size()
		total += fi.Size()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sortedSizes(by), total
}

func sortedSizes(by map[string]int64) string {
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return by[keys[i]] > by[keys[j]] })
	var parts []string
	for _, k := range keys {
		if by[k] >= 1<<20 {
			parts = append(parts, fmt.Sprintf("%s %.1f", k, mib(by[k])))
		}
	}
	return strings.Join(parts, ", ") + " (MiB; smaller ones left out)"
}

// boltBuckets sums the keys and values of each bucket of a bbolt file, the
// games' buckets of one kind together (sales/pokemon and sales/onepiece
// are "sales").
func boltBuckets(t *testing.T, path string) string {
	t.Helper()
	db, err := bbolt.Open(path, 0o444, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	by := map[string]int64{}
	err = db.View(func(tx *bbolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bbolt.Bucket) error {
			kind, _, _ := strings.Cut(string(name), "/")
			return b.ForEach(func(k, v []byte) error {
				by[kind] += int64(len(k) + len(v))
				return nil
			})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return sortedSizes(by)
}

// goldTables sums gold.sqlite's pages by table and index (the sqlite3
// shell's dbstat; "" when it is not installed).
func goldTables(t *testing.T, path string) string {
	t.Helper()
	if _, err := exec.LookPath("sqlite3"); err != nil {
		return "(no sqlite3 shell)"
	}
	out, err := exec.Command("sqlite3", "-readonly", path, "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name").Output()
	if err != nil {
		t.Fatalf("sqlite3 %s: %v", path, err)
	}
	by := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, size, _ := strings.Cut(line, "|")
		n, _ := strconv.ParseInt(size, 10, 64)
		by[name] = n
	}
	return sortedSizes(by)
}

// cpuTime is the user and system CPU time the process has used.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
