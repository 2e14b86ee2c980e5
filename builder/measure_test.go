package builder_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/builder"
	"github.com/cardedge/cardedge/builder/history"
	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/builder/source/cardmarket"
	"github.com/cardedge/cardedge/builder/source/pricecharting"
	"github.com/cardedge/cardedge/builder/source/soldlistings"
	"github.com/cardedge/cardedge/builder/source/tcgcsv"
	"github.com/cardedge/cardedge/snapshots"
)

// The measurements of issue 30's closing note: how the shipped catalog's
// ids cover the sources, the -holo rule's split, the cost of 100k price
// rows, the history store's size per day. They print figures and assert
// little; they run with CARDEDGE_MEASURE=1 (go test ./builder -run Measure
// -v), as they take minutes on the whole catalog.

func measureOnly(t *testing.T) {
	if os.Getenv("CARDEDGE_MEASURE") == "" {
		t.Skip("set CARDEDGE_MEASURE=1 to measure")
	}
}

func shippedSourceCatalog(tb testing.TB) *source.Catalog {
	tb.Helper()
	cat, err := builder.ReadCatalog(shippedCatalog)
	if err != nil {
		tb.Fatal(err)
	}
	n := map[string]uint32{}
	for _, c := range cat.Cards {
		c.Ordinal = n[c.Game]
		n[c.Game]++
	}
	return source.NewCatalog(cat.Cards, cat.Sets)
}

// subTypesOf are the subTypeNames TCGplayer would list for a product's
// printings (its naming: Normal, Holofoil, Reverse Holofoil, 1st Edition
// Holofoil ...).
func subTypesOf(c *snapshots.Card, printings []int) []string {
	if len(c.Variants) == 0 {
		return []string{"Normal"}
	}
	seen := map[string]bool{}
	var out []string
	for _, f := range printings {
		v := c.Variants[f]
		name := map[string]string{"normal": "Normal", "holo": "Holofoil", "reverse": "Reverse Holofoil"}[source.VariantType(v)]
		if name == "" {
			name = "Holofoil"
		}
		if source.HasPart(v, source.PartFirstEd) {
			name = "1st Edition " + strings.TrimPrefix(name, "")
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

// catalogDays makes one synthetic day of each source with a row for every
// product id of the catalog (every field filled), plus extra rows of ids
// the catalog lacks, as the real files have.
func catalogDays(cat *source.Catalog, date snapshots.Day, extra int, rnd *rand.Rand) (cm, tcg *source.Day) {
	cm = &source.Day{Source: source.Cardmarket, Date: date, CreatedAt: date.Time().Add(2 * time.Hour)}
	tcg = &source.Day{Source: source.TCGplayer, Date: date, CreatedAt: date.Time().Add(20 * time.Hour)}
	cmSeen, tcgSeen := map[int64]bool{}, map[int64]bool{}
	price := func() int64 { return int64(rnd.ExpFloat64()*400) + 5 }
	for _, c := range cat.Cards {
		for _, m := range c.MarketIDs {
			if id := m.Cardmarket; id != 0 && !cmSeen[id] {
				cmSeen[id] = true
				p := map[string]int64{}
				for _, f := range cardmarket.Fields {
					p[f] = price()
					p[f+cardmarket.HoloSuffix] = price()
				}
				cm.Rows = append(cm.Rows, source.Row{Product: fmt.Sprint(id), Category: "51", Currency: "EUR", Prices: p})
			}
			if id := m.TCGplayer; id != 0 && !tcgSeen[id] {
				tcgSeen[id] = true
				cat := "3"
				if c.Language == "ja" || c.Language == "zh-tw" {
					cat = "85"
				}
				for _, st := range subTypesOf(c, c.PrintingsOf(snapshots.MarketIDTCGplayer, id)) {
					tcg.Rows = append(tcg.Rows, source.Row{Product: fmt.Sprint(id), Category: cat, Group: "1", Set: "x", Name: c.Name, Number: c.Number,
						Printing: st, Currency: "USD", Prices: map[string]int64{"market": price(), "low": price(), "mid": price(), "high": price(), "direct_low": price()}})
				}
			}
		}
	}
	for i := range extra {
		cm.Rows = append(cm.Rows, source.Row{Product: fmt.Sprint(90_000_000 + i), Category: "52", Currency: "EUR", Prices: map[string]int64{"trend": price(), "avg": price()}})
	}
	return cm, tcg
}

// TestMeasure_CatalogCoverage: how many of the shipped catalog's cards and
// printings have ids per source, how the -holo rule splits the Cardmarket
// products, which ids are shared across languages, and the match rates of
// a day with every id of the catalog.
func TestMeasure_CatalogCoverage(t *testing.T) {
	measureOnly(t)
	cat := shippedSourceCatalog(t)
	type count struct{ cards, printings, cmCards, cmPrintings, tcgCards, tcgPrintings int }
	byLang := map[string]*count{}
	for _, c := range cat.Cards {
		k := c.Game + " " + c.Language
		x := byLang[k]
		if x == nil {
			x = &count{}
			byLang[k] = x
		}
		x.cards++
		x.printings += c.Printings()
		hasCM, hasTCG := false, false
		for f := range c.Printings() {
			if c.ProductOf(snapshots.MarketIDCardmarket, f) != 0 {
				x.cmPrintings++
				hasCM = true
			}
			if c.ProductOf(snapshots.MarketIDTCGplayer, f) != 0 {
				x.tcgPrintings++
				hasTCG = true
			}
		}
		if hasCM {
			x.cmCards++
		}
		if hasTCG {
			x.tcgCards++
		}
	}
	keys := make([]string, 0, len(byLang))
	for k := range byLang {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Logf("%-14s %7s %9s %18s %18s", "game lang", "cards", "printings", "cardmarket c / p", "tcgplayer c / p")
	for _, k := range keys {
		x := byLang[k]
		t.Logf("%-14s %7d %9d %8d / %7d %8d / %7d", k, x.cards, x.printings, x.cmCards, x.cmPrintings, x.tcgCards, x.tcgPrintings)
	}
	// The -holo rule over every (card, Cardmarket product).
	split := map[string]int{}
	shared := map[string]int{}
	for market, label := range map[string]string{snapshots.MarketIDCardmarket: "cardmarket", snapshots.MarketIDTCGplayer: "tcgplayer"} {
		ids := map[int64][]*snapshots.Card{}
		for _, c := range cat.Cards {
			for _, m := range c.MarketIDs {
				id := m.Cardmarket
				if market == snapshots.MarketIDTCGplayer {
					id = m.TCGplayer
				}
				if id != 0 && (len(ids[id]) == 0 || ids[id][len(ids[id])-1] != c) {
					ids[id] = append(ids[id], c)
				}
			}
		}
		for id, cards := range ids {
			langs := map[string]bool{}
			for _, c := range cards {
				langs[c.Language] = true
			}
			switch {
			case len(cards) == 1:
				shared[label+": one card"]++
			case len(langs) > 1:
				shared[label+": cards of several languages"]++
			default:
				shared[label+": several cards of one language"]++
			}
			if market != snapshots.MarketIDCardmarket {
				continue
			}
			c := cards[0]
			plain, foil, _ := cardmarket.Printings(c, c.PrintingsOf(market, id))
			key := "plain " + kind(c, plain) + ", -holo " + kind(c, foil)
			split[key]++
		}
	}
	t.Log("ids by cards:")
	logCounts(t, shared)
	t.Log("Cardmarket products by where the plain and -holo fields go:")
	logCounts(t, split)
	// A day with every id of the catalog, through the sources' Map.
	rnd := rand.New(rand.NewPCG(1, 2))
	cm, tcg := catalogDays(cat, mustDay("2026-11-20"), 0, rnd)
	for _, x := range []struct {
		src source.Source
		d   *source.Day
	}{{cardmarket.Source{}, cm}, {tcgcsv.Source{}, tcg}} {
		_, rep := x.src.Map(x.d, x.d, cat)
		t.Logf("%s: %d rows, %d matched by id (%.1f %%), %d observations; reasons:", rep.Source, rep.Read, rep.ByID, 100*float64(rep.ByID)/float64(rep.Read), rep.Observations)
		logCounts(t, rep.Reasons)
	}
	// Ids that are both a Cardmarket idProduct and a TCGplayer productId
	// of other cards: a bare number is ambiguous between marketplaces.
	cmIDs, tcgIDs := map[int64]bool{}, map[int64]bool{}
	for _, c := range cat.Cards {
		for _, m := range c.MarketIDs {
			if m.Cardmarket != 0 {
				cmIDs[m.Cardmarket] = true
			}
			if m.TCGplayer != 0 {
				tcgIDs[m.TCGplayer] = true
			}
		}
	}
	both := 0
	for id := range cmIDs {
		if tcgIDs[id] {
			both++
		}
	}
	t.Logf("distinct ids: cardmarket %d, tcgplayer %d, numbers in both spaces %d", len(cmIDs), len(tcgIDs), both)
}

func kind(c *snapshots.Card, f int) string {
	if f < 0 {
		return "none"
	}
	if len(c.Variants) == 0 {
		return "(unknown)"
	}
	return source.VariantType(c.Variants[f])
}

func logCounts(t *testing.T, m map[string]int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || (m[keys[i]] == m[keys[j]] && keys[i] < keys[j]) })
	for _, k := range keys {
		t.Logf("  %7d  %s", m[k], k)
	}
}

// TestMeasure_History: the history store's size per day at the shipped
// catalog (a day with a row for every id of the catalog, and 100k rows).
func TestMeasure_History(t *testing.T) {
	measureOnly(t)
	cat := shippedSourceCatalog(t)
	rnd := rand.New(rand.NewPCG(1, 2))
	store, err := history.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cm, tcg := catalogDays(cat, mustDay("2026-11-20"), 0, rnd)
	for _, d := range []*source.Day{cm, tcg} {
		_, _, n, err := store.Put(context.Background(), d, false)
		if err != nil {
			t.Fatal(err)
		}
		raw, _, _ := history.Encode(d)
		t.Logf("%s day at the catalog: %d rows, %d bytes filed (%d uncompressed), %.1f bytes per row", d.Source, len(d.Rows), n, len(raw), float64(n)/float64(len(d.Rows)))
	}
	big, _ := catalogDays(cat, mustDay("2026-11-21"), 100_000-len(cm.Rows), rnd)
	_, _, n, err := store.Put(context.Background(), big, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cardmarket day of %d rows: %d bytes filed", len(big.Rows), n)
}

// priceGuide writes a Cardmarket price guide of day d with the rows of day.
func priceGuide(day *source.Day, d snapshots.Day) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"version":1,"createdAt":"%sT02:00:00+0100","priceGuides":[`, d)
	for i, r := range day.Rows {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"idProduct":%s,"idCategory":%s`, r.Product, r.Category)
		keys := make([]string, 0, len(r.Prices))
		for k := range r.Prices {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, `,"%s":%s`, k, source.FormatAmount(r.Prices[k]))
		}
		b.WriteString("}")
	}
	b.WriteString("]}\n")
	return b.Bytes()
}

// TestMeasure_100kRows: what 100k price rows add to a build of the
// shipped catalog: the build with a Cardmarket file of 100k rows (the
// catalog's ids and others) against the same build with a file of one
// row; time and peak Go heap.
func TestMeasure_100kRows(t *testing.T) {
	measureOnly(t)
	cat := shippedSourceCatalog(t)
	rnd := rand.New(rand.NewPCG(3, 4))
	dir := t.TempDir()
	full, _ := catalogDays(cat, mustDay("2026-11-20"), 0, rnd)
	big, _ := catalogDays(cat, mustDay("2026-11-20"), 100_000-len(full.Rows), rnd)
	one := &source.Day{Rows: big.Rows[:1]}
	rates := filepath.Join(dir, "rates.csv")
	os.WriteFile(rates, []byte("Date,USD,\n2026-11-20,1.05,\n"), 0o644)
	run := func(name string, day *source.Day) {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, priceGuide(day, mustDay("2026-11-20")), 0o644); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		stop := make(chan struct{})
		peak := make(chan uint64)
		go func() {
			var m runtime.MemStats
			var max uint64
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for {
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > max {
					max = m.HeapAlloc
				}
				select {
				case <-stop:
					peak <- max
					return
				case <-tick.C:
				}
			}
		}()
		var stages []string
		var last time.Time
		var lastName string
		start := time.Now()
		in, _ := source.ParseInput("cardmarket=" + p)
		m, err := builder.Compile(context.Background(), builder.Options{Out: filepath.Join(dir, "out-"+name), CatalogDir: shippedCatalog,
			Sources: []source.Input{in}, Rates: rates, SnapshotID: name,
			StageHook: func(stage string) error {
				now := time.Now()
				if lastName != "" {
					stages = append(stages, fmt.Sprintf("%s %s", lastName, now.Sub(last).Round(time.Millisecond)))
				}
				last, lastName = now, stage
				return nil
			}})
		took := time.Since(start)
		close(stop)
		p2 := <-peak
		if err != nil {
			t.Fatal(err)
		}
		st := m.Sources[0]
		fi, _ := os.Stat(filepath.Join(dir, "out-"+name, name, bolt_MarketFile))
		t.Logf("%s: %d rows (%d matched, %d observations): build %s, peak Go heap %d MiB, market.bolt %d MiB; stages: %s",
			name, st.Rows, st.Matched, st.Observations, took.Round(time.Millisecond), p2>>20, fi.Size()>>20, strings.Join(stages, ", "))
	}
	run("one", one)
	run("rows100k", big)
}

const bolt_MarketFile = "market.bolt"

// TestMeasure_HistoryDays: what a day of history adds to the snapshot
// (market.bolt) and to the build: builds of the shipped catalog from 1
// and 8 days of both marketplaces' files (every id of the catalog).
func TestMeasure_HistoryDays(t *testing.T) {
	measureOnly(t)
	cat := shippedSourceCatalog(t)
	for _, days := range []int{1, 8} {
		dir := t.TempDir()
		store, err := history.Open(context.Background(), filepath.Join(dir, "history"))
		if err != nil {
			t.Fatal(err)
		}
		rnd := rand.New(rand.NewPCG(9, 10))
		var filed int
		for i := range days {
			cm, tcg := catalogDays(cat, mustDay("2026-11-20")-snapshots.Day(days-1-i), 0, rnd)
			for _, d := range []*source.Day{cm, tcg} {
				_, _, n, err := store.Put(context.Background(), d, false)
				if err != nil {
					t.Fatal(err)
				}
				filed += n
			}
		}
		rates := filepath.Join(dir, "rates.csv")
		var csv strings.Builder
		csv.WriteString("Date,USD,\n")
		for i := range days {
			fmt.Fprintf(&csv, "%s,1.05,\n", mustDay("2026-11-20")-snapshots.Day(i))
		}
		os.WriteFile(rates, []byte(csv.String()), 0o644)
		start := time.Now()
		var mapStart, mapEnd time.Time
		m, err := builder.Compile(context.Background(), builder.Options{Out: filepath.Join(dir, "out"), CatalogDir: shippedCatalog,
			History: filepath.Join(dir, "history"), Rates: rates, SnapshotID: "h",
			StageHook: func(stage string) error {
				switch {
				case strings.HasPrefix(stage, "map:") && mapStart.IsZero():
					mapStart = time.Now()
				case stage == "market:pokemon":
					mapEnd = time.Now()
				}
				return nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(filepath.Join(dir, "out", "h", "market.bolt"))
		t.Logf("%d days: history store %d KiB, build %s (sources mapped in %s), market.bolt %d MiB, %d price points, %d sales (feed rows)",
			days, filed>>10, time.Since(start).Round(time.Millisecond), mapEnd.Sub(mapStart).Round(time.Millisecond), fi.Size()>>20, m.Counts["price_points"], m.Counts["sales"])
	}
}

// TestMeasure_NameMatching: how well the name matchers of PriceCharting and
// of sold-listing titles find the shipped catalog's cards from what those
// sources write: a product "<name> #<number>" of console "Pokemon <set>"
// (or "One Piece <set>"), a title "<name> <number>/<printed> <set>" (and
// "<name> <set>" without a number), for every English card. An upper
// bound: real names carry more noise.
func TestMeasure_NameMatching(t *testing.T) {
	measureOnly(t)
	cat := shippedSourceCatalog(t)
	sets := soldlistings.SetsByGame(cat)
	pc, title, bare := map[string]int{}, map[string]int{}, map[string]int{}
	n := 0
	for _, c := range cat.Cards {
		if c.Language != "en" {
			continue
		}
		n++
		s := cat.Set(c.Game, c.SetID)
		console := "Pokemon " + s.Name
		if c.Game == "onepiece" {
			console = "One Piece " + s.Name
		}
		m, err := pricecharting.Match(cat, console, c.Name+" #"+c.Number)
		pc[outcome(c, m.Card, err)]++
		number := c.Number
		if s.CardCountPrinted > 0 {
			number += fmt.Sprintf("/%d", s.CardCountPrinted)
		}
		tm, err := soldlistings.MatchTitle(cat, sets, c.Name+" "+number+" "+s.Name, c.Game)
		title[outcome(c, tm.Card, err)]++
		tm, err = soldlistings.MatchTitle(cat, sets, c.Name+" "+s.Name+" set", c.Game)
		bare[outcome(c, tm.Card, err)]++
	}
	t.Logf("%d English cards", n)
	t.Log("PriceCharting product and console names:")
	logCounts(t, pc)
	t.Log("sold-listing titles with number and set:")
	logCounts(t, title)
	t.Log("sold-listing titles with set, no number:")
	logCounts(t, bare)
}

func outcome(want, got *snapshots.Card, err error) string {
	switch {
	case err != nil:
		reason, _, _ := strings.Cut(err.Error(), ":")
		return "no match: " + reason
	case got == want:
		return "the card"
	case want.Game == "onepiece" && strings.Contains(want.SourceID, "_"):
		return "another card: the normal art of a parallel (the name says no art)"
	case got.Name == want.Name && got.SetID == want.SetID:
		return "another card of the same name and set (" + want.Game + ")"
	}
	return "another card (" + want.ID + " read as " + got.ID + ")"
}
