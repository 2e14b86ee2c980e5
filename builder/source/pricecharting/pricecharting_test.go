package pricecharting_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/builder/source/pricecharting"
	"github.com/cardedge/cardedge/builder/source/sourcetest"
	"github.com/cardedge/cardedge/snapshots"
)

func mustRead(tb testing.TB) *source.Day {
	tb.Helper()
	f := source.NewFetcher("test", "c", "")
	d, err := pricecharting.Source{}.Read(context.Background(), f, source.Input{Source: "pricecharting",
		Location: sourcetest.Path("pricecharting", "price-guide.csv"), Options: map[string]string{"day": "2026-11-20"}})
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

func TestRead(t *testing.T) {
	d := mustRead(t)
	if d.Date.String() != "2026-11-20" || len(d.Rows) != 11 {
		t.Fatalf("day %s, %d rows, want 2026-11-20 and 11", d.Date, len(d.Rows))
	}
	var reasons []string
	for _, e := range d.Rejected {
		reasons = append(reasons, e.Reason)
	}
	if diff := cmp.Diff([]string{"bad price", "duplicate id"}, reasons); diff != "" {
		t.Errorf("refused (-want +got):\n%s", diff)
	}
	want := map[string]int64{"loose-price": 35000, "cib-price": 120000, "new-price": 200000, "graded-price": 450000, "box-only-price": 900000,
		"manual-only-price": 4000000, "bgs-10-price": 6000000, "condition-17-price": 3000000, "condition-18-price": 2500000}
	if diff := cmp.Diff(want, d.Rows[0].Prices); diff != "" {
		t.Errorf("row 1 prices (-want +got):\n%s", diff)
	}
}

func TestMap(t *testing.T) {
	cat := sourcetest.MustCatalog(t)
	d := mustRead(t)
	obs, rep := pricecharting.Source{}.Map(d, d, cat)
	var got []string
	for _, o := range obs {
		got = append(got, strings.Join([]string{o.Card.ID, source.VariantOf(o.Card, o.Finish), o.Grade.String(), source.FormatAmount(o.Amount), o.Product}, " "))
	}
	want := []string{
		"en:base1-4 holo/unlimited raw:near_mint 350.00 1",
		"en:base1-4 holo/unlimited slab:7 1200.00 1",
		"en:base1-4 holo/unlimited slab:8 2000.00 1",
		"en:base1-4 holo/unlimited slab:9 4500.00 1",
		"en:base1-4 holo/unlimited bgs:9.5 9000.00 1",
		"en:base1-4 holo/unlimited slab:10 40000.00 1",
		"en:base1-4 holo/unlimited bgs:10 60000.00 1",
		"en:base1-4 holo/unlimited cgc:10 30000.00 1",
		"en:base1-4 holo/shadowless/1st-edition raw:near_mint 12000.00 2",
		"en:base1-4 holo/shadowless/1st-edition slab:9 90000.00 2",
		"en:base1-4 holo/shadowless/1st-edition slab:10 350000.00 2",
		"en:base1-2 holo/unlimited raw:near_mint 180.00 3",
		"en:base1-2 holo/unlimited slab:10 5000.00 3",
		"en:OP01-001 normal raw:near_mint 1.60 9",
		"en:OP01-001 normal slab:10 90.00 9",
		"en:OP01-001_p1 alternate-art raw:near_mint 26.00 10",
		"en:OP01-001_p1 alternate-art slab:10 400.00 10",
		"en:xy1-1  raw:near_mint 6.00 12",
		"en:xy1-1  slab:10 150.00 12",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("observations (-want +got):\n%s", diff)
	}
	// Ambiguous rows go to the report, never into prices.
	if got, want := [6]int{rep.Read, rep.ByNumberName, rep.Ambiguous, rep.Unmatched, rep.Rejected, rep.Observations}, [6]int{13, 6, 2, 3, 2, len(want)}; got != want {
		t.Errorf("[read number ambiguous unmatched rejected observations] = %v, want %v", got, want)
	}
	wantReasons := map[string]int{"bad price": 1, "duplicate id": 1, "SGC 10: no grader in the API": 1,
		"printing words match no printing": 1, "number matches, name does not": 1,
		"no card with this number in the set": 1, "no set of this console name": 1, "not a Pokémon or One Piece product": 1}
	if diff := cmp.Diff(wantReasons, rep.Reasons); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
}

func TestParse_ErrRefused(t *testing.T) {
	for _, tt := range []struct{ name, body, want string }{
		{"Empty", "", "no header"},
		{"NotAGuide", "a,b,c\n1,2,3\n", "no id column"},
		{"NoProducts", "id,console-name,product-name\n", "no products"},
		{"BadQuote", "id,console-name,product-name\n1,\"Pokemon Base Set,x\n", "line 2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := pricecharting.Parse([]byte(tt.body), 1)
			if !errors.Is(err, source.ErrRefused) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want a refusal containing %q", err, tt.want)
			}
		})
	}
	// A row of the wrong width is refused alone; pennies read as pennies.
	d, err := pricecharting.Parse([]byte("id,console-name,product-name,loose-price\n1,Pokemon Base Set,Charizard #4,35000\n2,x\n"), 1)
	if err != nil || len(d.Rows) != 1 || d.Rows[0].Prices["loose-price"] != 35000 || len(d.Rejected) != 1 {
		t.Fatalf("%+v, %v", d, err)
	}
}

// FuzzParse: no panic; a refusal wraps source.ErrRefused; rows carry ids
// and prices within bounds; matching any row does not panic.
func FuzzParse(f *testing.F) {
	b, err := os.ReadFile(sourcetest.Path("pricecharting", "price-guide.csv"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("id,console-name,product-name,loose-price\n1,Pokemon Base Set,Charizard [1st Edition Shadowless] #4,$1\n"))
	cat := sourcetest.MustCatalog(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := pricecharting.Parse(b, snapshots.Day(20000))
		if err != nil {
			if !errors.Is(err, source.ErrRefused) {
				t.Fatalf("error %v does not wrap ErrRefused", err)
			}
			return
		}
		for _, r := range d.Rows {
			for k, v := range r.Prices {
				if v <= 0 || v > source.MaxAmount {
					t.Fatalf("row %s: %s = %d", r.Product, k, v)
				}
			}
		}
		pricecharting.Source{}.Map(d, d, cat)
	})
}
