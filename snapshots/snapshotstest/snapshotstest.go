package snapshotstest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/cardedge/cardedge/builder"
	"github.com/cardedge/cardedge/snapshots"
)

// AsOf is the "today" of snapshots built here.
const AsOf = "2026-11-20"

// CatalogDir returns the shipped catalog directory.
func CatalogDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "builder", "catalog")
}

// Build compiles a tiny snapshot into root (created if needed) with the
// given seed, as_of and snapshot id, publishes it and returns its manifest.
// The compiled snapshot comes from the build cache (cache.go) when the same
// tree built it before: a copy, published as a build publishes it.
func Build(root string, seed int64, asOf, id string) (*snapshots.Manifest, error) {
	day, err := snapshots.ParseDay(asOf)
	if err != nil {
		return nil, err
	}
	compile := func(root string) error {
		_, err := builder.Compile(context.Background(), builder.Options{
			Out: root, Preset: "tiny", Seed: seed, CatalogDir: CatalogDir(), AsOf: day, SnapshotID: id, Keep: 5,
		})
		return err
	}
	dir, err := cached(seed, asOf, id, compile)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		if err := compile(root); err != nil {
			return nil, err
		}
		return snapshots.ReadManifest(filepath.Join(root, id))
	}
	return copySnapshot(dir, root, id)
}

// MustBuild builds a tiny snapshot (seed 7, AsOf) into a new temporary root
// and returns the root.
func MustBuild(tb testing.TB) string {
	tb.Helper()
	root, err := os.MkdirTemp("", "cardedge-snap-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(root) })
	if _, err := Build(root, 7, AsOf, "s0001"); err != nil {
		tb.Fatalf("build tiny snapshot: %v", err)
	}
	return root
}
