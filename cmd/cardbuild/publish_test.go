package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/snapshots"
	snaps3 "github.com/cardedge/cardedge/snapshots/s3"
	"github.com/cardedge/cardedge/snapshots/s3/s3test"
)

func TestMain_Publish(t *testing.T) {
	srv := s3test.Start(t) // skips without versitygw
	c := srv.Client(t)     // and sets AWS_* for Main
	srv.MakeBucket(t, c, "snaps")
	root := t.TempDir()
	loc, _ := snaps3.ParseURL("s3://snaps/prod")
	bucket := snaps3.New(c, loc, snaps3.Options{})

	// build --publish: built, then published.
	stdout, stderr, err := run("build", "--out", root, "--catalog", smallCatalog, "--as-of", "2026-11-20", "--id", "s1",
		"--quiet", "--publish", "s3://snaps/prod")
	if err != nil {
		t.Fatalf("build --publish: %v\n%s", err, stderr)
	}
	if got, want := stdout, filepath.Join(root, "s1")+"\n"; got != want {
		t.Errorf("quiet build --publish printed %q, want %q", got, want)
	}
	if id, _, err := bucket.Current(context.Background()); err != nil || id != "s1" {
		t.Fatalf("bucket CURRENT = %q, %v", id, err)
	}

	t.Run("OK", func(t *testing.T) {
		dir := MustBuild(t, root, "s2")
		stdout, stderr, err := run("publish", dir, "s3://snaps/prod")
		if err != nil {
			t.Fatalf("publish: %v\n%s", err, stderr)
		}
		if !strings.HasPrefix(stdout, "published s2 to s3://snaps/prod (previous s1): ") {
			t.Errorf("stdout = %q", stdout)
		}
		// A replica's view: fetch it and verify.
		cache := t.TempDir()
		res, err := bucket.Fetch(context.Background(), cache, "s2")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := snapshots.Verify(filepath.Join(cache, "s2")); err != nil || res.Manifest.SnapshotID != "s2" {
			t.Fatalf("fetched s2 does not verify: %v", err)
		}
	})

	t.Run("ErrShrink", func(t *testing.T) {
		// The small catalog cut to 20 of its 30 cards.
		cut := t.TempDir()
		sets, _ := os.ReadFile(filepath.Join(smallCatalog, "sets.jsonl"))
		cards, _ := os.ReadFile(filepath.Join(smallCatalog, "cards.jsonl"))
		lines := strings.SplitAfter(string(cards), "\n")
		os.WriteFile(filepath.Join(cut, "sets.jsonl"), sets, 0o644)
		os.WriteFile(filepath.Join(cut, "cards.jsonl"), []byte(strings.Join(lines[:20], "")), 0o644)
		dir := MustBuild(t, root, "s3", "--catalog", cut)
		_, _, err := run("publish", dir, "s3://snaps/prod")
		if !errors.Is(err, snaps3.ErrShrink) {
			t.Fatalf("publish of a shrunk snapshot: %v", err)
		}
		if id, _, _ := bucket.Current(context.Background()); id != "s2" {
			t.Fatalf("CURRENT moved to %s", id)
		}
		if _, stderr, err := run("publish", "--allow-shrink", dir, "s3://snaps/prod"); err != nil {
			t.Fatalf("publish --allow-shrink: %v\n%s", err, stderr)
		}
	})

	t.Run("ErrArgs", func(t *testing.T) {
		if _, _, err := run("publish", root); err == nil {
			t.Error("publish with one argument: no error")
		}
		if _, _, err := run("publish", filepath.Join(root, "s1"), "http://snaps/prod"); err == nil {
			t.Error("publish to a non-s3 URL: no error")
		}
		if _, _, err := run("build", "--out", root, "--publish", "nope"); err == nil {
			t.Error("build --publish nope: no error")
		}
	})
}
