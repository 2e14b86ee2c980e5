package builder_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/builder"
	"github.com/cardedge/cardedge/builder/history"
	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/builder/source/sourcetest"
)

// TestMapVersion: what the sources' Map make of every fixture day is
// pinned by a digest, recorded with source.MapVersion in
// testdata/sources/mapped.golden. A change of what they give without a new
// MapVersion would let history stores serve days mapped by the old code:
// bump source.MapVersion, then rewrite the file with -update.
func TestMapVersion(t *testing.T) {
	cat := sourcetest.MustCatalog(t)
	f := source.NewFetcher("test", "c", "")
	read := func(src, loc string, opts map[string]string) *source.Day {
		t.Helper()
		s, err := builder.SourceByName(src)
		if err != nil {
			t.Fatal(err)
		}
		if opts == nil {
			opts = map[string]string{}
		}
		d, err := s.Read(context.Background(), f, source.Input{Source: src, Location: loc, Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	day2 := read("tcgplayer", sourcetest.Path("tcgplayer", "day2"), nil)
	days := []struct {
		d, latest *source.Day
	}{
		{read("cardmarket", sourcetest.Path("cardmarket", "price_guide_6-2026-11-19.json"), nil), nil},
		{read("cardmarket", sourcetest.Path("cardmarket", "price_guide_6-2026-11-20.json"), nil), nil},
		{read("tcgplayer", sourcetest.Path("tcgplayer", "day1"), nil), nil},
		{day2, nil},
		{read("tcgplayer", sourcetest.Path("tcgplayer", "archive", "2026-11-18"), nil), day2},
		{read("pricecharting", sourcetest.Path("pricecharting", "price-guide.csv"), map[string]string{"day": "2026-11-20"}), nil},
		{read("soldlistings", sourcetest.Path("soldlistings", "ebay-sold.csv"), map[string]string{"day": "2026-11-20"}), nil},
	}
	h := sha256.New()
	n := 0
	for _, x := range days {
		latest := x.latest
		if latest == nil {
			latest = x.d
		}
		s, _ := builder.SourceByName(x.d.Source)
		obs, _ := s.Map(x.d, latest, cat)
		for _, o := range obs {
			fmt.Fprintf(h, "%s|%s|%d|%s|%s|%s|%d|%s|%s|%s|%d|%d|%d|%s|%s\n", o.Source, o.Card.ID, o.Finish, o.Grade, o.Day, o.Field, o.Amount,
				o.Currency, o.Product, o.Match, o.Confidence, o.Marketplace, o.TradeType, o.URL, o.Title)
		}
		n += len(obs)
	}
	got := fmt.Sprintf("map_version %d\nobservations %d\nsha256 %s\n", source.MapVersion, n, hex.EncodeToString(h.Sum(nil)))
	path := sourcetest.Path("mapped.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got == string(want) {
		return
	}
	if !strings.HasPrefix(string(want), fmt.Sprintf("map_version %d\n", source.MapVersion)) {
		t.Fatalf("source.MapVersion is %d, %s records another: run go test ./builder -run TestMapVersion -update\n%s", source.MapVersion, path, got)
	}
	t.Fatalf("the sources' Map give the fixtures other observations than %s records, with the same source.MapVersion (%d): "+
		"bump source.MapVersion (history stores then map their days again), then go test ./builder -run TestMapVersion -update\ngot:\n%swant:\n%s",
		path, source.MapVersion, got, want)
}

var mappedNote = regexp.MustCompile(`history: (\w+): (\d+) older days read mapped, (\d+) mapped from their raw day`)

// mappedCounts returns, per source, the older days a build read mapped and
// those it mapped from their raw day, from its progress notes.
func mappedCounts(progress string) map[string]string {
	out := map[string]string{}
	for _, m := range mappedNote.FindAllStringSubmatch(progress, -1) {
		out[m[1]] = m[2] + " read, " + m[3] + " mapped"
	}
	return out
}

// TestCompile_SourcesMapped: a build maps only the days it has not mapped
// before: the older days come from their mapped days on file, and the
// snapshot is the one a build mapping every day from its raw day makes
// (the same content digest). A missing or corrupt mapped day is mapped
// again and filed; a changed catalog maps every day again.
func TestCompile_SourcesMapped(t *testing.T) {
	sb := newSourcesBuild(t)
	sb.mustBuild(t, []string{cm("price_guide_6-2026-11-19.json"), tcg("day1")}, nil)
	sb.mustBuild(t, []string{cm("price_guide_6-2026-11-20.json"), tcg("day2")}, nil)
	var progress bytes.Buffer
	withProgress := func(o *builder.Options) { progress.Reset(); o.Progress = &progress }

	// The store alone: day 1 of each source is an older day, read mapped.
	warm, _ := sb.mustBuild(t, nil, withProgress)
	if got := mappedCounts(progress.String()); got["cardmarket"] != "1 read, 0 mapped" || got["tcgplayer"] != "1 read, 0 mapped" {
		t.Errorf("warm build: %v\n%s", got, progress.String())
	}
	mappedDir := filepath.Join(sb.history, history.MappedDir)
	files, _ := filepath.Glob(filepath.Join(mappedDir, "*", "*.obs.gz"))
	if len(files) != 4 {
		t.Errorf("mapped days on file: %v, want 2 per source", files)
	}

	// Without the mapped days: mapped from the raw days, the same snapshot.
	if err := os.RemoveAll(mappedDir); err != nil {
		t.Fatal(err)
	}
	cold, _ := sb.mustBuild(t, nil, withProgress)
	if got := mappedCounts(progress.String()); got["cardmarket"] != "0 read, 1 mapped" || got["tcgplayer"] != "0 read, 1 mapped" {
		t.Errorf("cold build: %v", got)
	}
	if cold.ContentDigest != warm.ContentDigest {
		t.Errorf("content digest %s from mapped days, %s from raw days", warm.ContentDigest, cold.ContentDigest)
	}

	// A corrupt mapped day: mapped again, said, the same snapshot.
	files, _ = filepath.Glob(filepath.Join(mappedDir, "cardmarket", "2026-11-19.*.obs.gz"))
	if len(files) != 1 {
		t.Fatalf("mapped cardmarket 2026-11-19: %v", files)
	}
	os.Chmod(files[0], 0o644)
	if err := os.WriteFile(files[0], []byte("not gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	again, _ := sb.mustBuild(t, nil, withProgress)
	if got := mappedCounts(progress.String()); got["cardmarket"] != "0 read, 1 mapped" || !strings.Contains(progress.String(), "does not match its checksum") {
		t.Errorf("corrupt mapped day: %v\n%s", got, progress.String())
	}
	if again.ContentDigest != warm.ContentDigest {
		t.Error("content digest changed after a corrupt mapped day")
	}

	// Another catalog (a card renamed): every day mapped again, the old
	// mappings replaced.
	catDir := t.TempDir()
	for _, name := range []string{"cards.jsonl", "sets.jsonl"} {
		b, err := os.ReadFile(sourcetest.Path("catalog", name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "cards.jsonl" {
			b = bytes.Replace(b, []byte(`"name":"Blastoise"`), []byte(`"name":"Blastoise!"`), 1)
		}
		if err := os.WriteFile(filepath.Join(catDir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sb.mustBuild(t, nil, func(o *builder.Options) { withProgress(o); o.CatalogDir = catDir })
	if got := mappedCounts(progress.String()); got["cardmarket"] != "0 read, 1 mapped" || got["tcgplayer"] != "0 read, 1 mapped" {
		t.Errorf("another catalog: %v", got)
	}
	files, _ = filepath.Glob(filepath.Join(mappedDir, "*", "*.obs.gz"))
	if len(files) != 4 {
		t.Errorf("mapped days on file after another catalog: %v, want 2 per source", files)
	}
}
