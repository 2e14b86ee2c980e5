package pricing_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext/jsontexttest"
)

// A made-up printing: raw near-mint priced on days 100 and 110, slab 10
// once on day 105, slab 9 sold three times without a series, bgs 9.5 once.
var (
	slab9, bgs95 = snapshots.GradedGrade(0, 9), snapshots.GradedGrade(1, 9.5)
	madeSeries   = []snapshots.PriceSeries{
		{Grade: snapshots.RawNearMint, Points: []snapshots.PricePoint{
			{Day: 100, FMVCents: 1000, TVWAPCents: 900, MedianCents: 950, Sales: 2},
			{Day: 110, FMVCents: 1200, TVWAPCents: 1100, MedianCents: 1150, Sales: 3}}},
		{Grade: slab10, Points: []snapshots.PricePoint{{Day: 105, FMVCents: 5000, TVWAPCents: 5000, MedianCents: 5000, Sales: 1}}},
	}
	madeCum = []snapshots.CumSeries{
		{Grade: snapshots.RawNearMint, Points: []snapshots.CumPoint{{Day: 100, Count: 2, Cents: 2000}, {Day: 110, Count: 5, Cents: 5600}}},
		{Grade: slab10, Points: []snapshots.CumPoint{{Day: 105, Count: 1, Cents: 5000}}},
		{Grade: slab9, Points: []snapshots.CumPoint{{Day: 106, Count: 3, Cents: 9000}}},
		{Grade: bgs95, Points: []snapshots.CumPoint{{Day: 107, Count: 1, Cents: 7000}}},
	}
)

func TestIncludes(t *testing.T) {
	const asOf = 120
	for _, tc := range []struct {
		name string
		got  any
		want string
	}{
		{"TVWAPSlots", pricing.TVWAPSlots(madeSeries, asOf),
			`{"basis":"latest trailing-7-day tvwap per grade","slots":[` +
				`{"grade":"raw:near_mint","grade_name":"Raw, near mint","sales":3,"fmv_usd":12,"tvwap_usd":11,"median_usd":null,"last_sale_date":"1970-04-21"},` +
				`{"grade":"slab:10","grade_name":"PSA 10","sales":1,"fmv_usd":50,"tvwap_usd":50,"median_usd":null,"last_sale_date":"1970-04-16"}]}`},
		// On day 130 raw near-mint moved from $10 (day 100) to $12, with
		// three sales since day 101.
		{"GradeMomentum", pricing.GradeMomentum(madeSeries, madeCum, 130),
			`{"window_days":30,"grades":[` +
				`{"grade":"raw:near_mint","grade_name":"Raw, near mint","sales":3,"fmv_usd":12,"tvwap_usd":null,"median_usd":null,"last_sale_date":null,"change_30d_pct":20},` +
				`{"grade":"slab:10","grade_name":"PSA 10","sales":1,"fmv_usd":50,"tvwap_usd":null,"median_usd":null,"last_sale_date":null}]}`},
		{"GradeMomentum/NoPast", pricing.GradeMomentum(madeSeries[:1], madeCum, asOf),
			`{"window_days":30,"grades":[{"grade":"raw:near_mint","grade_name":"Raw, near mint","sales":5,"fmv_usd":12,"tvwap_usd":null,"median_usd":null,"last_sale_date":null}]}`},
		{"GradeBreakdown", pricing.GradeBreakdown(madeSeries, madeCum, asOf),
			`{"grades":[` +
				`{"grade":"raw:near_mint","grade_name":"Raw, near mint","sales":5,"fmv_usd":12,"tvwap_usd":11,"median_usd":11.5,"last_sale_date":"1970-04-21"},` +
				`{"grade":"slab:10","grade_name":"PSA 10","sales":1,"fmv_usd":50,"tvwap_usd":50,"median_usd":50,"last_sale_date":"1970-04-16","premium_vs_raw":4.17},` +
				`{"grade":"slab:9","grade_name":"PSA 9","sales":3,"fmv_usd":null,"tvwap_usd":null,"median_usd":null,"last_sale_date":"1970-04-17"},` +
				`{"grade":"bgs:9.5","grade_name":"BGS 9.5","sales":1,"fmv_usd":null,"tvwap_usd":null,"median_usd":null,"last_sale_date":"1970-04-18"}]}`},
		{"PopulationOverview", pricing.PopulationOverview(madeCum, asOf),
			`{"basis":"graded copies seen in verified sales, all history; not a grading company's population report","graded_sales":5,"grades":[` +
				`{"grader":"slab","grade":10,"sales":1,"share_pct":20},{"grader":"slab","grade":9,"sales":3,"share_pct":60},{"grader":"bgs","grade":9.5,"sales":1,"share_pct":20}]}`},
		// slab 9 has no series: the mix is slab 10's one sale at $50.
		{"GradingEconomics", pricing.GradingEconomics(madeSeries, madeCum, asOf),
			`{"grader":"slab","raw_fmv_usd":12,"grading_cost_usd":30,"expected_graded_usd":50,"expected_gain_usd":8,"sample_sales":1,` +
				`"basis":"expected graded value = graded fmv per grade weighted by the grade mix of this card's verified graded sales; grading cost is an assumed flat fee"}`},
		{"GradingEconomics/NoRaw", pricing.GradingEconomics(madeSeries[1:], madeCum, asOf),
			`{"grader":"slab","raw_fmv_usd":null,"grading_cost_usd":30,"expected_graded_usd":null,"expected_gain_usd":null,"sample_sales":1,` +
				`"basis":"expected graded value = graded fmv per grade weighted by the grade mix of this card's verified graded sales; grading cost is an assumed flat fee"}`},
		{"HistorySeries", pricing.NewHistorySeries(&snapshots.Card{}, pricing.BaseRead, &madeSeries[0], 109, 111, pricing.MethodTVWAP),
			`{"grade":"raw:near_mint","grade_name":"Raw, near mint","finish":null,"method":"tvwap","from":"1970-04-20","to":"1970-04-22","points":[` +
				`{"date":"1970-04-20","price_usd":9,"sales":0,"sample_size":0,"confidence":"none","flags":[]},` +
				`{"date":"1970-04-21","price_usd":11,"sales":3,"sample_size":0,"confidence":"none","flags":[]},` +
				`{"date":"1970-04-22","price_usd":11,"sales":0,"sample_size":0,"confidence":"none","flags":[]}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := jsontexttest.MustMarshal(t, tc.got); got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
			// The include's appender writes the same bytes.
			if got := string(tc.got.(interface{ AppendJSON([]byte) []byte }).AppendJSON(nil)); got != tc.want {
				t.Errorf("AppendJSON:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestIncludes_AppendJSON: each include's AppendJSON writes what
// encoding/json (SetEscapeHTML(false)) writes, for values the analytics
// rarely make: nil lists, HTML and non-ASCII characters, every optional
// field.
func TestIncludes_AppendJSON(t *testing.T) {
	f, s, n := "holo/1st-edition <&>", "2024-01-02", 12.5
	rows := []pricing.GradeRow{{Grade: "slab:10", Sales: 1, FMVUSD: &n, TVWAPUSD: &n, MedianUSD: &n, LastSale: &s, ChangePct: &n, PremiumRaw: &n}, {Grade: "raw:near_mint"}}
	for _, v := range []interface{ AppendJSON([]byte) []byte }{
		&pricing.HistorySeries{Grade: "raw:near_mint", Finish: &f, Method: "fmv", From: s, To: s},
		&pricing.HistorySeries{Points: []pricing.PointRow{{Date: s, PriceUSD: 0.1, Sales: 2, SampleSize: 3, Confidence: "high", Flags: []string{"thin", "é"}}, {}}},
		&pricing.SlotsInclude{Basis: "b <i>"}, &pricing.SlotsInclude{Slots: rows},
		&pricing.MomentumInclude{WindowDays: 30}, &pricing.MomentumInclude{Grades: rows},
		&pricing.BreakdownInclude{}, &pricing.BreakdownInclude{Grades: rows},
		&pricing.RecentSalesInclude{Limit: 10},
		&pricing.RecentSalesInclude{Items: []pricing.SaleRow{{SaleID: "s_1", SaleDate: s, PriceUSD: 1e-7, Marketplace: "ebay", OnChain: true, TradeType: "auction",
			Grade: "slab:10", Finish: &f, IdentityConfidence: "exact", QualityFlagged: true, PriceFeed: true, Outlier: true}, {}}},
		&pricing.PopulationInclude{Basis: "x"}, &pricing.PopulationInclude{Grades: []pricing.PopulationRow{{Grader: "bgs", Grade: 9.5, Sales: 2, Share: 33.33}}},
		&pricing.GradingEconomicsInc{Grader: "slab", RawFMVUSD: &n, GradingCostUSD: 30, ExpectedGradedUSD: &n, ExpectedGainUSD: &n, SampleSales: 4, Basis: "\u2028"},
		&pricing.GradingEconomicsInc{},
	} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if got, want := string(v.AppendJSON([]byte("x"))), "x"+strings.TrimSuffix(buf.String(), "\n"); got != want {
			t.Errorf("%T:\n got %s\nwant %s", v, got, want)
		}
	}
}

func TestRecentSales(t *testing.T) {
	c := &snapshots.Card{ID: "x", Variants: []string{"holo", "reverse"}}
	sales := []snapshots.Sale{{ID: 5, Day: 30, Finish: 1}, {ID: 4, Day: 20, Flags: snapshots.SaleFlagged}, {ID: 3, Day: 20}, {ID: 2, Day: 10}, {ID: 1, Day: 5}}
	got := pricing.RecentSales(c, sales, pricing.SaleFilter{To: 25, From: 6, FromSet: true}, 10)
	if got.Limit != 10 || len(got.Items) != 2 || got.Items[0].SaleID != pricing.SaleID(3) || got.Items[1].SaleID != pricing.SaleID(2) {
		t.Fatalf("the verified sales of days 6 to 25: %+v", got)
	}
	if got := pricing.RecentSales(c, sales, pricing.SaleFilter{To: 100}, 2); len(got.Items) != 2 || got.Items[0].SaleID != pricing.SaleID(5) {
		t.Fatalf("the first two: %+v", got)
	}
}
