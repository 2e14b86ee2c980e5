package pokemontcg_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/cardedge/cardedge/builder"
	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/pokemontcg"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// TestLoad_Sources builds a snapshot from the real sources' fixtures
// (builder/testdata/sources: Cardmarket's guide and TCGplayer's prices of
// one day, the ECB's rates) and checks the tcgplayer and cardmarket
// objects /v2 makes of them: TCGplayer's numbers of the base printing's
// product by printing, Cardmarket's plain and -holo fields in EUR, as the
// sources gave them.
func TestLoad_Sources(t *testing.T) {
	fixtures := filepath.Join("..", "builder", "testdata", "sources")
	root := t.TempDir()
	m, err := builder.Compile(context.Background(), builder.Options{
		Out: root, CatalogDir: filepath.Join(fixtures, "catalog"), SnapshotID: "src", Rates: filepath.Join(fixtures, "ecb", "eurofxref-hist.csv"),
		Sources: []source.Input{
			{Source: "cardmarket", Location: filepath.Join(fixtures, "cardmarket", "price_guide_6-2026-11-19.json")},
			{Source: "tcgplayer", Location: filepath.Join(fixtures, "tcgplayer", "day1")},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := snapshotstest.MustOpen(t, filepath.Join(root, m.SnapshotID))
	cat, err := pokemontcg.Load(live.NewView(r, nil, nil), pokemontcg.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	prices := func(id string) string {
		t.Helper()
		c := MustCard(t, cat, id)
		b, err := json.Marshal(map[string]any{"tcgplayer": c.TCGPlayer, "cardmarket": c.Cardmarket, "source": c.Cardedge.PriceSource})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tc := range []struct{ id, want string }{
		// The unlimited holo's products: TCGplayer 42382 (its Holofoil
		// row; the 1st edition's product 106999 is another), Cardmarket
		// 273699 (plain fields; avg1 null in the guide).
		{"base1-4", `{"cardmarket":{"url":"https://www.cardmarket.com/en/Pokemon/Products/Search?searchString=Charizard","updatedAt":"2026/11/19",` +
			`"prices":{"averageSellPrice":300.5,"lowPrice":250,"trendPrice":310.25,"germanProLow":null,"suggestedPrice":null,"reverseHoloSell":null,` +
			`"reverseHoloLow":null,"reverseHoloTrend":null,"lowPriceExPlus":null,"avg1":null,"avg7":305,"avg30":300,"reverseHoloAvg1":null,` +
			`"reverseHoloAvg7":null,"reverseHoloAvg30":null}},"source":"sources","tcgplayer":{"url":"https://www.tcgplayer.com/product/42382",` +
			`"updatedAt":"2026/11/19","prices":{"holofoil":{"low":300,"mid":360,"high":500,"market":350,"directLow":null}}}}`},
		// A normal and a reverse printing of one product each: TCGplayer's
		// Normal and Reverse Holofoil rows, Cardmarket's plain fields and
		// its -holo fields as reverseHolo*.
		{"sv1-6", `{"cardmarket":{"url":"https://www.cardmarket.com/en/Pokemon/Products/Search?searchString=Cacturne","updatedAt":"2026/11/19",` +
			`"prices":{"averageSellPrice":0.09,"lowPrice":0.02,"trendPrice":0.1,"germanProLow":null,"suggestedPrice":null,"reverseHoloSell":0.3,` +
			`"reverseHoloLow":0.15,"reverseHoloTrend":0.35,"lowPriceExPlus":null,"avg1":null,"avg7":null,"avg30":null,"reverseHoloAvg1":null,` +
			`"reverseHoloAvg7":null,"reverseHoloAvg30":null}},"source":"sources","tcgplayer":{"url":"https://www.tcgplayer.com/product/487836",` +
			`"updatedAt":"2026/11/19","prices":{"normal":{"low":0.05,"mid":0.15,"high":2,"market":0.12,"directLow":0.1},` +
			`"reverseHolofoil":{"low":0.2,"mid":0.45,"high":3,"market":0.4,"directLow":null}}}}`},
		// Printings unknown: the non-reverse row, named by the rarity.
		{"xy1-1", `{"cardmarket":{"url":"https://www.cardmarket.com/en/Pokemon/Products/Search?searchString=Venusaur-EX","updatedAt":"2026/11/19",` +
			`"prices":{"averageSellPrice":null,"lowPrice":null,"trendPrice":5,"germanProLow":null,"suggestedPrice":null,"reverseHoloSell":null,` +
			`"reverseHoloLow":null,"reverseHoloTrend":null,"lowPriceExPlus":null,"avg1":null,"avg7":null,"avg30":null,"reverseHoloAvg1":null,` +
			`"reverseHoloAvg7":null,"reverseHoloAvg30":null}},"source":"sources","tcgplayer":{"url":"https://www.tcgplayer.com/product/90324",` +
			`"updatedAt":"2026/11/19","prices":{"holofoil":{"low":5,"mid":6.5,"high":20,"market":6,"directLow":null}}}}`},
	} {
		if got := prices(tc.id); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.id, got, tc.want)
		}
	}
	// What /v2 writes is the object's JSON (the hand encoder agrees with
	// encoding/json on prices too).
	for _, c := range cat.Cards() {
		card := cat.Card(c)
		if got, want := card.AppendJSON(nil, pokemontcg.All), stdJSON(t, card); string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", card.ID, got, want)
		}
	}
	checkPriceShapes(t, cat)
}

// checkPriceShapes checks every card's price objects against the Python
// SDK's data classes (dacite): TCGPlayer's url, updatedAt (YYYY/MM/DD) and
// prices are required, each price's numbers Optional[float]; Cardmarket's
// url and updatedAt required, prices Optional.
func checkPriceShapes(t *testing.T, cat *pokemontcg.Catalog) {
	t.Helper()
	date := regexp.MustCompile(`^\d{4}/\d{2}/\d{2}$`)
	for _, c := range cat.Cards() {
		var m map[string]any
		if err := json.Unmarshal(cat.Card(c).AppendJSON(nil, pokemontcg.All), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"tcgplayer", "cardmarket"} {
			o, ok := m[k].(map[string]any)
			if !ok {
				continue
			}
			url, _ := o["url"].(string)
			day, _ := o["updatedAt"].(string)
			prices, isObj := o["prices"].(map[string]any)
			if url == "" || !date.MatchString(day) || (!isObj && (k == "tcgplayer" || o["prices"] != nil)) {
				t.Fatalf("%s %s: %v", c.ID, k, o)
			}
			for name, v := range prices {
				if k == "tcgplayer" {
					p, _ := v.(map[string]any)
					for _, f := range []string{"low", "mid", "high", "market", "directLow"} {
						if x, has := p[f]; !has || (x != nil && !isNumber(x)) {
							t.Fatalf("%s tcgplayer.prices.%s.%s = %v", c.ID, name, f, x)
						}
					}
				} else if v != nil && !isNumber(v) {
					t.Fatalf("%s cardmarket.prices.%s = %v", c.ID, name, v)
				}
			}
		}
	}
}

func isNumber(v any) bool { _, ok := v.(float64); return ok }

// TestLoad_Synthetic: over the synthetic market (the tiny snapshot),
// tcgplayer holds each printing's raw near-mint fmv as market, flagged
// synthetic; cardmarket is left out.
func TestLoad_Synthetic(t *testing.T) {
	cat := mustTiny(t)
	c := MustCard(t, cat, "base1-4")
	if c.Cardedge.PriceSource != pokemontcg.PriceSynthetic || c.Cardmarket != nil || c.TCGPlayer == nil {
		t.Fatalf("base1-4: %+v %+v %+v", c.Cardedge, c.TCGPlayer, c.Cardmarket)
	}
	p := c.TCGPlayer.Prices
	// base1-4's TCGplayer products: the unlimited holo (42382) and the
	// shadowless and 1st edition (106999): Holofoil and 1st Edition Holofoil.
	if p.Holofoil == nil || p.Holofoil.Market == nil || *p.Holofoil.Market <= 0 || p.Holofoil.Low != nil || p.FirstEditionHolofoil == nil {
		t.Errorf("base1-4 tcgplayer.prices %s", stdJSON(t, p))
	}
	if c.TCGPlayer.URL != "https://www.tcgplayer.com/product/42382" || c.TCGPlayer.UpdatedAt != "2026/11/20" {
		t.Errorf("base1-4 tcgplayer %s %s", c.TCGPlayer.URL, c.TCGPlayer.UpdatedAt)
	}
	priced := 0
	for _, c := range cat.Cards() {
		if cat.Card(c).TCGPlayer != nil {
			priced++
		}
	}
	if priced < len(cat.Cards())/2 {
		t.Errorf("%d of %d cards have prices", priced, len(cat.Cards()))
	}
	checkPriceShapes(t, cat)
}
