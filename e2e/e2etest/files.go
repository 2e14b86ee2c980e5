package e2etest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cardedge/cardedge/snapshots"
)

// CopyRoot copies snapshot id of the snapshots root src into a new root
// (published), so a test can publish into it without touching src.
func CopyRoot(tb testing.TB, src, id string) string {
	tb.Helper()
	root := filepath.Join(tb.TempDir(), "snapshots")
	if err := CopyDir(filepath.Join(src, id), filepath.Join(root, id)); err != nil {
		tb.Fatal(err)
	}
	if err := snapshots.Publish(root, id); err != nil {
		tb.Fatal(err)
	}
	return root
}

// CloneSnapshot copies root/src to root/dst with the manifest renamed (a
// well-formed new snapshot with the same content), not published.
func CloneSnapshot(tb testing.TB, root, src, dst string) string {
	tb.Helper()
	dir := filepath.Join(root, dst)
	if err := CopyDir(filepath.Join(root, src), dir); err != nil {
		tb.Fatal(err)
	}
	m, err := snapshots.ReadManifest(dir)
	if err != nil {
		tb.Fatal(err)
	}
	m.SnapshotID = dst
	if err := snapshots.WriteManifest(dir, m); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// CopyDir copies the directory tree src to dst (which must not hold any of
// its files yet).
func CopyDir(src, dst string) error { return os.CopyFS(dst, os.DirFS(src)) }
