package bolt_test

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	"github.com/cardedge/cardedge/state/statetest"
	bbolt "go.etcd.io/bbolt"
)

// format1 is what a format 1 file holds (access, edge/imports.go and
// mcp/cohort.go wrote it before state/bolt).
type format1 struct {
	keys     map[string]string            // key id -> JSON record
	usage    map[string]map[uint32]uint64 // key id -> day -> count
	keysRev  uint64
	previews map[string]string // preview id -> JSON with "expires"
	colls    map[string]string // key id -> JSON
	cohorts  map[string]string // handle -> JSON with "key_id", "expires_at"
}

// writeFormat1 writes f at path in format 1's layout, byte for byte as the
// old code did.
func writeFormat1(t *testing.T, path string, f format1) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	u64 := func(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }
	err = db.Update(func(tx *bbolt.Tx) error {
		put := func(bucket string, m map[string]string) error {
			b, err := tx.CreateBucketIfNotExists([]byte(bucket))
			if err != nil {
				return err
			}
			for k, v := range m {
				if err := b.Put([]byte(k), []byte(v)); err != nil {
					return err
				}
			}
			return nil
		}
		if err := put("keys", f.keys); err != nil {
			return err
		}
		ub, err := tx.CreateBucketIfNotExists([]byte("usage"))
		if err != nil {
			return err
		}
		for id, days := range f.usage {
			kb, err := ub.CreateBucket([]byte(id))
			if err != nil {
				return err
			}
			for d, n := range days {
				if err := kb.Put(binary.BigEndian.AppendUint32(nil, d), u64(n)); err != nil {
					return err
				}
			}
		}
		meta, err := tx.CreateBucketIfNotExists([]byte("meta"))
		if err != nil {
			return err
		}
		if err := meta.Put([]byte("access.format"), []byte("1")); err != nil {
			return err
		}
		if err := meta.Put([]byte("access.keys_rev"), u64(f.keysRev)); err != nil {
			return err
		}
		if err := put("imports.previews", f.previews); err != nil {
			return err
		}
		if err := put("imports.collections", f.colls); err != nil {
			return err
		}
		return put("mcp_cohorts", f.cohorts)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// dayNum is the format 1 day of a YYYY-MM-DD date.
func dayNum(s string) uint32 {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return uint32(d.Unix() / 86400)
}

var (
	f1Now = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	f1Key = `{"id":"k_aaaaaaaa","name":"old","tier":"pro","sql":false,"unmetered":false,"created":"2026-01-02T03:04:05Z","sha256":"` +
		"5a1c5b0d5f30a4e0d5c3b4d0f1c1f3d4e5f60718293a4b5c6d7e8f9012345678" + `"}`
	f1 = format1{
		keys: map[string]string{"k_aaaaaaaa": f1Key, "k_bbbbbbbb": `{"id":"k_bbbbbbbb","tier":"free"}`},
		usage: map[string]map[uint32]uint64{
			"k_aaaaaaaa": {dayNum("2026-11-20"): 42, dayNum("2026-11-19"): 7, dayNum("2026-08-23"): 3, dayNum("2026-08-22"): 99},
			"k_bbbbbbbb": {dayNum("2026-11-01"): 1},
		},
		keysRev: 12,
		previews: map[string]string{
			"imp_live": `{"id":"imp_live","key_id":"k_aaaaaaaa","expires":"2026-11-21T00:00:00Z","rows":[]}`,
			"imp_dead": `{"id":"imp_dead","key_id":"k_aaaaaaaa","expires":"2026-11-20T11:00:00Z","rows":[]}`,
		},
		colls: map[string]string{"k_aaaaaaaa": `{"key_id":"k_aaaaaaaa","holdings":[{"card_id":"en:base1-4","quantity":2}]}`},
		cohorts: map[string]string{
			"coh_live": `{"cohort_handle":"coh_live","ids":["en:base1-4"],"expires_at":"2026-11-27T12:00:00Z","key_id":"k_aaaaaaaa"}`,
			"coh_dead": `{"cohort_handle":"coh_dead","ids":["en:base1-4"],"expires_at":"2026-11-19T12:00:00Z","key_id":"k_aaaaaaaa"}`,
		},
	}
)

// dump reads every visible record and counter of st.
func dump(t *testing.T, st state.Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := st.View(ctx, func(tx state.Tx) error {
		for _, b := range state.Buckets {
			var err error
			if b.Kind() == state.KindCounters {
				err = tx.ScanCounts(b, state.ScanOptions{}, func(k string, n int64) error {
					out[string(b)+" "+k] = fmt.Sprint(n)
					return nil
				})
			} else {
				err = tx.Scan(b, state.ScanOptions{}, func(k string, v []byte) error {
					out[string(b)+" "+k] = string(v)
					return nil
				})
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFormat1 upgrades a file written in format 1: nothing a format 1 reader
// could still see is lost, and what had expired is gone.
func TestFormat1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.bolt")
	writeFormat1(t, path, f1)
	clock := statetest.NewClock(f1Now)
	st := statetest.MustOpenPath(t, path, statebolt.Options{Now: clock.Now})

	want := map[string]string{
		"keys k_aaaaaaaa":             f1.keys["k_aaaaaaaa"],
		"keys k_bbbbbbbb":             f1.keys["k_bbbbbbbb"],
		"usage k_aaaaaaaa/2026-11-20": "42",
		"usage k_aaaaaaaa/2026-11-19": "7",
		"usage k_aaaaaaaa/2026-08-23": "3", // the oldest of the 90 days that end today
		"usage k_bbbbbbbb/2026-11-01": "1",
		"meta keys.rev":               "12",
		"import_previews imp_live":    f1.previews["imp_live"],
		"collections k_aaaaaaaa":      f1.colls["k_aaaaaaaa"],
		"cohorts k_aaaaaaaa/coh_live": f1.cohorts["coh_live"],
	}
	got := dump(t, st)
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if got[k] != want[k] {
			t.Errorf("%s = %q, want %q", k, got[k], want[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected %s = %q", k, got[k])
		}
	}

	// The usage, preview and cohort keep their expiry.
	clock.Advance(12 * time.Hour) // 2026-11-21 00:00: the preview expires, 2026-08-23 leaves the 90 days
	got = dump(t, st)
	for _, k := range []string{"import_previews imp_live", "usage k_aaaaaaaa/2026-08-23"} {
		if _, ok := got[k]; ok {
			t.Errorf("%s outlived its expiry", k)
		}
	}
	if _, ok := got["cohorts k_aaaaaaaa/coh_live"]; !ok {
		t.Errorf("the cohort expired early")
	}

	// Format 1 readers refuse the file by its marker; the old buckets are gone.
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	db.View(func(tx *bbolt.Tx) error {
		if f := string(tx.Bucket([]byte("meta")).Get([]byte("access.format"))); f != "2" {
			t.Errorf("format marker %q, want 2", f)
		}
		return tx.ForEach(func(name []byte, _ *bbolt.Bucket) error { names = append(names, string(name)); return nil })
	})
	db.Close()
	if want := []string{"_expiry", "cohorts", "collections", "import_previews", "keys", "meta", "usage"}; !slices.Equal(names, want) {
		t.Errorf("buckets %q, want %q", names, want)
	}
}

// A format 1 file put in place under a running store (a backup restored) is
// upgraded by the next View.
func TestFormat1_View(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.bolt")
	st := statetest.MustOpenPath(t, path, statebolt.Options{Now: statetest.NewClock(f1Now).Now})
	old := filepath.Join(t.TempDir(), "old.bolt")
	writeFormat1(t, old, f1)
	b, err := os.ReadFile(old)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	var rev int64
	if err := st.View(ctx, func(tx state.Tx) (err error) { rev, err = tx.Count(state.Meta, state.MetaKeysRev); return err }); err != nil || rev != 12 {
		t.Fatalf("keys.rev %d, %v", rev, err)
	}
}

// A format 1 file the upgrade does not understand is refused and left as it
// was.
func TestFormat1_ErrCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.bolt")
	writeFormat1(t, path, format1{keys: map[string]string{"k_a": "{not json"}})
	before, _ := os.ReadFile(path)
	st, err := statebolt.Open(path, statebolt.Options{}) // reads the marker only
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Check(ctx); !errors.Is(err, state.ErrCorrupt) {
		t.Fatalf("Check: %v, want ErrCorrupt", err)
	}
	if err := st.Update(ctx, func(state.Tx) error { return nil }); !errors.Is(err, state.ErrCorrupt) {
		t.Fatalf("Update: %v, want ErrCorrupt", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatalf("a refused file was changed")
	}
}

// TestFormat1_Access opens the access layer over a format 1 file, as a
// server upgraded in place does: the old key authenticates and today's usage
// is the old count.
func TestFormat1_Access(t *testing.T) {
	secret := "ce_p_" + strings.Repeat("A", 43)
	h := sha256.Sum256([]byte(secret))
	rec := fmt.Sprintf(`{"id":"k_aaaaaaaa","name":"old","tier":"pro","sql":false,"unmetered":false,"created":"2026-01-02T03:04:05Z","sha256":"%x"}`, h)
	path := filepath.Join(t.TempDir(), "state.bolt")
	writeFormat1(t, path, format1{
		keys:    map[string]string{"k_aaaaaaaa": rec},
		usage:   map[string]map[uint32]uint64{"k_aaaaaaaa": {dayNum("2026-11-20"): 42, dayNum("2026-11-19"): 7}},
		keysRev: 1,
	})
	now := func() time.Time { return f1Now }
	st := statetest.MustOpenPath(t, path, statebolt.Options{Now: now})
	acc, err := access.Open(access.Options{State: st, Now: now, SyncInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer acc.Close()
	c, err := acc.Authenticate([]byte("Bearer "+secret), "192.0.2.1")
	if err != nil || c.KeyID != "k_aaaaaaaa" || c.Tier != access.Pro {
		t.Fatalf("old key: %+v, %v", c, err)
	}
	d, err := acc.Charge(c, 1)
	if err != nil || d.Remaining != 2000-43 {
		t.Fatalf("charge: %+v, %v", d, err)
	}
	u, err := acc.Usage("k_aaaaaaaa")
	if err != nil || len(u.Days) != 2 || u.Days[0].Requests != 43 || u.Days[1].Requests != 7 {
		t.Fatalf("usage: %+v, %v", u, err)
	}
}
