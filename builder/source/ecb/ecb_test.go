package ecb_test

import (
	"archive/zip"
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/builder/source/ecb"
	"github.com/cardedge/cardedge/builder/source/sourcetest"
	"github.com/cardedge/cardedge/snapshots"
)

func mustRates(tb testing.TB) *ecb.Rates {
	tb.Helper()
	b, err := os.ReadFile(sourcetest.Path("ecb", "eurofxref-hist.csv"))
	if err != nil {
		tb.Fatal(err)
	}
	rt, err := ecb.Parse(b)
	if err != nil {
		tb.Fatal(err)
	}
	return rt
}

func day(s string) snapshots.Day {
	d, err := snapshots.ParseDay(s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestRates_ToUSD(t *testing.T) {
	rt := mustRates(t)
	if first, last := rt.Span(); first != day("2026-11-16") || last != day("2026-11-20") {
		t.Errorf("span %s..%s", first, last)
	}
	for _, tt := range []struct {
		amount        int64
		currency, day string
		cents         int64
		rate          float64
		rateDay       string
	}{
		{32050, "EUR", "2026-11-20", 33653, 1.05, "2026-11-20"}, // 336.525 rounds half away from zero
		{31025, "EUR", "2026-11-19", 32266, 1.04, "2026-11-19"},
		{10000, "EUR", "2026-11-17", 10480, 1.048, "2026-11-16"}, // no rate on the 17th: the 16th's
		{10000, "EUR", "2026-11-22", 10500, 1.05, "2026-11-20"},  // a weekend: Friday's
		{10000, "USD", "2026-11-22", 10000, 1, "1970-01-01"},
		{16150, "JPY", "2026-11-20", 105, 0.00650155, "2026-11-20"}, // 1.05 / 161.50, six significant digits
		{1000, "GBP", "2026-11-20", 1250, 1.25, "2026-11-20"},
		{1000, "jpy", "2026-11-16", 0, 0, ""}, // N/A on the 16th, nothing before within 7 days
	} {
		c, err := rt.ToUSD(tt.amount, tt.currency, day(tt.day))
		if tt.rateDay == "" {
			if err == nil {
				t.Errorf("%d %s on %s: converted to %d, want an error", tt.amount, tt.currency, tt.day, c.USDCents)
			}
			continue
		}
		if err != nil {
			t.Errorf("%d %s on %s: %v", tt.amount, tt.currency, tt.day, err)
			continue
		}
		if c.USDCents != tt.cents || c.Rate != tt.rate || c.RateDay.String() != tt.rateDay || c.Amount != tt.amount {
			t.Errorf("%d %s on %s: %+v, want %d cents at %v of %s", tt.amount, tt.currency, tt.day, c, tt.cents, tt.rate, tt.rateDay)
		}
	}
	for _, tt := range []struct{ currency, day, want string }{
		{"EUR", "2026-11-01", "the rates start 2026-11-16"},
		{"EUR", "2026-12-01", "within 7 days before 2026-12-01"},
		{"XYZ", "2026-11-20", "no ECB rate of XYZ"},
	} {
		if _, err := rt.ToUSD(100, tt.currency, day(tt.day)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s on %s: error %v, want %q", tt.currency, tt.day, err, tt.want)
		}
	}
}

func TestParse_Zip(t *testing.T) {
	csv, err := os.ReadFile(sourcetest.Path("ecb", "eurofxref-hist.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("eurofxref-hist.csv")
	w.Write(csv)
	zw.Close()
	rt, err := ecb.Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := rt.ToUSD(100, "EUR", day("2026-11-20")); c.USDCents != 105 {
		t.Errorf("zip: %+v", c)
	}
}

func TestParse_Err(t *testing.T) {
	for _, tt := range []struct{ name, body, want string }{
		{"NotECB", "a,b\n1,2\n", "not eurofxref-hist.csv"},
		{"BadDate", "Date,USD,\n20/11/2026,1.05,\n", "want YYYY-MM-DD"},
		{"BadRate", "Date,USD,\n2026-11-20,abc,\n", `USD rate "abc"`},
		{"NegativeRate", "Date,USD,\n2026-11-20,-1,\n", "not a positive number"},
		{"Columns", "Date,USD,JPY,\n2026-11-20,1.05,\n", "2 columns, the header has 3"},
		{"TwiceADay", "Date,USD,\n2026-11-20,1.05,\n2026-11-20,1.06,\n", "twice"},
		{"Empty", "Date,USD,\n", "no rates"},
		{"BadCode", "Date,US Dollar,\n2026-11-20,1.05,\n", "not a currency code"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ecb.Parse([]byte(tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// FuzzParse: no panic; accepted rates convert without panicking.
func FuzzParse(f *testing.F) {
	b, err := os.ReadFile(sourcetest.Path("ecb", "eurofxref-hist.csv"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("Date,USD,\r\n2026-11-20,1e308,\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rt, err := ecb.Parse(b)
		if err != nil {
			return
		}
		_, last := rt.Span()
		rt.ToUSD(1_000_000_000, "EUR", last)
		rt.ToUSD(1, "JPY", last)
	})
}
