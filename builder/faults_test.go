package builder_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cardedge/cardedge/builder"
	"github.com/cardedge/cardedge/snapshots"
)

// mustLive builds a first snapshot over the small catalog into root and
// returns its id: the live snapshot a failed build must not touch.
func mustLive(tb testing.TB, root string) string {
	tb.Helper()
	const id = "20261120T000001Z"
	MustCompile(tb, smallOptions(root, id))
	return id
}

// checkUntouched fails unless live is still CURRENT, verifies, and is the
// only directory in root (no half snapshot, no .tmp left behind).
func checkUntouched(tb testing.TB, root, live string) {
	tb.Helper()
	if got := mustCurrent(tb, root); got != live {
		tb.Errorf("CURRENT = %s, want %s", got, live)
	}
	if _, err := snapshots.Verify(filepath.Join(root, live)); err != nil {
		tb.Errorf("the live snapshot does not verify: %v", err)
	}
	if got := dirNames(tb, root); len(got) != 1 || got[0] != live {
		tb.Errorf("directories %v, want only %s", got, live)
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if !e.IsDir() && e.Name() != snapshots.CurrentFile {
			tb.Errorf("stray file %s in %s", e.Name(), root)
		}
	}
}

// TestCompile_ErrStage fails a build at the start of each of its stages
// (the stage names a successful build reports, feeds included) over a live
// snapshot: Compile returns the stage's error, and the live snapshot stays
// CURRENT, intact, and alone in the root.
func TestCompile_ErrStage(t *testing.T) {
	root := t.TempDir()
	live := mustLive(t, root)
	var stages []string
	opts := smallOptions(t.TempDir(), "stages")
	opts.MarketDir = filepath.Join("testdata", "feeds", "good")
	opts.StageHook = func(s string) error { stages = append(stages, s); return nil }
	MustCompile(t, opts)
	if len(stages) < 6 || stages[len(stages)-1] != "publish" {
		t.Fatalf("stages of a build: %v", stages)
	}
	for i, stage := range stages {
		t.Run(stage, func(t *testing.T) {
			injected := fmt.Errorf("injected failure at %s", stage)
			opts := smallOptions(root, fmt.Sprintf("20261120T00010%dZ", i))
			if stage == "market-feeds" {
				opts.MarketDir = filepath.Join("testdata", "feeds", "good")
			}
			opts.StageHook = func(s string) error {
				if s == stage {
					return injected
				}
				return nil
			}
			if _, err := builder.Compile(t.Context(), opts); !errors.Is(err, injected) {
				t.Fatalf("Compile = %v, want the injected error", err)
			}
			checkUntouched(t, root, live)
		})
	}
}

// TestCompile_ErrDiskFull builds on a 20 MiB tmpfs over a live snapshot,
// filled so that the build runs out of space at different points (bbolt
// files, their commits, SQLite rows, indexes and ANALYZE; then filled at the
// start of the index, manifest and publish stages: Bleve, manifest.json,
// CURRENT): each fails with "no space left on device" (or SQLite's "database
// or disk is full") naming what it was writing, leaves the live snapshot
// CURRENT and intact, and leaves no half or unpublished snapshot; with the
// space back, a build succeeds. Skipped where tmpfs cannot be mounted (not
// root).
func TestCompile_ErrDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("mounts a tmpfs")
	}
	root := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=20m", "tmpfs", root).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (needs root): %v: %s", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", root).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", root, err, out)
		}
	})
	live := mustLive(t, root)
	size := dirSize(t, filepath.Join(root, live))
	filler := filepath.Join(root, "filler")
	// Short of the live snapshot's size by a few percent, not a few KiB: two
	// builds of the same inputs differ in size by more than 8 KiB (Bleve's
	// segments and bbolt's pages), and one that came out smaller fitted.
	for i, leave := range []int64{16 << 10, size / 8, size / 3, size * 2 / 3, size - size/16, size - size/32} {
		t.Run(fmt.Sprintf("%d KiB free", leave>>10), func(t *testing.T) {
			fill(t, root, filler, leave)
			_, err := builder.Compile(hangGuard(t), smallOptions(root, fmt.Sprintf("20261120T00020%dZ", i)))
			if rerr := os.Remove(filler); rerr != nil {
				t.Fatal(rerr)
			}
			if err == nil {
				t.Fatalf("the build succeeded with %d bytes free (a snapshot is %d)", leave, size)
			}
			if !diskFull(err) {
				t.Errorf("error %q does not say the disk is full", err)
			}
			t.Logf("%d KiB free: %v", leave>>10, err)
			checkUntouched(t, root, live)
		})
	}
	// The disk fills up at the start of a late stage (another process
	// writing): Bleve, the manifest, or CURRENT itself cannot be written.
	for i, stage := range []string{"index", "manifest", "publish"} {
		t.Run("full at "+stage, func(t *testing.T) {
			opts := smallOptions(root, fmt.Sprintf("20261120T00021%dZ", i))
			opts.StageHook = func(s string) error {
				if s == stage {
					fill(t, root, filler, 0)
				}
				return nil
			}
			_, err := builder.Compile(hangGuard(t), opts)
			if rerr := os.Remove(filler); rerr != nil {
				t.Fatal(rerr)
			}
			if err == nil || !diskFull(err) {
				t.Fatalf("Compile = %v, want no space left on device", err)
			}
			t.Logf("full at %s: %v", stage, err)
			checkUntouched(t, root, live)
		})
	}
	// With the space back the next build goes through.
	m := MustCompile(t, smallOptions(root, "20261120T000300Z"))
	if got := mustCurrent(t, root); got != m.SnapshotID {
		t.Errorf("after the disk-full builds, CURRENT = %s, want %s", got, m.SnapshotID)
	}
}

// hangGuard is the test's context, cancelled after two minutes: a build on
// a full disk must fail, and one that waits forever instead (Bleve's merger
// once did, retrying a segment it could not write) fails the test with the
// context's error rather than stalling the suite until its timeout.
func hangGuard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// diskFull reports whether err says the disk is full (ENOSPC, or SQLite's
// SQLITE_FULL).
func diskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || strings.Contains(err.Error(), "no space left on device") ||
		strings.Contains(err.Error(), "database or disk is full")
}

// fill writes path so that about leave bytes stay free on root's file
// system.
func fill(tb testing.TB, root, path string, leave int64) {
	tb.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(root, &st); err != nil {
		tb.Fatal(err)
	}
	free := int64(st.Bavail) * st.Bsize
	if free < leave {
		tb.Fatalf("only %d bytes free, want to leave %d", free, leave)
	}
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := io.CopyN(f, zeros{}, free-leave); err != nil {
		tb.Fatal(err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// dirSize returns the disk space the files under dir take.
func dirSize(tb testing.TB, dir string) int64 {
	tb.Helper()
	var n int64
	err := filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			// The space the file takes (a bbolt file can have holes): what
			// a full disk runs out of.
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				n += st.Blocks * 512
			} else {
				n += fi.Size()
			}
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}
