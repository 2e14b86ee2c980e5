package builder_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/builder"
	"github.com/cardedge/cardedge/builder/synth"
	"github.com/cardedge/cardedge/bulk"
	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/bolt"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

var update = flag.Bool("update", false, "rewrite the .golden files under testdata/feeds")

const (
	shippedCatalog = "catalog"
	smallCatalog   = "testdata/feeds/small" // 30 real cards of 3 sets, both games
	testSeed       = 7
)

var testAsOf = mustDay("2026-11-20")

func mustDay(s string) snapshots.Day {
	d, err := snapshots.ParseDay(s)
	if err != nil {
		panic(err)
	}
	return d
}

// sharedDir holds what is built once per test binary: the tiny snapshot and
// the cardbuild binary.
var sharedDir string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "builder-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sharedDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// raceEnabled reports whether the test binary runs under the race detector,
// which makes synthesis about 15 times slower.
var raceEnabled = func() bool {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" {
				return s.Value == "true"
			}
		}
	}
	return false
}()

var tiny struct {
	once sync.Once
	dir  string
	m    *snapshots.Manifest
	err  error
}

// MustTiny returns the tiny snapshot (shipped catalog, preset tiny, seed 7,
// as_of 2026-11-20), built once per test binary by builder.Compile. Under the
// race detector, which would take minutes to synthesize it, the same options
// go through the (uninstrumented) cardbuild binary instead; TestCompile_Workers
// runs Compile's parallel pipeline in-process. Callers must not modify it.
func MustTiny(tb testing.TB) (string, *snapshots.Manifest) {
	tb.Helper()
	tiny.once.Do(func() {
		root := filepath.Join(sharedDir, "tiny")
		tiny.dir = filepath.Join(root, "tiny")
		start := time.Now()
		if raceEnabled {
			_, stderr, code := runBinary(tb, "build", "--out", root, "--preset", "tiny", "--seed", fmt.Sprint(testSeed),
				"--as-of", testAsOf.String(), "--catalog", shippedCatalog, "--id", "tiny", "--quiet")
			if code != 0 {
				tiny.err = fmt.Errorf("cardbuild build: exit %d: %s", code, stderr)
				return
			}
			tiny.m, tiny.err = snapshots.ReadManifest(tiny.dir)
		} else {
			tiny.m, tiny.err = builder.Compile(context.Background(), builder.Options{
				Out: root, Preset: "tiny", Seed: testSeed, AsOf: testAsOf, CatalogDir: shippedCatalog, SnapshotID: "tiny",
			})
		}
		tb.Logf("tiny snapshot built in %s (race detector: %v)", time.Since(start).Round(time.Millisecond), raceEnabled)
	})
	if tiny.err != nil {
		tb.Fatalf("build tiny snapshot: %v", tiny.err)
	}
	return tiny.dir, tiny.m
}

var binary struct {
	once sync.Once
	path string
	err  error
}

// MustBinary returns the path of the cardbuild binary, built once per test
// binary.
func MustBinary(tb testing.TB) string {
	tb.Helper()
	binary.once.Do(func() {
		binary.path = filepath.Join(sharedDir, "cardbuild")
		cmd := exec.Command("go", "build", "-o", binary.path, "github.com/cardedge/cardedge/cmd/cardbuild")
		if out, err := cmd.CombinedOutput(); err != nil {
			binary.err = fmt.Errorf("go build cmd/cardbuild: %v\n%s", err, out)
		}
	})
	if binary.err != nil {
		tb.Fatal(binary.err)
	}
	return binary.path
}

// MustCompile runs builder.Compile and fails the test on error.
func MustCompile(tb testing.TB, opts builder.Options) *snapshots.Manifest {
	tb.Helper()
	m, err := builder.Compile(context.Background(), opts)
	if err != nil {
		tb.Fatalf("Compile: %v", err)
	}
	return m
}

// mustCurrent returns the id CURRENT names in root.
func mustCurrent(tb testing.TB, root string) string {
	tb.Helper()
	id, err := snapshots.ReadCurrent(root)
	if err != nil {
		tb.Fatal(err)
	}
	return id
}

// dirNames returns the sorted names of the directories in root.
func dirNames(tb testing.TB, root string) []string {
	tb.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// smallOptions are the options of a fast build over the small catalog.
func smallOptions(out, id string) builder.Options {
	return builder.Options{Out: out, Preset: "default", Seed: testSeed, AsOf: testAsOf, CatalogDir: smallCatalog, SnapshotID: id}
}

// expectedCatalog is the tiny preset's catalog as the builder should store
// it: per game, cards with Ordinal and PartnerProductID, and sets.
func expectedCatalog(tb testing.TB, gen *synth.Generator) (map[string][]*snapshots.Card, map[string][]*snapshots.Set) {
	tb.Helper()
	cat, err := builder.ReadCatalog(shippedCatalog)
	if err != nil {
		tb.Fatal(err)
	}
	cards, sets := gen.Preset().Catalog(testSeed, cat.Cards, cat.Sets)
	byGame, setsByGame := map[string][]*snapshots.Card{}, map[string][]*snapshots.Set{}
	for _, c := range cards {
		c.Ordinal = uint32(len(byGame[c.Game]))
		c.PartnerProductID = c.TCGplayerProductID()
		byGame[c.Game] = append(byGame[c.Game], c)
	}
	for _, s := range sets {
		setsByGame[s.Game] = append(setsByGame[s.Game], s)
	}
	return byGame, setsByGame
}

// verified mirrors the builder's rule: a sale counts in prices and aggregates
// unless hidden.
func verified(s snapshots.Sale, asOf snapshots.Day) bool { return !s.Hidden() && s.Day <= asOf }

// TestCompile_Tiny builds the tiny snapshot and reads every record back:
// the catalog and each card's sales and listings must be what the catalog and
// the synthesizer produce, and every derived record must agree with them.
func TestCompile_Tiny(t *testing.T) {
	dir, m := MustTiny(t)
	r := snapshotstest.MustOpen(t, dir)

	if diff := cmp.Diff(m, r.Manifest()); diff != "" {
		t.Errorf("verified manifest differs from Compile's (-compile +verify):\n%s", diff)
	}
	want := snapshots.Manifest{SnapshotID: "tiny", FormatVersion: snapshots.FormatVersion, AsOf: "2026-11-20",
		Games: builder.Games, Preset: "tiny", Seed: testSeed, MarketSource: "synthetic"}
	got := *m
	got.Counts, got.BuiltAt, got.BuildSeconds, got.InputDigests, got.Files, got.ContentDigest = nil, "", 0, nil, nil, ""
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("manifest (-want +got):\n%s", diff)
	}
	for _, f := range []string{bolt.CatalogFile, bolt.MarketFile, bolt.AggregatesFile, "gold.sqlite"} {
		if _, ok := m.Files[f]; !ok {
			t.Errorf("manifest lists no %s", f)
		}
	}
	for _, k := range []string{"catalog/sets", "catalog/cards"} {
		if len(m.InputDigests[k]) != 64 {
			t.Errorf("input digest %s = %q, want a hex SHA-256", k, m.InputDigests[k])
		}
	}

	gen := synth.New(mustPreset(t, "tiny"), testSeed, testAsOf)
	wantCards, wantSets := expectedCatalog(t, gen)
	var allCards []*snapshots.Card
	var allSets []*snapshots.Set
	for _, game := range builder.Games {
		allCards, allSets = append(allCards, wantCards[game]...), append(allSets, wantSets[game]...)
	}
	gen = gen.WithCatalog(allCards, allSets)
	computedCard := cmpopts.IgnoreFields(snapshots.Card{}, "MarketSources", "Venues", "PriceCents", "PriceDay",
		"Volume30dCents", "Sales30d", "SalesAll", "Listings")
	computedSet := cmpopts.IgnoreFields(snapshots.Set{}, "Volume30dCents", "Sales30d")

	var totalSales, totalListings, totalCards, totalSets int64
	for gi, game := range builder.Games {
		t.Run(game, func(t *testing.T) {
			cards, err := r.Cards(game)
			if err != nil {
				t.Fatal(err)
			}
			if len(cards) == 0 {
				t.Fatal("no cards")
			}
			// EquateEmpty: [] in the catalog (subtypes, colors) reads back as nil.
			if diff := cmp.Diff(wantCards[game], cards, computedCard, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("Cards (-want +got):\n%s", diff)
			}
			sets, err := r.Sets(game)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantSets[game], sets, computedSet); diff != "" {
				t.Fatalf("Sets (-want +got):\n%s", diff)
			}
			totalCards += int64(len(cards))
			totalSets += int64(len(sets))
			setByID := map[string]*snapshots.Set{}
			for _, s := range wantSets[game] {
				setByID[s.ID] = s
			}

			setSales := map[string]int{}
			for i, c := range cards {
				sales, err := r.Sales(game, c.ID)
				if err != nil {
					t.Fatal(err)
				}
				listings, err := r.Listings(game, c.ID)
				if err != nil {
					t.Fatal(err)
				}
				// Every card, or under the race detector every 16th (synthesis
				// is slow there).
				if !raceEnabled || i%16 == 0 {
					wantSales, wantListings := gen.CardMarket(gi, wantCards[game][i], setByID[c.SetID])
					// The estimator flags outliers among the verified sales.
					unflagged := slices.Clone(sales)
					for j := range unflagged {
						if unflagged[j].Flags&snapshots.SaleOutlier != 0 && !verified(unflagged[j], testAsOf) {
							t.Fatalf("Sales(%s)[%d] is flagged outlier but not verified: %+v", c.ID, j, unflagged[j])
						}
						unflagged[j].Flags &^= snapshots.SaleOutlier
					}
					if diff := cmp.Diff(wantSales, unflagged, cmpopts.EquateEmpty()); diff != "" {
						t.Fatalf("Sales(%s) (-synth +reader):\n%s", c.ID, diff)
					}
					if diff := cmp.Diff(wantListings, listings, cmpopts.EquateEmpty()); diff != "" {
						t.Fatalf("Listings(%s) (-synth +reader):\n%s", c.ID, diff)
					}
				}
				totalSales += int64(len(sales))
				totalListings += int64(len(listings))

				// The card's summary agrees with its sales.
				var all, n30 int
				var v30 int64
				seen := map[snapshots.Marketplace]bool{}
				for j, s := range sales {
					if j > 0 && (s.Day > sales[j-1].Day || s.Day == sales[j-1].Day && s.ID >= sales[j-1].ID) {
						t.Fatalf("Sales(%s)[%d] out of order (newest first by day, then id)", c.ID, j)
					}
					if !verified(s, testAsOf) {
						continue
					}
					all++
					seen[s.Marketplace] = true
					if s.Day > testAsOf-30 {
						n30++
						v30 += s.PriceCents
					}
				}
				var sources, venues []string
				for _, mk := range snapshots.AllMarketplaces() {
					switch {
					case !seen[mk]:
					case mk.OnChain():
						venues = append(venues, mk.String())
					default:
						sources = append(sources, mk.String())
					}
				}
				gotSummary := []any{c.SalesAll, c.Sales30d, c.Volume30dCents, c.Listings, c.MarketSources, c.Venues}
				wantSummary := []any{all, n30, v30, len(listings), sources, venues}
				if diff := cmp.Diff(wantSummary, gotSummary, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%s summary [sales_all sales_30d volume_30d listings sources venues] (-want +got):\n%s", c.ID, diff)
				}
				setSales[c.SetID] += all

				checkPrintings(t, r, c, sales, listings)
			}

			for _, s := range sets {
				cs, err := r.SetCards(game, s.ID)
				if err != nil {
					t.Fatal(err)
				}
				agg, err := r.SetAggregates(game, s.ID)
				if err != nil {
					t.Fatal(err)
				}
				var value int64
				var n30 int
				for _, c := range cs {
					value += c.PriceCents
					n30 += c.Sales30d
				}
				if agg.Totals.Cards != len(cs) || s.CardCount != len(cs) || agg.Totals.ValueCents != value || s.Sales30d != n30 || agg.Totals.Sales30d != n30 {
					t.Errorf("set %s: totals %+v, card_count %d, sales_30d %d; want %d cards, value %d, sales_30d %d",
						s.ID, agg.Totals, s.CardCount, s.Sales30d, len(cs), value, n30)
				}
				daily, err := r.SetDaily(game, s.ID)
				if err != nil {
					t.Fatal(err)
				}
				sum := 0
				for j, d := range daily {
					if j > 0 && d.Day <= daily[j-1].Day {
						t.Fatalf("set %s: daily series not in day order", s.ID)
					}
					sum += d.Sales
				}
				if sum != setSales[s.ID] {
					t.Errorf("set %s: daily sales sum to %d, want %d", s.ID, sum, setSales[s.ID])
				}
			}

			for _, metric := range snapshots.TrendingMetrics {
				for _, w := range snapshots.TrendingWindows {
					for _, lang := range append([]string{"all"}, snapshots.Languages...) {
						entries, err := r.Trending(game, metric, w.Name, lang)
						if err != nil {
							t.Fatal(err)
						}
						for j, e := range entries {
							if int(e.Ordinal) >= len(cards) || math.IsNaN(e.Value) {
								t.Fatalf("Trending(%s, %s, %s)[%d] = %+v", metric, w.Name, lang, j, e)
							}
							if lang != "all" && cards[e.Ordinal].Language != lang {
								t.Fatalf("Trending(%s, %s, %s) ranks %s", metric, w.Name, lang, cards[e.Ordinal].ID)
							}
							if j > 0 && e.Value > entries[j-1].Value {
								t.Fatalf("Trending(%s, %s, %s) not highest first at %d", metric, w.Name, lang, j)
							}
						}
					}
				}
			}
			// sales_count 30d: the base printing's verified sales of the 30
			// days, for the base printings that meet the liquidity rule.
			wantCount := map[uint32]float64{}
			for _, c := range cards {
				cum, err := r.Cum(game, c.ID)
				if err != nil {
					t.Fatal(err)
				}
				series, err := r.PriceSeries(game, c.ID)
				if err != nil {
					t.Fatal(err)
				}
				n, _ := snapshots.SumWindow(cum, nil, testAsOf-29, testAsOf)
				v := snapshots.TrendingStats(cum, series, testAsOf, 30, nil)
				if n > 0 && estimate.Default.Liquid(v.Sample, v.PriceCents) {
					wantCount[c.Ordinal] = float64(n)
				}
			}
			ranking, err := r.Trending(game, "sales_count", "30d", "all")
			if err != nil {
				t.Fatal(err)
			}
			gotCount := map[uint32]float64{}
			for _, e := range ranking {
				gotCount[e.Ordinal] = e.Value
			}
			if diff := cmp.Diff(wantCount, gotCount, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Trending(sales_count, 30d, all) by ordinal (-want +got):\n%s", diff)
			}
			if len(gotCount) == 0 {
				t.Error("Trending(sales_count, 30d, all) is empty")
			}
			// Every printing's rows, liquid or not; the base printings' liquid
			// rows are the ranking.
			rows, err := r.TrendingRows(game, "sales_count", "30d", "all")
			if err != nil {
				t.Fatal(err)
			}
			fromRows := map[uint32]float64{}
			for j, row := range rows {
				c := cards[row.Ordinal]
				if int(row.Finish) >= c.Printings() || (j > 0 && row.Value > rows[j-1].Value) {
					t.Fatalf("TrendingRows(sales_count, 30d)[%d] = %+v", j, row)
				}
				cum, err := r.PrintingCum(game, c.ID, int(row.Finish))
				if err != nil {
					t.Fatal(err)
				}
				if n, _ := snapshots.SumWindow(cum, nil, testAsOf-29, testAsOf); float64(n) != row.Value || int32(n) != row.SampleSize {
					t.Fatalf("TrendingRows(sales_count, 30d)[%d] = %+v, want value and sample size %d", j, row, n)
				}
				if int(row.Finish) == snapshots.BasePrinting(c) && estimate.Default.Liquid(int(row.SampleSize), row.PriceCents) {
					fromRows[row.Ordinal] = row.Value
				}
			}
			if diff := cmp.Diff(gotCount, fromRows, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Trending vs the liquid base rows of TrendingRows (-trending +rows):\n%s", diff)
			}
		})
	}
	wantCounts := map[string]int64{"sales": totalSales, "listings": totalListings, "cards": totalCards, "sets": totalSets}
	gotCounts := map[string]int64{}
	for k := range wantCounts {
		gotCounts[k] = m.Counts[k]
	}
	if diff := cmp.Diff(wantCounts, gotCounts); diff != "" {
		t.Errorf("manifest counts (-read back +manifest):\n%s", diff)
	}
}

// checkPrintings checks a card's per-printing rows against its sales: one
// series per printing and grade, their cumulative sums and analytics, the
// printings' summaries, and the base printing behind the card's price and
// the old per-card methods.
func checkPrintings(tb testing.TB, r *bolt.Reader, c *snapshots.Card, sales []snapshots.Sale, listings []snapshots.Listing) {
	tb.Helper()
	game := c.Game
	base := snapshots.BasePrinting(c)
	ps, err := r.Printings(game, c.ID)
	if err != nil {
		tb.Fatal(err)
	}
	if len(ps) != c.Printings() {
		tb.Fatalf("%s: %d printings, want %d", c.ID, len(ps), c.Printings())
	}
	var totalAll, totalListings int
	for f, p := range ps {
		if int(p.Finish) != f || p.Base != (f == base) || (len(c.Variants) > 0 && p.Name != c.Variants[f]) {
			tb.Errorf("%s: printing %d = %+v", c.ID, f, p)
		}
		// This printing's verified sales, by grade, and their count.
		byGrade := map[snapshots.Grade]int{}
		all, n30 := 0, 0
		for _, s := range sales {
			if int(s.Finish) == f && verified(s, testAsOf) {
				byGrade[s.Grade]++
				all++
				if s.Day > testAsOf-30 {
					n30++
				}
			}
		}
		ls := 0
		for _, l := range listings {
			if l.Finish == p.Name || (l.Finish == "" && f == base) {
				ls++
			}
		}
		if p.SalesAll != all || p.Sales30d != n30 || p.Listings != ls {
			tb.Errorf("%s printing %d: sales_all %d, sales_30d %d, listings %d; want %d, %d, %d", c.ID, f, p.SalesAll, p.Sales30d, p.Listings, all, n30, ls)
		}
		totalAll += all
		totalListings += ls
		cum, err := r.PrintingCum(game, c.ID, f)
		if err != nil {
			tb.Fatal(err)
		}
		series, err := r.PrintingSeries(game, c.ID, f)
		if err != nil {
			tb.Fatal(err)
		}
		an, err := r.PrintingAnalytics(game, c.ID, f)
		if err != nil {
			tb.Fatal(err)
		}
		gotGrades := map[snapshots.Grade]int{}
		for _, s := range cum {
			if n := len(s.Points); n > 0 {
				gotGrades[s.Grade] = int(s.Points[n-1].Count)
			}
		}
		if diff := cmp.Diff(byGrade, gotGrades, cmpopts.EquateEmpty()); diff != "" {
			tb.Errorf("%s printing %d: cum counts by grade (-sales +cum):\n%s", c.ID, f, diff)
		}
		// One series per grade with sales, each with an estimate.
		if len(series) != len(byGrade) || len(p.Estimates) != len(series) {
			tb.Errorf("%s printing %d: %d series and %d estimates for %d grades with sales", c.ID, f, len(series), len(p.Estimates), len(byGrade))
		}
		for j, s := range series {
			if byGrade[s.Grade] == 0 || len(s.Points) == 0 {
				tb.Errorf("%s printing %d: series of %s without sales or points", c.ID, f, s.Grade)
				continue
			}
			for k := 1; k < len(s.Points); k++ {
				if s.Points[k].Day <= s.Points[k-1].Day {
					tb.Fatalf("%s printing %d: series %s not in day order", c.ID, f, s.Grade)
				}
			}
			if j < len(p.Estimates) {
				e, last := p.Estimates[j], s.Points[len(s.Points)-1]
				if e.Grade != s.Grade || e.FMVCents != last.FMVCents || e.LastSaleDay == snapshots.NoDay && e.SampleSize > 0 {
					tb.Errorf("%s printing %d: estimate %+v, series %s ends %+v", c.ID, f, e, s.Grade, last)
				}
			}
		}
		switch {
		case all > 0 || f == base:
			if len(an) != len(snapshots.AnalyticsWindows) {
				tb.Fatalf("%s printing %d: %d analytics windows, want %d", c.ID, f, len(an), len(snapshots.AnalyticsWindows))
			}
			for j, w := range snapshots.AnalyticsWindows {
				if an[j].Window != w.Name || an[j].To != testAsOf.String() {
					tb.Errorf("%s printing %d: analytics[%d] is window %q to %s, want %q to %s", c.ID, f, j, an[j].Window, an[j].To, w.Name, testAsOf)
				}
			}
			if got := an[len(an)-1].Sales; got != all {
				tb.Errorf("%s printing %d: analytics all-time sales %d, want %d", c.ID, f, got, all)
			}
		case an != nil:
			tb.Errorf("%s printing %d without sales has analytics", c.ID, f)
		}
		if f != base {
			continue
		}
		// The per-card methods answer for the base printing.
		oldSeries, err := r.PriceSeries(game, c.ID)
		if err != nil {
			tb.Fatal(err)
		}
		oldCum, err := r.Cum(game, c.ID)
		if err != nil {
			tb.Fatal(err)
		}
		oldAn, err := r.Analytics(game, c.ID)
		if err != nil {
			tb.Fatal(err)
		}
		if !cmp.Equal(series, oldSeries) || !cmp.Equal(cum, oldCum) || !cmp.Equal(an, oldAn) {
			tb.Errorf("%s: PriceSeries, Cum or Analytics differ from the base printing's", c.ID)
		}
		var rawFMV int64
		if raw := seriesByGrade(series, snapshots.RawNearMint); raw != nil {
			rawFMV = raw.Points[len(raw.Points)-1].FMVCents
		}
		if c.PriceCents != rawFMV {
			tb.Errorf("%s: price_cents %d, want the base printing's last raw:near_mint fmv %d", c.ID, c.PriceCents, rawFMV)
		}
	}
	if c.SalesAll != totalAll || c.Listings != totalListings {
		tb.Errorf("%s: sales_all %d, listings %d; want the printings' sums %d, %d", c.ID, c.SalesAll, c.Listings, totalAll, totalListings)
	}
	if _, err := r.PrintingSeries(game, c.ID, c.Printings()); apperr.ErrorCode(err) != apperr.EINVALID {
		tb.Errorf("PrintingSeries(%s, %d) = %v, want EINVALID", c.ID, c.Printings(), err)
	}
}

func seriesByGrade(series []snapshots.PriceSeries, g snapshots.Grade) *snapshots.PriceSeries {
	for i := range series {
		if series[i].Grade == g {
			return &series[i]
		}
	}
	return nil
}

func mustPreset(tb testing.TB, name string) synth.Preset {
	tb.Helper()
	p, err := synth.PresetByName(name)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// TestCompile_Deterministic: the same seed, as_of and inputs give the same
// content digest (whatever the worker count), another seed another one.
func TestCompile_Deterministic(t *testing.T) {
	root := t.TempDir()
	a := MustCompile(t, smallOptions(root, "run1"))
	opts := smallOptions(root, "run2")
	opts.Workers = 1
	b := MustCompile(t, opts)
	if a.ContentDigest != b.ContentDigest {
		t.Errorf("same seed: content digests %s and %s differ", a.ContentDigest, b.ContentDigest)
	}
	if diff := cmp.Diff(a.Counts, b.Counts); diff != "" {
		t.Errorf("same seed: counts differ (-run1 +run2):\n%s", diff)
	}
	if a.SnapshotID == b.SnapshotID {
		t.Errorf("both builds are snapshot %s", a.SnapshotID)
	}
	// The bulk files are byte for byte the same, and the manifest covers
	// each of them.
	var bulkFiles int
	for name, sum := range a.Files {
		if !strings.HasPrefix(name, bulk.Dir+"/") {
			continue
		}
		bulkFiles++
		if b.Files[name] != sum {
			t.Errorf("same inputs: %s has sha256 %s and %s", name, sum, b.Files[name])
		}
		x, err := os.ReadFile(filepath.Join(root, "run1", name))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(root, "run2", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("same inputs: %s differs between two builds", name)
		}
	}
	if want := 2*len(bulk.Kinds)*len(a.Games) + 1; bulkFiles != want { // files, schemas, index.json
		t.Errorf("the manifest lists %d bulk files, want %d", bulkFiles, want)
	}
	opts = smallOptions(root, "seed8")
	opts.Seed = testSeed + 1
	c := MustCompile(t, opts)
	if c.ContentDigest == a.ContentDigest {
		t.Errorf("seeds %d and %d: same content digest %s", testSeed, testSeed+1, a.ContentDigest)
	}
	opts = smallOptions(root, "asof")
	opts.AsOf = testAsOf - 1
	if d := MustCompile(t, opts); d.ContentDigest == a.ContentDigest {
		t.Errorf("as_of %s and %s: same content digest", testAsOf, testAsOf-1)
	}
	if got, want := mustCurrent(t, root), "asof"; got != want {
		t.Errorf("CURRENT = %s, want %s (the last build)", got, want)
	}
}

// goodFeed holds a few sales, price points and listings of two cards.
var goodFeed = filepath.Join("testdata", "feeds", "good")

// TestCompile_Workers compiles the tiny catalog (two chunks of pokemon cards)
// from the good feeds with three workers and, outside the race detector, with
// one: the parallel pipeline must write the same records in the same order.
// Feeds keep synthesis out, so this runs Compile in-process even under -race.
func TestCompile_Workers(t *testing.T) {
	root := t.TempDir()
	var digests []string
	for _, workers := range []int{3, 1} {
		m := MustCompile(t, builder.Options{Out: root, Preset: "tiny", Seed: testSeed, CatalogDir: shippedCatalog,
			MarketDir: goodFeed, Workers: workers, SnapshotID: fmt.Sprintf("workers%d", workers)})
		digests = append(digests, m.ContentDigest)
		if got, want := m.Counts["cards"], int64(528); got != want {
			t.Errorf("%d workers: %d cards, want %d", workers, got, want)
		}
		if raceEnabled {
			break
		}
	}
	if len(digests) == 2 && digests[0] != digests[1] {
		t.Errorf("content digest with 3 workers %s, with 1 %s", digests[0], digests[1])
	}
	r := snapshotstest.MustOpen(t, filepath.Join(root, "workers3"))
	sales, err := r.Sales("pokemon", "en:base1-4")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(sales), 6; got != want {
		t.Errorf("len(Sales(en:base1-4)) = %d, want %d", got, want)
	}
}

// runBinary runs the cardbuild binary and returns its stdout, stderr and
// exit code.
func runBinary(tb testing.TB, args ...string) (string, string, int) {
	tb.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(MustBinary(tb), args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		tb.Fatalf("cardbuild %s: %v", strings.Join(args, " "), err)
	}
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

// TestCompile_Killed kills a real build process with SIGKILL in the middle of
// computing cards: the live snapshot must stay live and intact, only the
// build's .tmp directory may be left, and the next build must clean it up.
func TestCompile_Killed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a real cardbuild process")
	}
	root := t.TempDir()
	const first, killed, third = "20261120T000001Z", "20261120T000002Z", "20261120T000003Z"
	build := func(id, catalog, preset string) []string {
		return []string{"build", "--out", root, "--catalog", catalog, "--preset", preset,
			"--seed", "7", "--as-of", "2026-11-20", "--id", id}
	}
	if _, stderr, code := runBinary(t, build(first, smallCatalog, "default")...); code != 0 {
		t.Fatalf("first build: exit %d\n%s", code, stderr)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, MustBinary(t), build(killed, shippedCatalog, "tiny")...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	sent := false
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		fmt.Fprintln(&log, sc.Text())
		if !sent && strings.HasPrefix(sc.Text(), "build: cards") {
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			sent = true
		}
	}
	err = cmd.Wait()
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !sent || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("second build was not killed mid-way (sent %v, wait: %v); stderr:\n%s", sent, err, log.String())
	}

	if got := mustCurrent(t, root); got != first {
		t.Errorf("after the kill, CURRENT = %s, want %s", got, first)
	}
	if _, err := snapshots.Verify(filepath.Join(root, first)); err != nil {
		t.Errorf("after the kill, the live snapshot does not verify: %v", err)
	}
	got := dirNames(t, root)
	if diff := cmp.Diff([]string{first, killed + ".tmp"}, got); diff != "" && !cmp.Equal([]string{first}, got) {
		t.Errorf("after the kill, directories %v, want %s and at most %s.tmp", got, first, killed)
	}

	if _, stderr, code := runBinary(t, build(third, smallCatalog, "default")...); code != 0 {
		t.Fatalf("third build: exit %d\n%s", code, stderr)
	}
	if got, want := mustCurrent(t, root), third; got != want {
		t.Errorf("after the third build, CURRENT = %s, want %s", got, want)
	}
	if diff := cmp.Diff([]string{first, third}, dirNames(t, root)); diff != "" {
		t.Errorf("after the third build, directories (-want +got):\n%s", diff)
	}
	snapshotstest.MustOpen(t, filepath.Join(root, third))
}

// TestVerify_ErrFlippedByte flips one byte of market.bolt in a copy of the
// tiny snapshot: snapshots.Verify and `cardbuild verify` must reject it,
// naming the file.
func TestVerify_ErrFlippedByte(t *testing.T) {
	src, m := MustTiny(t)
	dir := filepath.Join(t.TempDir(), m.SnapshotID)
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	if _, err := snapshots.Verify(dir); err != nil {
		t.Fatalf("the copy does not verify: %v", err)
	}
	path := filepath.Join(dir, bolt.MarketFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x01
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}

	_, err = snapshots.Verify(dir)
	if !errors.Is(err, snapshots.ErrVerify) {
		t.Fatalf("Verify = %v, want ErrVerify", err)
	}
	if !strings.Contains(err.Error(), bolt.MarketFile+": sha256") {
		t.Errorf("Verify error %q does not name %s", err, bolt.MarketFile)
	}
	for _, f := range []string{bolt.CatalogFile, bolt.AggregatesFile, "gold.sqlite"} {
		if strings.Contains(err.Error(), f) {
			t.Errorf("Verify error %q names the intact %s", err, f)
		}
	}

	if testing.Short() {
		return
	}
	_, stderr, code := runBinary(t, "verify", dir)
	if code == 0 {
		t.Fatalf("cardbuild verify of the damaged copy: exit 0")
	}
	if !strings.Contains(stderr, snapshots.ErrVerify.Error()) || !strings.Contains(stderr, bolt.MarketFile) {
		t.Errorf("cardbuild verify stderr = %q, want it to say %q and name %s", stderr, snapshots.ErrVerify, bolt.MarketFile)
	}
	stdout, stderr, code := runBinary(t, "verify", src)
	if code != 0 || !strings.HasPrefix(stdout, "ok: snapshot tiny verifies") {
		t.Errorf("cardbuild verify of the original: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestCompile_ErrBadFeed builds from bad feeds over a live snapshot: each
// must fail with a *FeedError naming file, line and field, and leave the
// live snapshot as it was.
func TestCompile_ErrBadFeed(t *testing.T) {
	root := t.TempDir()
	const live = "20261120T000000Z"
	MustCompile(t, smallOptions(root, live))
	wantDirs := dirNames(t, root)

	for _, tt := range []struct {
		name    string // the directory under testdata/feeds
		catalog bool   // a catalog case (CatalogDir) rather than a market one (MarketDir)
		file    string
		line    int
		field   string // "" when the line is not a JSON object
	}{
		{name: "bad_unknown_card", file: "sales.jsonl", line: 2, field: "card_id"},
		{name: "bad_date", file: "sales.jsonl", line: 2, field: "sale_date"},
		{name: "bad_negative_price", file: "sales.jsonl", line: 2, field: "price_usd"},
		{name: "bad_price_type", file: "sales.jsonl", line: 2, field: "price_usd"},
		{name: "bad_unknown_marketplace", file: "sales.jsonl", line: 2, field: "marketplace"},
		{name: "bad_unknown_field", file: "sales.jsonl", line: 2, field: "seller"},
		{name: "bad_not_json", file: "sales.jsonl", line: 2, field: ""},
		{name: "bad_trailing_data", file: "sales.jsonl", line: 2, field: ""},
		{name: "bad_duplicate_sale_id", file: "sales.jsonl", line: 3, field: "sale_id"}, // line 2 is blank
		{name: "bad_price_feed_not_partner", file: "sales.jsonl", line: 2, field: "price_feed"},
		{name: "bad_finish", file: "sales.jsonl", line: 2, field: "finish"},
		{name: "bad_listing_platform", file: "listings.jsonl", line: 2, field: "platform"},
		{name: "bad_price_duplicate_date", file: "prices.jsonl", line: 3, field: "date"},
		{name: "bad_price_sales_range", file: "prices.jsonl", line: 2, field: "sales"},
		{name: "bad_catalog_set_id", catalog: true, file: "cards.jsonl", line: 3, field: "set_id"},
		{name: "bad_catalog_duplicate_id", catalog: true, file: "cards.jsonl", line: 5, field: "id"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join("testdata", "feeds", tt.name)
			opts := smallOptions(root, tt.name) // one id per case: a wrongly accepted feed harms no other case
			if tt.catalog {
				opts.CatalogDir = dir
			} else {
				opts.MarketDir = dir
			}
			_, err := builder.Compile(context.Background(), opts)
			var fe *builder.FeedError
			if !errors.As(err, &fe) {
				t.Fatalf("Compile = %v, want a *builder.FeedError", err)
			}
			got := []any{fe.File, fe.Line, fe.Field}
			want := []any{filepath.Join(dir, tt.file), tt.line, tt.field}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("FeedError [file line field] (-want +got):\n%s\nerror: %v", diff, err)
			}
			prefix := fmt.Sprintf("%s:%d: ", filepath.Join(dir, tt.file), tt.line)
			if tt.field != "" {
				prefix += tt.field + ": "
			}
			if !strings.HasPrefix(fe.Error(), prefix) || !strings.Contains(err.Error(), prefix) {
				t.Errorf("error %q, want it to contain %q", err, prefix)
			}
			if tt.catalog {
				if _, err := builder.ReadCatalog(dir); !errors.As(err, &fe) || fe.Field != tt.field {
					t.Errorf("ReadCatalog = %v, want the same *FeedError", err)
				}
			} else if cat, cerr := builder.ReadCatalog(smallCatalog); cerr != nil {
				t.Fatal(cerr)
			} else if err2 := builder.CheckMarketFeeds(dir, cat.Cards); err2 == nil || err2.Error() != fe.Error() {
				t.Errorf("CheckMarketFeeds = %v, want %v", err2, fe)
			}

			if got := mustCurrent(t, root); got != live {
				t.Errorf("CURRENT = %s, want %s", got, live)
			}
			if diff := cmp.Diff(wantDirs, dirNames(t, root)); diff != "" {
				t.Errorf("directories changed (-before +after):\n%s", diff)
			}
		})
	}
	if _, err := snapshots.Verify(filepath.Join(root, live)); err != nil {
		t.Errorf("the live snapshot no longer verifies: %v", err)
	}
}

func price(usd float64) int64 { return int64(math.Round(usd * 100)) }

// TestCompile_Feeds builds from the good market feeds and reads back the
// sales, price points and listings they hold; the whole reader output for the
// fed cards is also compared with testdata/feeds/good/reader.golden.
func TestCompile_Feeds(t *testing.T) {
	root := t.TempDir()
	opts := smallOptions(root, "feeds")
	opts.AsOf = 0 // the latest sale
	opts.MarketDir = goodFeed
	m := MustCompile(t, opts)
	r := snapshotstest.MustOpen(t, filepath.Join(root, "feeds"))

	if got, want := []any{m.MarketSource, m.AsOf, m.Counts["sales"], m.Counts["listings"], m.Counts["cards"]},
		[]any{"feed", "2026-11-05", int64(8), int64(3), int64(30)}; !cmp.Equal(want, got) {
		t.Errorf("manifest [market_source as_of sales listings cards] = %v, want %v", got, want)
	}
	for _, k := range []string{"market/sales", "market/prices", "market/listings"} {
		if len(m.InputDigests[k]) != 64 {
			t.Errorf("input digest %s = %q, want a hex SHA-256", k, m.InputDigests[k])
		}
	}

	d := mustDay
	slab10 := snapshots.GradedGrade(snapshots.GraderIndex("slab"), 10)
	wantSales := map[string][]snapshots.Sale{
		"pokemon/en:base1-4": { // newest first; same day: file order
			{Day: d("2026-11-04"), PriceCents: 42500, Marketplace: snapshots.MarketPartner, TradeType: snapshots.TradeFixedPrice, Flags: snapshots.SalePriceFeed},
			{Day: d("2026-11-03"), PriceCents: 43100, Marketplace: snapshots.MarketPartner, TradeType: snapshots.TradeFixedPrice, Finish: 2},
			{Day: d("2026-11-03"), PriceCents: price(2999.99), Marketplace: snapshots.MarketPartner, TradeType: snapshots.TradeBestOffer, Grade: slab10, Confidence: snapshots.ConfAgreeHigh},
			{Day: d("2026-11-02"), PriceCents: 30000, Marketplace: snapshots.VenueCourtyard, TradeType: snapshots.TradeOnChainTransfer, Confidence: snapshots.ConfDisagreeHigh},
			{Day: d("2026-11-01"), PriceCents: 42050, Marketplace: snapshots.MarketEbay, TradeType: snapshots.TradeAuction},
			{Day: d("2026-10-15"), PriceCents: 99900, Marketplace: snapshots.MarketEbay, TradeType: snapshots.TradeAuction, Flags: snapshots.SaleFlagged},
		},
		"onepiece/en:OP01-001": {
			{Day: d("2026-11-05"), PriceCents: 1234, Marketplace: snapshots.MarketCardmarket, TradeType: snapshots.TradeFixedPrice, Grade: snapshots.GradedGrade(snapshots.GraderIndex("bgs"), 9.5)},
			{Day: d("2026-11-05"), PriceCents: 1100, Marketplace: snapshots.MarketMercari, TradeType: snapshots.TradeBestOffer},
		},
		"pokemon/en:base1-2": nil,
	}
	ids := map[uint64]string{}
	for key, want := range wantSales {
		game, id, _ := strings.Cut(key, "/")
		got, err := r.Sales(game, id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(snapshots.Sale{}, "ID")); diff != "" {
			t.Errorf("Sales(%s) (-feed +reader):\n%s", key, diff)
		}
		// Ids identify sales (sale_id in the API, page cursors): unique, and
		// descending within a day so that (day, id) orders the rows.
		for i, s := range got {
			if other, dup := ids[s.ID]; dup {
				t.Errorf("Sales(%s)[%d] has id %d, as %s has", key, i, s.ID, other)
			}
			ids[s.ID] = fmt.Sprintf("%s[%d]", key, i)
			if i > 0 && s.Day == got[i-1].Day && s.ID >= got[i-1].ID {
				t.Errorf("Sales(%s)[%d]: id %d not below the id %d of the previous sale of the same day", key, i, s.ID, got[i-1].ID)
			}
		}
	}

	series, err := r.PriceSeries("pokemon", "en:base1-4")
	if err != nil {
		t.Fatal(err)
	}
	// prices.jsonl names no finish: its series replace the estimates of
	// the base printing (holo/unlimited); a supplied point's sample size is
	// its sales.
	low, thin := estimate.ConfidenceLow, estimate.FlagThin
	wantSeries := []snapshots.PriceSeries{
		{Grade: snapshots.RawNearMint, Points: []snapshots.PricePoint{
			{Day: d("2026-11-01"), FMVCents: 42050, TVWAPCents: 42050, MedianCents: 42050, Sales: 1, Sample: 1, Confidence: low, Flags: thin},
			{Day: d("2026-11-03"), FMVCents: 42800, TVWAPCents: 42725, MedianCents: 42575, Sales: 2, Sample: 2, Confidence: estimate.ConfidenceMedium, Flags: thin},
		}},
		{Grade: slab10, Points: []snapshots.PricePoint{
			{Day: d("2026-11-03"), FMVCents: price(2999.99), TVWAPCents: price(2999.99), MedianCents: price(2999.99), Sales: 1, Sample: 1, Confidence: low, Flags: thin},
		}},
	}
	if diff := cmp.Diff(wantSeries, series); diff != "" {
		t.Errorf("PriceSeries (-feed +reader):\n%s", diff)
	}
	// The holo/shadowless sale (s2) is its printing's own series, estimated.
	shadowless, err := r.PrintingSeries("pokemon", "en:base1-4", 2)
	if err != nil {
		t.Fatal(err)
	}
	wantShadowless := []snapshots.PriceSeries{{Grade: snapshots.RawNearMint, Points: []snapshots.PricePoint{
		{Day: d("2026-11-03"), FMVCents: 43100, TVWAPCents: 43100, MedianCents: 43100, Sales: 1, Sample: 1, Confidence: low, Flags: thin},
	}}}
	if diff := cmp.Diff(wantShadowless, shadowless); diff != "" {
		t.Errorf("PrintingSeries(holo/shadowless) (-want +reader):\n%s", diff)
	}

	listings, err := r.Listings("pokemon", "en:base1-4")
	if err != nil {
		t.Fatal(err)
	}
	wantListings := []snapshots.Listing{
		{ID: "l-b", CardID: "en:base1-4", Platform: "partner", Grade: "slab:9", Finish: "holo/unlimited", AskCents: 44500, ListedDay: d("2026-11-04"), Quantity: 1, PlatformFreshnessH: 6},
		{ID: "l-a", CardID: "en:base1-4", Platform: "ebay", Grade: "raw:near_mint", AskCents: 46000, ShippingCents: 499, ListedDay: d("2026-11-02"), Quantity: 2},
	}
	if diff := cmp.Diff(wantListings, listings); diff != "" {
		t.Errorf("Listings (-feed +reader):\n%s", diff)
	}

	c, err := r.Card("pokemon", "en:base1-4")
	if err != nil {
		t.Fatal(err)
	}
	// Verified: s1 (ebay), s2 (partner), s3 (partner, slab:10). Hidden: the
	// price-feed row, the flagged sale and the untrusted on-chain one.
	gotCard := []any{c.PriceCents, c.PriceDay.String(), c.SalesAll, c.Sales30d, c.Volume30dCents, c.Listings, c.MarketSources, c.Venues}
	wantCard := []any{int64(42800), "2026-11-03", 3, 3, int64(42050 + 43100 + price(2999.99)), 2, []string{"partner", "ebay"}, []string{}}
	if diff := cmp.Diff(wantCard, gotCard); diff != "" {
		t.Errorf("card summary [price day sales_all sales_30d volume_30d listings sources venues] (-want +got):\n%s", diff)
	}

	checkGolden(t, filepath.Join("testdata", "feeds", "good", "reader.golden"), dumpFed(t, r, []string{"pokemon/en:base1-4", "onepiece/en:OP01-001"}))
}

// TestCompile_FeedOutlier feeds a shill sale ten times a steady series'
// level and a thin series' mislabeled sale through --market: the shill sale
// is flagged outlier and does not move fmv; the thin series moves by at most
// the documented bound (estimate.Default.FMV.MaxMovePerSalePct).
func TestCompile_FeedOutlier(t *testing.T) {
	root := t.TempDir()
	opts := smallOptions(root, "outlier")
	opts.AsOf = 0 // the latest sale: 2026-10-10
	opts.MarketDir = filepath.Join("testdata", "feeds", "outlier")
	MustCompile(t, opts)
	r := snapshotstest.MustOpen(t, filepath.Join(root, "outlier"))
	d := mustDay
	bound := 1 + estimate.Default.FMV.MaxMovePerSalePct/100

	t.Run("Outlier", func(t *testing.T) {
		sales, err := r.Sales("pokemon", "en:base1-4")
		if err != nil {
			t.Fatal(err)
		}
		if len(sales) != 12 {
			t.Fatalf("%d sales, want 12", len(sales))
		}
		for _, s := range sales {
			if s.Finish != 0 {
				t.Errorf("sale of %s: finish %d, want 0 (holo/unlimited, the base printing: given or by default)", s.Day, s.Finish)
			}
			shill := s.PriceCents == 400000
			if got := s.Flags&snapshots.SaleOutlier != 0; got != shill || s.Hidden() {
				t.Errorf("sale of %s at %d cents: outlier %v, hidden %v; want outlier %v, not hidden", s.Day, s.PriceCents, got, s.Hidden(), shill)
			}
		}
		series, err := r.PriceSeries("pokemon", "en:base1-4")
		if err != nil {
			t.Fatal(err)
		}
		raw := seriesByGrade(series, snapshots.RawNearMint)
		if raw == nil || len(raw.Points) != 12 {
			t.Fatalf("raw near-mint series %+v, want 12 points", raw)
		}
		before, _ := snapshots.PointAt(raw, d("2026-10-04"))
		at, _ := snapshots.PointAt(raw, d("2026-10-05"))
		if at.Day != d("2026-10-05") || at.FMVCents != before.FMVCents || at.Flags&estimate.FlagOutlierExcluded == 0 {
			t.Errorf("point of the shill sale %+v, want fmv %d unchanged and flag outlier_excluded (before: %+v)", at, before.FMVCents, before)
		}
		for i := 1; i < len(raw.Points); i++ {
			prev, cur := float64(raw.Points[i-1].FMVCents), float64(raw.Points[i].FMVCents)
			if math.Max(cur/prev, prev/cur) > 1.02 {
				t.Errorf("fmv %v -> %v on %s: a steady series moved more than 2 %%", prev, cur, raw.Points[i].Day)
			}
		}
		c, err := r.Card("pokemon", "en:base1-4")
		if err != nil {
			t.Fatal(err)
		}
		if c.PriceCents < 39600 || c.PriceCents > 41000 {
			t.Errorf("price_cents %d, want the steady level near 40,000", c.PriceCents)
		}
		ps, err := r.Printings("pokemon", "en:base1-4")
		if err != nil {
			t.Fatal(err)
		}
		e := ps[0].Estimates[0]
		if e.Grade != snapshots.RawNearMint || e.Flags&estimate.FlagOutlierExcluded == 0 || e.SampleSize != 11 || e.Confidence != estimate.ConfidenceHigh {
			t.Errorf("estimate %+v, want raw:near_mint, 11 accepted sales, high confidence, flag outlier_excluded", e)
		}
	})

	t.Run("ThinBound", func(t *testing.T) {
		sales, err := r.Sales("pokemon", "en:base1-2")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sales {
			if s.Finish != 1 || s.Flags != 0 {
				t.Errorf("sale %+v, want finish 1 (holo/shadowless/1st-edition) and no flag (too little history to judge)", s)
			}
		}
		series, err := r.PrintingSeries("pokemon", "en:base1-2", 1)
		if err != nil {
			t.Fatal(err)
		}
		raw := seriesByGrade(series, snapshots.RawNearMint)
		if raw == nil || len(raw.Points) != 2 {
			t.Fatalf("raw near-mint series of the 1st edition %+v, want 2 points", raw)
		}
		first, second := raw.Points[0], raw.Points[1]
		if first.FMVCents != 200000 || float64(first.FMVCents)/float64(second.FMVCents) > bound+1e-6 || second.FMVCents >= first.FMVCents {
			t.Errorf("fmv %d -> %d on a $200 sale: want a fall of at most %.0f %%", first.FMVCents, second.FMVCents, 100*(1-1/bound))
		}
		if second.Flags&estimate.FlagThin == 0 {
			t.Errorf("point %+v of a 2-sale series: want flag thin", second)
		}
		// Printings are never blended: the unlimited printing has no price.
		base, err := r.PriceSeries("pokemon", "en:base1-2")
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.Card("pokemon", "en:base1-2")
		if err != nil {
			t.Fatal(err)
		}
		if len(base) != 0 || c.PriceCents != 0 || c.SalesAll != 2 {
			t.Errorf("base printing: %d series, price_cents %d, sales_all %d; want none, 0 and 2 (counts total every printing)", len(base), c.PriceCents, c.SalesAll)
		}
	})
}

// dumpFed renders what the reader holds for the given cards (game/id) and
// their sets as indented JSON.
func dumpFed(tb testing.TB, r *bolt.Reader, keys []string) []byte {
	tb.Helper()
	type saleDump struct {
		ID, Day, Price, Marketplace, TradeType, Grade, Confidence string
		Flags, Finish                                             uint8
	}
	type printingDump struct {
		snapshots.Printing
		Series    []snapshots.PriceSeries
		Cum       []snapshots.CumSeries
		Analytics []snapshots.CardAnalytics
	}
	type cardDump struct {
		Card      *snapshots.Card
		Sales     []saleDump
		Series    []snapshots.PriceSeries
		Cum       []snapshots.CumSeries
		Listings  []snapshots.Listing
		Analytics []snapshots.CardAnalytics
		Printings []printingDump
		Set       *snapshots.Set
		SetAggs   *snapshots.SetAggregates
		SetDaily  []snapshots.DailyStat
	}
	var out []cardDump
	for _, key := range keys {
		game, id, _ := strings.Cut(key, "/")
		var d cardDump
		var err error
		errs := []error{}
		d.Card, err = r.Card(game, id)
		errs = append(errs, err)
		sales, err := r.Sales(game, id)
		errs = append(errs, err)
		for _, s := range sales {
			d.Sales = append(d.Sales, saleDump{ID: fmt.Sprintf("%#x", s.ID), Day: s.Day.String(),
				Price: fmt.Sprintf("%d.%02d", s.PriceCents/100, s.PriceCents%100), Marketplace: s.Marketplace.String(),
				TradeType: s.TradeType.String(), Grade: s.Grade.String(), Confidence: s.Confidence.String(),
				Flags: s.Flags, Finish: s.Finish})
		}
		d.Series, err = r.PriceSeries(game, id)
		errs = append(errs, err)
		d.Cum, err = r.Cum(game, id)
		errs = append(errs, err)
		d.Listings, err = r.Listings(game, id)
		errs = append(errs, err)
		d.Analytics, err = r.Analytics(game, id)
		errs = append(errs, err)
		ps, err := r.Printings(game, id)
		errs = append(errs, err)
		for _, p := range ps {
			pd := printingDump{Printing: p}
			pd.Series, err = r.PrintingSeries(game, id, int(p.Finish))
			errs = append(errs, err)
			pd.Cum, err = r.PrintingCum(game, id, int(p.Finish))
			errs = append(errs, err)
			pd.Analytics, err = r.PrintingAnalytics(game, id, int(p.Finish))
			errs = append(errs, err)
			d.Printings = append(d.Printings, pd)
		}
		if d.Card != nil {
			d.Set, err = r.Set(game, d.Card.SetID)
			errs = append(errs, err)
			d.SetAggs, err = r.SetAggregates(game, d.Card.SetID)
			errs = append(errs, err)
			d.SetDaily, err = r.SetDaily(game, d.Card.SetID)
			errs = append(errs, err)
		}
		if err := errors.Join(errs...); err != nil {
			tb.Fatal(err)
		}
		out = append(out, d)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	return append(b, '\n')
}

// checkGolden compares got with the golden file, or rewrites it with -update.
func checkGolden(tb testing.TB, path string, got []byte) {
	tb.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		tb.Errorf("%s differs (-golden +got; go test -update rewrites it):\n%s", path, diff)
	}
}

// TestReadCatalog reads the small catalog and checks it against the rows.
func TestReadCatalog(t *testing.T) {
	cat, err := builder.ReadCatalog(smallCatalog)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := []int{len(cat.Sets), len(cat.Cards)}, []int{3, 30}; !cmp.Equal(want, got) {
		t.Errorf("[sets cards] = %v, want %v", got, want)
	}
	var charizard *snapshots.Card
	for _, c := range cat.Cards {
		if c.ID == "en:base1-4" {
			charizard = c
		}
	}
	want := &snapshots.Card{Game: "pokemon", ID: "en:base1-4", Language: "en", SourceID: "base1-4", SetID: "en:base1",
		Name: "Charizard", NameLanguage: "en", Number: "4", Rarity: "Rare Holo", Supertype: "Pokémon",
		Subtypes: []string{"Stage 2"}, Colors: []string{"Fire"}, NationalDex: []int{6},
		Variants: []string{"holo/unlimited", "holo/shadowless/1st-edition", "holo/shadowless", "holo/1999-2000-copyright"},
		Source:   "pokemon-tcg-data",
		MarketIDs: []snapshots.MarketID{
			{Variant: "holo/unlimited", Cardmarket: 273699, TCGplayer: 42382},
			{Variant: "holo/shadowless/1st-edition", Cardmarket: 660224, TCGplayer: 106999},
			{Variant: "holo/shadowless", Cardmarket: 660224, TCGplayer: 106999},
		},
		Play: snapshots.Play{Pokemon: &snapshots.PokemonPlay{
			HP: intPtr(120), Types: []string{"Fire"}, EvolvesFrom: "Charmeleon", Level: "76",
			Abilities:   []snapshots.Ability{{Name: "Energy Burn", Type: "Pokémon Power"}},
			Attacks:     []snapshots.Attack{{Name: "Fire Spin", Cost: []string{"Fire", "Fire", "Fire", "Fire"}, Damage: "100"}},
			Weaknesses:  []snapshots.TypeModifier{{Type: "Water", Value: "×2"}},
			Resistances: []snapshots.TypeModifier{{Type: "Fighting", Value: "-30"}},
			Retreat:     intPtr(3), Artist: "Mitsuhiro Arita", Legalities: snapshots.Legalities{Unlimited: "legal"},
		}}}
	if diff := cmp.Diff(want, charizard); diff != "" {
		t.Errorf("en:base1-4 (-want +got):\n%s", diff)
	}
	if len(cat.Digests["sets"]) != 64 || len(cat.Digests["cards"]) != 64 {
		t.Errorf("digests %v, want hex SHA-256 of sets and cards", cat.Digests)
	}
}

// fuzzFiles are the market feeds FuzzFeedLine writes its line to.
var fuzzFiles = []string{"sales.jsonl", "prices.jsonl", "listings.jsonl"}

// FuzzFeedLine writes one fuzzed feed line (to sales.jsonl, prices.jsonl or
// listings.jsonl, with an empty sales.jsonl beside the latter two) and checks
// it against the small catalog. Properties: no panic; an error is a
// *FeedError naming the file and a line of it, formatted file:line: field:;
// an accepted line is one JSON object.
func FuzzFeedLine(f *testing.F) {
	for i, name := range fuzzFiles {
		paths, _ := filepath.Glob(filepath.Join("testdata", "feeds", "*", name))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			for _, line := range bytes.Split(b, []byte("\n")) {
				f.Add(uint8(i), line)
			}
		}
	}
	f.Add(uint8(0), []byte(`null`))
	f.Add(uint8(0), []byte(`{"game":"pokemon","card_id":"en:base1-4","sale_id":"x","sale_date":"2026-11-01","price_usd":1e300,"marketplace":"ebay","trade_type":"auction"}`))
	f.Add(uint8(2), []byte(`{"game":"onepiece","card_id":"en:OP01-001","listing_id":"x","platform":"ebay","ask_usd":1,"listed_date":"2026-11-01","quantity":-1}`))
	cat, err := builder.ReadCatalog(smallCatalog)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, which uint8, line []byte) {
		dir := t.TempDir()
		name := fuzzFiles[int(which)%len(fuzzFiles)]
		if name != "sales.jsonl" {
			if err := os.WriteFile(filepath.Join(dir, "sales.jsonl"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, line, 0o644); err != nil {
			t.Fatal(err)
		}
		err := builder.CheckMarketFeeds(dir, cat.Cards)
		if err == nil {
			for _, l := range bytes.Split(line, []byte("\n")) {
				if l = bytes.TrimSpace(l); len(l) > 0 && (!json.Valid(l) || l[0] != '{') {
					t.Fatalf("accepted %q, which is not one JSON object", l)
				}
			}
			return
		}
		var fe *builder.FeedError
		if !errors.As(err, &fe) {
			t.Fatalf("error %v (%T) is not a *FeedError", err, err)
		}
		if fe.File != path || fe.Line < 1 || fe.Line > bytes.Count(line, []byte("\n"))+1 {
			t.Fatalf("FeedError names %s:%d, want a line of %s", fe.File, fe.Line, path)
		}
		prefix := fmt.Sprintf("%s:%d: ", fe.File, fe.Line)
		if fe.Field != "" {
			prefix += fe.Field + ": "
		}
		if !strings.HasPrefix(err.Error(), prefix) {
			t.Fatalf("error %q does not start with %q", err, prefix)
		}
	})
}
