package soldlistings_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/builder/source/soldlistings"
	"github.com/cardedge/cardedge/builder/source/sourcetest"
	"github.com/cardedge/cardedge/snapshots"
)

func read(tb testing.TB, opts map[string]string) (*source.Day, error) {
	tb.Helper()
	f := source.NewFetcher("test", "c", "")
	if opts == nil {
		opts = map[string]string{"day": "2026-11-20"}
	}
	return soldlistings.Source{}.Read(context.Background(), f, source.Input{Source: "soldlistings",
		Location: sourcetest.Path("soldlistings", "ebay-sold.csv"), Options: opts})
}

func TestRead(t *testing.T) {
	d, err := read(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Rows) != 7 {
		t.Errorf("%d rows, want 7", len(d.Rows))
	}
	var reasons []string
	for _, e := range d.Rejected {
		reasons = append(reasons, e.Reason)
	}
	if diff := cmp.Diff([]string{"sold after the file's day", "no marketplace", "bad price"}, reasons); diff != "" {
		t.Errorf("refused (-want +got):\n%s", diff)
	}
	// With a default marketplace the listing without one is read.
	d, err = read(t, map[string]string{"day": "2026-11-20", "marketplace": "ebay"})
	if err != nil || len(d.Rows) != 8 {
		t.Errorf("marketplace=ebay: %d rows, %v", len(d.Rows), err)
	}
	if _, err := read(t, map[string]string{"marketplace": "courtyard"}); err == nil {
		t.Error("an on-chain venue accepted as the default marketplace")
	}
}

func TestMap(t *testing.T) {
	cat := sourcetest.MustCatalog(t)
	d, err := read(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	obs, rep := soldlistings.Source{}.Map(d, d, cat)
	var got []string
	for _, o := range obs {
		got = append(got, strings.Join([]string{o.Day.String(), o.Card.ID, source.VariantOf(o.Card, o.Finish), o.Grade.String(),
			source.FormatAmount(o.Amount), o.Currency, o.Marketplace.String(), o.TradeType.String(), o.Confidence.String()}, " "))
	}
	want := []string{
		"2026-11-18 en:base1-4 holo/unlimited slab:9 4200.00 USD ebay fixed_price agree_high",
		"2026-11-19 en:base1-4 holo/shadowless/1st-edition slab:10 350000.00 USD ebay fixed_price agree_high",
		"2026-11-19 en:base1-2 holo/unlimited raw:near_mint 150.00 EUR cardmarket fixed_price agree_medium",
		"2026-11-20 en:OP01-001_p1 alternate-art raw:near_mint 25.00 USD ebay fixed_price agree_high",
		"2026-11-20 en:base1-2 holo/unlimited bgs:9.5 181.00 USD ebay fixed_price agree_high",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("observations (-want +got):\n%s", diff)
	}
	if got, want := [6]int{rep.Read, rep.ByTitle, rep.Ambiguous, rep.Unmatched, rep.Rejected, rep.Observations}, [6]int{10, 5, 1, 1, 3, 5}; got != want {
		t.Errorf("[read title ambiguous unmatched rejected observations] = %v, want %v", got, want)
	}
	for _, e := range rep.Entries {
		if e.Status == source.StatusAmbiguous && (e.Reason != "no card of the number or set has a name in the title" || !strings.Contains(e.Detail, "en:xy1-1 en:sv3pt5-1")) {
			t.Errorf("ambiguous entry %+v, want the candidates en:xy1-1 en:sv3pt5-1", e)
		}
	}
}

func TestMatchTitle(t *testing.T) {
	cat := sourcetest.MustCatalog(t)
	sets := soldlistings.SetsByGame(cat)
	for _, tt := range []struct {
		title, want string
	}{
		{"Charizard 4/102 Base Set Holo Rare PSA 9", "en:base1-4 holo/unlimited slab:9 agree_high"},
		{"CHARIZARD #4 shadowless near mint", "en:base1-4 holo/shadowless raw:near_mint agree_high"},
		{"Charizard 4/130", "error: no card with this number"},
		{"Bulbasaur 001/165 reverse holo", "en:sv3pt5-1 reverse raw:near_mint agree_high"},
		{"Trafalgar Law OP01-002 One Piece", "en:OP01-002 normal raw:near_mint agree_high"},
		{"Trafalgar Law OP01-002 alt art", "en:OP01-002_p1 alternate-art raw:near_mint agree_high"},
		{"Venusaur EX 1/146 XY", "en:xy1-1  raw:near_mint agree_high"},
		{"Venusaur EX 1/146 reverse holo", "error: printing words for a card without known printings"},
		{"Charizard", "error: no number or set in the title"},
	} {
		m, err := soldlistings.MatchTitle(cat, sets, tt.title, "")
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			got = strings.Join([]string{m.Card.ID, source.VariantOf(m.Card, m.Finish), m.Grade.String(), m.Confidence.String()}, " ")
		}
		if !strings.HasPrefix(got, tt.want) {
			t.Errorf("%q: %s, want %s", tt.title, got, tt.want)
		}
	}
}

// FuzzParse: no panic; refusals wrap source.ErrRefused; accepted listings
// have a title, a date not after the day and a positive price; matching
// them does not panic.
func FuzzParse(f *testing.F) {
	b, err := os.ReadFile(sourcetest.Path("soldlistings", "ebay-sold.csv"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("date,title,price,currency\n2026-11-20,\"PSA 10 #4/102 Base Set Set set\",1e3,usd\n"))
	cat := sourcetest.MustCatalog(f)
	day, _ := snapshots.ParseDay("2026-11-20")
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := soldlistings.Parse(b, day, soldlistings.Defaults{Marketplace: "ebay"})
		if err != nil {
			if !errors.Is(err, source.ErrRefused) {
				t.Fatalf("error %v does not wrap ErrRefused", err)
			}
			return
		}
		for _, r := range d.Rows {
			rd, err := snapshots.ParseDay(r.Date)
			if err != nil || rd > day || r.Name == "" || r.Prices[source.FieldSale] <= 0 {
				t.Fatalf("row %+v", r)
			}
		}
		soldlistings.Source{}.Map(d, d, cat)
	})
}
