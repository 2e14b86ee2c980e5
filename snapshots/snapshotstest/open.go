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
