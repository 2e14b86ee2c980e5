package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/bulk"
)

// TestMain_Bulk writes the bulk files of a built snapshot elsewhere: the
// same bytes the build wrote into the snapshot, and a line per file with
// its SHA-256 on stdout (the sha256sum format).
func TestMain_Bulk(t *testing.T) {
	root := t.TempDir()
	dir := MustBuild(t, root, "s1")
	out := filepath.Join(t.TempDir(), "mirror")
	stdout, stderr, err := run("bulk", root, out) // the root: the snapshot CURRENT names
	if err != nil {
		t.Fatalf("bulk: %v\n%s", err, stderr)
	}
	ix, err := bulk.ReadIndex(out)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(dir, bulk.Dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2*len(ix.Files)+1 {
		t.Errorf("%d files in the snapshot's bulk directory, want %d", len(entries), 2*len(ix.Files)+1)
	}
	for _, e := range entries {
		want, _ := os.ReadFile(filepath.Join(dir, bulk.Dir, e.Name()))
		got, err := os.ReadFile(filepath.Join(out, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: cardbuild bulk wrote other bytes than the build", e.Name())
		}
	}
	for _, f := range ix.Files {
		if !strings.Contains(stdout, f.SHA256+"  "+filepath.Join(out, f.Path)+"  ") {
			t.Errorf("stdout does not list %s:\n%s", f.Path, stdout)
		}
	}
	if !strings.Contains(stderr, "bulk: snapshot s1") {
		t.Errorf("stderr: %s", stderr)
	}

	t.Run("ErrArgs", func(t *testing.T) {
		if _, _, err := run("bulk", dir); err == nil {
			t.Error("bulk with one argument succeeded")
		}
		if _, _, err := run("bulk", filepath.Join(root, "nope"), out); err == nil {
			t.Error("bulk of a missing snapshot succeeded")
		}
	})
}
