package history_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardedge/cardedge/builder/history"
	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/builder/source/sourcetest"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/s3/s3test"
)

func day(s string) snapshots.Day {
	d, err := snapshots.ParseDay(s)
	if err != nil {
		panic(err)
	}
	return d
}

func sampleDay(date string, trend int64) *source.Day {
	return &source.Day{Source: "cardmarket", Date: day(date), CreatedAt: time.Date(2026, 11, 20, 1, 51, 40, 0, time.UTC), Digest: strings.Repeat("ab", 32),
		Input: "/somewhere/price_guide_6.json",
		Rows: []source.Row{
			{Product: "273699", Category: "51", Currency: "EUR", Prices: map[string]int64{"trend": trend, "avg": 32000}},
			{Product: "702303", Currency: "EUR", Prices: map[string]int64{"trend-holo": 37}},
		}}
}

func mustStore(tb testing.TB) (*history.Store, string) {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "history")
	s, err := history.Open(context.Background(), dir)
	if err != nil {
		tb.Fatal(err)
	}
	return s, dir
}

func TestStore_Put(t *testing.T) {
	ctx := context.Background()
	s, dir := mustStore(t)
	e, outcome, n, err := s.Put(ctx, sampleDay("2026-11-20", 32050), false)
	if err != nil || outcome != history.Filed || n == 0 {
		t.Fatalf("first put: %v %v %d", outcome, err, n)
	}
	if !strings.HasPrefix(e.Name, "cardmarket/2026-11-20.") || !strings.HasSuffix(e.Name, ".jsonl.gz") {
		t.Errorf("name %s", e.Name)
	}
	// Immutable: read-only on disk.
	if st, err := os.Stat(filepath.Join(dir, e.Name)); err != nil || st.Mode().Perm()&0o222 != 0 {
		t.Errorf("file mode %v, %v", st.Mode(), err)
	}
	// The same content again (read from elsewhere): unchanged.
	again := sampleDay("2026-11-20", 32050)
	again.Input = "https://elsewhere/price_guide_6.json"
	if _, outcome, _, err := s.Put(ctx, again, false); err != nil || outcome != history.Unchanged {
		t.Errorf("same day again: %v %v", outcome, err)
	}
	// Other content: refused, unless replaced.
	if _, _, _, err := s.Put(ctx, sampleDay("2026-11-20", 99900), false); !errors.Is(err, history.ErrDayFiled) {
		t.Errorf("other content: %v, want ErrDayFiled", err)
	}
	e2, outcome, _, err := s.Put(ctx, sampleDay("2026-11-20", 99900), true)
	if err != nil || outcome != history.Replaced {
		t.Fatalf("replace: %v %v", outcome, err)
	}
	if _, _, _, err := s.Put(ctx, sampleDay("2026-11-21", 32100), false); err != nil {
		t.Fatal(err)
	}
	days, err := s.Days(ctx, "cardmarket")
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 2 || days[0] != e2 || days[1].Date != day("2026-11-21") {
		t.Fatalf("days %+v", days)
	}
	got, err := s.Get(ctx, days[0])
	if err != nil {
		t.Fatal(err)
	}
	want := sampleDay("2026-11-20", 99900)
	want.Input = dir + "/" + e2.Name
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	loaded, err := s.Load(ctx, "cardmarket", day("2026-11-21"), day("2026-11-30"))
	if err != nil || len(loaded) != 1 || loaded[0].Rows[0].Prices["trend"] != 32100 {
		t.Errorf("Load: %v, %v", loaded, err)
	}
}

// TestStore_ErrCorrupt: a file whose bytes no longer match its checksum is
// an error, never read.
func TestStore_ErrCorrupt(t *testing.T) {
	ctx := context.Background()
	s, dir := mustStore(t)
	e, _, _, err := s.Put(ctx, sampleDay("2026-11-20", 32050), false)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, e.Name)
	os.Chmod(path, 0o644)
	b, _ := os.ReadFile(path)
	b[len(b)/2] ^= 0xff
	os.WriteFile(path, b, 0o644)
	if _, err := s.Get(ctx, e); !errors.Is(err, history.ErrCorrupt) {
		t.Errorf("flipped byte: %v, want ErrCorrupt", err)
	}
	// Two files of one day: an error naming both.
	os.WriteFile(filepath.Join(dir, "cardmarket", "2026-11-20."+strings.Repeat("0", 64)+".jsonl.gz"), nil, 0o644)
	if _, err := s.Days(ctx, "cardmarket"); err == nil || !strings.Contains(err.Error(), "filed twice") {
		t.Errorf("two files of a day: %v", err)
	}
}

// FuzzDecode: no panic on any day file content.
func FuzzDecode(f *testing.F) {
	b, _, err := history.Encode(sampleDay("2026-11-20", 32050))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := history.Decode(b)
		if err == nil && d == nil {
			t.Fatal("nil day without error")
		}
	})
}

// BenchmarkStore_Get reads back a day of 30,000 Cardmarket rows (twelve
// fields each), the size of a day at the shipped catalog.
func BenchmarkStore_Get(b *testing.B) {
	d := &source.Day{Source: "cardmarket", Date: day("2026-11-20")}
	for i := range 30_000 {
		p := map[string]int64{}
		for j, f := range []string{"avg", "low", "trend", "avg1", "avg7", "avg30", "avg-holo", "low-holo", "trend-holo", "avg1-holo", "avg7-holo", "avg30-holo"} {
			p[f] = int64(100 + i*7 + j)
		}
		d.Rows = append(d.Rows, source.Row{Product: strconv.Itoa(270_000 + i), Category: "51", Currency: "EUR", Prices: p})
	}
	s, _ := mustStore(b)
	e, _, n, err := s.Put(context.Background(), d, false)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Get(context.Background(), e); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStore_S3: the store in an S3-compatible bucket (versitygw; skipped
// when it is not installed): put, unchanged, refused, replaced, read back.
func TestStore_S3(t *testing.T) {
	srv := s3test.Start(t)
	c := srv.Client(t)
	srv.MakeBucket(t, c, "history")
	ctx := context.Background()
	s, err := history.Open(ctx, "s3://history/cardedge/days")
	if err != nil {
		t.Fatal(err)
	}
	if _, outcome, _, err := s.Put(ctx, sampleDay("2026-11-20", 32050), false); err != nil || outcome != history.Filed {
		t.Fatalf("put: %v %v", outcome, err)
	}
	if _, outcome, _, err := s.Put(ctx, sampleDay("2026-11-20", 32050), false); err != nil || outcome != history.Unchanged {
		t.Fatalf("again: %v %v", outcome, err)
	}
	if _, _, _, err := s.Put(ctx, sampleDay("2026-11-20", 1), false); !errors.Is(err, history.ErrDayFiled) {
		t.Fatalf("other content: %v", err)
	}
	if _, outcome, _, err := s.Put(ctx, sampleDay("2026-11-20", 1), true); err != nil || outcome != history.Replaced {
		t.Fatalf("replace: %v %v", outcome, err)
	}
	days, err := s.Days(ctx, "cardmarket")
	if err != nil || len(days) != 1 {
		t.Fatalf("days %v, %v", days, err)
	}
	d, err := s.Get(ctx, days[0])
	if err != nil || d.Rows[0].Prices["trend"] != 1 {
		t.Fatalf("get: %+v, %v", d, err)
	}
	if !strings.HasPrefix(d.Input, "s3://history/cardedge/days/cardmarket/2026-11-20.") {
		t.Errorf("input %s", d.Input)
	}
	// Mapped days beside the raw ones: listed apart, read back.
	cat := sourcetest.MustCatalog(t)
	key := mustKey(t, cat)
	me, _, err := s.PutMapped(ctx, sampleMapped(t, cat, days[0], key), cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := s.Days(ctx, "cardmarket"); err != nil || len(again) != 1 {
		t.Errorf("raw days with a mapped day: %v, %v", again, err)
	}
	onFile, err := s.MappedDays(ctx, "cardmarket")
	if err != nil || len(onFile[days[0].Date]) != 1 || onFile[days[0].Date][0] != me {
		t.Fatalf("mapped days %v, %v", onFile, err)
	}
	if _, err := s.GetMapped(ctx, me, days[0], key, cat); err != nil {
		t.Fatal(err)
	}
}
