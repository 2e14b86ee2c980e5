package main_test

// Fault injection against a serving edge: builds that fail at each stage,
// damaged snapshots published, a state file locked or corrupted at start,
// Redis killed and restarted under load, and the edge itself SIGKILLed under
// load and restarted. The bar: the live snapshot keeps serving, nothing is
// lost beyond what the README documents, and every refusal says why.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/builder"
	main "github.com/cardedge/cardedge/cmd/cardedge"
	"github.com/cardedge/cardedge/e2e/e2etest"
	"github.com/cardedge/cardedge/edge"
	"github.com/cardedge/cardedge/snapshots"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	bolt "go.etcd.io/bbolt"
)

// smallCatalog is the builder's 30-card test catalog: builds take a fraction
// of a second.
var smallCatalog = filepath.Join("..", "..", "builder", "testdata", "feeds", "small")

const snapshotsAsOf = "2026-11-20"

// loadWhile requests paths in a loop with key until stop is closed and
// returns the number of requests and of failures (transport errors, or a
// status other than 200).
func loadWhile(base, key string, paths []string, stop <-chan struct{}) func() (int64, int64, []string) {
	var n, failed atomic.Int64
	var mu sync.Mutex
	var samples []string
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &http.Client{Timeout: 10 * time.Second}
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				req, _ := http.NewRequest("GET", base+paths[i%len(paths)], nil)
				req.Header.Set("Authorization", "Bearer "+key)
				resp, err := c.Do(req)
				n.Add(1)
				status := 0
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					status = resp.StatusCode
				}
				if status != 200 {
					failed.Add(1)
					mu.Lock()
					samples = append(samples, fmt.Sprintf("%s: %d %v", paths[i%len(paths)], status, err))
					mu.Unlock()
				}
			}
		}()
	}
	return func() (int64, int64, []string) { wg.Wait(); return n.Load(), failed.Load(), samples }
}

func healthOf(t *testing.T, base string) map[string]any {
	t.Helper()
	resp, err := http.Get(base + "/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || resp.StatusCode != 200 {
		t.Fatalf("health: %d %v", resp.StatusCode, err)
	}
	return h
}

// TestFault_BuildFailsWhileServing runs builds into the root an edge serves
// and fails each at the start of one of its stages, under load: no request
// fails, the edge keeps its snapshot, and no half snapshot is left for it to
// find.
func TestFault_BuildFailsWhileServing(t *testing.T) {
	root := copyRoot(t, "s0001")
	e := mustTestEdge(t, root, edge.Options{}, nil)
	go e.live.Watch(t.Context(), 50*time.Millisecond)
	base := "http://" + e.addr
	key := e.key(t, access.Elite, false, true)
	stop := make(chan struct{})
	wait := loadWhile(base, key, []string{"/api/v3/cards/en:base1-4?include=price_history", "/api/v3/cards?limit=5", "/api/v3/sets/en:base1/breakdown"}, stop)
	asOf, _ := snapshots.ParseDay(snapshotsAsOf)
	for i, stage := range []string{"catalog", "market:pokemon", "market:onepiece", "index", "manifest", "publish"} {
		injected := errors.New("injected failure at " + stage)
		_, err := builder.Compile(t.Context(), builder.Options{
			Out: root, Preset: "default", Seed: 7, AsOf: asOf, CatalogDir: smallCatalog, SnapshotID: fmt.Sprintf("s01%02d", i),
			StageHook: func(s string) error {
				if s == stage {
					return injected
				}
				return nil
			},
		})
		if !errors.Is(err, injected) {
			t.Fatalf("build failed at %s: %v", stage, err)
		}
		if err := e.live.Check(); err != nil {
			t.Errorf("after the build failed at %s, Check: %v", stage, err)
		}
		if id := healthOf(t, base)["snapshot_id"]; id != "s0001" {
			t.Errorf("after the build failed at %s, serving %v", stage, id)
		}
		entries, _ := os.ReadDir(root)
		for _, en := range entries {
			if en.IsDir() && en.Name() != "s0001" {
				t.Errorf("after the build failed at %s, %s is left in the root", stage, en.Name())
			}
		}
	}
	time.Sleep(200 * time.Millisecond) // a few polls of CURRENT under load
	close(stop)
	if n, failed, samples := wait(); failed > 0 {
		t.Errorf("%d of %d requests failed during the failed builds: %v", failed, n, samples[:min(3, len(samples))])
	}
}

// TestFault_BadSnapshotPublished publishes damaged snapshots (truncated,
// bit-flipped, missing, extra and renamed files, a bad format version, a
// manifest rewritten to match a truncated file, a CURRENT naming nothing or
// a path): each is refused with a log line and a counted rejection, the old
// snapshot keeps serving, and a good one published afterwards is taken.
func TestFault_BadSnapshotPublished(t *testing.T) {
	root := copyRoot(t, "s0001")
	e := mustTestEdge(t, root, edge.Options{}, nil)
	base := "http://" + e.addr
	key := e.key(t, access.Pro, false, true)
	truncate := func(name string, frac float64) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			p := filepath.Join(dir, name)
			if err := os.Truncate(p, int64(float64(fileSize(t, p))*frac)); err != nil {
				t.Fatal(err)
			}
		}
	}
	editManifest := func(edit func(m *snapshots.Manifest)) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			m, err := snapshots.ReadManifest(dir)
			if err != nil {
				t.Fatal(err)
			}
			edit(m)
			if err := snapshots.WriteManifest(dir, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string)
	}{
		{"market.bolt truncated to half", truncate("market.bolt", 0.5)},
		{"catalog.bolt truncated to nothing", truncate("catalog.bolt", 0)},
		{"typeahead.bin one byte short", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "typeahead.bin")
			os.Truncate(p, fileSize(t, p)-1)
		}},
		{"manifest.json truncated", truncate(snapshots.ManifestFile, 0.5)},
		{"aggregates.bolt bit flipped", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "aggregates.bolt")
			b, _ := os.ReadFile(p)
			b[len(b)/3] ^= 0x10
			os.WriteFile(p, b, 0o644)
		}},
		{"a Bleve segment bit flipped", func(t *testing.T, dir string) {
			var target string
			filepath.Walk(filepath.Join(dir, "index.bleve"), func(p string, fi os.FileInfo, err error) error {
				if err == nil && !fi.IsDir() && fi.Size() > 1024 && target == "" {
					target = p
				}
				return nil
			})
			b, _ := os.ReadFile(target)
			b[len(b)/2] ^= 0x01
			os.WriteFile(target, b, 0o644)
		}},
		{"gold.sqlite missing", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "gold.sqlite")) }},
		{"an extra file", func(t *testing.T, dir string) { os.WriteFile(filepath.Join(dir, "evil.so"), []byte("x"), 0o644) }},
		{"another format version", editManifest(func(m *snapshots.Manifest) { m.FormatVersion++ })},
		{"manifest names another snapshot", editManifest(func(m *snapshots.Manifest) { m.SnapshotID = "s0001" })},
		{"market.bolt truncated with a matching manifest", func(t *testing.T, dir string) {
			truncate("market.bolt", 0.5)(t, dir)
			rehash(t, dir)
		}},
		{"catalog.bolt pages overwritten with a matching manifest", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "catalog.bolt")
			b, _ := os.ReadFile(p)
			for i := 2 * os.Getpagesize(); i < len(b); i += 2 * os.Getpagesize() {
				copy(b[i:], "\xff\xff\xff\xff\xff\xff\xff\x7f\xff\xff")
			}
			os.WriteFile(p, b, 0o644)
			rehash(t, dir)
		}},
		{"Bleve segment overwritten with a matching manifest", func(t *testing.T, dir string) {
			filepath.Walk(filepath.Join(dir, "index.bleve"), func(p string, fi os.FileInfo, err error) error {
				if err == nil && strings.HasSuffix(p, ".zap") {
					b, _ := os.ReadFile(p)
					for i := 0; i < len(b); i += 97 {
						b[i] ^= 0x5a
					}
					os.WriteFile(p, b, 0o644)
				}
				return nil
			})
			rehash(t, dir)
		}},
		{"gold.sqlite overwritten with a matching manifest", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "gold.sqlite")
			b, _ := os.ReadFile(p)
			for i := 100; i < len(b); i += 509 {
				b[i] ^= 0x5a
			}
			os.WriteFile(p, b, 0o644)
			rehash(t, dir)
		}},
	}
	rejections := 0
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := fmt.Sprintf("s02%02d", i)
			tc.damage(t, e2etest.CloneSnapshot(t, root, "s0001", id))
			if err := snapshots.Publish(root, id); err != nil {
				t.Fatal(err)
			}
			err := e.live.Check()
			if err == nil {
				t.Fatalf("the damaged snapshot %s was taken", id)
			}
			t.Logf("refused: %v", err)
			rejections++
			if got := healthOf(t, base)["snapshot_id"]; got != "s0001" {
				t.Fatalf("serving %v, want s0001", got)
			}
			if status, err := e2etest.Get(http.DefaultClient, base+"/api/v3/cards/en:base1-4?include=price_history,recent_sales", key); err != nil || status != 200 {
				t.Fatalf("a request after the refusal: %d %v", status, err)
			}
		})
	}
	for _, current := range []string{"s9999\n", "../../etc\n", "", "s0001\x00"} {
		if err := os.WriteFile(filepath.Join(root, snapshots.CurrentFile), []byte(current), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := e.live.Check(); err == nil && current != "s0001\x00" {
			t.Errorf("CURRENT %q accepted", current)
		}
		if got := healthOf(t, base)["snapshot_id"]; got != "s0001" {
			t.Errorf("CURRENT %q: serving %v, want s0001", current, got)
		}
	}
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var counted int
	for _, line := range strings.Split(string(metrics), "\n") {
		if strings.HasPrefix(line, "cardedge_snapshot_rejections_total{") {
			n, _ := strconv.Atoi(line[strings.LastIndexByte(line, ' ')+1:])
			counted += n
		}
	}
	if counted < rejections {
		t.Errorf("metrics count %d rejections, want %d:\n%s", counted, rejections, metrics)
	}
	// A good snapshot published after all that is taken.
	e2etest.CloneSnapshot(t, root, "s0001", "s0300")
	if err := snapshots.Publish(root, "s0300"); err != nil {
		t.Fatal(err)
	}
	if err := e.live.Check(); err != nil {
		t.Fatalf("a good snapshot after the bad ones: %v", err)
	}
	if got := healthOf(t, base)["snapshot_id"]; got != "s0300" {
		t.Errorf("serving %v, want s0300", got)
	}
}

// rehash rewrites dir's manifest to match its files as they are now: damage
// done before the manifest was written.
func rehash(t *testing.T, dir string) {
	t.Helper()
	m, err := snapshots.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	files, err := snapshots.HashFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	delete(files, snapshots.ManifestFile)
	m.Files = files
	if err := snapshots.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
}

// tryServe runs `cardedge serve` (Main, as the command line does) over
// state. If it starts it returns the base URL and a function that stops it
// gracefully; if it fails to start it returns the error.
func tryServe(t *testing.T, state string) (string, func(), error) {
	t.Helper()
	e, err := startServe(main.ServeConfig{Snapshots: env.root, State: state})
	if err != nil {
		return "", nil, err
	}
	return e.base, func() { e.stop(t) }, nil
}

// mustUsedState makes a state file with one Pro key that used n units today
// and returns the key id.
func mustUsedState(t *testing.T, state string, n int) string {
	t.Helper()
	secret, k, err := createKey(t, state, access.Pro, "faults", false, true)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := access.Open(access.Options{State: stateAt(t, state), SyncInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	caller, err := acc.Authenticate([]byte("Bearer "+secret), "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if _, err := acc.Charge(caller, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := acc.Close(); err != nil {
		t.Fatal(err)
	}
	return k.ID
}

// TestFault_StateFile starts `cardedge serve` over a state file another
// handle holds locked, and over corrupted ones: it refuses to start with an
// error that names the file and the problem, and leaves the file as it was
// (no silent reset of keys or usage). A file whose first meta page is
// damaged is recovered by bbolt from the second, with the usage intact.
func TestFault_StateFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.bolt")
	keyID := mustUsedState(t, good, 42)
	orig, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("locked", func(t *testing.T) {
		state := filepath.Join(t.TempDir(), "state.bolt")
		os.WriteFile(state, orig, 0o600)
		db, err := bolt.Open(state, 0o600, nil) // holds the exclusive lock, as a writer would
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		start := time.Now()
		_, _, err = tryServe(t, state)
		if !errors.Is(err, statebolt.ErrLocked) || !strings.Contains(err.Error(), state) {
			t.Fatalf("serve over a locked state file: %v, want ErrLocked naming the file", err)
		}
		t.Logf("after %s: %v", time.Since(start).Round(time.Millisecond), err)
	})

	pageSize := os.Getpagesize()
	corrupt := []struct {
		name string
		edit func(b []byte) []byte
	}{
		{"empty", func(b []byte) []byte { return nil }},
		{"random bytes", func(b []byte) []byte { return bytes.Repeat([]byte("not a bbolt file "), len(b)/17) }},
		{"both meta pages zeroed", func(b []byte) []byte { clear(b[:2*pageSize]); return b }},
		{"first meta page zeroed", func(b []byte) []byte { clear(b[:pageSize]); return b }},
		{"second meta page zeroed", func(b []byte) []byte { clear(b[pageSize : 2*pageSize]); return b }},
		{"truncated to one page", func(b []byte) []byte { return b[:pageSize] }},
		{"truncated to half", func(b []byte) []byte { return b[:len(b)/2] }},
		{"last page zeroed", func(b []byte) []byte { clear(b[len(b)-pageSize:]); return b }},
		{"every data page scribbled", func(b []byte) []byte {
			for i := 2*pageSize + 16; i < len(b); i += pageSize {
				copy(b[i:], "scribble")
			}
			return b
		}},
	}
	for _, tc := range corrupt {
		t.Run(tc.name, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "state.bolt")
			bad := tc.edit(append([]byte(nil), orig...))
			if err := os.WriteFile(state, bad, 0o600); err != nil {
				t.Fatal(err)
			}
			_, stop, err := tryServe(t, state)
			if err == nil {
				// bbolt found what it needs (the other meta page, a free page
				// lost): the key and its usage must all be there.
				stop()
				if used := usageOfID(t, state, keyID); used != 42 {
					t.Fatalf("started over the damaged file with usage %d, want 42: a silent reset", used)
				}
				t.Logf("started; usage intact")
				return
			}
			if !errors.Is(err, statebolt.ErrCorrupt) || !strings.Contains(err.Error(), state) {
				t.Fatalf("serve: %v, want ErrCorrupt naming the file", err)
			}
			t.Logf("refused: %v", err)
			if after, _ := os.ReadFile(state); !bytes.Equal(after, bad) {
				t.Errorf("the corrupted state file was changed (%d bytes, then %d)", len(bad), len(after))
			}
		})
	}
}

// usageOfID reads today's usage of key id from the state file.
func usageOfID(t *testing.T, state, id string) int64 {
	t.Helper()
	acc, err := access.Open(access.Options{State: stateAt(t, state), SyncInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer acc.Close()
	u, err := acc.Usage(id)
	if err != nil {
		t.Fatal(err)
	}
	return u.Today.Used
}
