package statetest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
)

// MustOpen opens a store over a new state file in tb.TempDir(). When the test
// ends, its Cleanup runs the store's Check (bbolt's consistency check and a
// decode of every record) and fails the test on any problem.
func MustOpen(tb testing.TB) *statebolt.Store {
	tb.Helper()
	return MustOpenPath(tb, filepath.Join(tb.TempDir(), "state.bolt"), statebolt.Options{})
}

// MustOpenPath opens a store over the state file at path (created when
// missing) with o, and checks it in tb's Cleanup like MustOpen. A test that
// damages the file on purpose opens it with statebolt.Open instead.
func MustOpenPath(tb testing.TB, path string, o statebolt.Options) *statebolt.Store {
	tb.Helper()
	st, err := statebolt.Open(path, o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { MustCheck(tb, st) })
	return st
}

// MustCheck runs st's Check and fails tb on any problem.
func MustCheck(tb testing.TB, st state.Store) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := st.Check(ctx); err != nil {
		tb.Errorf("state store check: %v", err)
	}
}
