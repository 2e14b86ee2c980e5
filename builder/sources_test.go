package builder_test

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

	"github.com/cardedge/cardedge/builder"
	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/builder/source/sourcetest"
	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/bolt"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// sourcesBuild builds a snapshot of the fixture catalog from real sources.
type sourcesBuild struct {
	out, history, reports string
	n                     int
}

func newSourcesBuild(t *testing.T) *sourcesBuild {
	t.Helper()
	dir := t.TempDir()
	return &sourcesBuild{out: filepath.Join(dir, "snapshots"), history: filepath.Join(dir, "history"), reports: filepath.Join(dir, "reports")}
}

// build compiles with the given --source values; edit changes the options.
func (sb *sourcesBuild) build(t *testing.T, sources []string, edit func(*builder.Options)) (*snapshots.Manifest, error) {
	t.Helper()
	sb.n++
	opts := builder.Options{Out: sb.out, CatalogDir: sourcetest.Path("catalog"), SnapshotID: "s" + string(rune('0'+sb.n)),
		History: sb.history, ReportDir: sb.reports, Rates: sourcetest.Path("ecb", "eurofxref-hist.csv"), Keep: 20,
		Now: func() time.Time { return time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC) }}
	for _, s := range sources {
		in, err := source.ParseInput(s)
		if err != nil {
			t.Fatal(err)
		}
		opts.Sources = append(opts.Sources, in)
	}
	if edit != nil {
		edit(&opts)
	}
	return builder.Compile(context.Background(), opts)
}

func (sb *sourcesBuild) mustBuild(t *testing.T, sources []string, edit func(*builder.Options)) (*snapshots.Manifest, *bolt.Reader) {
	t.Helper()
	m, err := sb.build(t, sources, edit)
	if err != nil {
		t.Fatal(err)
	}
	r := snapshotstest.MustOpen(t, filepath.Join(sb.out, m.SnapshotID))
	t.Cleanup(func() { r.Close() })
	return m, r
}

func cm(name string) string  { return "cardmarket=" + sourcetest.Path("cardmarket", name) }
func tcg(name string) string { return "tcgplayer=" + sourcetest.Path("tcgplayer", name) }

func statusOf(m *snapshots.Manifest, name string) snapshots.MarketSourceStatus {
	for _, s := range m.Sources {
		if s.Name == name {
			return s
		}
	}
	return snapshots.MarketSourceStatus{}
}

// TestCompile_Sources compiles the fixture catalog from two days of
// Cardmarket's and TCGplayer's files and reads back exactly the fixtures'
// numbers with their provenance: prices, history, partner feed rows,
// quotes with the EUR amounts and the ECB rate of their day, the movers.
func TestCompile_Sources(t *testing.T) {
	sb := newSourcesBuild(t)
	m1, r1 := sb.mustBuild(t, []string{cm("price_guide_6-2026-11-19.json"), tcg("day1")}, nil)
	if m1.AsOf != "2026-11-19" || m1.MarketSource != snapshots.MarketSources || m1.Synthetic() {
		t.Fatalf("day 1: as_of %s, market_source %s", m1.AsOf, m1.MarketSource)
	}
	c1, err := r1.Card("pokemon", "en:base1-4")
	if err != nil {
		t.Fatal(err)
	}
	if c1.PriceCents != 35000 || c1.PartnerProductID != 42382 {
		t.Errorf("day 1: en:base1-4 price %d partner id %d, want 35000 (TCGplayer market) and 42382", c1.PriceCents, c1.PartnerProductID)
	}

	m, r := sb.mustBuild(t, []string{cm("price_guide_6-2026-11-20.json"), tcg("day2")}, nil)
	if m.AsOf != "2026-11-20" {
		t.Fatalf("day 2: as_of %s", m.AsOf)
	}
	// Two days in a row: the history grew.
	for _, name := range []string{"cardmarket", "tcgplayer"} {
		st := statusOf(m, name)
		if st.Days != 2 || st.LastDay != "2026-11-20" || st.Stale || st.Refused != "" {
			t.Errorf("%s status %+v, want 2 days to 2026-11-20, fresh", name, st)
		}
	}
	c, err := r.Card("pokemon", "en:base1-4")
	if err != nil {
		t.Fatal(err)
	}
	if c.PriceCents != 36525 || c.PriceDay.String() != "2026-11-20" {
		t.Errorf("en:base1-4 price %d on %s, want 36525 on 2026-11-20", c.PriceCents, c.PriceDay)
	}
	// The base printing's raw near-mint series is TCGplayer's market price.
	series, err := r.PriceSeries("pokemon", "en:base1-4")
	if err != nil {
		t.Fatal(err)
	}
	raw := snapshots.SeriesOf(series, snapshots.RawNearMint)
	var fmv []int64
	for _, p := range raw.Points {
		fmv = append(fmv, p.FMVCents)
	}
	if diff := cmp.Diff([]int64{35000, 36525}, fmv); diff != "" {
		t.Errorf("raw series (-want +got):\n%s", diff)
	}
	printings, err := r.Printings("pokemon", "en:base1-4")
	if err != nil {
		t.Fatal(err)
	}
	if e := printings[0].Estimates[0]; e.Grade != snapshots.RawNearMint || e.FMVCents != 36525 || e.Confidence != estimate.ConfidenceMedium || e.Flags != 0 {
		t.Errorf("holo/unlimited estimate %+v, want raw near-mint 36525, medium, no flags", e)
	}
	// The shadowless printing: TCGplayer on day 1 only (fresh: one day old).
	if e := printings[2].Estimates; len(e) != 1 || e[0].FMVCents != 120000 || e[0].Confidence != estimate.ConfidenceMedium {
		t.Errorf("holo/shadowless estimates %+v, want 120000 medium", e)
	}

	cs, err := r.CardSources("pokemon", "en:base1-4")
	if err != nil || cs == nil {
		t.Fatalf("card sources: %v, %v", cs, err)
	}
	// Series sources: TCGplayer's market for each priced printing.
	wantSeries := []snapshots.SeriesSource{
		{Finish: 0, Grade: snapshots.RawNearMint, Source: "tcgplayer", Field: "market"},
		{Finish: 1, Grade: snapshots.RawNearMint, Source: "tcgplayer", Field: "market"},
		{Finish: 2, Grade: snapshots.RawNearMint, Source: "tcgplayer", Field: "market"},
	}
	if diff := cmp.Diff(wantSeries, cs.Series); diff != "" {
		t.Errorf("series sources (-want +got):\n%s", diff)
	}
	// History: each source's headline field, day by day; Cardmarket's in
	// EUR converted with the rate of its day (1.04, then 1.05).
	day := func(s string) snapshots.Day { return mustDay(s) }
	wantHistory := []snapshots.SourceSeries{
		{Source: "tcgplayer", Field: "market", Finish: 0, Grade: snapshots.RawNearMint, Currency: "USD", Points: []snapshots.SourcePoint{
			{Day: day("2026-11-19"), Cents: 35000, Amount: 35000}, {Day: day("2026-11-20"), Cents: 36525, Amount: 36525}}},
		{Source: "cardmarket", Field: "trend", Finish: 0, Grade: snapshots.RawNearMint, Currency: "EUR", Points: []snapshots.SourcePoint{
			{Day: day("2026-11-19"), Cents: 32266, Amount: 31025, RateDay: day("2026-11-19")},
			{Day: day("2026-11-20"), Cents: 33653, Amount: 32050, RateDay: day("2026-11-20")}}},
		{Source: "tcgplayer", Field: "market", Finish: 1, Grade: snapshots.RawNearMint, Currency: "USD", Points: []snapshots.SourcePoint{
			{Day: day("2026-11-19"), Cents: 500000, Amount: 500000}}},
		{Source: "tcgplayer", Field: "market", Finish: 2, Grade: snapshots.RawNearMint, Currency: "USD", Points: []snapshots.SourcePoint{
			{Day: day("2026-11-19"), Cents: 120000, Amount: 120000}}},
		{Source: "cardmarket", Field: "trend", Finish: 2, Grade: snapshots.RawNearMint, Currency: "EUR", Points: []snapshots.SourcePoint{
			{Day: day("2026-11-19"), Cents: 93600, Amount: 90000, RateDay: day("2026-11-19")}}},
	}
	if diff := cmp.Diff(wantHistory, cs.History); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	// Quotes: every field of each source's newest day for the card.
	var quotes []string
	for _, q := range cs.Quotes {
		quotes = append(quotes, strings.Join([]string{q.Source, fmtFinish(c, q.Finish), q.Grade.String(), q.Field, q.Day.String(),
			source.FormatAmount(q.Cents), source.FormatAmount(q.Amount), q.Currency, q.RateDay.String(), q.Product, q.Match}, " "))
	}
	wantQuotes := []string{
		"tcgplayer holo/unlimited raw:near_mint market 2026-11-20 365.25 365.25 USD 1970-01-01 42382 id",
		"tcgplayer holo/unlimited raw:near_mint low 2026-11-20 310.00 310.00 USD 1970-01-01 42382 id",
		"tcgplayer holo/unlimited raw:near_mint mid 2026-11-20 370.00 370.00 USD 1970-01-01 42382 id",
		"tcgplayer holo/unlimited raw:near_mint high 2026-11-20 520.00 520.00 USD 1970-01-01 42382 id",
		"cardmarket holo/unlimited raw:near_mint avg 2026-11-20 336.00 320.00 EUR 2026-11-20 273699 id",
		"cardmarket holo/unlimited raw:near_mint low 2026-11-20 273.00 260.00 EUR 2026-11-20 273699 id",
		"cardmarket holo/unlimited raw:near_mint trend 2026-11-20 336.53 320.50 EUR 2026-11-20 273699 id",
		"cardmarket holo/unlimited raw:near_mint avg1 2026-11-20 346.50 330.00 EUR 2026-11-20 273699 id",
		"cardmarket holo/unlimited raw:near_mint avg7 2026-11-20 333.90 318.00 EUR 2026-11-20 273699 id",
		"cardmarket holo/unlimited raw:near_mint avg30 2026-11-20 320.25 305.00 EUR 2026-11-20 273699 id",
	}
	if diff := cmp.Diff(wantQuotes, quotes); diff != "" {
		t.Errorf("quotes (-want +got):\n%s", diff)
	}
	for _, q := range cs.Quotes {
		if q.Currency == "EUR" && q.Rate != 1.05 {
			t.Errorf("EUR quote rate %v, want 1.05", q.Rate)
		}
	}
	// TCGplayer is the partner marketplace: its market price is filed as
	// partner price-feed rows, hidden by default, per printing and day.
	sales, err := r.Sales("pokemon", "en:base1-4")
	if err != nil {
		t.Fatal(err)
	}
	var feed []string
	for _, s := range sales {
		if s.Flags&snapshots.SalePriceFeed == 0 || s.Marketplace != snapshots.MarketPartner || !s.Hidden() {
			t.Errorf("sale %+v is not a hidden partner feed row", s)
		}
		feed = append(feed, s.Day.String()+" "+fmtFinish(c, s.Finish)+" "+source.FormatAmount(s.PriceCents))
	}
	if diff := cmp.Diff([]string{"2026-11-20 holo/unlimited 365.25", "2026-11-19 holo/unlimited 350.00",
		"2026-11-19 holo/shadowless/1st-edition 5000.00", "2026-11-19 holo/shadowless 1200.00"}, feed); diff != "" {
		t.Errorf("partner feed rows (-want +got):\n%s", diff)
	}
	if c.SalesAll != 0 || len(c.MarketSources) != 0 {
		t.Errorf("sales %d, market sources %v: feed rows are not sales", c.SalesAll, c.MarketSources)
	}

	// Cards the other rules reached: Blastoise (TCGplayer's market null on
	// day 2: day 1's serves, fresh), One Piece by number and name, the
	// Japanese card sharing its ids with a Chinese one, a card whose
	// printings are unknown.
	for _, tt := range []struct {
		game, id string
		price    int64
		day      string
		source   string
	}{
		{"pokemon", "en:base1-2", 18000, "2026-11-19", "tcgplayer"},
		{"pokemon", "en:sv1-6", 13, "2026-11-20", "tcgplayer"},
		{"pokemon", "en:xy1-1", 610, "2026-11-20", "tcgplayer"},
		{"pokemon", "ja:SV1S-001", 10, "2026-11-20", "tcgplayer"},
		{"pokemon", "zh-tw:SV1S-001", 0, "1970-01-01", ""},
		{"pokemon", "ja:SV2a-001", 0, "1970-01-01", ""}, // Cardmarket priced its pokeball reverse only
		{"pokemon", "en:sv3pt5-1", 22, "2026-11-20", "cardmarket"},
		{"onepiece", "en:OP01-001", 150, "2026-11-20", "tcgplayer"},
		{"onepiece", "en:OP01-001_p1", 2500, "2026-11-20", "tcgplayer"},
	} {
		c, err := r.Card(tt.game, tt.id)
		if err != nil {
			t.Fatal(err)
		}
		if c.PriceCents != tt.price || c.PriceDay.String() != tt.day {
			t.Errorf("%s: price %d on %s, want %d on %s", tt.id, c.PriceCents, c.PriceDay, tt.price, tt.day)
		}
		cs, err := r.CardSources(tt.game, tt.id)
		if err != nil {
			t.Fatal(err)
		}
		src := ""
		if s, ok := cs.SeriesSourceOf(uint8(snapshots.BasePrinting(c)), snapshots.RawNearMint); ok {
			src = s.Source
		}
		if src != tt.source {
			t.Errorf("%s: base price from %q, want %q", tt.id, src, tt.source)
		}
	}

	// The movers move: price_pct over 1 day ranks en:base1-4 (+4.36 %) and
	// en:xy1-1 (+1.67 %); the cards under $1 do not rank.
	rows, err := r.Trending("pokemon", "price_pct", "1d", "all")
	if err != nil {
		t.Fatal(err)
	}
	cards, _ := r.Cards("pokemon")
	var movers []string
	for _, e := range rows {
		movers = append(movers, cards[e.Ordinal].ID+" "+strconv.FormatFloat(e.Value, 'f', -1, 64))
	}
	if diff := cmp.Diff([]string{"en:base1-4 4.36", "en:xy1-1 1.67"}, movers); diff != "" {
		t.Errorf("1d price_pct movers (-want +got):\n%s", diff)
	}

	// The day's reports were written.
	for _, name := range []string{"cardmarket-2026-11-20.csv", "tcgplayer-2026-11-20.csv", "cardmarket-2026-11-19.csv"} {
		if _, err := os.Stat(filepath.Join(sb.reports, name)); err != nil {
			t.Errorf("report %s: %v", name, err)
		}
	}
}

func fmtFinish(c *snapshots.Card, f uint8) string { return source.VariantOf(c, int(f)) }

// TestCompile_SourcesRefused: a truncated file, an unknown version, a file
// older than the last one loaded and a day filed again with other content
// are refused, alone: the build goes on and the last good day serves.
func TestCompile_SourcesRefused(t *testing.T) {
	sb := newSourcesBuild(t)
	sb.mustBuild(t, []string{cm("price_guide_6-2026-11-19.json"), tcg("day1")}, nil)
	sb.mustBuild(t, []string{cm("price_guide_6-2026-11-20.json"), tcg("day2")}, nil)
	for _, tt := range []struct {
		file, want string
	}{
		{"truncated-2026-11-21.json", "not whole JSON"},
		{"version2-2026-11-21.json", "version 2: this cardedge reads version 1 only"},
		{"older-created.json", "before the last one loaded"},
	} {
		t.Run(tt.file, func(t *testing.T) {
			var refused []string
			m, r := sb.mustBuild(t, []string{cm(tt.file), tcg("day2")}, func(o *builder.Options) {
				o.OnRefused = func(src string, err error) { refused = append(refused, src+": "+err.Error()) }
			})
			st := statusOf(m, "cardmarket")
			if !strings.Contains(st.Refused, tt.want) || len(refused) != 1 {
				t.Errorf("cardmarket refused %q (%v), want %q", st.Refused, refused, tt.want)
			}
			if st.LastDay != "2026-11-20" || st.Days != 2 || st.Stale {
				t.Errorf("cardmarket status %+v: the last good day must serve", st)
			}
			cs, err := r.CardSources("pokemon", "en:base1-4")
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range cs.Quotes {
				if q.Source == "cardmarket" && q.Field == "trend" && q.Amount != 32050 {
					t.Errorf("cardmarket trend %d, want 32050 of the last good day", q.Amount)
				}
			}
		})
	}
	// The same day with other content: refused, unless replaced on purpose.
	other := filepath.Join(t.TempDir(), "other.json")
	b, err := os.ReadFile(sourcetest.Path("cardmarket", "price_guide_6-2026-11-20.json"))
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.Replace(string(b), `"trend":320.5`, `"trend":999`, 1))
	if err := os.WriteFile(other, b, 0o644); err != nil {
		t.Fatal(err)
	}
	m, _ := sb.mustBuild(t, []string{"cardmarket=" + other, tcg("day2")}, nil)
	if st := statusOf(m, "cardmarket"); !strings.Contains(st.Refused, "day already filed with other content") {
		t.Errorf("refiled day: refused %q", st.Refused)
	}
	_, r := sb.mustBuild(t, []string{"cardmarket=" + other, tcg("day2")}, func(o *builder.Options) { o.ReplaceDay = true })
	cs, err := r.CardSources("pokemon", "en:base1-4")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, q := range cs.Quotes {
		if q.Source == "cardmarket" && q.Field == "trend" {
			found = q.Amount == 99900
		}
	}
	if !found {
		t.Errorf("--replace-day did not replace the day: %+v", cs.Quotes)
	}
	// Every source given refused: the build fails, CURRENT stays.
	before, err := snapshots.ReadCurrent(sb.out)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sb.build(t, []string{cm("truncated-2026-11-21.json"), "tcgplayer=" + filepath.Join(t.TempDir(), "nothing")}, nil)
	if !errors.Is(err, builder.ErrAllRefused) || !strings.Contains(err.Error(), "cardmarket: ") || !strings.Contains(err.Error(), "tcgplayer: ") {
		t.Errorf("all refused: %v, want ErrAllRefused naming both", err)
	}
	if after, _ := snapshots.ReadCurrent(sb.out); after != before {
		t.Errorf("CURRENT moved from %s to %s", before, after)
	}
	// Without a history store, a refused source simply has no data; with
	// no source left the build fails.
	_, err = sb.build(t, []string{cm("truncated-2026-11-21.json")}, func(o *builder.Options) { o.History = "" })
	if err == nil || !strings.Contains(err.Error(), "no source has a day") {
		t.Errorf("all refused, no history: %v", err)
	}
}

// TestCompile_SourcesStale: a source without a file for more than two days
// is stale: its numbers are still served, flagged, at low confidence.
func TestCompile_SourcesStale(t *testing.T) {
	sb := newSourcesBuild(t)
	sb.mustBuild(t, []string{cm("price_guide_6-2026-11-20.json"), tcg("day2")}, nil)
	m, r := sb.mustBuild(t, []string{tcg("day2")}, func(o *builder.Options) { o.AsOf = mustDay("2026-11-23") })
	if st := statusOf(m, "tcgplayer"); !st.Stale || st.LastDay != "2026-11-20" {
		t.Errorf("tcgplayer status %+v, want stale since 2026-11-20", st)
	}
	printings, err := r.Printings("pokemon", "en:base1-4")
	if err != nil {
		t.Fatal(err)
	}
	if e := printings[0].Estimates[0]; e.Confidence != estimate.ConfidenceLow || e.Flags&estimate.FlagStale == 0 || e.FMVCents != 36525 {
		t.Errorf("stale estimate %+v, want 36525 low and stale", e)
	}
	cs, _ := r.CardSources("pokemon", "en:base1-4")
	for _, q := range cs.Quotes {
		if q.Source == "tcgplayer" && !q.Stale {
			t.Errorf("quote %+v is not stale", q)
		}
	}
}

// TestCompile_SourcesSyntheticFill: without --synthetic-fill a build from
// sources has no synthetic row; with it, the cards no source had get
// synthetic sales, flagged.
func TestCompile_SourcesSyntheticFill(t *testing.T) {
	sb := newSourcesBuild(t)
	m, r := sb.mustBuild(t, []string{tcg("day2")}, func(o *builder.Options) { o.History = "" })
	if m.SyntheticFill || m.Counts["sales"] != countFeedRows(t, r) {
		t.Errorf("no fill: synthetic_fill %v, %d sales, want only feed rows", m.SyntheticFill, m.Counts["sales"])
	}
	m, r = sb.mustBuild(t, []string{tcg("day2")}, func(o *builder.Options) { o.History = ""; o.SyntheticFill = true; o.Seed = 3 })
	if !m.SyntheticFill {
		t.Error("manifest does not say synthetic_fill")
	}
	sales, err := r.Sales("pokemon", "ja:SV2a-001")
	if err != nil {
		t.Fatal(err)
	}
	if len(sales) == 0 {
		t.Fatal("ja:SV2a-001 (no source) has no synthetic sales")
	}
	for _, s := range sales {
		if s.Flags&snapshots.SaleSynthetic == 0 {
			t.Fatalf("sale %+v is not flagged synthetic", s)
		}
	}
	cs, _ := r.CardSources("pokemon", "ja:SV2a-001")
	if cs == nil || !cs.Synthetic {
		t.Errorf("card sources %+v, want synthetic", cs)
	}
	sales, _ = r.Sales("pokemon", "en:base1-4")
	for _, s := range sales {
		if s.Flags&snapshots.SaleSynthetic != 0 {
			t.Fatalf("en:base1-4 (priced by TCGplayer) has a synthetic sale %+v", s)
		}
	}
}

func countFeedRows(t *testing.T, r *bolt.Reader) int64 {
	t.Helper()
	var n int64
	for _, game := range []string{"pokemon", "onepiece"} {
		cards, err := r.Cards(game)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cards {
			sales, err := r.Sales(game, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range sales {
				if s.Flags&snapshots.SalePriceFeed == 0 {
					t.Errorf("%s: a sale that is no feed row: %+v", c.ID, s)
				}
				n++
			}
		}
	}
	return n
}

// TestCompile_SourcesErrors: configuration errors fail the build.
func TestCompile_SourcesErrors(t *testing.T) {
	sb := newSourcesBuild(t)
	for _, tt := range []struct {
		sources []string
		edit    func(*builder.Options)
		want    string
	}{
		{[]string{"ebay=x"}, nil, `unknown source "ebay"`},
		{[]string{tcg("day1"), tcg("day2")}, nil, "source tcgplayer given twice"},
		{[]string{tcg("day1") + ",colour=red"}, nil, "unknown option colour"},
		{[]string{tcg("day1")}, func(o *builder.Options) { o.MarketDir = "x" }, "not both"},
		{[]string{tcg("day1")}, func(o *builder.Options) { o.Rates = "/nonexistent.csv" }, "rates"},
	} {
		_, err := sb.build(t, tt.sources, tt.edit)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want %q", tt.sources, err, tt.want)
		}
	}
	// A source in EUR without rates gives no numbers, and says why.
	var rep *source.Report
	_, err := sb.build(t, []string{cm("price_guide_6-2026-11-20.json"), tcg("day2")}, func(o *builder.Options) {
		o.Rates = ""
		o.OnReport = func(r *source.Report) {
			if r.Source == "cardmarket" {
				rep = r
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep == nil || rep.Reasons["no --rates to convert the currency EUR"] == 0 || rep.Observations != 0 {
		t.Errorf("cardmarket report without rates: %+v", rep)
	}
	if errors.Is(err, source.ErrRefused) {
		t.Error("unreachable")
	}
}

// TestBackfill files past days into the store (Cardmarket's dated files in
// the order of their createdAt, tcgcsv's archive days), refuses the bad
// ones, and a build then serves the history.
func TestBackfill(t *testing.T) {
	sb := newSourcesBuild(t)
	dir := t.TempDir()
	for _, name := range []string{"price_guide_6-2026-11-20.json", "price_guide_6-2026-11-19.json", "truncated-2026-11-21.json"} {
		b, err := os.ReadFile(sourcetest.Path("cardmarket", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var ins []source.Input
	for _, s := range []string{"cardmarket=" + dir, "tcgplayer=" + sourcetest.Path("tcgplayer", "archive")} {
		in, err := source.ParseInput(s)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, in)
	}
	res, err := builder.Backfill(context.Background(), builder.BackfillOptions{History: sb.history, Sources: ins})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res {
		s := r.Source + " " + r.Day.String() + " " + string(r.Outcome)
		if r.Refused != "" {
			s = r.Source + " refused " + filepath.Base(r.Input)
		}
		got = append(got, s)
	}
	want := []string{"cardmarket refused truncated-2026-11-21.json", "cardmarket 2026-11-19 filed", "cardmarket 2026-11-20 filed", "tcgplayer 2026-11-18 filed"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backfill (-want +got):\n%s", diff)
	}
	// Again: unchanged.
	res, err = builder.Backfill(context.Background(), builder.BackfillOptions{History: sb.history, Sources: ins[1:]})
	if err != nil || len(res) != 1 || res[0].Outcome != "unchanged" {
		t.Errorf("second backfill: %+v, %v", res, err)
	}
	// A build with today's tcgcsv day reads the backfilled history: the
	// archive's 2026-11-18 point named through today's products.
	_, r := sb.mustBuild(t, []string{tcg("day1")}, nil)
	cs, err := r.CardSources("onepiece", "en:OP01-001_p1")
	if err != nil || cs == nil {
		t.Fatal(cs, err)
	}
	var pts []string
	for _, h := range cs.History {
		for _, p := range h.Points {
			pts = append(pts, h.Source+" "+p.Day.String()+" "+source.FormatAmount(p.Cents))
		}
	}
	if diff := cmp.Diff([]string{"tcgplayer 2026-11-18 24.00", "tcgplayer 2026-11-19 25.00"}, pts); diff != "" {
		t.Errorf("history of en:OP01-001_p1 (-want +got):\n%s", diff)
	}
}
