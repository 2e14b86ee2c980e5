package pricing_test

import (
	"strings"
	"testing"

	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

// TestExplainNoValue says why a printing and grade shows no value: never
// sold, its window's sales set aside as outliers, or its last sale older
// than the sample window; with the last sale and the recent sales of other
// grades.
func TestExplainNoValue(t *testing.T) {
	c := &snapshots.Card{ID: "en:base1-1", Name: "Alakazam"}
	hp, slab7 := snapshots.RawGrade(3), snapshots.GradedGrade(0, 7)
	none := snapshots.Estimate{Grade: rawNM, LastSaleDay: snapshots.NoDay}
	sale := func(day string, cents int64, g snapshots.Grade, flags uint8) snapshots.Sale {
		return snapshots.Sale{Day: mustDay(day), PriceCents: cents, Grade: g, Flags: flags, Marketplace: snapshots.Marketplace(1)}
	}
	old := sale("2026-08-04", 39616, rawNM, 0)
	cases := []struct {
		name     string
		sales    []snapshots.Sale // newest first
		e        snapshots.Estimate
		reason   string
		last     string
		others   int
		noteHave []string
	}{
		{"never sold", nil, none, pricing.ReasonNeverSold, "", 0,
			[]string{"no Raw, near mint value: this printing has no verified Raw, near mint sale."}},
		{"outside the window, other grades sold", []snapshots.Sale{sale("2026-11-10", 43777, slab7, 0), sale("2026-10-24", 16296, hp, 0), old},
			snapshots.Estimate{Grade: rawNM, FMVCents: 25801, LastSaleDay: old.Day}, pricing.ReasonOutsideWindow, "2026-08-04", 2,
			[]string{"older than the 90-day sample window", "for $396.16 on 2026-08-04", "108 days before as_of",
				"the 2 sales of this printing in the last 30 days were of other grades (Raw, heavily played; PSA 7)"}},
		{"outliers", []snapshots.Sale{sale("2026-11-01", 120000, rawNM, snapshots.SaleOutlier), old},
			snapshots.Estimate{Grade: rawNM, FMVCents: 25801, LastSaleDay: old.Day}, pricing.ReasonOutliers, "2026-11-01", 0,
			[]string{"1 verified sale of the last 90 days was set aside as an outlier", "for $1,200.00 on 2026-11-01", "set aside as an outlier"}},
		{"hidden sales do not count", []snapshots.Sale{sale("2026-11-01", 100, rawNM, snapshots.SaleFlagged)}, none, pricing.ReasonNeverSold, "", 0, nil},
		{"a source's series without sales", nil, snapshots.Estimate{Grade: rawNM, FMVCents: 500, LastSaleDay: mustDay("2026-01-02")},
			pricing.ReasonOutsideWindow, "", 0, []string{"its source's last price (2026-01-02) is older than the 90-day sample window"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			nv := pricing.ExplainNoValue(c, tc.sales, 0, tc.e, asOf)
			if nv == nil {
				t.Fatal("nil")
			}
			last := ""
			if nv.LastSale != nil {
				last = nv.LastSale.Date
			}
			if nv.Reason != tc.reason || last != tc.last || len(nv.OtherGrades) != tc.others || nv.GradeName != "Raw, near mint" {
				t.Errorf("got %+v", nv)
			}
			for _, want := range tc.noteHave {
				if !strings.Contains(nv.Note, want) {
					t.Errorf("note %q does not say %q", nv.Note, want)
				}
			}
			if strings.Contains(nv.Note, "raw:") || strings.Contains(nv.Note, "slab:") {
				t.Errorf("note %q says a grade code", nv.Note)
			}
		})
	}
	priced := snapshots.Estimate{Grade: rawNM, FMVCents: 100, Confidence: estimate.ConfidenceLow}
	if nv := pricing.ExplainNoValue(c, nil, 0, priced, asOf); nv != nil {
		t.Errorf("a shown value: %+v", nv)
	}
}
