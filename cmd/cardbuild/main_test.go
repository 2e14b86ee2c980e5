package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/builder"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/bolt"
)

// smallCatalog is the builder's 30-card test catalog.
var smallCatalog = filepath.Join("..", "..", "builder", "testdata", "feeds", "small")

// run runs Main in-process and returns its stdout, stderr and error.
func run(args ...string) (string, string, error) {
	var stdout, stderr bytes.Buffer
	err := Main(context.Background(), args, &stdout, &stderr)
	return stdout.String(), stderr.String(), err
}

// MustBuild builds a snapshot of the small catalog with id into root through
// Main and returns its directory.
func MustBuild(tb testing.TB, root, id string, extra ...string) string {
	tb.Helper()
	args := append([]string{"build", "--out", root, "--catalog", smallCatalog, "--preset", "default",
		"--seed", "7", "--as-of", "2026-11-20", "--id", id}, extra...)
	if _, stderr, err := run(args...); err != nil {
		tb.Fatalf("cardbuild build: %v\n%s", err, stderr)
	}
	return filepath.Join(root, id)
}

func TestMain_Build(t *testing.T) {
	root := t.TempDir()
	stdout, stderr, err := run("build", "--out", root, "--catalog", smallCatalog, "--preset", "default",
		"--seed", "7", "--as-of", "2026-11-20", "--id", "s1")
	if err != nil {
		t.Fatalf("build: %v\n%s", err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "snapshot s1: as_of 2026-11-20, 30 cards, ") || lines[1] != filepath.Join(root, "s1") {
		t.Errorf("stdout = %q, want the summary of s1 and its path", stdout)
	}
	for _, want := range []string{"build: catalog", "build: cards pokemon", "build: published snapshot s1"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not show progress %q:\n%s", want, stderr)
		}
	}
	if id, err := snapshots.ReadCurrent(root); err != nil || id != "s1" {
		t.Errorf("CURRENT = %q, %v; want s1", id, err)
	}

	t.Run("CatalogSource", func(t *testing.T) {
		_, stderr, err := run("build", "--out", root, "--catalog", smallCatalog, "--as-of", "2026-11-20", "--id", "s3",
			"--catalog-source", "pokemon-tcg-data="+filepath.Join("..", "..", "builder", "testdata", "pokemon-tcg-data"))
		if err != nil {
			t.Fatalf("build: %v\n%s", err, stderr)
		}
		if !strings.Contains(stderr, "card text of 2 catalog cards from pokemon-tcg-data (5 cards in") {
			t.Errorf("stderr does not say what the clone gave:\n%s", stderr)
		}
	})

	t.Run("Quiet", func(t *testing.T) {
		stdout, stderr, err := run("build", "--out", root, "--catalog", smallCatalog, "--as-of", "2026-11-20", "--id", "s2", "--quiet")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := stdout, filepath.Join(root, "s2")+"\n"; got != want || stderr != "" {
			t.Errorf("quiet build: stdout %q, stderr %q; want %q and nothing", got, stderr, want)
		}
	})
}

func TestMain_Build_MemStats(t *testing.T) {
	root := t.TempDir()
	prof := filepath.Join(t.TempDir(), "heap.prof")
	_, stderr, err := run("build", "--out", root, "--catalog", smallCatalog, "--preset", "default",
		"--seed", "7", "--as-of", "2026-11-20", "--id", "s1", "--quiet", "--memprofile", prof)
	if err != nil {
		t.Fatalf("build: %v\n%s", err, stderr)
	}
	for _, want := range []string{"memory: stage", "memory: market:pokemon", "memory: index", "memory: (build)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not show %q:\n%s", want, stderr)
		}
	}
	if fi, err := os.Stat(prof); err != nil || fi.Size() == 0 {
		t.Errorf("heap profile: %v, want a non-empty file", err)
	}
}

func TestMain_Verify(t *testing.T) {
	root := t.TempDir()
	dir := MustBuild(t, root, "s1")

	t.Run("OK", func(t *testing.T) {
		stdout, _, err := run("verify", dir)
		if err != nil || !strings.HasPrefix(stdout, "ok: snapshot s1 verifies") {
			t.Errorf("verify %s: %v, stdout %q", dir, err, stdout)
		}
	})
	t.Run("OKRoot", func(t *testing.T) { // a snapshots root verifies the one CURRENT names
		stdout, _, err := run("verify", root)
		if err != nil || !strings.HasPrefix(stdout, "ok: snapshot s1 verifies") {
			t.Errorf("verify %s: %v, stdout %q", root, err, stdout)
		}
	})
	t.Run("ErrFlippedByte", func(t *testing.T) {
		path := filepath.Join(dir, bolt.MarketFile)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/3] ^= 0x80
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		stdout, _, err := run("verify", dir)
		if !errors.Is(err, snapshots.ErrVerify) {
			t.Fatalf("verify: %v, want ErrVerify", err)
		}
		if !strings.Contains(err.Error(), bolt.MarketFile+": sha256") {
			t.Errorf("verify error %q does not name %s", err, bolt.MarketFile)
		}
		if stdout != "" {
			t.Errorf("stdout = %q, want nothing", stdout)
		}
	})
}

func TestMain_Report(t *testing.T) {
	root := t.TempDir()
	MustBuild(t, root, "s1")
	stdout, stderr, err := run("report", root) // a snapshots root reports on CURRENT
	if err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	for _, want := range []string{"snapshot s1 (preset default, seed 7, market synthetic)", "== pokemon", "== onepiece",
		"leaderboards (metric x window, language all, top 50)", "rows meeting the liquidity rule", "graded ladders",
		"single-sale fmv moves in thin series", "1st-edition printings", "== chase cards", "en:base1-4"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report does not show %q:\n%s", want, stdout)
		}
	}
}

func TestMain_Err(t *testing.T) {
	root := t.TempDir()
	for _, tt := range []struct {
		name string
		args []string
		want string // in the error
	}{
		{"NoCommand", nil, "no command"},
		{"UnknownCommand", []string{"serve"}, `unknown command "serve"`},
		{"BuildNoOut", []string{"build"}, "--out is required"},
		{"BuildBadAsOf", []string{"build", "--out", root, "--as-of", "20261120"}, "--as-of"},
		{"BuildBadPreset", []string{"build", "--out", root, "--catalog", smallCatalog, "--preset", "huge"}, "huge"},
		{"BuildBadID", []string{"build", "--out", root, "--catalog", smallCatalog, "--id", "../x"}, "invalid snapshot id"},
		{"BuildArgument", []string{"build", "--out", root, "extra"}, `unexpected argument "extra"`},
		{"BuildUnknownFlag", []string{"build", "--nope"}, "flag provided but not defined"},
		{"BuildNoCatalog", []string{"build", "--out", root, "--catalog", t.TempDir()}, "no sets.jsonl"},
		{"BuildCatalogSourceUnknown", []string{"build", "--out", root, "--catalog-source", "tcgdex=x"}, `unknown catalog source "tcgdex" (known: pokemon-tcg-data)`},
		{"BuildCatalogSourceNoDir", []string{"build", "--out", root, "--catalog-source", "pokemon-tcg-data"}, "want NAME=DIR"},
		{"BuildCatalogSourceMissing", []string{"build", "--out", root, "--catalog", smallCatalog, "--catalog-source", "pokemon-tcg-data=" + t.TempDir()}, "pokemon-tcg-data: "},
		{"VerifyNoDir", []string{"verify"}, "want one snapshot directory"},
		{"VerifyMissing", []string{"verify", filepath.Join(root, "nope")}, "read manifest"},
		{"ReportNoDir", []string{"report"}, "want one snapshot directory"},
		{"ReportMissing", []string{"report", filepath.Join(root, "nope")}, "read manifest"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := run(tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Main(%q) = %v, want an error containing %q", tt.args, err, tt.want)
			}
		})
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("failed commands left %d entries in --out", len(entries))
	}
}

// TestMain_ErrFeed: a bad market feed fails the build with the *FeedError.
func TestMain_ErrFeed(t *testing.T) {
	root := t.TempDir()
	feed := filepath.Join("..", "..", "builder", "testdata", "feeds", "bad_unknown_card")
	_, _, err := run("build", "--out", root, "--catalog", smallCatalog, "--market", feed)
	var fe *builder.FeedError
	if !errors.As(err, &fe) || fe.Field != "card_id" || fe.Line != 2 {
		t.Fatalf("build with a bad feed: %v, want a *FeedError on card_id at line 2", err)
	}
}

func TestMain_Help(t *testing.T) {
	stdout, _, err := run("help")
	if err != nil || !strings.Contains(stdout, "cardbuild build --out DIR") {
		t.Errorf("help: %v, stdout %q", err, stdout)
	}
	stdout, _, err = run("version")
	if err != nil || strings.TrimSpace(stdout) != version {
		t.Errorf("version: %v, stdout %q, want %q", err, stdout, version)
	}
	_, _, err = run("build", "-h")
	if !errors.Is(err, flag.ErrHelp) {
		t.Errorf("build -h = %v, want flag.ErrHelp", err)
	}
}

// TestMain_Sources builds from the sources' fixtures through the command
// line, prints the per-source summary, the reports and a backfill.
func TestMain_Sources(t *testing.T) {
	fixtures := filepath.Join("..", "..", "builder", "testdata", "sources")
	root, hist, reports := t.TempDir(), t.TempDir(), t.TempDir()
	common := []string{"build", "--out", root, "--catalog", filepath.Join(fixtures, "catalog"), "--history", hist, "--reports", reports,
		"--rates", filepath.Join(fixtures, "ecb", "eurofxref-hist.csv"), "--contact", "ops@example.com"}
	stdout, stderr, err := run(append(common, "--id", "d1",
		"--source", "cardmarket="+filepath.Join(fixtures, "cardmarket", "price_guide_6-2026-11-19.json"),
		"--source", "tcgplayer="+filepath.Join(fixtures, "tcgplayer", "day1"))...)
	if err != nil {
		t.Fatalf("build: %v\n%s", err, stderr)
	}
	for _, want := range []string{"snapshot d1: as_of 2026-11-19", "cardmarket  2026-11-19  1     false  10    8 (80.0 %)", "tcgplayer   2026-11-19  1     false  17"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	// A truncated file: refused, said on stderr, the build goes on.
	stdout, stderr, err = run(append(common, "--id", "d2", "--quiet",
		"--source", "cardmarket="+filepath.Join(fixtures, "cardmarket", "truncated-2026-11-21.json"),
		"--source", "tcgplayer="+filepath.Join(fixtures, "tcgplayer", "day2"))...)
	if err != nil {
		t.Fatalf("build: %v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "cardbuild: source cardmarket refused (the history serves)") || !strings.Contains(stdout, filepath.Join(root, "d2")) {
		t.Errorf("refused build: stdout %q, stderr %q", stdout, stderr)
	}
	stdout, _, err = run("report", filepath.Join(root, "d2"))
	if err != nil || !strings.Contains(stdout, "market sources") || !strings.Contains(stdout, "truncated-2026-11-21.json: refused") {
		t.Errorf("report: %v\n%s", err, stdout)
	}
	stdout, _, err = run("report", "--reports", reports)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cardmarket 2026-11-19", "matched by id          8 (80.0 %)", "tcgplayer 2026-11-20", "no card has this idProduct"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report --reports lacks %q:\n%s", want, stdout)
		}
	}
	stdout, stderr, err = run("backfill", "--history", hist, "--source", "tcgplayer="+filepath.Join(fixtures, "tcgplayer", "archive"))
	if err != nil || !strings.Contains(stdout, "1 days filed or already there, 0 inputs refused") || !strings.Contains(stderr, "tcgplayer 2026-11-18 filed") {
		t.Errorf("backfill: %v\n%s\n%s", err, stdout, stderr)
	}
	if _, _, err := run("build", "--out", root, "--source", "ebay=x"); err == nil || !strings.Contains(err.Error(), `unknown source "ebay"`) {
		t.Errorf("unknown source: %v", err)
	}
}

// TestMain_DryRun: build --dry-run checks the flags and the sources'
// options, prints the plan and writes nothing.
func TestMain_DryRun(t *testing.T) {
	root := filepath.Join(t.TempDir(), "snapshots")
	stdout, stderr, err := run("build", "--out", root, "--dry-run", "--history", "s3://bucket/history", "--contact", "ops@example.com",
		"--catalog", smallCatalog, "--rates", "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip",
		"--source", "cardmarket=https://downloads.s3.cardmarket.com/productCatalog/priceGuide,guides=6+18",
		"--source", "tcgplayer=https://tcgcsv.com,categories=3+85+68", "--publish", "s3://bucket/snapshots")
	if err != nil {
		t.Fatalf("dry run: %v\n%s", err, stderr)
	}
	for _, want := range []string{"dry run: a build into " + root, "source cardmarket: https://downloads.s3.cardmarket.com/productCatalog/priceGuide, guides=6+18",
		"source tcgplayer: https://tcgcsv.com, categories=3+85+68", fmt.Sprintf("history: s3://bucket/history (%d days)", builder.DefaultHistoryDays), "then published to s3://bucket/snapshots"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("plan lacks %q:\n%s", want, stdout)
		}
	}
	if _, err := os.Stat(root); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dry run made %s: %v", root, err)
	}
	if strings.Contains(stdout, "warning:") {
		t.Errorf("a plan with a contact, rates and a catalog warns:\n%s", stdout)
	}
	// What the build would miss without failing at once is said.
	stdout, stderr, err = run("build", "--out", root, "--dry-run", "--catalog", filepath.Join(root, "no-catalog"),
		"--source", "cardmarket=https://downloads.s3.cardmarket.com/productCatalog/priceGuide,guides=6+18")
	if err != nil {
		t.Fatalf("dry run: %v\n%s", err, stderr)
	}
	for _, want := range []string{"warning: no --contact", "warning: no --rates", "warning: catalog " + filepath.Join(root, "no-catalog")} {
		if !strings.Contains(stdout, want) {
			t.Errorf("plan lacks %q:\n%s", want, stdout)
		}
	}
	for _, args := range [][]string{
		{"--source", "tcgplayer=https://tcgcsv.com,categorys=3"},
		{"--source", "ebay=sold.csv"},
		{"--publish", "http://bucket"},
		{"--no-such-flag"},
	} {
		if _, _, err := run(append([]string{"build", "--out", root, "--dry-run"}, args...)...); err == nil {
			t.Errorf("dry run with %v: no error", args)
		}
	}
}
