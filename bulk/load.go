package bulk

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/snapshots"
)

// Loaded is the bulk files of an open snapshot: its index, checked against
// the snapshot's manifest, and each file's kind, path and schema.
type Loaded struct {
	// Index is nil for a snapshot built before bulk files (no files).
	Index *Index
	Files map[string]*LoadedFile // by File.Name
}

// LoadedFile is one file of a Loaded snapshot.
type LoadedFile struct {
	File
	Kind   Kind
	Path   string // absolute
	Schema []byte // the schema file's bytes
	// The validators a server answers with: ETag is the file's SHA-256 in
	// quotes (strong: If-None-Match, If-Range), Digest its Repr-Digest
	// value (RFC 9530: sha-256=:<base64>:), SchemaETag the schema's
	// SHA-256 in quotes.
	ETag, Digest, SchemaETag []byte
}

// Load reads the bulk index and schemas of the snapshot in dir, whose
// manifest m has verified every file: the index must agree with it (each
// file listed with the manifest's SHA-256, each schema in the manifest,
// each kind known), or the snapshot is to be refused. A snapshot without a
// bulk index in its manifest has no files (Index nil).
func Load(dir string, m *snapshots.Manifest) (*Loaded, error) {
	l := &Loaded{Files: map[string]*LoadedFile{}}
	bdir := filepath.Join(dir, Dir)
	ix, err := ReadIndex(bdir)
	if err != nil {
		if _, ok := m.Files[Dir+"/"+IndexFile]; !ok {
			return l, nil // built before bulk files
		}
		return nil, err
	}
	l.Index = ix
	for _, f := range ix.Files {
		if got := m.Files[Dir+"/"+f.Path]; got != f.SHA256 {
			return nil, fmt.Errorf("bulk file %s: the index says sha256 %s, the manifest %q", f.Path, f.SHA256, got)
		}
		if _, ok := m.Files[Dir+"/"+f.Schema]; !ok {
			return nil, fmt.Errorf("bulk schema %s is not in the manifest", f.Schema)
		}
		k, ok := KindOf(f.Kind)
		if !ok {
			return nil, fmt.Errorf("bulk file %s: unknown kind %q", f.Path, f.Kind)
		}
		schema, err := os.ReadFile(filepath.Join(bdir, f.Schema))
		if err != nil {
			return nil, err
		}
		sum, err := hex.DecodeString(f.SHA256)
		if err != nil || len(sum) != sha256.Size {
			return nil, fmt.Errorf("bulk file %s: sha256 %q is not a SHA-256 in hex", f.Path, f.SHA256)
		}
		ssum := sha256.Sum256(schema)
		l.Files[f.Name] = &LoadedFile{File: f, Kind: k, Path: filepath.Join(bdir, f.Path), Schema: schema,
			ETag: []byte(`"` + f.SHA256 + `"`), Digest: []byte("sha-256=:" + base64.StdEncoding.EncodeToString(sum) + ":"),
			SchemaETag: []byte(`"` + hex.EncodeToString(ssum[:]) + `"`)}
	}
	return l, nil
}

// Lookup returns the file of that name, or an ENOTFOUND error naming the
// files there are (nil l: none).
func (l *Loaded) Lookup(name string) (*LoadedFile, error) {
	if l != nil {
		if f := l.Files[name]; f != nil {
			return f, nil
		}
	}
	msg := "no bulk file " + strconv.Quote(name)
	if l == nil || l.Index == nil || len(l.Index.Files) == 0 {
		return nil, apperr.Errorf(apperr.ENOTFOUND, "%s; this snapshot has none", msg)
	}
	names := make([]string, len(l.Index.Files))
	for i, f := range l.Index.Files {
		names[i] = f.Name
	}
	return nil, apperr.Errorf(apperr.ENOTFOUND, "%s; the files are %s", msg, strings.Join(names, ", "))
}

// SourcesOf returns the catalog sources of names with their licenses
// (SourceOf), and whether every one declares a license (synthetic data
// needs none).
func SourcesOf(names []string) (sources []Source, licensed bool) {
	sources, licensed = []Source{}, true
	for _, name := range names {
		src := SourceOf(name)
		sources = append(sources, src)
		if src.License == nil && name != "synthetic" {
			licensed = false
		}
	}
	return sources, licensed
}
