package bolt_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	"github.com/cardedge/cardedge/state/statetest"
	bbolt "go.etcd.io/bbolt"
)

var ctx = context.Background()

// mustFile returns the bytes of a valid state file holding one key and a
// usage counter.
func mustFile(t *testing.T) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.bolt")
	st, err := statebolt.Open(path, statebolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Update(ctx, func(tx state.Tx) error {
		if err := tx.Put(state.Keys, "k_a", []byte(`{"id":"k_a"}`), 0); err != nil {
			return err
		}
		return tx.Add(state.Usage, "k_a/2026-11-20", 42, time.Hour)
	}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestOpen_ErrCorrupt(t *testing.T) {
	good := mustFile(t)
	page := os.Getpagesize()
	tests := []struct {
		name   string
		damage func([]byte) []byte
	}{
		{"empty", func([]byte) []byte { return nil }},
		{"not bbolt", func(b []byte) []byte { return bytes.Repeat([]byte("not a bbolt file "), len(b)/17) }},
		{"short", func([]byte) []byte { return []byte("tiny") }},
		{"both meta pages", func(b []byte) []byte {
			for i := range 2 * page {
				b[i] ^= 0x5a
			}
			return b
		}},
		// bbolt would fall back on the other meta page, silently losing the
		// last transaction when the zeroed page was the newest: refused.
		{"first meta page", func(b []byte) []byte { clear(b[:page]); return b }},
		{"second meta page", func(b []byte) []byte { clear(b[page : 2*page]); return b }},
		{"truncated to a page", func(b []byte) []byte { return b[:page] }},
		{"truncated to half", func(b []byte) []byte { return b[:len(b)/2] }},
		{"data pages scribbled", func(b []byte) []byte {
			for i := 2 * page; i < len(b); i++ {
				b[i] = byte(i*7 + 3)
			}
			return b
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.bolt")
			bad := tt.damage(bytes.Clone(good))
			if err := os.WriteFile(path, bad, 0o600); err != nil {
				t.Fatal(err)
			}
			st, err := statebolt.Open(path, statebolt.Options{})
			if err == nil {
				err = st.Check(ctx)
			}
			if !errors.Is(err, statebolt.ErrCorrupt) || !errors.Is(err, state.ErrCorrupt) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want ErrCorrupt naming the file", err)
			}
			if !strings.Contains(err.Error(), "state file is corrupted") {
				t.Errorf("message %q", err)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, bad) {
				t.Fatalf("the corrupted file was changed")
			}
		})
	}
}

func TestOpen_ErrLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.bolt")
	st := statetest.MustOpenPath(t, path, statebolt.Options{LockTimeout: 50 * time.Millisecond})
	db, err := bbolt.Open(path, 0o600, nil) // a process keeping the file open for writing
	if err != nil {
		t.Fatal(err)
	}
	if _, err := statebolt.Open(path, statebolt.Options{LockTimeout: 20 * time.Millisecond}); !errors.Is(err, statebolt.ErrLocked) {
		t.Fatalf("Open: %v, want ErrLocked", err)
	}
	err = st.Update(ctx, func(tx state.Tx) error { return tx.Add(state.Meta, state.MetaKeysRev, 1, 0) })
	if !errors.Is(err, statebolt.ErrLocked) || !errors.Is(err, state.ErrUnavailable) || !strings.Contains(err.Error(), "state file is locked by another process") {
		t.Fatalf("Update: %v, want ErrLocked", err)
	}
	// A context deadline shorter than the lock timeout wins.
	c, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := st.View(c, func(state.Tx) error { return nil }); !errors.Is(err, statebolt.ErrLocked) || time.Since(start) > 45*time.Millisecond {
		t.Fatalf("View with a short deadline: %v after %s", err, time.Since(start))
	}
	db.Close()
	if err := st.Update(ctx, func(tx state.Tx) error { return tx.Add(state.Meta, state.MetaKeysRev, 1, 0) }); err != nil {
		t.Fatal(err)
	}
}

// A file removed under a running store is not recreated.
func TestStore_ErrMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.bolt")
	st, err := statebolt.Open(path, statebolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	err = st.Update(ctx, func(tx state.Tx) error { return tx.Add(state.Meta, state.MetaKeysRev, 1, 0) })
	if !errors.Is(err, statebolt.ErrMissing) || !errors.Is(err, state.ErrUnavailable) {
		t.Fatalf("Update: %v, want ErrMissing", err)
	}
	if err := st.View(ctx, func(state.Tx) error { return nil }); !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("View: %v, want ErrMissing (ErrNotFound)", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("the store recreated the file")
	}
}

// A panic of the caller's function is the caller's: it is not reported as a
// corrupted file, and the file stays usable.
func TestStore_CallerPanic(t *testing.T) {
	st := statetest.MustOpen(t)
	func() {
		defer func() {
			if r := recover(); r != "mine" {
				t.Fatalf("recovered %v, want the caller's panic", r)
			}
		}()
		st.Update(ctx, func(tx state.Tx) error {
			tx.Put(state.Keys, "k_a", []byte(`1`), 0)
			panic("mine")
		})
	}()
	if err := st.View(ctx, func(tx state.Tx) error { _, err := tx.Get(state.Keys, "k_a"); return err }); !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("after the panic: %v (the write must be rolled back)", err)
	}
}

func TestStore_ErrFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.bolt")
	statetest.MustOpenPath(t, path, statebolt.Options{}) // checked again at the end, format restored
	setFormat := func(f string) {
		db, err := bbolt.Open(path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.Update(func(tx *bbolt.Tx) error { return tx.Bucket([]byte("meta")).Put([]byte("access.format"), []byte(f)) }); err != nil {
			t.Fatal(err)
		}
	}
	setFormat("9")
	if _, err := statebolt.Open(path, statebolt.Options{}); !errors.Is(err, statebolt.ErrFormat) || !errors.Is(err, state.ErrFormat) {
		t.Fatalf("Open of format 9: %v, want ErrFormat", err)
	}
	setFormat("2")
}

// Expired records are removed from the file by a later Update.
func TestStore_Sweep(t *testing.T) {
	clock := statetest.NewClock(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	path := filepath.Join(t.TempDir(), "state.bolt")
	st := statetest.MustOpenPath(t, path, statebolt.Options{Now: clock.Now})
	if err := st.Update(ctx, func(tx state.Tx) error {
		for i := range 1500 {
			if err := tx.Put(state.Sessions, string(rune('a'+i%26))+strings.Repeat("x", i/26), []byte(`1`), time.Minute); err != nil {
				return err
			}
		}
		if err := tx.Put(state.Sessions, "kept", []byte(`1`), time.Hour); err != nil {
			return err
		}
		return tx.Add(state.Usage, "k_a/2026-11-20", 1, time.Minute)
	}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	raw := func() (n int) {
		db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		db.View(func(tx *bbolt.Tx) error {
			for _, b := range []string{"sessions", "usage", "_expiry"} {
				if bk := tx.Bucket([]byte(b)); bk != nil {
					n += bk.Stats().KeyN
				}
			}
			return nil
		})
		return n
	}
	noop := func(state.Tx) error { return nil }
	for _, want := range []int{2 * 502, 2} { // 1,000 swept per Update (records and index entries), then the rest
		if err := st.Update(ctx, noop); err != nil {
			t.Fatal(err)
		}
		if got := raw(); got != want {
			t.Fatalf("%d keys in the file, want %d", got, want)
		}
	}
}
