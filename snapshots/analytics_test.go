package snapshots_test

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/snapshots"
)

// sampleAnalytics is one card's analytics in every window, with keys of every
// kind and an extra value.
func sampleAnalytics() []snapshots.CardAnalytics {
	var out []snapshots.CardAnalytics
	for i, w := range snapshots.AnalyticsWindows {
		a := snapshots.CardAnalytics{
			Window: w.Name, From: "2025-11-21", To: "2026-11-20", Sales: 3 + i, VolumeCents: 123456, AvgCents: 41152,
			MedianCents: 40000, LowCents: 1, HighCents: math.MaxInt64, FirstFMVCents: 39000, LastFMVCents: -5,
			ChangePct: 12.34, VolatilityPct: 1.0 / 3,
			ByMarketplace:  map[string]int{"ebay": 2, "partner": 1, "collector_crypt": 4, "cardmarket": 0},
			ByGrade:        map[string]int{"raw:near_mint": 2, "slab:10": 1, "slab:9.5": 1, "bgs:1.5": 7},
			GradeMedianCts: map[string]int64{"raw:near_mint": 40000, "slab:10": 900000, "cgc:2": -1},
			TradeTypes:     map[string]int{"auction": 2, "best_offer": 1, "on_chain_transfer": math.MaxUint32},
		}
		if w.Name == "all" {
			a.From = ""
			a.Extra = map[string]float64{"x": -1.5e-7, "": math.Inf(1), strings.Repeat("k", 255): math.NaN()}
		}
		out = append(out, a)
	}
	return out
}

func TestEncodeAnalytics_RoundTrip(t *testing.T) {
	want := sampleAnalytics()
	b, err := snapshots.EncodeAnalytics([]byte("prefix"), want)
	if err != nil {
		t.Fatal(err)
	}
	if string(b[:6]) != "prefix" {
		t.Fatalf("EncodeAnalytics overwrote dst: %q", b[:6])
	}
	b = b[6:]
	got, err := snapshots.DecodeAnalytics(b)
	if err != nil {
		t.Fatal(err)
	}
	// NaN never equals itself: compare the extra values' bits.
	nanSafe := func(as []snapshots.CardAnalytics) []snapshots.CardAnalytics {
		out := append([]snapshots.CardAnalytics(nil), as...)
		for i := range out {
			if out[i].Extra == nil {
				continue
			}
			m := map[string]float64{}
			for k, v := range out[i].Extra {
				m[k] = float64(math.Float64bits(v))
			}
			out[i].Extra = m
		}
		return out
	}
	if !reflect.DeepEqual(nanSafe(got), nanSafe(want)) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
	for _, a := range want {
		w, ok, err := snapshots.DecodeAnalyticsWindow(b, a.Window, nil)
		if err != nil || !ok {
			t.Fatalf("DecodeAnalyticsWindow(%s) = ok %v, %v", a.Window, ok, err)
		}
		if got := w.CardAnalytics(); !reflect.DeepEqual(nanSafe([]snapshots.CardAnalytics{got}), nanSafe([]snapshots.CardAnalytics{a})) {
			t.Errorf("window %s:\n got %+v\nwant %+v", a.Window, got, a)
		}
		// A buffer with room holds the breakdowns; one without is not
		// written past its capacity and the window is the same.
		for _, buf := range [][]snapshots.AnalyticsEntry{make([]snapshots.AnalyticsEntry, 0, 64), make([]snapshots.AnalyticsEntry, 0, 1)} {
			wb, ok, err := snapshots.DecodeAnalyticsWindow(b, a.Window, buf)
			if err != nil || !ok || !reflect.DeepEqual(nanSafe([]snapshots.CardAnalytics{wb.CardAnalytics()}), nanSafe([]snapshots.CardAnalytics{w.CardAnalytics()})) {
				t.Fatalf("window %s with a buffer of %d: ok %v, %v, %+v", a.Window, cap(buf), ok, err, wb)
			}
			if cap(buf) == 64 && len(wb.ByGrade) > 0 && &wb.ByGrade[0] != &buf[:cap(buf)][len(wb.ByMarketplace)] {
				t.Errorf("window %s: the breakdowns are not in the buffer", a.Window)
			}
		}
	}
	if _, ok, err := snapshots.DecodeAnalyticsWindow(b, "2w", nil); ok || err != nil {
		t.Errorf("DecodeAnalyticsWindow(2w) = ok %v, %v; want false, nil", ok, err)
	}
}

func TestDecodeAnalyticsWindow_Order(t *testing.T) {
	b, err := snapshots.EncodeAnalytics(nil, sampleAnalytics()[1:2])
	if err != nil {
		t.Fatal(err)
	}
	w, ok, err := snapshots.DecodeAnalyticsWindow(b, "1m", nil)
	if err != nil || !ok {
		t.Fatalf("DecodeAnalyticsWindow(1m) = ok %v, %v", ok, err)
	}
	// Entries come in the byte order of their names, as encoding/json sorts
	// map keys.
	names := func(list []snapshots.AnalyticsEntry, name func(uint8) string) string {
		var s []string
		for _, e := range list {
			s = append(s, name(e.Code))
		}
		return strings.Join(s, ",")
	}
	for _, tt := range []struct{ got, want string }{
		{names(w.ByMarketplace, snapshots.MarketplaceName), "cardmarket,collector_crypt,ebay,partner"},
		{names(w.ByGrade, snapshots.GradeName), "bgs:1.5,raw:near_mint,slab:10,slab:9.5"},
		{names(w.GradeMedian, snapshots.GradeName), "cgc:2,raw:near_mint,slab:10"},
		{names(w.TradeTypes, snapshots.TradeTypeName), "auction,best_offer,on_chain_transfer"},
	} {
		if tt.got != tt.want {
			t.Errorf("order %s, want %s", tt.got, tt.want)
		}
	}
	if w.From.String() != "2025-11-21" || w.To.String() != "2026-11-20" {
		t.Errorf("from %s to %s", w.From, w.To)
	}
}

func TestEncodeAnalytics_Deterministic(t *testing.T) {
	a, _ := snapshots.EncodeAnalytics(nil, sampleAnalytics())
	for i := 0; i < 20; i++ {
		if b, _ := snapshots.EncodeAnalytics(nil, sampleAnalytics()); string(a) != string(b) {
			t.Fatal("two encodings of the same analytics differ")
		}
	}
}

func TestEncodeAnalytics_ErrInvalid(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(a []snapshots.CardAnalytics) []snapshots.CardAnalytics
	}{
		{"unknown window", func(a []snapshots.CardAnalytics) []snapshots.CardAnalytics { a[0].Window = "2w"; return a }},
		{"window twice", func(a []snapshots.CardAnalytics) []snapshots.CardAnalytics { return append(a, a[0]) }},
		{"bad date", func(a []snapshots.CardAnalytics) []snapshots.CardAnalytics { a[0].From = "2026-1-1"; return a }},
		{"unknown marketplace", func(a []snapshots.CardAnalytics) []snapshots.CardAnalytics { a[0].ByMarketplace["nope"] = 1; return a }},
		{"unknown grade", func(a []snapshots.CardAnalytics) []snapshots.CardAnalytics { a[0].ByGrade["unknown"] = 1; return a }},
		{"unknown trade type", func(a []snapshots.CardAnalytics) []snapshots.CardAnalytics { a[0].TradeTypes[""] = 1; return a }},
		{"negative count", func(a []snapshots.CardAnalytics) []snapshots.CardAnalytics {
			a[0].ByGrade["raw:damaged"] = -1
			return a
		}},
		{"negative sales", func(a []snapshots.CardAnalytics) []snapshots.CardAnalytics { a[0].Sales = -1; return a }},
		{"long extra key", func(a []snapshots.CardAnalytics) []snapshots.CardAnalytics {
			a[0].Extra = map[string]float64{strings.Repeat("k", 256): 1}
			return a
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := snapshots.EncodeAnalytics(nil, tt.edit(sampleAnalytics())); err == nil {
				t.Error("EncodeAnalytics accepted it")
			}
		})
	}
}

// FuzzDecodeAnalytics: damaged values are errors, never panics; what decodes
// and encodes again decodes again.
func FuzzDecodeAnalytics(f *testing.F) {
	good, _ := snapshots.EncodeAnalytics(nil, sampleAnalytics())
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte{})
	f.Add([]byte{1, 0, 6, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, w := range snapshots.AnalyticsWindows {
			snapshots.DecodeAnalyticsWindow(b, w.Name, nil)
		}
		all, err := snapshots.DecodeAnalytics(b)
		if err != nil {
			return
		}
		again, err := snapshots.EncodeAnalytics(nil, all)
		if err != nil {
			return // a window twice, a day past year 9999: not what a writer writes
		}
		back, err := snapshots.DecodeAnalytics(again)
		if err != nil || len(back) != len(all) {
			t.Fatalf("re-encoded analytics do not decode: %v", err)
		}
	})
}

func TestDay_String(t *testing.T) {
	check := func(d snapshots.Day) {
		t.Helper()
		if got, want := d.String(), time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02"); got != want {
			t.Fatalf("Day(%d).String() = %s, want %s", d, got, want)
		}
	}
	for d := snapshots.Day(-40_000); d < 80_000; d++ { // 1860 to 2189, every day
		check(d)
	}
	for d := int64(math.MinInt32); d <= math.MaxInt32; d += 9973 {
		check(snapshots.Day(d))
	}
	for _, d := range []snapshots.Day{math.MinInt32, math.MinInt32 + 1, math.MaxInt32, math.MaxInt32 - 1, -719468, -719469, 2932896, 2932897} {
		check(d)
	}
}

func TestGrade_String(t *testing.T) {
	for g := 0; g < 256; g++ {
		got, err := snapshots.ParseGrade(snapshots.Grade(g).String())
		if snapshots.Grade(g).Valid() && (err != nil || got != snapshots.Grade(g)) {
			t.Errorf("Grade(%d).String() = %q parses to %d, %v", g, snapshots.Grade(g).String(), got, err)
		}
	}
	if s := snapshots.GradedGrade(0, 9.5).String(); s != "slab:9.5" {
		t.Errorf("slab 9.5 = %q", s)
	}
	if s := snapshots.Grade(255).String(); s != "unknown" {
		t.Errorf("Grade(255) = %q, want unknown", s)
	}
}
