package snapshotstest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/bolt"
	"github.com/cardedge/cardedge/snapshots/gold"
)

// Tiny is a tiny snapshot (seed 7, AsOf) built into a temporary directory
// and opened for reading: what a package's TestMain shares between its
// tests. Close it when the tests are done.
type Tiny struct {
	Reader *bolt.Reader
	Index  *index.Index
	AsOf   snapshots.Day
	root   string
}

// OpenTiny builds a tiny snapshot into a new temporary directory and opens
// its reader and index.
func OpenTiny() (*Tiny, error) {
	root, err := os.MkdirTemp("", "cardedge-tiny-")
	if err != nil {
		return nil, err
	}
	t := &Tiny{root: root}
	m, err := Build(root, 7, AsOf, "s0001")
	if err != nil {
		t.Close()
		return nil, fmt.Errorf("build tiny snapshot: %w", err)
	}
	dir := filepath.Join(root, "s0001")
	if t.Reader, err = bolt.Open(dir, m); err != nil {
		t.Close()
		return nil, err
	}
	if t.Index, err = index.Open(dir); err != nil {
		t.Close()
		return nil, err
	}
	t.AsOf = m.AsOfDay()
	return t, nil
}

// Close closes the reader and index and removes the directory.
func (t *Tiny) Close() error {
	var errs []error
	if t.Index != nil {
		errs = append(errs, t.Index.Close())
	}
	if t.Reader != nil {
		errs = append(errs, t.Reader.Close())
	}
	errs = append(errs, os.RemoveAll(t.root))
	return errors.Join(errs...)
}

// RunTiny is a TestMain's body for tests that share one tiny snapshot: it
// opens one (OpenTiny), hands it to use, runs the tests and closes it. It
// returns the exit code for os.Exit (1 when the snapshot cannot be built).
func RunTiny(m *testing.M, use func(*Tiny)) int {
	t, err := OpenTiny()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer t.Close()
	use(t)
	return m.Run()
}

// Shared is a tiny snapshot a package's tests share, built on first use
// (Get) so that tests which do not need it do not wait for the build, and
// closed by the package's TestMain:
//
//	var tiny snapshotstest.Shared
//
//	func TestMain(m *testing.M) {
//		code := m.Run()
//		tiny.Close()
//		os.Exit(code)
//	}
//
// It is safe for concurrent use.
type Shared struct {
	once sync.Once
	tiny *Tiny
	err  error
}

// Get returns the shared tiny snapshot, building it on the first call; a
// build that failed fails tb (and every later caller).
func (s *Shared) Get(tb testing.TB) *Tiny {
	tb.Helper()
	s.once.Do(func() { s.tiny, s.err = OpenTiny() })
	if s.err != nil {
		tb.Fatal(s.err)
	}
	return s.tiny
}

// Close closes the snapshot when one was built.
func (s *Shared) Close() error {
	if s.tiny == nil {
		return nil
	}
	return s.tiny.Close()
}

// RunView is RunTiny for tests that read the tiny snapshot through a view
// of it (package live's, which this package may not import: it sits above
// snapshots): it sets *v to newView of the snapshot before the tests run.
//
//	var src *live.View
//
//	func TestMain(m *testing.M) { os.Exit(snapshotstest.RunView(m, &src, live.NewView)) }
func RunView[V any](m *testing.M, v *V, newView func(snapshots.Reader, *index.Index, *gold.DB) V) int {
	return RunTiny(m, func(t *Tiny) { *v = newView(t.Reader, t.Index, nil) })
}

// SharedRoot is a snapshots root a package's tests share, built by Build
// into a new temporary directory on first use (Get) and removed by the
// package's TestMain (Close). It is safe for concurrent use.
type SharedRoot struct {
	// Build fills root (nil: the tiny snapshot s0001, seed 7, as of AsOf,
	// published).
	Build func(root string) error

	once sync.Once
	root string
	err  error
}

// Get returns the root, building it on the first call; a build that failed
// fails tb (and every later caller).
func (s *SharedRoot) Get(tb testing.TB) string {
	tb.Helper()
	s.once.Do(func() {
		if s.root, s.err = os.MkdirTemp("", "cardedge-root-"); s.err != nil {
			return
		}
		build := s.Build
		if build == nil {
			build = func(root string) error { _, err := Build(root, 7, AsOf, "s0001"); return err }
		}
		if err := build(s.root); err != nil {
			s.err = fmt.Errorf("build the shared snapshots root: %w", err)
		}
	})
	if s.err != nil {
		tb.Fatal(s.err)
	}
	return s.root
}

// Close removes the root when one was built.
func (s *SharedRoot) Close() error {
	if s.root == "" {
		return nil
	}
	return os.RemoveAll(s.root)
}

// MustOpen verifies and opens the snapshot in dir, closed at the end of the
// test.
func MustOpen(tb testing.TB, dir string) *bolt.Reader {
	tb.Helper()
	m, err := snapshots.Verify(dir)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := bolt.Open(dir, m)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := r.Close(); err != nil {
			tb.Error(err)
		}
	})
	return r
}

// Day parses a YYYY-MM-DD day of a test's fixture; it panics on a bad one
// (the test's own mistake).
func Day(s string) snapshots.Day {
	d, err := snapshots.ParseDay(s)
	if err != nil {
		panic(err)
	}
	return d
}
