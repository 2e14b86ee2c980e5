package estimate

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Methodology is every rule and threshold of the estimator, as served at
// /api/v3/methodology. The methods of this package read their thresholds
// from it.
type Methodology struct {
	// Name and Version identify the methodology; Version changes with any
	// threshold.
	Name    string `json:"name"`
	Version string `json:"version"`

	// Estimators describe each published number.
	Estimators []Estimator `json:"estimators"`

	Outlier     OutlierRule       `json:"outlier"`
	FMV         FMVRule           `json:"fmv"`
	TrailDays   int               `json:"trail_days"`  // window of tvwap and median, days
	SampleDays  int               `json:"sample_days"` // window of sample_size, days
	Confidence  []ConfidenceLevel `json:"confidence"`  // best first; a series takes the first it meets, else none
	Thin        ThinRule          `json:"thin"`
	Solo        SoloRule          `json:"solo"`
	OutlierDays int               `json:"outlier_flag_days"` // outlier_excluded looks back this many days
	StaleDays   int               `json:"stale_days"`        // stale: no accepted sale in this many days
	Flags       []FlagInfo        `json:"flags"`
	// ConfidenceRule says the one rule of confidence and the flags in
	// words (Judge): the text the pages show where they show them.
	ConfidenceRule string        `json:"confidence_rule"`
	Liquidity      LiquidityRule `json:"liquidity"`
	Composite      CompositeRule `json:"composite"`
	// VolumeBaselineDays: volume_pct compares a window's volume with the
	// window before it of the same length, or for windows shorter than
	// this many days with the this many days before the window, scaled to
	// the window's length (one day against the average day of the month
	// before it, not against yesterday alone).
	VolumeBaselineDays int          `json:"volume_baseline_days"`
	BasePrinting       PrintingRule `json:"base_printing"`
	// Sources is how the numbers of real sources (the marketplaces' daily
	// price files, a price guide, sold-listing exports) make prices.
	Sources SourcesRule `json:"sources"`
}

// Estimator describes one published number.
type Estimator struct {
	Name    string `json:"name"`
	Meaning string `json:"meaning"`
}

// OutlierRule sets sales far from their series' recent level aside.
type OutlierRule struct {
	// The recent level is the median log price of the last WindowSales
	// accepted sales of the WindowDays days before the sale's day.
	WindowSales int `json:"window_sales"`
	WindowDays  int `json:"window_days"`
	// MinHistory is the least number of such sales to judge a sale at all.
	MinHistory int `json:"min_history"`
	// A sale is a candidate when its log price is more than MADs spreads
	// from the level; the spread is 1.4826 x the median absolute deviation
	// of the level's log prices, at least MinSpread.
	MADs      float64 `json:"mads"`
	MinSpread float64 `json:"min_spread"`
	// ConfirmSales candidates on the same side within ConfirmDays days
	// confirm each other and are accepted.
	ConfirmSales int `json:"confirm_sales"`
	ConfirmDays  int `json:"confirm_days"`
}

// FMVRule smooths the fair market value.
type FMVRule struct {
	// SaleWeight: a day with n accepted sales of its own moves log fmv by
	// 1 - (1 - SaleWeight)^n of the way to the median log price of its
	// accepted sales (candidates of earlier days it confirms included)...
	SaleWeight float64 `json:"sale_weight"`
	// ... and by at most a factor of (1 + MaxMovePerSalePct/100)^n: one
	// sale moves fmv by at most MaxMovePerSalePct percent.
	MaxMovePerSalePct float64 `json:"max_move_per_sale_pct"`
}

// ConfidenceLevel is one level of the confidence rule.
type ConfidenceLevel struct {
	Level      Confidence `json:"level"`
	MinSample  int        `json:"min_sample"`   // accepted sales in the sample window
	MinSources int        `json:"min_sources"`  // distinct marketplaces among them
	MaxAgeDays int        `json:"max_age_days"` // the last accepted sale at most this many days old
}

// ThinRule: a value whose sample has fewer than Sales sales is thin. The
// sample is the count confidence reads, so that the two cannot disagree: a
// series' accepted sales of the trailing SampleDays (its sample_size), a
// leaderboard row's verified sales (its sample_size). Sales is the least
// sample of the high confidence level: a thin value is never high (Judge).
type ThinRule struct {
	Sales int `json:"sales"`
}

// SoloRule: a series whose fmv moved at least MovePct percent over Days
// days while every sibling (the other printings of its grade, the other
// grades of its printing) with a price moved less than FlatPct percent.
type SoloRule struct {
	Days    int     `json:"days"`
	MovePct float64 `json:"move_pct"`
	FlatPct float64 `json:"flat_pct"`
}

// FlagInfo names a flag and what it means.
type FlagInfo struct {
	Name    string `json:"name"`
	Meaning string `json:"meaning"`
}

// LiquidityRule decides which rows rank as movers (trending, set trending
// cards, market volume).
type LiquidityRule struct {
	// MinSales verified sales in the window, counted over the last
	// ShortWindowDays days for windows shorter than that.
	MinSales        int `json:"min_sales"`
	ShortWindowDays int `json:"short_window_days"`
	// MinPriceUSD is the least price of a row.
	MinPriceUSD float64 `json:"min_price_usd"`
	// MoversMinPriceUSD is the price floor of the movers (the trending
	// leaderboard: REST's trending route, the dashboard's movers page, the
	// chat and the MCP movers resource) unless the caller sets one: the
	// floor a collector would set, under which a card is bulk and a large
	// percent move is a dollar or two, less than its shipping.
	MoversMinPriceUSD float64 `json:"movers_min_price_usd"`
}

// CompositeRule builds the composite score.
type CompositeRule struct {
	PriceWeight  float64 `json:"price_weight"`
	VolumeWeight float64 `json:"volume_weight"`
	ClampMinPct  float64 `json:"clamp_min_pct"`
	ClampMaxPct  float64 `json:"clamp_max_pct"`
	// The weighted sum is scaled by n / (n + ShrinkSales) for the row's n
	// verified sales (its sample_size): volume is built in.
	ShrinkSales float64 `json:"shrink_sales"`
}

// PrintingRule picks a card's base printing.
type PrintingRule struct {
	Rule string `json:"rule"`
	// StandardParts are the parts of a variant that make no special
	// printing.
	StandardParts []string `json:"standard_parts"`
}

// SourcesRule is how a snapshot built from real sources (cardbuild build
// --source) prices a printing and grade: each price series comes from one
// source, never a blend; the service's own estimate (the rules above) prices
// what no source covers, from verified sales.
type SourcesRule struct {
	// Priority lists the feeds a price series may come from, preferred
	// first: among the fresh sources that cover a printing and grade, the
	// first makes its series (raw grades from TCGplayer's market price, else
	// Cardmarket's trend; graded ones from PriceCharting's guide).
	Priority []string `json:"priority"`
	// Fields are the feeds' headline fields: the one a series is made of.
	Fields map[string]string `json:"fields"`
	// StaleAfterDays: a source whose last file is more than this many days
	// before as_of is stale.
	StaleAfterDays int `json:"stale_after_days"`
	// FreshConfidence is the confidence of a fresh feed's value,
	// StaleConfidence a stale one's up to the methodology's StaleDays after
	// its last file (then none).
	FreshConfidence Confidence `json:"fresh_confidence"`
	StaleConfidence Confidence `json:"stale_confidence"`
	// The rules in words (written by describe from the values above).
	Series     string `json:"series"`
	Confidence string `json:"confidence"`
	Stale      string `json:"stale"`
	Liquidity  string `json:"liquidity"`
	Observed   string `json:"observed"`
	Synthetic  string `json:"synthetic"`
}

// SourceStaleAfterDays is Default.Sources.StaleAfterDays as a constant
// (snapshots.StaleAfterDays is it).
const SourceStaleAfterDays = 2

// Default is the methodology cardedge publishes and computes with. Its
// texts (estimators, flags, the base-printing rule) are written from its
// thresholds by describe, so they cannot disagree.
var Default = describe(Methodology{
	Name:    "cardedge-estimate",
	Version: "1.2.0",
	Outlier: OutlierRule{
		WindowSales: 12, WindowDays: 180, MinHistory: 4,
		MADs: 4, MinSpread: 0.12,
		ConfirmSales: 2, ConfirmDays: 7,
	},
	FMV:        FMVRule{SaleWeight: 0.4, MaxMovePerSalePct: 15},
	TrailDays:  7,
	SampleDays: 90,
	Confidence: []ConfidenceLevel{
		{Level: ConfidenceHigh, MinSample: 5, MinSources: 2, MaxAgeDays: 14},
		{Level: ConfidenceMedium, MinSample: 2, MinSources: 1, MaxAgeDays: 45},
		{Level: ConfidenceLow, MinSample: 1, MinSources: 1, MaxAgeDays: 90},
	},
	Thin:               ThinRule{Sales: 5},
	Solo:               SoloRule{Days: 30, MovePct: 20, FlatPct: 5},
	OutlierDays:        30,
	StaleDays:          90,
	Liquidity:          LiquidityRule{MinSales: 5, ShortWindowDays: 30, MinPriceUSD: 1, MoversMinPriceUSD: 10},
	Composite:          CompositeRule{PriceWeight: 0.6, VolumeWeight: 0.4, ClampMinPct: -100, ClampMaxPct: 300, ShrinkSales: 5},
	VolumeBaselineDays: 30,
	BasePrinting: PrintingRule{
		StandardParts: []string{"normal", "holo", "unlimited", "alternate-art"},
	},
	Sources: SourcesRule{
		Priority:        []string{"tcgplayer", "cardmarket", "pricecharting"},
		Fields:          map[string]string{"tcgplayer": "market", "cardmarket": "trend", "pricecharting": "the column of the grade"},
		StaleAfterDays:  SourceStaleAfterDays,
		FreshConfidence: ConfidenceMedium,
		StaleConfidence: ConfidenceLow,
	},
})

// describe fills the texts of m from its thresholds.
func describe(m Methodology) Methodology {
	o, f := m.Outlier, m.FMV
	g := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	m.Estimators = []Estimator{
		{"fmv", fmt.Sprintf("fair market value: exponentially smoothed daily median of the accepted verified sales, in log price; "+
			"a day with n accepted sales of its own moves it 1 - %s^n of the way to that day's median, and by at most %s %% per sale "+
			"(a factor of %s^n); an outlier cannot move it alone", g(1-f.SaleWeight), g(f.MaxMovePerSalePct), g(1+f.MaxMovePerSalePct/100))},
		{"tvwap", fmt.Sprintf("time- and volume-weighted average of the accepted verified sales of the trailing %d days, each weighted by 1 - age/%d", m.TrailDays, m.TrailDays)},
		{"median", fmt.Sprintf("median of the accepted verified sales of the trailing %d days", m.TrailDays)},
		{"sample_size", fmt.Sprintf("accepted verified sales of the series in the trailing %d days; for a leaderboard row, its verified sales in the window (in the last %d days for shorter windows)",
			m.SampleDays, m.Liquidity.ShortWindowDays)},
		{"last_sale_date", "date of the series' last accepted verified sale"},
		{"confidence", fmt.Sprintf("high, medium, low or none, the first level whose sample size, marketplaces and age of the last sale the series meets (see confidence); at none no value is given. "+
			"It reads the counts the flags read: a series is thin below %d sales in its sample, which high needs at least, and stale without a sale in %d days, which low needs at most",
			m.Thin.Sales, m.StaleDays)},
		{"outlier", fmt.Sprintf("a verified sale whose log price is more than %s spreads from the median log price of the last %d accepted sales of the %d days before it "+
			"(spread: 1.4826 x their median absolute deviation, at least %s; judged once there are %d such sales); "+
			"it is set aside unless %d such sales on the same side within %d days confirm a move, and then they are accepted together",
			g(o.MADs), o.WindowSales, o.WindowDays, g(o.MinSpread), o.MinHistory, o.ConfirmSales, o.ConfirmDays)},
		{"volume_pct", fmt.Sprintf("percent change of a row's verified sales volume in the window against the window before it of the same length; "+
			"for windows shorter than %d days, against the %d days before the window scaled to its length", m.VolumeBaselineDays, m.VolumeBaselineDays)},
		{"price_pct", "percent change of the fmv of the row's reference series (raw near-mint, or the row's grades' most sold grade) from the day before the window to its last day"},
		{"composite", fmt.Sprintf("%s x price_pct + %s x volume_pct, each clamped to [%s, %s], scaled by n / (n + %s) for the row's n verified sales",
			g(m.Composite.PriceWeight), g(m.Composite.VolumeWeight), g(m.Composite.ClampMinPct), g(m.Composite.ClampMaxPct), g(m.Composite.ShrinkSales))},
		{"liquidity", fmt.Sprintf("a leaderboard row ranks with at least %d verified sales in its window (in the last %d days for shorter windows) and a price of at least $%.2f; "+
			"the movers (the trending leaderboard) ask at least $%.2f unless the caller sets min_price_usd",
			m.Liquidity.MinSales, m.Liquidity.ShortWindowDays, m.Liquidity.MinPriceUSD, m.Liquidity.MoversMinPriceUSD)},
	}
	m.Flags = []FlagInfo{
		{"thin", fmt.Sprintf("fewer than %d sales in the value's sample (a series: its sample_size, the accepted verified sales of the last %d days that confidence reads; "+
			"a leaderboard row: its sample_size): the value rests on few sales. High confidence needs at least %d, so a thin value is never high confidence",
			m.Thin.Sales, m.SampleDays, m.Thin.Sales)},
		{"solo", fmt.Sprintf("the fmv moved at least %s %% over %d days while every other printing of the grade and every other grade of the printing that has a price moved less than %s %%",
			g(m.Solo.MovePct), m.Solo.Days, g(m.Solo.FlatPct))},
		{"outlier_excluded", fmt.Sprintf("a sale of the last %d days was set aside as an outlier and did not move the value", m.OutlierDays)},
		{"stale", fmt.Sprintf("no accepted verified sale in the last %d days; for a value from a source's file (see sources), the source had no file for more than %d days before as_of "+
			"(its last value is kept at %s confidence up to %d days, then none)", m.StaleDays, m.Sources.StaleAfterDays, m.Sources.StaleConfidence, m.StaleDays)},
	}
	src := &m.Sources
	src.Series = fmt.Sprintf("in a snapshot built from sources, each printing and grade a source covers is priced from one source, never a blend: "+
		"its headline field day by day (%s) is the series' fmv, tvwap and median; among the fresh sources the first of %s makes it, else the stale one with the latest file, then that order; "+
		"a Cardmarket amount is converted from EUR with the European Central Bank's reference rate of its day (or the last day before it within 7 days), and keeps its original amount, currency and rate day",
		fieldList(src.Priority, src.Fields), strings.Join(src.Priority, ", "))
	src.Confidence = fmt.Sprintf("a source's value is %s confidence while the source is fresh (a marketplace's daily market price stands for sales the file does not count), "+
		"%s and flagged stale after %d days without a file, none after %d days", src.FreshConfidence, src.StaleConfidence, src.StaleAfterDays, m.StaleDays)
	src.Stale = fmt.Sprintf("a source whose last file is more than %d days before the snapshot's as_of is stale: the manifest's sources, its quotes and its values say so", src.StaleAfterDays)
	src.Liquidity = fmt.Sprintf("a leaderboard row whose reference series is a fresh source's ranks without verified sales (a feed counts none; its sample_size stays its verified sales) "+
		"when its price is at least $%.2f (or the filter's min_price_usd) and the filter asks for at most the rule's %d sales (a higher min_sales asks for verified sales)",
		m.Liquidity.MinPriceUSD, m.Liquidity.MinSales)
	src.Observed = "the printings and grades no source covers are priced by the rules above from verified sales (the observed source: a collector's sold-listing exports, cardedge's own feeds)"
	src.Synthetic = "the offline default snapshot's market is synthesized (its manifest's market_source is synthetic): every price, sale and listing says synthetic: true; " +
		"a build from sources with --synthetic-fill synthesizes the cards no source has, flagged row by row"
	levels := make([]string, 0, len(m.Confidence))
	for _, l := range m.Confidence {
		x := fmt.Sprintf("%s with at least %d accepted verified %s in %d days", l.Level, l.MinSample, salesWord(l.MinSample), m.SampleDays)
		if l.MinSources > 1 {
			x += fmt.Sprintf(" from %d or more marketplaces", l.MinSources)
		}
		levels = append(levels, x+fmt.Sprintf(" and the last within %d days", l.MaxAgeDays))
	}
	m.ConfidenceRule = fmt.Sprintf("Confidence and flags read the same counts. Confidence: %s; none otherwise (no value is shown). "+
		"Thin: fewer than %d sales in that sample (for a mover, in its sample), so a thin value is never high confidence. "+
		"Stale: no sale in %d days (confidence none). Outlier excluded: a sale of the last %d days was set aside. "+
		"Solo: moved %s %% in %d days while the other printings and grades did not.",
		strings.Join(levels, "; "), m.Thin.Sales, m.StaleDays, m.OutlierDays, g(m.Solo.MovePct), m.Solo.Days)
	m.BasePrinting.Rule = "the printing a card is priced in when none is asked: the first of its variants made only of standard parts (" +
		strings.Join(m.BasePrinting.StandardParts, ", ") + "); else the variant with the fewest other parts (reverse counts as one), " +
		"first in catalog order; a card without known variants has one printing"
	return m
}

// fieldList writes each source's headline field: "tcgplayer market, ...".
func fieldList(names []string, fields map[string]string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " " + fields[n]
	}
	return strings.Join(parts, ", ")
}

// SourceRank is the place of a source in Sources.Priority (len of it for a
// source not listed): lower is preferred.
func (m *Methodology) SourceRank(name string) int {
	for i, n := range m.Sources.Priority {
		if n == name {
			return i
		}
	}
	return len(m.Sources.Priority)
}

// SourceFresh reports whether a source's value ageDays old (as_of minus
// its day) is fresh.
func (m *Methodology) SourceFresh(ageDays int) bool { return ageDays <= m.Sources.StaleAfterDays }

// SourceConfidence is the confidence and flags of a source's value ageDays
// old: FreshConfidence while fresh, StaleConfidence and stale up to
// StaleDays, then none and stale.
func (m *Methodology) SourceConfidence(ageDays int) (Confidence, Flags) {
	switch {
	case m.SourceFresh(ageDays):
		return m.Sources.FreshConfidence, 0
	case ageDays <= m.StaleDays:
		return m.Sources.StaleConfidence, FlagStale
	}
	return ConfidenceNone, FlagStale
}

// LiquidFeed reports whether a row whose reference series is a fresh
// source's, priced priceCents, passes a liquidity filter of minSales sales
// and minPriceCents without verified sales: when the filter asks for no
// more sales than the rule (Liquidity.MinSales).
func (m *Methodology) LiquidFeed(minSales int, priceCents, minPriceCents int64) bool {
	return minSales <= m.Liquidity.MinSales && priceCents >= minPriceCents
}

func salesWord(n int) string {
	if n == 1 {
		return "sale"
	}
	return "sales"
}

// Confidence is how far a value can be trusted. Stored: append only.
type Confidence uint8

// Confidence levels, lowest first.
const (
	ConfidenceNone Confidence = iota
	ConfidenceLow
	ConfidenceMedium
	ConfidenceHigh
)

var confidenceNames = [...]string{"none", "low", "medium", "high"}

func (c Confidence) String() string {
	if int(c) < len(confidenceNames) {
		return confidenceNames[c]
	}
	return "unknown"
}

// MarshalText writes the level's name.
func (c Confidence) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Flags are a set of flags. Stored: append only.
type Flags uint8

// Flags, in the order of Default.Flags.
const (
	FlagThin Flags = 1 << iota
	FlagSolo
	FlagOutlierExcluded
	FlagStale
	numFlags = iota
)

// Names returns the names of the flags in f, in the order of Default.Flags
// (nil when none).
func (f Flags) Names() []string {
	var out []string
	for i := 0; i < numFlags; i++ {
		if f&(1<<i) != 0 {
			out = append(out, Default.Flags[i].Name)
		}
	}
	return out
}

// MarshalJSON writes the names of the flags, a JSON array.
func (f Flags) MarshalJSON() ([]byte, error) {
	names := f.Names()
	if names == nil {
		names = []string{}
	}
	return json.Marshal(names)
}

// Judge is the one rule of confidence and the thin and stale flags: the
// confidence (ConfidenceOf) and flags of a value with sample sales in its
// sample from sources marketplaces whose last sale is ageDays old (ageDays <
// 0: no sale). Both read the same counts: thin is a sample below
// Thin.Sales (ThinOf), stale no sale in StaleDays days, and Default's levels
// ask high for a sample of at least Thin.Sales and low for a sale within
// StaleDays, so a thin value is never high and a stale one is none
// (estimate_test checks it over every count).
func (m *Methodology) Judge(sample, sources, ageDays int) (Confidence, Flags) {
	var f Flags
	if m.ThinOf(sample) {
		f |= FlagThin
	}
	if ageDays < 0 || ageDays > m.StaleDays {
		f |= FlagStale
	}
	return m.ConfidenceOf(sample, sources, ageDays), f
}

// ThinOf reports whether a value with sample sales in its sample is thin.
func (m *Methodology) ThinOf(sample int) bool { return sample < m.Thin.Sales }

// RowFlags are the flags of a leaderboard row with sample verified sales
// (its sample_size) whose reference series has the flags ref: the series'
// solo, outlier_excluded and stale, and thin by the row's own sample, the
// count shown beside it (ThinOf). A row whose reference series is a fresh
// source's (feed: it ranks by its price, LiquidFeed; its sample counts no
// feed) keeps its series' flags, which the sources rule decides
// (SourceConfidence: a fresh source's value is not thin).
func (m *Methodology) RowFlags(sample int, feed bool, ref Flags) Flags {
	if feed {
		return ref
	}
	f := ref &^ FlagThin
	if m.ThinOf(sample) {
		f |= FlagThin
	}
	return f
}

// ConfidenceOf returns the level of a series with sample accepted sales from
// sources marketplaces whose last sale is ageDays old (ageDays < 0: no sale).
func (m *Methodology) ConfidenceOf(sample, sources, ageDays int) Confidence {
	if ageDays < 0 {
		return ConfidenceNone
	}
	for _, l := range m.Confidence {
		if sample >= l.MinSample && sources >= l.MinSources && ageDays <= l.MaxAgeDays {
			return l.Level
		}
	}
	return ConfidenceNone
}

// MinPriceCents is Liquidity.MinPriceUSD in cents.
func (m *Methodology) MinPriceCents() int64 { return int64(math.Round(m.Liquidity.MinPriceUSD * 100)) }

// MoversMinPriceCents is Liquidity.MoversMinPriceUSD in cents.
func (m *Methodology) MoversMinPriceCents() int64 {
	return int64(math.Round(m.Liquidity.MoversMinPriceUSD * 100))
}

// VolumeBaseline returns the days, ending the day before a window of
// windowDays days, that volume_pct compares the window with.
func (m *Methodology) VolumeBaseline(windowDays int) int {
	return max(windowDays, m.VolumeBaselineDays)
}

// SalesDays is the number of days, ending at as_of, over which a leaderboard
// row of a windowDays window counts its verified sales.
func (m *Methodology) SalesDays(windowDays int) int {
	return max(windowDays, m.Liquidity.ShortWindowDays)
}

// Liquid reports whether a row with sales verified sales (over SalesDays of
// its window) and a price of priceCents ranks by default.
func (m *Methodology) Liquid(sales int, priceCents int64) bool {
	return sales >= m.Liquidity.MinSales && priceCents >= m.MinPriceCents()
}

// CompositeOf is the composite score of a row: the weighted, clamped
// percentages scaled by sales / (sales + ShrinkSales). NaN when either
// percentage is NaN. Rounded to two decimals.
func (m *Methodology) CompositeOf(pricePct, volumePct float64, sales int) float64 {
	c := m.Composite
	if math.IsNaN(pricePct) || math.IsNaN(volumePct) || sales <= 0 {
		return math.NaN()
	}
	clamp := func(f float64) float64 { return math.Max(c.ClampMinPct, math.Min(c.ClampMaxPct, f)) }
	v := (c.PriceWeight*clamp(pricePct) + c.VolumeWeight*clamp(volumePct)) * float64(sales) / (float64(sales) + c.ShrinkSales)
	return math.Round(100*v) / 100
}

// Solo reports whether a series whose fmv moved movePct percent over
// Solo.Days is solo among siblings that moved siblingPcts (NaN entries, a
// sibling without a price at both ends, are ignored; without a sibling it is
// not solo).
func (m *Methodology) SoloOf(movePct float64, siblingPcts []float64) bool {
	if math.IsNaN(movePct) || math.Abs(movePct) < m.Solo.MovePct {
		return false
	}
	n := 0
	for _, s := range siblingPcts {
		if math.IsNaN(s) {
			continue
		}
		if math.Abs(s) >= m.Solo.FlatPct {
			return false
		}
		n++
	}
	return n > 0
}

// BasePrintingOf returns the index of a card's base printing among its
// variants (0 when it has none).
func (m *Methodology) BasePrintingOf(variants []string) int {
	best, bestScore := 0, math.MaxInt
	for i, v := range variants {
		score := 0
		for part := range strings.SplitSeq(v, "/") { // no allocation: the card routes call it per request
			if !m.standard(part) {
				score++
			}
		}
		if score == 0 {
			return i
		}
		if score < bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

func (m *Methodology) standard(part string) bool {
	for _, s := range m.BasePrinting.StandardParts {
		if strings.EqualFold(part, s) {
			return true
		}
	}
	return false
}
