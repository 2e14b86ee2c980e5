package edge

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// tiny is the tiny snapshot the package's tests share, built by the real
// builder on first use (a build takes ~3 s, ~40 s under -race) and removed by
// TestMain. Tests only read it.
var tiny struct {
	once sync.Once
	root string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if tiny.root != "" {
		os.RemoveAll(tiny.root)
	}
	os.Exit(code)
}

// tinyRoot returns the snapshots root of the shared tiny snapshot (id s0001).
func tinyRoot(tb testing.TB) string {
	tb.Helper()
	tiny.once.Do(func() {
		if tiny.root, tiny.err = os.MkdirTemp("", "cardedge-edge-test-"); tiny.err != nil {
			return
		}
		if _, err := snapshotstest.Build(tiny.root, 7, snapshotstest.AsOf, "s0001"); err != nil {
			tiny.err = fmt.Errorf("build tiny snapshot: %w", err)
		}
	})
	if tiny.err != nil {
		tb.Fatal(tiny.err)
	}
	return tiny.root
}
