package tcgcsv_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/builder/source/sourcetest"
	"github.com/cardedge/cardedge/builder/source/tcgcsv"
	"github.com/cardedge/cardedge/snapshots"
)

func read(tb testing.TB, loc string, opts map[string]string) (*source.Day, error) {
	tb.Helper()
	f := source.NewFetcher("test", "test@example.com", "")
	f.Retries = 0
	if opts == nil {
		opts = map[string]string{}
	}
	return tcgcsv.Source{}.Read(context.Background(), f, source.Input{Source: "tcgplayer", Location: loc, Options: opts})
}

func mustRead(tb testing.TB, loc string) *source.Day {
	tb.Helper()
	d, err := read(tb, loc, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

func TestRead_OK(t *testing.T) {
	d := mustRead(t, sourcetest.Path("tcgplayer", "day1"))
	if got, want := d.Date.String(), "2026-11-19"; got != want {
		t.Errorf("day %s, want %s", got, want)
	}
	// 3: 6 + 2 + 2 rows and one refused; 68: 5; 85: 1.
	if got, want := len(d.Rows), 16; got != want {
		t.Errorf("%d rows, want %d", got, want)
	}
	if len(d.Rejected) != 1 || d.Rejected[0].Reason != "bad field type" {
		t.Errorf("rejected %+v, want the productId \"x\" result", d.Rejected)
	}
	want := source.Row{Product: "42382", Category: "3", Group: "604", Set: "Base Set", SetCode: "BS", Name: "Charizard", Number: "4/102",
		Printing: "Holofoil", Currency: "USD", Prices: map[string]int64{"market": 35000, "low": 30000, "mid": 36000, "high": 50000}}
	if diff := cmp.Diff(want, d.Rows[0]); diff != "" {
		t.Errorf("first row (-want +got):\n%s", diff)
	}
}

// TestRead_BOMCRLF: day 2 has a byte order mark and CRLF line ends in some
// files, and a null marketPrice.
func TestRead_BOMCRLF(t *testing.T) {
	d := mustRead(t, sourcetest.Path("tcgplayer", "day2"))
	if got, want := d.Date.String(), "2026-11-20"; got != want {
		t.Errorf("day %s, want %s", got, want)
	}
	for _, r := range d.Rows {
		if r.Product == "42360" {
			if _, ok := r.Prices["market"]; ok || r.Prices["low"] != 15000 {
				t.Errorf("42360: prices %v, want no market (null) and low 15000", r.Prices)
			}
			if r.Name != "Blastoise" {
				t.Errorf("42360: name %q from the products file with a BOM", r.Name)
			}
		}
	}
}

// copyDir copies a fixture directory into a temp dir a test may spoil.
func copyDir(tb testing.TB, src string) string {
	tb.Helper()
	dst := tb.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		tb.Fatal(err)
	}
	return dst
}

func TestRead_ErrRefused(t *testing.T) {
	for _, tt := range []struct {
		name  string
		spoil func(dir string) error
		want  string
	}{
		{"NoLastUpdated", func(dir string) error { return os.Remove(filepath.Join(dir, "last-updated.txt")) }, "no last-updated.txt"},
		{"BadLastUpdated", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "last-updated.txt"), []byte("soon"), 0o644)
		}, `last-updated.txt "soon"`},
		{"MissingPrices", func(dir string) error { return os.Remove(filepath.Join(dir, "tcgplayer/3/604/prices")) }, "the mirror is incomplete"},
		{"TruncatedPrices", func(dir string) error {
			p := filepath.Join(dir, "tcgplayer/3/22873/prices")
			b, _ := os.ReadFile(p)
			return os.WriteFile(p, b[:len(b)/2], 0o644)
		}, "not whole JSON"},
		{"SuccessFalse", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "tcgplayer/68/groups"), []byte(`{"success":false,"errors":["rate limited"],"results":[]}`), 0o644)
		}, `success is not true (errors: "rate limited")`},
		{"ResultsNotArray", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "tcgplayer/85/23400/prices"), []byte(`{"success":true,"errors":[],"results":{}}`), 0o644)
		}, "results is not an array"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyDir(t, sourcetest.Path("tcgplayer", "day1"))
			if err := tt.spoil(dir); err != nil {
				t.Fatal(err)
			}
			d, err := read(t, dir, nil)
			if err == nil {
				t.Fatalf("accepted: %d rows", len(d.Rows))
			}
			if !errors.Is(err, source.ErrRefused) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q, want a refusal containing %q", err, tt.want)
			}
		})
	}
	t.Run("DayOption", func(t *testing.T) {
		dir := copyDir(t, sourcetest.Path("tcgplayer", "day1"))
		os.Remove(filepath.Join(dir, "last-updated.txt"))
		d, err := read(t, dir, map[string]string{"day": "2026-11-19"})
		if err != nil || d.Date.String() != "2026-11-19" {
			t.Fatalf("day option: %v, %v", d, err)
		}
	})
	t.Run("UnknownOption", func(t *testing.T) {
		if _, err := read(t, sourcetest.Path("tcgplayer", "day1"), map[string]string{"currency": "EUR"}); err == nil || !strings.Contains(err.Error(), "unknown option currency") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("Categories", func(t *testing.T) {
		d, err := read(t, sourcetest.Path("tcgplayer", "day1"), map[string]string{"categories": "68"})
		if err != nil || len(d.Rows) != 5 {
			t.Fatalf("categories=68: %v rows, %v", d, err)
		}
		if _, err := read(t, sourcetest.Path("tcgplayer", "day1"), map[string]string{"categories": "1"}); err == nil {
			t.Fatal("categories=1 accepted")
		}
	})
}

// TestRead_URL reads the same layout over HTTP: the User-Agent names
// cardedge and the contact, a second read is conditional and served from
// the cache, a 503 is retried.
func TestRead_URL(t *testing.T) {
	dir := sourcetest.Path("tcgplayer", "day1")
	var requests, conditional, failed atomic.Int64
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if ua := r.Header.Get("User-Agent"); ua != "cardedge/test (+ops@example.com)" {
			http.Error(w, "bad user agent "+ua, http.StatusForbidden)
			return
		}
		if r.URL.Path == "/tcgplayer/3/groups" && failed.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		if r.Header.Get("If-Modified-Since") != "" {
			conditional.Add(1)
		}
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	f := source.NewFetcher("test", "ops@example.com", t.TempDir())
	f.Backoff = 0
	in := source.Input{Source: "tcgplayer", Location: srv.URL, Options: map[string]string{"categories": "3+85+68"}}
	d1, err := tcgcsv.Source{}.Read(context.Background(), f, in)
	if err != nil {
		t.Fatal(err)
	}
	first := requests.Load()
	d2, err := tcgcsv.Source{}.Read(context.Background(), f, in)
	if err != nil {
		t.Fatal(err)
	}
	if d1.Digest != d2.Digest || len(d2.Rows) != 16 {
		t.Errorf("second read differs: %d rows, digests %s %s", len(d2.Rows), d1.Digest, d2.Digest)
	}
	if got := conditional.Load(); got != requests.Load()-first {
		t.Errorf("%d of the second read's %d requests were conditional, want all", got, requests.Load()-first)
	}
	if failed.Load() < 2 {
		t.Errorf("the 503 was not retried")
	}
}

func TestRead_Archive(t *testing.T) {
	d := mustRead(t, sourcetest.Path("tcgplayer", "archive", "2026-11-18"))
	if d.Date.String() != "2026-11-18" || len(d.Rows) != 2 || d.Rows[0].Name != "" {
		t.Fatalf("archive day: %s, %d rows, %+v", d.Date, len(d.Rows), d.Rows)
	}
	days, err := tcgcsv.ArchiveDays(sourcetest.Path("tcgplayer", "archive"))
	if err != nil || len(days) != 1 {
		t.Fatalf("ArchiveDays: %v, %v", days, err)
	}
}

func TestMap(t *testing.T) {
	cat := sourcetest.MustCatalog(t)
	d := mustRead(t, sourcetest.Path("tcgplayer", "day1"))
	obs, rep := tcgcsv.Source{}.Map(d, d, cat)
	type o = sourcetest.Obs
	day := "2026-11-19"
	fields := []string{"market", "low", "mid", "high", "direct_low"}
	obsOf := func(card, variant, product, match string, v ...int64) []o {
		var out []o
		for i, f := range fields {
			if i < len(v) && v[i] >= 0 {
				out = append(out, o{Card: card, Variant: variant, Grade: "raw:near_mint", Field: f, Day: day, Amount: v[i], Currency: "USD", Product: product, Match: match})
			}
		}
		return out
	}
	var want []o
	want = append(want, obsOf("en:base1-4", "holo/unlimited", "42382", "id", 35000, 30000, 36000, 50000)...)
	want = append(want, obsOf("en:base1-4", "holo/shadowless/1st-edition", "106999", "id", 500000, 450000, 520000, 900000)...)
	want = append(want, obsOf("en:base1-4", "holo/shadowless", "106999", "id", 120000, 100000, 125000, 200000)...)
	want = append(want, obsOf("en:base1-2", "holo/unlimited", "42360", "id", 18000, 15000, 18500, 30000)...)
	// 88888 is not in the catalog: by set and number it is Blastoise,
	// whose holo/unlimited 42360 already priced: dropped.
	want = append(want, obsOf("en:sv1-6", "normal", "487836", "id", 12, 5, 15, 200, 10)...)
	want = append(want, obsOf("en:sv1-6", "reverse", "487836", "id", 40, 20, 45, 300)...)
	want = append(want, obsOf("en:xy1-1", "", "90324", "id", 600, 500, 650, 2000)...)
	// One Piece by number and name; the parallel by its words.
	want = append(want, obsOf("en:OP01-001", "normal", "453001", "number_name", 150, 100, 175, 500)...)
	want = append(want, obsOf("en:OP01-001_p1", "alternate-art", "453002", "number_name", 2500, 2000, 2700, 6000)...)
	want = append(want, obsOf("en:OP01-002", "normal", "453003", "number_name", 75, 50, 80, 200)...)
	want = append(want, obsOf("en:OP01-002_p1", "alternate-art", "453004", "number_name", 3000, 2500, 3200, 8000)...)
	// Category 85: the Japanese card, not the Traditional Chinese one sharing the id.
	want = append(want, obsOf("ja:SV1S-001", "normal", "567118", "id", 10, 5, 10, 100)...)
	if diff := cmp.Diff(want, sourcetest.Flatten(obs)); diff != "" {
		t.Errorf("observations (-want +got):\n%s", diff)
	}
	if got, want := [7]int{rep.Read, rep.ByID, rep.ByNumberName, rep.Ambiguous, rep.Unmatched, rep.Rejected, rep.Observations},
		[7]int{17, 9, 5, 0, 2, 1, len(want)}; got != want {
		t.Errorf("[read id number ambiguous unmatched rejected observations] = %v, want %v", got, want)
	}
	wantReasons := map[string]int{"bad field type": 1, "no card with this number": 2, "no printing for subTypeName": 2}
	if diff := cmp.Diff(wantReasons, rep.Reasons); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
}

// TestMap_Archive: an archive day's bare price rows take their names from
// the latest day.
func TestMap_Archive(t *testing.T) {
	cat := sourcetest.MustCatalog(t)
	d := mustRead(t, sourcetest.Path("tcgplayer", "archive", "2026-11-18"))
	latest := mustRead(t, sourcetest.Path("tcgplayer", "day1"))
	obs, rep := tcgcsv.Source{}.Map(d, latest, cat)
	var got []string
	for _, o := range obs {
		if o.Field == "market" {
			got = append(got, o.Card.ID+" "+o.Day.String()+" "+source.FormatAmount(o.Amount))
		}
	}
	if diff := cmp.Diff([]string{"en:base1-4 2026-11-18 340.00", "en:OP01-001_p1 2026-11-18 24.00"}, got); diff != "" {
		t.Errorf("archive observations (-want +got):\n%s", diff)
	}
	if rep.Matched() != 2 {
		t.Errorf("matched %d, want 2", rep.Matched())
	}
	// Without the latest day the One Piece row has no name: unmatched.
	_, rep = tcgcsv.Source{}.Map(d, d, cat)
	if rep.ByID != 1 || rep.Unmatched != 1 {
		t.Errorf("alone: %d by id, %d unmatched, want 1 and 1", rep.ByID, rep.Unmatched)
	}
}

func TestPrintingOf(t *testing.T) {
	cat := sourcetest.MustCatalog(t)
	for _, tt := range []struct {
		card, subType string
		product       int64
		want          int
	}{
		{"en:base1-4", "Holofoil", 42382, 0},
		{"en:base1-4", "Unlimited Holofoil", 42382, 0},
		{"en:base1-4", "1st Edition Holofoil", 106999, 1},
		{"en:base1-4", "Holofoil", 106999, 2},
		{"en:base1-4", "Reverse Holofoil", 42382, -1},
		{"en:sv1-6", "Normal", 487836, 1},
		{"en:sv1-6", "Reverse Holofoil", 487836, 0},
		{"en:sv1-6", "Holofoil", 487836, -1},
		{"en:xy1-1", "Holofoil", 90324, 0},
		{"en:xy1-1", "Reverse Holofoil", 90324, -1},
		{"ja:SV1S-001", "Holofoil", 567118, 0}, // one non-reverse printing: TCGplayer's word aside
	} {
		c := sourcetest.Card(t, cat, tt.card)
		if got, _ := tcgcsv.PrintingOf(c, c.PrintingsOf(snapshots.MarketIDTCGplayer, tt.product), tt.subType); got != tt.want {
			t.Errorf("%s %d %q: printing %d, want %d", tt.card, tt.product, tt.subType, got, tt.want)
		}
	}
}

// FuzzParsePrices: no panic; a refusal wraps source.ErrRefused; accepted
// rows have a positive productId, a subTypeName and amounts in bounds.
func FuzzParsePrices(f *testing.F) {
	paths, _ := filepath.Glob(sourcetest.Path("tcgplayer", "day*", "tcgplayer", "*", "*", "prices"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"success":true,"errors":[],"results":[{"productId":1,"marketPrice":1e999,"subTypeName":"Normal"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, rejected, err := tcgcsv.ParsePrices(b)
		if err != nil {
			if !errors.Is(err, source.ErrRefused) {
				t.Fatalf("error %v does not wrap ErrRefused", err)
			}
			return
		}
		_ = rejected
		for _, r := range rows {
			if r.Product == "" || r.Product[0] == '-' || r.Product == "0" || r.Printing == "" {
				t.Fatalf("row %+v", r)
			}
			for k, v := range r.Prices {
				if v < 0 || v > source.MaxAmount {
					t.Fatalf("row %s: %s = %d", r.Product, k, v)
				}
			}
		}
		if _, err := tcgcsv.ParseGroups(b); err != nil && !errors.Is(err, source.ErrRefused) {
			t.Fatalf("groups: error %v does not wrap ErrRefused", err)
		}
	})
}
