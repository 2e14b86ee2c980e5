package estimate_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/estimate"
)

var m = &estimate.Default

const day0 = 20000 // an arbitrary day

// steady returns n sales a few days apart around cents (within +-3 %),
// alternating two sources, starting at day0.
func steady(n int, cents int64, every int32) []estimate.Sale {
	out := make([]estimate.Sale, n)
	for i := range out {
		f := 1 + 0.03*math.Sin(float64(i))
		out[i] = estimate.Sale{Day: day0 + int32(i)*every, Cents: int64(float64(cents) * f), Source: uint8(i % 2)}
	}
	return out
}

func last(s estimate.Series) estimate.Point { return s.Points[len(s.Points)-1] }

func TestEstimate_Outlier(t *testing.T) {
	base := steady(10, 10000, 2)
	end := base[len(base)-1].Day
	before := m.Estimate(base, end)
	for _, tt := range []struct {
		name  string
		cents int64
	}{{"High", 100000}, {"Low", 1000}} {
		t.Run(tt.name, func(t *testing.T) {
			sales := append(append([]estimate.Sale{}, base...), estimate.Sale{Day: end + 1, Cents: tt.cents})
			s := m.Estimate(sales, end+1)
			if !s.Outlier[len(sales)-1] {
				t.Fatalf("a sale at %d cents after a series near 10000 is not an outlier", tt.cents)
			}
			for i, o := range s.Outlier[:len(base)] {
				if o {
					t.Errorf("steady sale %d marked outlier", i)
				}
			}
			p := last(s)
			if p.Day != end+1 || p.FMV != last(before).FMV || p.Flags&estimate.FlagOutlierExcluded == 0 {
				t.Errorf("point after the outlier = %+v, want day %d, fmv %d unchanged, flag outlier_excluded", p, end+1, last(before).FMV)
			}
			if s.Summary.Flags&estimate.FlagOutlierExcluded == 0 || s.Summary.FMV != last(before).FMV {
				t.Errorf("summary = %+v, want the unchanged fmv and outlier_excluded", s.Summary)
			}
			// 31 days later the flag is gone from the summary, not from the point.
			s = m.Estimate(sales, end+1+int32(m.OutlierDays))
			if s.Summary.Flags&estimate.FlagOutlierExcluded != 0 {
				t.Errorf("summary %d days after the outlier still flags it", m.OutlierDays)
			}
		})
	}
}

func TestEstimate_ConfirmedMove(t *testing.T) {
	sales := steady(10, 10000, 2)
	end := sales[len(sales)-1].Day
	sales = append(sales, estimate.Sale{Day: end + 1, Cents: 25000}, estimate.Sale{Day: end + 3, Cents: 26000, Source: 1})
	s := m.Estimate(sales, end+3)
	n := len(sales)
	if s.Outlier[n-2] || s.Outlier[n-1] {
		t.Errorf("two sales on the same side within %d days: outlier %v, %v; want both accepted", m.Outlier.ConfirmDays, s.Outlier[n-2], s.Outlier[n-1])
	}
	p1, p2 := s.Points[len(s.Points)-2], last(s)
	if p1.Flags&estimate.FlagOutlierExcluded == 0 {
		t.Errorf("the first sale's point %+v: want outlier_excluded (it waited for confirmation)", p1)
	}
	// Both make the confirming day's median; the day moves fmv by at most
	// the bound of its own one sale.
	bound := 1 + m.FMV.MaxMovePerSalePct/100
	if r := float64(p2.FMV) / float64(p1.FMV); r <= 1.05 || r > bound+1e-3 {
		t.Errorf("fmv %d -> %d (x%.3f), want a rise of at most x%.3f", p1.FMV, p2.FMV, r, bound)
	}

	// Opposite sides do not confirm each other.
	sales = steady(10, 10000, 2)
	sales = append(sales, estimate.Sale{Day: end + 1, Cents: 100000}, estimate.Sale{Day: end + 2, Cents: 1000})
	s = m.Estimate(sales, end+2)
	if !s.Outlier[n-2] || !s.Outlier[n-1] {
		t.Errorf("a high and a low outlier: outlier %v, %v; want both set aside", s.Outlier[n-2], s.Outlier[n-1])
	}
	// Too far apart to confirm.
	sales = steady(10, 10000, 2)
	sales = append(sales, estimate.Sale{Day: end + 1, Cents: 100000}, estimate.Sale{Day: end + 1 + int32(m.Outlier.ConfirmDays), Cents: 100000})
	s = m.Estimate(sales, end+30)
	if !s.Outlier[n-2] || !s.Outlier[n-1] {
		t.Errorf("two high sales %d days apart: outlier %v, %v; want both set aside", m.Outlier.ConfirmDays, s.Outlier[n-2], s.Outlier[n-1])
	}
}

// TestEstimate_SingleSaleBound: in a thin series (too short to judge
// outliers) one sale moves fmv by at most MaxMovePerSalePct.
func TestEstimate_SingleSaleBound(t *testing.T) {
	bound := 1 + m.FMV.MaxMovePerSalePct/100
	for _, tt := range []struct {
		name   string
		prices []int64
	}{
		{"Up", []int64{10000, 30000}},
		{"Down", []int64{10000, 2000}},
		{"UpTwice", []int64{10000, 100000, 100000}},
		{"Slightly", []int64{10000, 10500}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var sales []estimate.Sale
			for i, p := range tt.prices {
				sales = append(sales, estimate.Sale{Day: day0 + int32(10*i), Cents: p})
			}
			s := m.Estimate(sales, day0+100)
			if len(s.Points) != len(tt.prices) {
				t.Fatalf("%d points, want %d", len(s.Points), len(tt.prices))
			}
			for i := 1; i < len(s.Points); i++ {
				prev, cur := float64(s.Points[i-1].FMV), float64(s.Points[i].FMV)
				if r := math.Max(cur/prev, prev/cur); r > bound+1e-4 {
					t.Errorf("point %d: fmv %v -> %v (x%.3f), more than the bound x%.2f", i, prev, cur, r, bound)
				}
				if s.Points[i].Flags&estimate.FlagThin == 0 {
					t.Errorf("point %d of a 2-sale series not flagged thin", i)
				}
			}
			// A small move is taken at the smoothing weight, not the bound.
			if tt.name == "Slightly" {
				want := int64(math.Round(math.Exp(math.Log(10000) + m.FMV.SaleWeight*(math.Log(10500)-math.Log(10000)))))
				if got := last(s).FMV; got != want {
					t.Errorf("fmv %d, want %d", got, want)
				}
			}
		})
	}
}

// TestEstimate_Bound holds the bound on random series: a day with n accepted
// sales moves fmv by at most (1 + MaxMovePerSalePct/100)^n.
func TestEstimate_Bound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		var sales []estimate.Sale
		d := int32(day0)
		level := 1000.0 * math.Exp(3*r.NormFloat64())
		for range 1 + r.IntN(60) {
			d += int32(r.IntN(20))
			level *= math.Exp(0.3 * r.NormFloat64())
			sales = append(sales, estimate.Sale{Day: d, Cents: max(1, int64(level*math.Exp(0.5*r.NormFloat64()))), Source: uint8(r.IntN(5))})
		}
		s := m.Estimate(sales, d)
		for i := 1; i < len(s.Points); i++ {
			p := s.Points[i]
			n := 0 // the day's own accepted sales
			for k, sale := range sales {
				if sale.Day == p.Day && !s.Outlier[k] {
					n++
				}
			}
			bound := math.Pow(1+m.FMV.MaxMovePerSalePct/100, float64(n))
			// Rounding aside: fmv is kept exact and stored in whole cents.
			prev, cur := float64(s.Points[i-1].FMV), float64(p.FMV)
			if cur-0.5 > bound*(prev+0.5) || cur+0.5 < (prev-0.5)/bound {
				t.Fatalf("day %d, %d accepted sales: fmv %v -> %v", p.Day, n, prev, cur)
			}
			if n == 0 && cur != prev {
				t.Fatalf("day %d without accepted sales moved fmv %v -> %v", p.Day, prev, cur)
			}
		}
	}
}

func TestEstimate_Stale(t *testing.T) {
	sales := steady(6, 5000, 1)
	end := sales[len(sales)-1].Day
	for _, tt := range []struct {
		age   int32
		conf  estimate.Confidence
		flags estimate.Flags
	}{
		{0, estimate.ConfidenceHigh, 0},
		{14, estimate.ConfidenceHigh, 0},
		{15, estimate.ConfidenceMedium, 0},
		{30, estimate.ConfidenceMedium, 0}, // 6 sales in the 90 days' sample: not thin
		{46, estimate.ConfidenceLow, 0},
		{int32(m.SampleDays) - 6, estimate.ConfidenceLow, 0},
		{91, estimate.ConfidenceNone, estimate.FlagThin | estimate.FlagStale},
		{400, estimate.ConfidenceNone, estimate.FlagThin | estimate.FlagStale},
	} {
		s := m.Estimate(sales, end+tt.age)
		if s.Summary.Confidence != tt.conf || s.Summary.Flags != tt.flags {
			t.Errorf("%d days after the last sale: confidence %s, flags %v; want %s, %v", tt.age, s.Summary.Confidence, s.Summary.Flags.Names(), tt.conf, tt.flags.Names())
		}
		if s.Summary.FMV != last(s).FMV || s.Summary.LastSale != end {
			t.Errorf("%d days after: summary %+v, want the last point's fmv and last sale %d", tt.age, s.Summary, end)
		}
	}
	// One marketplace is not enough for high.
	one := steady(6, 5000, 1)
	for i := range one {
		one[i].Source = 3
	}
	if got := m.Estimate(one, end).Summary.Confidence; got != estimate.ConfidenceMedium {
		t.Errorf("6 fresh sales from one marketplace: confidence %s, want medium", got)
	}
	// No sale: none and stale.
	s := m.Estimate(nil, end)
	if s.Summary.Confidence != estimate.ConfidenceNone || s.Summary.Flags != estimate.FlagThin|estimate.FlagStale || len(s.Points) != 0 {
		t.Errorf("no sales: %+v", s)
	}
	// Sales after asOf do not count.
	if got := m.Estimate(sales, day0-1); len(got.Points) != 0 || got.Summary.SampleSize != 0 {
		t.Errorf("as of the day before the first sale: %+v", got)
	}
}

func TestEstimate_Points(t *testing.T) {
	sales := []estimate.Sale{
		{Day: day0, Cents: 1000}, {Day: day0, Cents: 1200, Source: 1},
		{Day: day0 + 3, Cents: 1100},
		{Day: day0 + 10, Cents: 1300},
	}
	s := m.Estimate(sales, day0+10)
	if len(s.Points) != 3 {
		t.Fatalf("%d points, want 3 (one per day with sales)", len(s.Points))
	}
	p := s.Points[0]
	// fmv is the median log price: of two sales, their geometric mean.
	if p.FMV != 1095 || p.Median != 1100 || p.TVWAP != 1100 || p.Recent != 2 || p.Sample != 2 || p.Confidence != estimate.ConfidenceMedium {
		t.Errorf("first point %+v", p)
	}
	p = s.Points[1] // day0+3: weights 4/7, 4/7, 1
	if want := int64(math.Round((4.0/7*1000 + 4.0/7*1200 + 1100) / (8.0/7 + 1))); p.TVWAP != want || p.Median != 1100 || p.Recent != 3 {
		t.Errorf("second point %+v, want tvwap %d, median 1100, recent 3", p, want)
	}
	p = s.Points[2] // day0+10: the first three are older than 7 days
	if p.TVWAP != 1300 || p.Median != 1300 || p.Recent != 1 || p.Sample != 4 {
		t.Errorf("third point %+v", p)
	}
}

func TestMethodology_Liquid(t *testing.T) {
	for _, tt := range []struct {
		sales int
		cents int64
		want  bool
	}{{5, 100, true}, {4, 100000, false}, {50, 99, false}, {5, 99, false}} {
		if got := m.Liquid(tt.sales, tt.cents); got != tt.want {
			t.Errorf("Liquid(%d, %d) = %v, want %v", tt.sales, tt.cents, got, tt.want)
		}
	}
	if m.SalesDays(1) != 30 || m.SalesDays(7) != 30 || m.SalesDays(90) != 90 {
		t.Errorf("SalesDays(1, 7, 90) = %d, %d, %d", m.SalesDays(1), m.SalesDays(7), m.SalesDays(90))
	}
}

func TestMethodology_CompositeOf(t *testing.T) {
	if got := m.CompositeOf(50, 100, 5); got != 35 { // (30 + 40) * 5/10
		t.Errorf("CompositeOf(50, 100, 5) = %v, want 35", got)
	}
	if got := m.CompositeOf(1000, 1000, 45); got != 270 { // clamped to 300, * 45/50
		t.Errorf("CompositeOf(1000, 1000, 45) = %v, want 270", got)
	}
	// Volume is built in: the same move on more sales ranks higher.
	if m.CompositeOf(40, 40, 5) >= m.CompositeOf(40, 40, 30) {
		t.Error("a move on 5 sales ranks at or above the same move on 30")
	}
	if !math.IsNaN(m.CompositeOf(math.NaN(), 10, 5)) {
		t.Error("CompositeOf with a NaN percentage is not NaN")
	}
}

func TestMethodology_SoloOf(t *testing.T) {
	nan := math.NaN()
	for _, tt := range []struct {
		move     float64
		siblings []float64
		want     bool
	}{
		{25, []float64{1, -2}, true},
		{-30, []float64{4.9}, true},
		{25, []float64{1, 6}, false},
		{19, []float64{0}, false},
		{25, nil, false},
		{25, []float64{nan}, false},
		{25, []float64{nan, 0}, true},
		{nan, []float64{0}, false},
	} {
		if got := m.SoloOf(tt.move, tt.siblings); got != tt.want {
			t.Errorf("SoloOf(%v, %v) = %v, want %v", tt.move, tt.siblings, got, tt.want)
		}
	}
}

func TestMethodology_BasePrintingOf(t *testing.T) {
	for _, tt := range []struct {
		variants []string
		want     int
	}{
		{nil, 0},
		{[]string{"holo"}, 0},
		{[]string{"holo/unlimited", "holo/shadowless/1st-edition", "holo/shadowless", "holo/1999-2000-copyright"}, 0},
		{[]string{"normal/1st edition", "normal/unlimited"}, 1},
		{[]string{"reverse", "normal"}, 1},
		{[]string{"reverse/set-logo", "normal"}, 1},
		{[]string{"holo/1st-edition", "holo/jumbo"}, 0},
		{[]string{"holo/rainbow"}, 0},
		{[]string{"normal/galaxy", "normal/galaxy/1st-edition", "normal/1999-2000-copyright"}, 0},
		{[]string{"alternate-art"}, 0},
		{[]string{"normal", "reverse/pokeball", "reverse/masterball"}, 0},
	} {
		if got := m.BasePrintingOf(tt.variants); got != tt.want {
			t.Errorf("BasePrintingOf(%q) = %d, want %d", tt.variants, got, tt.want)
		}
	}
}

// TestMethodology_JSON: the served document names every threshold the code
// reads, and its texts quote the same values.
func TestMethodology_JSON(t *testing.T) {
	b, err := json.Marshal(estimate.Default)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	get := func(path ...string) any {
		var v any = doc
		for _, p := range path {
			v = v.(map[string]any)[p]
		}
		return v
	}
	for _, tt := range []struct {
		path []string
		want float64
	}{
		{[]string{"fmv", "max_move_per_sale_pct"}, m.FMV.MaxMovePerSalePct},
		{[]string{"outlier", "mads"}, m.Outlier.MADs},
		{[]string{"liquidity", "min_sales"}, float64(m.Liquidity.MinSales)},
		{[]string{"liquidity", "min_price_usd"}, m.Liquidity.MinPriceUSD},
		{[]string{"thin", "sales"}, float64(m.Thin.Sales)},
		{[]string{"stale_days"}, float64(m.StaleDays)},
	} {
		if got := get(tt.path...); got != tt.want {
			t.Errorf("%s = %v, want %v", strings.Join(tt.path, "."), got, tt.want)
		}
	}
	levels := get("confidence").([]any)
	if len(levels) != 3 || levels[0].(map[string]any)["level"] != "high" {
		t.Errorf("confidence levels %v", levels)
	}
	var names []string
	for _, f := range m.Flags {
		names = append(names, f.Name)
	}
	if got, want := strings.Join(names, ","), "thin,solo,outlier_excluded,stale"; got != want {
		t.Errorf("flags %s, want %s", got, want)
	}
	if got := (estimate.FlagThin | estimate.FlagStale).Names(); strings.Join(got, ",") != "thin,stale" {
		t.Errorf("Names = %v", got)
	}
	text := string(b)
	for _, want := range []string{"at most 15 % per sale", "more than 4 spreads", "at least 5 verified sales", "fewer than 5 sales in the value's sample", "a thin value is never high confidence", "Confidence and flags read the same counts"} {
		if !strings.Contains(text, want) {
			t.Errorf("the methodology's texts do not say %q", want)
		}
	}
}

// TestMethodology_Sources: a source's value is medium while its file is at
// most 2 days old, low and stale up to the stale days, then none; the
// priority ranks TCGplayer first and an unlisted source last; a fresh
// feed's row passes the liquidity filter by its price while the filter asks
// for no more sales than the rule.
func TestMethodology_Sources(t *testing.T) {
	for _, tt := range []struct {
		age   int
		conf  estimate.Confidence
		flags estimate.Flags
		fresh bool
	}{
		{0, estimate.ConfidenceMedium, 0, true},
		{2, estimate.ConfidenceMedium, 0, true},
		{3, estimate.ConfidenceLow, estimate.FlagStale, false},
		{90, estimate.ConfidenceLow, estimate.FlagStale, false},
		{91, estimate.ConfidenceNone, estimate.FlagStale, false},
	} {
		conf, flags := m.SourceConfidence(tt.age)
		if conf != tt.conf || flags != tt.flags || m.SourceFresh(tt.age) != tt.fresh {
			t.Errorf("age %d: %s %v fresh %v, want %s %v %v", tt.age, conf, flags.Names(), m.SourceFresh(tt.age), tt.conf, tt.flags.Names(), tt.fresh)
		}
	}
	if m.SourceRank("tcgplayer") != 0 || m.SourceRank("cardmarket") != 1 || m.SourceRank("pricecharting") != 2 || m.SourceRank("observed") != 3 {
		t.Errorf("ranks: %d %d %d %d", m.SourceRank("tcgplayer"), m.SourceRank("cardmarket"), m.SourceRank("pricecharting"), m.SourceRank("observed"))
	}
	for _, tt := range []struct {
		minSales        int
		price, minPrice int64
		want            bool
	}{{5, 100, 100, true}, {0, 100, 100, true}, {6, 100000, 100, false}, {5, 99, 100, false}, {1, 50, 0, true}} {
		if got := m.LiquidFeed(tt.minSales, tt.price, tt.minPrice); got != tt.want {
			t.Errorf("LiquidFeed(%d, %d, %d) = %v, want %v", tt.minSales, tt.price, tt.minPrice, got, tt.want)
		}
	}
	if m.Sources.StaleAfterDays != estimate.SourceStaleAfterDays || m.Sources.Series == "" || m.Sources.Liquidity == "" || m.Sources.Confidence == "" {
		t.Errorf("sources rule not described: %+v", m.Sources)
	}
}

// TestMethodology_Judge: confidence and the thin and stale flags are one rule
// over the same counts, so that they cannot disagree: over every sample,
// number of marketplaces and age, a thin value is never high and a stale
// one is none; thin is the sample below Thin.Sales.
func TestMethodology_Judge(t *testing.T) {
	for sample := 0; sample <= 3*m.Thin.Sales; sample++ {
		for sources := 0; sources <= 4; sources++ {
			for age := -1; age <= m.SampleDays+m.StaleDays; age++ {
				conf, flags := m.Judge(sample, sources, age)
				if conf != m.ConfidenceOf(sample, sources, age) {
					t.Fatalf("Judge(%d, %d, %d) confidence %s, ConfidenceOf %s", sample, sources, age, conf, m.ConfidenceOf(sample, sources, age))
				}
				thin, stale := flags&estimate.FlagThin != 0, flags&estimate.FlagStale != 0
				if thin && conf == estimate.ConfidenceHigh {
					t.Fatalf("Judge(%d, %d, %d): thin and high confidence", sample, sources, age)
				}
				if stale && conf != estimate.ConfidenceNone {
					t.Fatalf("Judge(%d, %d, %d): stale and confidence %s", sample, sources, age, conf)
				}
				if thin != (sample < m.Thin.Sales) {
					t.Fatalf("Judge(%d, %d, %d): thin %v", sample, sources, age, thin)
				}
			}
		}
	}
	if got := m.RowFlags(26, false, estimate.FlagThin|estimate.FlagSolo); got != estimate.FlagSolo {
		t.Errorf("a row of 26 sales whose reference series is thin: %v, want solo only", got.Names())
	}
	if got := m.RowFlags(2, false, 0); got != estimate.FlagThin {
		t.Errorf("a row of 2 sales: %v, want thin", got.Names())
	}
	if got := m.RowFlags(0, true, 0); got != 0 {
		t.Errorf("a fresh source's row: %v, want its series' flags (none)", got.Names())
	}
}

// TestEstimate_ThinNeverHigh: over many random series, no point and no
// summary is thin at high confidence.
func TestEstimate_ThinNeverHigh(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for n := 0; n < 300; n++ {
		var sales []estimate.Sale
		day := int32(20000)
		for i := 0; i < 1+r.IntN(40); i++ {
			day += int32(r.IntN(20))
			sales = append(sales, estimate.Sale{Day: day, Cents: int64(1000 + r.IntN(500)), Source: uint8(r.IntN(3))})
		}
		s := m.Estimate(sales, day+int32(r.IntN(60)))
		for _, p := range s.Points {
			if p.Flags&estimate.FlagThin != 0 && p.Confidence == estimate.ConfidenceHigh {
				t.Fatalf("series %d, day %d: thin at high confidence (sample %d)", n, p.Day, p.Sample)
			}
		}
		if s.Summary.Flags&estimate.FlagThin != 0 && s.Summary.Confidence == estimate.ConfidenceHigh {
			t.Fatalf("series %d: summary thin at high confidence (sample %d)", n, s.Summary.SampleSize)
		}
	}
}
