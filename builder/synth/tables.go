package synth

import (
	"math"

	"github.com/cardedge/cardedge/snapshots"
)

// Fixed categorical tables shared by every card. A table is cumulative
// thresholds over [0, 1<<32); pick returns the first index whose threshold
// exceeds the draw.

const numMarkets = 7 // len(snapshots.AllMarketplaces())

type cum32 []uint64

// makeCum builds a cumulative table from weights (any scale). Entries of
// zero weight are never picked.
func makeCum(w []float64) cum32 {
	var total float64
	last := 0
	for i, x := range w {
		total += x
		if x > 0 {
			last = i
		}
	}
	out := make(cum32, len(w))
	var acc float64
	for i, x := range w {
		acc += x
		out[i] = uint64(acc / total * (1 << 32))
		if i >= last {
			out[i] = 1 << 32
		}
		if x == 0 && i > 0 {
			out[i] = out[i-1]
		} else if x == 0 {
			out[i] = 0
		}
	}
	return out
}

func (t cum32) pick(u uint32) int {
	v := uint64(u)
	for i, x := range t {
		if v < x {
			return i
		}
	}
	return len(t) - 1
}

// Market classes: which marketplaces sell a card depends on game and language.
const (
	clsPokemonEN = iota
	clsPokemonJA
	clsPokemonZH
	clsOnePieceEN
	clsOnePieceJA
	numClasses
)

func marketClass(game, lang string) int {
	if game == "onepiece" {
		if lang == "ja" {
			return clsOnePieceJA
		}
		return clsOnePieceEN
	}
	switch lang {
	case "ja":
		return clsPokemonJA
	case "zh-tw", "zh-cn":
		return clsPokemonZH
	}
	return clsPokemonEN
}

// Marketplace weights per class, for raw and graded sales, in
// snapshots.AllMarketplaces order: partner, ebay, cardmarket, mercari,
// yahoo_auctions, courtyard, collector_crypt.
var marketWeights = [numClasses][2][numMarkets]float64{
	clsPokemonEN:  {{42, 33, 14, 7, 1.5, 0.3, 0.2}, {20, 48, 6, 4, 1, 12, 9}},
	clsPokemonJA:  {{7, 20, 4, 33, 35, 0.2, 0.2}, {4, 34, 3, 20, 25, 8, 6}},
	clsPokemonZH:  {{8, 40, 6, 20, 25, 0.2, 0.1}, {4, 48, 3, 15, 15, 9, 6}},
	clsOnePieceEN: {{45, 32, 12, 6, 3, 0.2, 0.1}, {22, 46, 6, 5, 2, 11, 8}},
	clsOnePieceJA: {{12, 25, 4, 27, 31, 0.2, 0.1}, {6, 32, 3, 20, 24, 9, 6}},
}

// listingWeights are the platforms of shop listings (off-chain only).
var listingWeights = [numClasses][numMarkets]float64{
	clsPokemonEN:  {45, 35, 14, 5, 1, 0, 0},
	clsPokemonJA:  {8, 25, 4, 30, 33, 0, 0},
	clsPokemonZH:  {10, 40, 6, 20, 24, 0, 0},
	clsOnePieceEN: {45, 33, 13, 6, 3, 0, 0},
	clsOnePieceJA: {12, 25, 4, 28, 31, 0, 0},
}

// Market price factors per class and marketplace (local markets sell their
// own language cheaper, foreign ones dearer).
var marketPrice = [numClasses][numMarkets]float64{
	clsPokemonEN:  {1, 1, 0.92, 0.97, 1.08, 1.03, 1.02},
	clsPokemonJA:  {1.05, 1.05, 0.97, 0.93, 0.92, 1.03, 1.02},
	clsPokemonZH:  {1.05, 1.02, 0.97, 0.95, 0.95, 1.03, 1.02},
	clsOnePieceEN: {1, 1, 0.93, 0.97, 1.06, 1.03, 1.02},
	clsOnePieceJA: {1.04, 1.04, 0.97, 0.93, 0.92, 1.03, 1.02},
}

// Trade types per marketplace (auction, fixed_price, best_offer, on_chain_transfer).
var tradeWeights = [numMarkets][4]float64{
	snapshots.MarketPartner:       {0, 96, 4, 0},
	snapshots.MarketEbay:          {40, 44, 16, 0},
	snapshots.MarketCardmarket:    {0, 100, 0, 0},
	snapshots.MarketMercari:       {0, 83, 17, 0},
	snapshots.MarketYahooAuctions: {88, 12, 0, 0},
	snapshots.VenueCourtyard:      {0, 0, 0, 100},
	snapshots.VenueCollectorCrypt: {0, 0, 0, 100},
}

// Identity confidence per marketplace kind, in 1/65536 (exact, agree_high,
// agree_medium, disagree_medium, disagree_high). Partner sales match by
// product id; the rest by title.
var confPartner = [5]float64{0.90, 0.08, 0.015, 0.0035, 0.0015}
var confOther = [5]float64{0.36, 0.40, 0.2145, 0.017, 0.0085}

// flaggedThreshold is the share of executed sales flagged by quality rules
// (3 %), out of 4096.
const flaggedThreshold = 123

// outliers are the price multipliers of flagged outlier sales.
var outliers = [8]float64{0.1, 0.12, 0.2, 0.3, 3, 5, 8, 10}

// Raw conditions: share (modern, vintage) and price factor vs near_mint.
var condModern = [5]float64{0.72, 0.16, 0.07, 0.035, 0.015}
var condVintage = [5]float64{0.48, 0.26, 0.15, 0.07, 0.04}
var condPrice = [5]float64{1, 0.8, 0.63, 0.45, 0.28}

// Graders: share of graded sales (PSA, the top grader, grades most of the
// cards that sell graded).
var graderShare = [3]float64{0.70, 0.14, 0.16}

// gradeStep is one grade number of a grader with its share (modern, vintage).
type gradeStep struct {
	num             float64
	modern, vintage float64
}

var graderSteps = [3][]gradeStep{
	{ // slab: whole grades only
		{10, 0.38, 0.07}, {9, 0.34, 0.25}, {8, 0.16, 0.28}, {7, 0.06, 0.18}, {6, 0.025, 0.09},
		{5, 0.012, 0.05}, {4, 0.007, 0.04}, {3, 0.004, 0.02}, {2, 0.001, 0.01}, {1, 0.001, 0.01},
	},
	{ // bgs
		{10, 0.04, 0.005}, {9.5, 0.36, 0.10}, {9, 0.33, 0.28}, {8.5, 0.13, 0.24}, {8, 0.08, 0.17},
		{7.5, 0.03, 0.09}, {7, 0.018, 0.06}, {6, 0.008, 0.04}, {5, 0.004, 0.015}, {4, 0.002, 0.005},
	},
	{ // cgc
		{10, 0.20, 0.03}, {9.5, 0.30, 0.12}, {9, 0.26, 0.27}, {8.5, 0.10, 0.22}, {8, 0.07, 0.17},
		{7.5, 0.03, 0.09}, {7, 0.02, 0.06}, {6, 0.01, 0.03}, {5, 0.006, 0.008}, {4, 0.004, 0.002},
	},
}

// graderPremium scales a grader's log premium against the top grader's.
var graderPremium = [3]float64{1, 0.92, 0.78}

// gradeCurve is the fraction of the log 10-premium a grade number carries.
func gradeCurve(num float64) float64 {
	switch {
	case num >= 10:
		return 1
	case num >= 9.5:
		return 0.72
	case num >= 9:
		return 0.45
	case num >= 8.5:
		return 0.33
	case num >= 8:
		return 0.24
	case num >= 7.5:
		return 0.17
	case num >= 7:
		return 0.11
	case num >= 6:
		return 0.04
	}
	return 0
}

// Grade ladder constants: every grade step is worth something, so that a
// ladder rises with the grade (as graded sales do: a PSA 9 sells below a
// PSA 10 of the same card, above a PSA 8).
const (
	// lowGradeDiscount is the log price of a grade-6 copy of a modern card
	// below a raw near-mint one (half of it for vintage cards, whose raw
	// "near mint" copies are rarely better than a 6 or 7): a raw modern
	// card is presumed to grade well, a slabbed 6 has proved it does not.
	// From 6 up the discount shrinks linearly to nothing at 10.
	lowGradeDiscount = 0.6
	// lowGradeStep is the log discount per whole grade below 6.
	lowGradeStep = 0.2
	// gradedNoiseScale scales the sale noise of graded copies: a
	// certified grade leaves less to argue about than a raw condition.
	gradedNoiseScale = 0.6
)

// gradeMultiplier is the price of grade (grader g, number num) relative to
// raw near_mint for a card whose top-grader 10 sells for exp(logP10) times
// raw near-mint and whose vintage share is vintage (0 modern .. 1):
//
//	log m(num) = logP10 x gradeCurve(num) - D (10 - num) / 4   for num >= 6
//	log m(num) = log m(6) - lowGradeStep (6 - num)            below 6
//
// with D = lowGradeDiscount (1 - vintage/2), scaled by the grader's premium.
// Each step is at least D/8 per half grade on top of the curve's.
func gradeMultiplier(g int, num, logP10, vintage float64) float64 {
	d := lowGradeDiscount * (1 - vintage/2)
	lm := func(n float64) float64 { return logP10*gradeCurve(n) - d*(10-n)/4 }
	l := lm(num)
	if num < 6 {
		l = lm(6) - lowGradeStep*(6-num)
	}
	m := math.Exp(l * graderPremium[g])
	if g == 1 && num == 10 {
		m *= 1.6 // a BGS 10 is scarcer and dearer than a top-grader 10
	}
	return m
}

// gradedFloor is the least a graded copy sells for, in cents: grading costs
// money, so bulk cards trade graded at a floor, not at a multiple of raw;
// the floor rises about 20 % a grade ($4 for a 1, $24 for a 10).
func gradedFloor(num float64) float64 { return 400 * math.Exp(0.2*(num-1)) }

// Noise tables: exp(sigma * z) at the 1024 quantiles of a standard normal,
// so a sale's noise is one table read.
const noiseBits = 10

var normalQuantiles = func() (q [1 << noiseBits]float64) {
	for i := range q {
		q[i] = invNorm((float64(i) + 0.5) / (1 << noiseBits))
	}
	return q
}()

type noiseTable [1 << noiseBits]float64

func makeNoise(sigma, mu float64) *noiseTable {
	var t noiseTable
	for i, z := range normalQuantiles {
		t[i] = math.Exp(mu + sigma*z)
	}
	return &t
}

// Sale noise by trade type and band: 0 raw, 1 raw and cheap (cheap cards
// sell noisier), 2 graded (gradedNoiseScale).
var saleNoise = func() (t [4][3]*noiseTable) {
	sig := [4]float64{0.17, 0.085, 0.11, 0.09}
	for tt := range t {
		t[tt][0] = makeNoise(sig[tt], 0)
		t[tt][1] = makeNoise(math.Hypot(sig[tt], 0.16), 0)
		t[tt][2] = makeNoise(gradedNoiseScale*sig[tt], 0)
	}
	return t
}()

// wrongCard is the price noise of a low-confidence identity match.
var wrongCard = makeNoise(0.6, 0)

// feedNoise is the partner feed's deviation from the market path.
var feedNoise = makeNoise(0.025, 0)

// invNorm is the inverse standard normal CDF (Acklam's rational
// approximation, relative error below 1.2e-9).
func invNorm(p float64) float64 {
	a := [6]float64{-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00}
	b := [5]float64{-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01}
	c := [6]float64{-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00}
	d := [4]float64{7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00}
	const lo = 0.02425
	switch {
	case p < lo:
		q := math.Sqrt(-2 * math.Log(p))
		return (((((c[0]*q+c[1])*q+c[2])*q+c[3])*q+c[4])*q + c[5]) / ((((d[0]*q+d[1])*q+d[2])*q+d[3])*q + 1)
	case p > 1-lo:
		q := math.Sqrt(-2 * math.Log(1-p))
		return -(((((c[0]*q+c[1])*q+c[2])*q+c[3])*q+c[4])*q + c[5]) / ((((d[0]*q+d[1])*q+d[2])*q+d[3])*q + 1)
	}
	q := p - 0.5
	r := q * q
	return (((((a[0]*r+a[1])*r+a[2])*r+a[3])*r+a[4])*r + a[5]) * q / (((((b[0]*r+b[1])*r+b[2])*r+b[3])*r+b[4])*r + 1)
}

// Global cumulative tables, built once.
var (
	marketCum  [numClasses][2]cum32
	listingCum [numClasses]cum32
	tradeCum   [numMarkets]cum32
	confCum    [2]cum32 // 0 other, 1 partner
	gradeNames [256]string
)

func init() {
	for cls := range marketWeights {
		for g := range 2 {
			marketCum[cls][g] = makeCum(marketWeights[cls][g][:])
		}
		listingCum[cls] = makeCum(listingWeights[cls][:])
	}
	for m := range tradeWeights {
		tradeCum[m] = makeCum(tradeWeights[m][:])
	}
	confCum[0] = makeCum(confOther[:])
	confCum[1] = makeCum(confPartner[:])
	for i := range gradeNames {
		if g := snapshots.Grade(i); g.Valid() {
			gradeNames[i] = g.String()
		}
	}
}
