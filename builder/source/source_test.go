package source_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/snapshots"
)

func TestParseAmount(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		err  bool
	}{
		{"12.5", 1250, false}, {"0.99", 99, false}, {"310.25", 31025, false}, {"0", 0, false}, {"7", 700, false},
		{"0.015", 2, false}, {"0.014", 1, false}, {"0.285", 29, false}, {"1e2", 10000, false}, {"1.5E-1", 15, false},
		{"10000000", 1_000_000_000, false}, {"10000000.01", 0, true}, {"-1", 0, true}, {"abc", 0, true}, {"", 0, true},
		{"1.", 100, false}, {".5", 50, false}, {"1/2", 0, true}, {"NaN", 0, true}, {"1e400", 0, true},
	} {
		got, err := source.ParseAmount(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseAmount(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
	if got := source.FormatAmount(31025); got != "310.25" {
		t.Errorf("FormatAmount = %q", got)
	}
}

// FuzzParseAmount: no panic; an amount is within bounds and agrees with
// the decimal it was read from to the cent.
func FuzzParseAmount(f *testing.F) {
	for _, s := range []string{"12.5", "0.015", "1e2", "99999999.995", "00012.340"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := source.ParseAmount(s)
		if err != nil {
			return
		}
		if v < 0 || v > source.MaxAmount {
			t.Fatalf("ParseAmount(%q) = %d", s, v)
		}
	})
}

func TestParseInput(t *testing.T) {
	in, err := source.ParseInput("tcgplayer=https://tcgcsv.com,categories=3+85,day=2026-11-20")
	if err != nil {
		t.Fatal(err)
	}
	want := source.Input{Source: "tcgplayer", Location: "https://tcgcsv.com", Options: map[string]string{"categories": "3+85", "day": "2026-11-20"}}
	if diff := cmp.Diff(want, in); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if d, ok, err := in.DayOption(); err != nil || !ok || d.String() != "2026-11-20" {
		t.Errorf("DayOption = %v %v %v", d, ok, err)
	}
	if err := in.CheckOptions("categories"); err == nil || !strings.Contains(err.Error(), "unknown option day") {
		t.Errorf("CheckOptions: %v", err)
	}
	for _, bad := range []string{"cardmarket", "=x", "cardmarket=", "a=b,c", "a=b,c=1,c=2"} {
		if _, err := source.ParseInput(bad); err == nil {
			t.Errorf("ParseInput(%q) accepted", bad)
		}
	}
}

func TestReport_CSV(t *testing.T) {
	d := &source.Day{Source: "cardmarket", Date: mustDay("2026-11-20"), Input: "x", Rows: make([]source.Row, 2),
		Rejected: []source.Entry{{Status: source.StatusRejected, Product: "9", Reason: "bad amount", Detail: "trend: -1, \"quoted\""}}}
	rep := source.NewReport("cardmarket", d)
	rep.Add(source.Entry{Row: 1, Status: source.StatusByID, Product: "1", CardID: "en:base1-4", Finish: "holo/unlimited"}, true)
	rep.Add(source.Entry{Row: 1, Status: source.StatusDropped, Product: "1", Printing: "-holo fields", Reason: "-holo fields: x"}, false)
	rep.Add(source.Entry{Row: 2, Status: source.StatusUnmatched, Product: "2", Reason: "no card has this idProduct"}, true)
	var buf bytes.Buffer
	if err := rep.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := source.ReadReportCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := [5]int{back.Read, back.ByID, back.Unmatched, back.Rejected, len(back.Entries)}, [5]int{3, 1, 1, 1, 4}; got != want {
		t.Errorf("[read id unmatched rejected entries] = %v, want %v", got, want)
	}
	if diff := cmp.Diff(rep.Reasons, back.Reasons); diff != "" {
		t.Errorf("reasons (-wrote +read):\n%s", diff)
	}
	if !strings.Contains(rep.Summary(), "matched by id          1 (33.3 %)") {
		t.Errorf("summary:\n%s", rep.Summary())
	}
	dir := t.TempDir()
	path, err := rep.WriteFile(dir)
	if err != nil || filepath.Base(path) != "cardmarket-2026-11-20.csv" {
		t.Fatalf("WriteFile: %s, %v", path, err)
	}
}

func mustDay(s string) snapshots.Day {
	d, err := snapshots.ParseDay(s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestFetcher_Get(t *testing.T) {
	ctx := context.Background()
	f := source.NewFetcher("1.2.3", "", "")
	if f.UserAgent != "cardedge/1.2.3 (+no contact given)" {
		t.Errorf("User-Agent %q", f.UserAgent)
	}
	_, err := f.Get(ctx, filepath.Join(t.TempDir(), "missing"))
	if !errors.Is(err, source.ErrNotFound) || !errors.Is(err, source.ErrUnavailable) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := f.Get(ctx, "http://example.com/x"); err == nil || !strings.Contains(err.Error(), "use https") {
		t.Errorf("plain http: %v", err)
	}
	p := filepath.Join(t.TempDir(), "big")
	os.WriteFile(p, make([]byte, 100), 0o644)
	f.MaxBytes = 99
	if _, err := f.Get(ctx, p); err == nil || !strings.Contains(err.Error(), "larger than 99 bytes") {
		t.Errorf("large file: %v", err)
	}
	// A 404 is not found at once; a 400 is not retried.
	var n int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		if r.URL.Path == "/bad" {
			http.Error(w, "no", http.StatusBadRequest)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	f = source.NewFetcher("t", "c", "")
	f.Backoff = 0
	if _, err := f.Get(ctx, srv.URL+"/x"); !errors.Is(err, source.ErrNotFound) || n != 1 {
		t.Errorf("404: %v after %d requests", err, n)
	}
	n = 0
	if _, err := f.Get(ctx, srv.URL+"/bad"); err == nil || n != 1 || !strings.Contains(err.Error(), "400") {
		t.Errorf("400: %v after %d requests", err, n)
	}
}

func TestFoldName(t *testing.T) {
	for in, want := range map[string]string{"Pokémon Card 151": "pokemon card 151", "HS—Unleashed": "hs unleashed", "Monkey.D.Luffy": "monkey d luffy", "": ""} {
		if got := source.FoldName(in); got != want {
			t.Errorf("FoldName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"004/102": "4", "#58": "58", "OP01-001": "op01-001", "TG01": "tg01"} {
		if got := source.NormalizeNumber(in); got != want {
			t.Errorf("NormalizeNumber(%q) = %q, want %q", in, got, want)
		}
	}
}
