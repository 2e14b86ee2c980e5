package bulk_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/bulk"
	"github.com/cardedge/cardedge/snapshots"
)

// TestLoad loads the tiny snapshot's bulk files under a manifest that
// hashes them, and refuses an index the manifest does not agree with.
func TestLoad(t *testing.T) {
	dir, ix := mustWrite(t, 0)
	snap := filepath.Dir(dir)
	files, err := snapshots.HashFiles(snap)
	if err != nil {
		t.Fatal(err)
	}
	m := &snapshots.Manifest{Files: files}
	l, err := bulk.Load(snap, m)
	if err != nil {
		t.Fatal(err)
	}
	if l.Index == nil || len(l.Files) != len(ix.Files) {
		t.Fatalf("loaded %d files, want %d", len(l.Files), len(ix.Files))
	}
	for _, f := range ix.Files {
		lf := l.Files[f.Name]
		if lf == nil || lf.Kind.Name != f.Kind || lf.Path != filepath.Join(dir, f.Path) || !strings.Contains(string(lf.Schema), `"$schema"`) {
			t.Fatalf("%s: %+v", f.Name, lf)
		}
	}
	// The validators: the quoted SHA-256, RFC 9530's digest of the same
	// bytes, the schema's quoted SHA-256.
	f := ix.Files[0]
	lf := l.Files[f.Name]
	sum, _ := hex.DecodeString(f.SHA256)
	ssum := sha256.Sum256(lf.Schema)
	if got, want := string(lf.ETag), `"`+f.SHA256+`"`; got != want {
		t.Errorf("ETag %s, want %s", got, want)
	}
	if got, want := string(lf.Digest), "sha-256=:"+base64.StdEncoding.EncodeToString(sum)+":"; got != want {
		t.Errorf("Digest %s, want %s", got, want)
	}
	if got, want := string(lf.SchemaETag), `"`+hex.EncodeToString(ssum[:])+`"`; got != want {
		t.Errorf("SchemaETag %s, want %s", got, want)
	}
	// Lookup finds a file, or says which there are.
	if got, err := l.Lookup(f.Name); got != lf || err != nil {
		t.Errorf("Lookup(%s): %v, %v", f.Name, got, err)
	}
	if _, err := l.Lookup("nope"); apperr.ErrorCode(err) != apperr.ENOTFOUND || !strings.Contains(err.Error(), f.Name) {
		t.Errorf("Lookup(nope): %v, want ENOTFOUND naming the files", err)
	}
	var none *bulk.Loaded
	if _, err := none.Lookup("nope"); apperr.ErrorCode(err) != apperr.ENOTFOUND || !strings.Contains(err.Error(), "has none") {
		t.Errorf("Lookup without files: %v", err)
	}

	t.Run("ErrSHA256", func(t *testing.T) {
		bad := maps.Clone(files)
		bad[bulk.Dir+"/"+ix.Files[0].Path] = strings.Repeat("0", 64)
		if _, err := bulk.Load(snap, &snapshots.Manifest{Files: bad}); err == nil || !strings.Contains(err.Error(), "the manifest") {
			t.Fatalf("a file the manifest hashes otherwise: %v", err)
		}
	})
	t.Run("ErrSchema", func(t *testing.T) {
		bad := maps.Clone(files)
		delete(bad, bulk.Dir+"/"+ix.Files[0].Schema)
		if _, err := bulk.Load(snap, &snapshots.Manifest{Files: bad}); err == nil || !strings.Contains(err.Error(), "not in the manifest") {
			t.Fatalf("a schema the manifest has not: %v", err)
		}
	})
	t.Run("NoIndex", func(t *testing.T) {
		l, err := bulk.Load(t.TempDir(), &snapshots.Manifest{Files: map[string]string{}})
		if err != nil || l.Index != nil || len(l.Files) != 0 {
			t.Fatalf("a snapshot without bulk files: %+v, %v", l, err)
		}
		if _, err := bulk.Load(t.TempDir(), m); err == nil {
			t.Fatal("an index the manifest lists but the directory has not: no error")
		}
	})
}

func TestSourcesOf(t *testing.T) {
	srcs, ok := bulk.SourcesOf([]string{"tcgdex", "synthetic"})
	if !ok || len(srcs) != 2 || srcs[0].Name != "tcgdex" || srcs[1].Name != "synthetic" {
		t.Fatalf("licensed sources: %v, %v", srcs, ok)
	}
	if _, ok := bulk.SourcesOf([]string{"tcgdex", "pokemon-tcg-data"}); ok {
		t.Fatal("a source without a license counts as licensed")
	}
	if srcs, ok := bulk.SourcesOf(nil); !ok || srcs == nil || len(srcs) != 0 {
		t.Fatalf("no sources: %v, %v", srcs, ok)
	}
}
