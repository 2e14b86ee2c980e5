package bulk_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/bulk"
	"github.com/cardedge/cardedge/bulk/bulktest"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

var tiny *snapshotstest.Tiny

func TestMain(m *testing.M) {
	os.Exit(snapshotstest.RunTiny(m, func(t *snapshotstest.Tiny) { tiny = t }))
}

// mustWrite writes the tiny snapshot's bulk files into a new directory.
func mustWrite(tb testing.TB, workers int) (string, *bulk.Index) {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "bulk")
	ix, err := bulk.Write(context.Background(), tiny.Reader, dir, bulk.Options{Workers: workers})
	if err != nil {
		tb.Fatal(err)
	}
	return dir, ix
}

// TestWrite_Files checks every file against the index (size, SHA-256, rows)
// and every row against the file's schema.
func TestWrite_Files(t *testing.T) {
	dir, ix := mustWrite(t, 0)
	got, err := bulk.ReadIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Files) != 8 || got.AsOf != snapshotstest.AsOf || got.MarketSource != "synthetic" {
		t.Fatalf("index: %d files, as_of %s, market %s", len(got.Files), got.AsOf, got.MarketSource)
	}
	for i, f := range got.Files {
		if !equalFile(f, ix.Files[i]) {
			t.Errorf("index on disk differs from Write's for %s", f.Name)
		}
		b, err := os.ReadFile(filepath.Join(dir, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if int64(len(b)) != f.Size || hex.EncodeToString(sum[:]) != f.SHA256 {
			t.Errorf("%s: %d bytes sha256 %x, index says %d bytes %s", f.Name, len(b), sum, f.Size, f.SHA256)
		}
		schema, err := os.ReadFile(filepath.Join(dir, f.Schema))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := bulktest.Check(schema, bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if rows != f.Rows || rows == 0 {
			t.Errorf("%s: %d rows, index says %d", f.Name, rows, f.Rows)
		}
		if len(f.Sources) == 0 {
			t.Errorf("%s: no sources", f.Name)
		}
		for _, s := range f.Sources {
			if _, ok := bulk.Sources[s]; !ok {
				t.Errorf("%s: source %q has no license record", f.Name, s)
			}
		}
		// gzip header: no name, no modification time.
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if zr.Name != "" || !zr.ModTime.IsZero() {
			t.Errorf("%s: gzip header has name %q, mtime %v", f.Name, zr.Name, zr.ModTime)
		}
	}
}

func equalFile(a, b bulk.File) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// TestWrite_Deterministic writes twice, with one worker and with several:
// the same bytes.
func TestWrite_Deterministic(t *testing.T) {
	a, _ := mustWrite(t, 1)
	b, _ := mustWrite(t, 4)
	entries, err := os.ReadDir(a)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 17 { // 8 files, 8 schemas, the index
		t.Errorf("%d files in %s, want 17", len(entries), a)
	}
	for _, e := range entries {
		x, _ := os.ReadFile(filepath.Join(a, e.Name()))
		y, err := os.ReadFile(filepath.Join(b, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two writes", e.Name())
		}
	}
}

// TestWrite_Rows checks what the rows say against the reader: every card
// once in cards, every estimate in prices, history within the year with
// the opening row carried.
func TestWrite_Rows(t *testing.T) {
	dir, ix := mustWrite(t, 0)
	asOf := tiny.AsOf
	for _, game := range tiny.Reader.Manifest().Games {
		cards, _ := tiny.Reader.Cards(game)
		sets, _ := tiny.Reader.Sets(game)
		var estimates int
		for _, c := range cards {
			ps, err := tiny.Reader.Printings(game, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				estimates += len(p.Estimates)
			}
		}
		for kind, want := range map[string]int{"cards": len(cards), "sets": len(sets), "prices": estimates} {
			f, _ := ix.File(bulk.FileName(game, kind))
			if f.Rows != int64(want) {
				t.Errorf("%s: %d rows, want %d", f.Name, f.Rows, want)
			}
		}
		f, _ := ix.File(bulk.FileName(game, "price-history"))
		from := (asOf - bulk.HistoryDays + 1).String()
		var carried, prev int
		var last struct{ key, date string }
		for _, line := range readLines(t, filepath.Join(dir, f.Path)) {
			var row struct {
				CardID      string  `json:"card_id"`
				Finish      *string `json:"finish"`
				Grade       string  `json:"grade"`
				Date        string  `json:"date"`
				CarriedFrom *string `json:"carried_from"`
			}
			if err := json.Unmarshal([]byte(line), &row); err != nil {
				t.Fatal(err)
			}
			key := row.CardID + "|" + row.Grade
			if row.Finish != nil {
				key += "|" + *row.Finish
			}
			if row.Date < from || row.Date > asOf.String() {
				t.Fatalf("%s: row dated %s outside [%s, %s]", f.Name, row.Date, from, asOf)
			}
			if key == last.key && row.Date <= last.date {
				t.Fatalf("%s: %s: %s after %s", f.Name, key, row.Date, last.date)
			}
			if row.CarriedFrom != nil {
				carried++
				if row.Date != from || *row.CarriedFrom >= from || key == last.key {
					t.Errorf("%s: carried row %s on %s from %s", f.Name, key, row.Date, *row.CarriedFrom)
				}
			}
			last.key, last.date = key, row.Date
			prev++
		}
		if carried == 0 {
			t.Errorf("%s: no series carried into the year (two years of history)", f.Name)
		}
		t.Logf("%s: %d rows, %d carried", f.Name, prev, carried)
	}
}

func readLines(tb testing.TB, path string) []string {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// TestWrite_ErrCanceled: a canceled write leaves no index.
func TestWrite_ErrCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	if _, err := bulk.Write(ctx, tiny.Reader, dir, bulk.Options{}); err == nil {
		t.Fatal("a canceled write succeeded")
	}
	if _, err := bulk.ReadIndex(dir); err == nil {
		t.Error("a canceled write left an index")
	}
}

// TestSchema_Valid: every schema is a 2020-12 schema with its $id.
func TestSchema_Valid(t *testing.T) {
	for _, game := range []string{"pokemon", "onepiece"} {
		for _, k := range bulk.Kinds {
			b, err := bulk.Schema(game, k.Name)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := bulktest.Compile(b); err != nil {
				t.Errorf("%s %s: %v", game, k.Name, err)
			}
			if !bytes.Contains(b, []byte(bulk.SchemaID(game, k.Name))) {
				t.Errorf("%s %s: no $id", game, k.Name)
			}
		}
	}
	if _, err := bulk.Schema("pokemon", "nope"); err == nil {
		t.Error("a schema for an unknown kind")
	}
}
