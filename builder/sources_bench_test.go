package builder

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"testing"

	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/builder/source/cardmarket"
	"github.com/cardedge/cardedge/builder/source/ecb"
	"github.com/cardedge/cardedge/builder/source/pricecharting"
	"github.com/cardedge/cardedge/builder/source/soldlistings"
	"github.com/cardedge/cardedge/builder/source/tcgcsv"
	"github.com/cardedge/cardedge/snapshots"
)

// benchCatalog is the shipped catalog indexed for the sources.
func benchCatalog(b *testing.B) (*source.Catalog, []*snapshots.Card) {
	b.Helper()
	cat, err := ReadCatalog("catalog")
	if err != nil {
		b.Fatal(err)
	}
	n := map[string]uint32{}
	for _, c := range cat.Cards {
		c.Ordinal = n[c.Game]
		n[c.Game]++
	}
	return source.NewCatalog(cat.Cards, cat.Sets), cat.Cards
}

// guide100k is a Cardmarket price guide of 100k entries: every Cardmarket
// id of the catalog with all twelve fields, then ids the catalog lacks
// with two fields, as the real file lists products the catalog has not.
func guide100k(cards []*snapshots.Card) []byte {
	rnd := rand.New(rand.NewPCG(5, 6))
	var buf bytes.Buffer
	buf.WriteString(`{"version":1,"createdAt":"2026-11-20T02:51:40+0100","priceGuides":[`)
	seen := map[int64]bool{}
	n := 0
	price := func() string { return source.FormatAmount(int64(rnd.ExpFloat64()*400) + 5) }
	for _, c := range cards {
		for _, m := range c.MarketIDs {
			if m.Cardmarket == 0 || seen[m.Cardmarket] {
				continue
			}
			seen[m.Cardmarket] = true
			if n > 0 {
				buf.WriteString(",\n")
			}
			n++
			fmt.Fprintf(&buf, `{"idProduct":%d,"idCategory":51`, m.Cardmarket)
			for _, f := range cardmarket.Fields {
				fmt.Fprintf(&buf, `,"%s":%s,"%s-holo":%s`, f, price(), f, price())
			}
			buf.WriteString("}")
		}
	}
	for i := 0; n < 100_000; i++ {
		fmt.Fprintf(&buf, ",\n{\"idProduct\":%d,\"idCategory\":52,\"trend\":%s,\"avg\":%s}", 90_000_000+i, price(), price())
		n++
	}
	buf.WriteString("]}\n")
	return buf.Bytes()
}

// BenchmarkSources_Cardmarket100k: one day of 100k Cardmarket rows through
// parse, map, conversion and accumulation into the cards' markets, over
// the shipped catalog. It reports the heap the cards' markets keep
// (kept-MiB: the live heap after, less before).
func BenchmarkSources_Cardmarket100k(b *testing.B) {
	cat, cards := benchCatalog(b)
	body := guide100k(cards)
	rates, err := ecb.Parse([]byte("Date,USD,\n2026-11-20,1.05,\n"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var live uint64
	for b.Loop() {
		d, err := cardmarket.Parse(body)
		if err != nil {
			b.Fatal(err)
		}
		obs, _ := cardmarket.Source{}.Map(d, d, cat)
		acc := newAccumulator(d.Date)
		acc.add(source.Cardmarket, d.Date, obs, rates)
		d, obs = nil, nil
		m := acc.markets(cards, []*loadedSource{{in: source.Input{Source: source.Cardmarket}}})
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		live = ms.HeapAlloc - before.HeapAlloc
		runtime.KeepAlive(m)
	}
	b.ReportMetric(float64(live)/(1<<20), "kept-MiB")
}

// BenchmarkSources_TCGplayer100k: 100k TCGplayer price rows (every
// product and printing of the catalog, then products it lacks) through
// map and accumulation.
func BenchmarkSources_TCGplayer100k(b *testing.B) {
	cat, cards := benchCatalog(b)
	rnd := rand.New(rand.NewPCG(7, 8))
	d := &source.Day{Source: source.TCGplayer, Date: 20777}
	seen := map[int64]bool{}
	price := func() int64 { return int64(rnd.ExpFloat64()*400) + 5 }
	for _, c := range cards {
		for _, m := range c.MarketIDs {
			if m.TCGplayer == 0 || seen[m.TCGplayer] {
				continue
			}
			seen[m.TCGplayer] = true
			subs := map[string]bool{}
			for _, f := range c.PrintingsOf(snapshots.MarketIDTCGplayer, m.TCGplayer) {
				st := "Normal"
				if f < len(c.Variants) {
					st = map[string]string{"holo": "Holofoil", "reverse": "Reverse Holofoil"}[source.VariantType(c.Variants[f])]
					if st == "" {
						st = "Normal"
					}
				}
				subs[st] = true
			}
			keys := make([]string, 0, len(subs))
			for k := range subs {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, st := range keys {
				d.Rows = append(d.Rows, source.Row{Product: fmt.Sprint(m.TCGplayer), Category: "3", Printing: st, Currency: "USD", Name: c.Name, Number: c.Number,
					Prices: map[string]int64{"market": price(), "low": price(), "mid": price(), "high": price(), "direct_low": price()}})
			}
		}
	}
	for i := 0; len(d.Rows) < 100_000; i++ {
		d.Rows = append(d.Rows, source.Row{Product: fmt.Sprint(90_000_000 + i), Category: "3", Printing: "Normal", Currency: "USD", Name: "Sealed box", Number: "",
			Prices: map[string]int64{"market": price()}})
	}
	b.ReportAllocs()
	for b.Loop() {
		obs, _ := tcgcsv.Source{}.Map(d, d, cat)
		acc := newAccumulator(d.Date)
		acc.add(source.TCGplayer, d.Date, obs, nil)
		acc.markets(cards, []*loadedSource{{in: source.Input{Source: source.TCGplayer}}})
	}
}

// englishCards returns the English cards of the catalog with their set, in
// catalog order, for the name-matched sources' generated files.
func englishCards(cat *source.Catalog, cards []*snapshots.Card) (out []*snapshots.Card, sets []*snapshots.Set) {
	for _, c := range cards {
		if c.Language == "en" {
			out = append(out, c)
			sets = append(sets, cat.Set(c.Game, c.SetID))
		}
	}
	return out, sets
}

// BenchmarkSources_PriceCharting100k: a PriceCharting guide of 100k lines
// ("<name> #<number>" of console "Pokemon <set>" for every English card,
// then products the catalog lacks) through parse, the name match and
// accumulation.
func BenchmarkSources_PriceCharting100k(b *testing.B) {
	cat, cards := benchCatalog(b)
	en, sets := englishCards(cat, cards)
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"id", "console-name", "product-name", "loose-price", "graded-price", "manual-only-price"})
	for i := 0; i < 100_000; i++ {
		console, product := "Pokemon Imaginary Set", fmt.Sprintf("Sealed Box %d #%d", i, i)
		if i < len(en) {
			console = "Pokemon " + sets[i].Name
			if en[i].Game == "onepiece" {
				console = "One Piece " + sets[i].Name
			}
			product = en[i].Name + " #" + en[i].Number
		}
		w.Write([]string{fmt.Sprint(i + 1), console, product, fmt.Sprintf("$%d.00", 5+i%90), fmt.Sprintf("$%d.00", 50+i%900), fmt.Sprintf("$%d.00", 200+i%5000)})
	}
	w.Flush()
	body := buf.Bytes()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		d, err := pricecharting.Parse(body, 20777)
		if err != nil {
			b.Fatal(err)
		}
		obs, _ := pricecharting.Source{}.Map(d, d, cat)
		acc := newAccumulator(d.Date)
		acc.add(source.PriceCharting, d.Date, obs, nil)
		acc.markets(cards, []*loadedSource{{in: source.Input{Source: source.PriceCharting}}})
	}
}

// BenchmarkSources_SoldListings100k: a sold-listings export of 100k titles
// ("<name> <number>/<printed> <set> PSA 10" of the English cards, in turn)
// through parse, the title match and accumulation.
func BenchmarkSources_SoldListings100k(b *testing.B) {
	cat, cards := benchCatalog(b)
	en, sets := englishCards(cat, cards)
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"date", "title", "price", "currency", "url"})
	for i := 0; i < 100_000; i++ {
		c, s := en[i%len(en)], sets[i%len(en)]
		number := c.Number
		if s.CardCountPrinted > 0 {
			number += fmt.Sprintf("/%d", s.CardCountPrinted)
		}
		w.Write([]string{fmt.Sprintf("2026-11-%02d", 1+i%20), c.Name + " " + number + " " + s.Name + " PSA 10", fmt.Sprintf("$%d.00", 20+i%3000), "USD", fmt.Sprintf("https://www.ebay.com/itm/%d", i)})
	}
	w.Flush()
	body := buf.Bytes()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		d, err := soldlistings.Parse(body, 20777, soldlistings.Defaults{})
		if err != nil {
			b.Fatal(err)
		}
		obs, _ := soldlistings.Source{}.Map(d, d, cat)
		acc := newAccumulator(d.Date)
		acc.add(source.SoldListings, d.Date, obs, nil)
		acc.markets(cards, []*loadedSource{{in: source.Input{Source: source.SoldListings}}})
	}
}
