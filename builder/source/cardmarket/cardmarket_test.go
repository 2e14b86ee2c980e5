package cardmarket_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/builder/source/cardmarket"
	"github.com/cardedge/cardedge/builder/source/sourcetest"
)

func mustRead(tb testing.TB, name string) *source.Day {
	tb.Helper()
	f := source.NewFetcher("test", "test@example.com", "")
	d, err := cardmarket.Source{}.Read(context.Background(), f, source.Input{Source: "cardmarket", Location: sourcetest.Path("cardmarket", name)})
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

func TestRead_OK(t *testing.T) {
	d := mustRead(t, "price_guide_6-2026-11-19.json")
	if got, want := d.Date.String(), "2026-11-19"; got != want {
		t.Errorf("day %s, want %s", got, want)
	}
	if got, want := d.CreatedAt.UTC(), time.Date(2026, 11, 19, 1, 47, 6, 0, time.UTC); !got.Equal(want) {
		t.Errorf("createdAt %v, want %v", got, want)
	}
	if got, want := len(d.Rows), 9; got != want {
		t.Errorf("%d rows, want %d", got, want)
	}
	// The entry with "avg":"abc" is refused, alone.
	if len(d.Rejected) != 1 || d.Rejected[0].Product != "273700" || d.Rejected[0].Reason != "bad field type" {
		t.Errorf("rejected %+v, want entry 273700 (bad field type)", d.Rejected)
	}
	// Nulls and absent fields are absent; numbers are cents.
	want := source.Row{Product: "273699", Category: "51", Currency: "EUR",
		Prices: map[string]int64{"avg": 30050, "low": 25000, "trend": 31025, "avg7": 30500, "avg30": 30000}}
	if diff := cmp.Diff(want, d.Rows[0]); diff != "" {
		t.Errorf("row 1 (-want +got):\n%s", diff)
	}
	if len(d.Digest) != 64 {
		t.Errorf("digest %q", d.Digest)
	}
}

// TestRead_BOMCRLF: a byte order mark and CRLF line ends read as the same
// JSON.
func TestRead_BOMCRLF(t *testing.T) {
	d := mustRead(t, "price_guide_6-2026-11-20.json")
	if got, want := d.Date.String(), "2026-11-20"; got != want {
		t.Errorf("day %s, want %s", got, want)
	}
	if got, want := len(d.Rows), 5; got != want || len(d.Rejected) != 0 {
		t.Fatalf("%d rows, %d rejected, want %d and 0", got, len(d.Rejected), want)
	}
	if got, want := d.Rows[1].Prices["trend"], int64(15115); got != want {
		t.Errorf("273697 trend %d, want %d", got, want)
	}
}

func TestParse_ErrRefused(t *testing.T) {
	good, err := os.ReadFile(sourcetest.Path("cardmarket", "price_guide_6-2026-11-20.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, body, want string
	}{
		{"Truncated", string(good[:180]), "not whole JSON"},
		{"TruncatedAfterArray", strings.TrimSuffix(strings.TrimSpace(string(good)), "}"), "not whole JSON"},
		{"Version2", strings.Replace(string(good), `"version":1`, `"version":2`, 1), "version 2: this cardedge reads version 1 only"},
		{"NoVersion", strings.Replace(string(good), `"version":1,`, ``, 1), "no version"},
		{"NoCreatedAt", `{"version":1,"priceGuides":[{"idProduct":1,"trend":1}]}`, "no createdAt"},
		{"BadCreatedAt", `{"version":1,"createdAt":"yesterday","priceGuides":[{"idProduct":1,"trend":1}]}`, `createdAt "yesterday"`},
		{"NoGuides", `{"version":1,"createdAt":"2026-11-20T02:51:40+0100"}`, "no priceGuides"},
		{"EmptyGuides", `{"version":1,"createdAt":"2026-11-20T02:51:40+0100","priceGuides":[]}`, "priceGuides is empty"},
		{"TrailingData", `{"version":1,"createdAt":"2026-11-20T02:51:40+0100","priceGuides":[{"idProduct":1}]} {}`, "data after"},
		{"NotJSON", `<html>503</html>`, "not a price guide"},
		{"Empty", ``, "not a price guide"},
		{"GuidesNotArray", `{"version":1,"createdAt":"2026-11-20T02:51:40+0100","priceGuides":{}}`, "priceGuides is not an array"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, err := cardmarket.Parse([]byte(tt.body))
			if err == nil {
				t.Fatalf("accepted: %d rows", len(d.Rows))
			}
			if !errors.Is(err, source.ErrRefused) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q, want a refusal containing %q", err, tt.want)
			}
		})
	}
}

// TestParse_Rows: bad entries are refused one by one, with their reason.
func TestParse_Rows(t *testing.T) {
	body := `{"version":1,"createdAt":"2026-11-20T02:51:40+0100","priceGuides":[
{"idProduct":1,"trend":1.005},
{"idProduct":1,"trend":2},
{"idProduct":-4,"trend":2},
{"trend":2},
{"idProduct":5,"trend":-1},
{"idProduct":6,"trend":1e12},
{"idProduct":7,"trend":0.015,"unknownField":"kept out"}]}`
	d, err := cardmarket.Parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, e := range d.Rejected {
		reasons = append(reasons, e.Reason)
	}
	if diff := cmp.Diff([]string{"duplicate idProduct", "bad idProduct", "no idProduct", "bad amount", "bad amount"}, reasons); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
	got := map[string]int64{}
	for _, r := range d.Rows {
		got[r.Product] = r.Prices["trend"]
	}
	if diff := cmp.Diff(map[string]int64{"1": 101, "7": 2}, got); diff != "" {
		t.Errorf("trends (-want +got):\n%s", diff)
	}
}

func TestMap(t *testing.T) {
	cat := sourcetest.MustCatalog(t)
	d := mustRead(t, "price_guide_6-2026-11-19.json")
	obs, rep := cardmarket.Source{}.Map(d, d, cat)
	type o = sourcetest.Obs
	day := "2026-11-19"
	obsOf := func(card, variant, product string, fields map[string]int64) []o {
		var out []o
		for _, f := range cardmarket.Fields {
			if v, ok := fields[f]; ok {
				out = append(out, o{Card: card, Variant: variant, Grade: "raw:near_mint", Field: f, Day: day, Amount: v, Currency: "EUR", Product: product, Match: "id"})
			}
		}
		return out
	}
	var want []o
	want = append(want, obsOf("en:base1-4", "holo/unlimited", "273699", map[string]int64{"avg": 30050, "low": 25000, "trend": 31025, "avg7": 30500, "avg30": 30000})...)
	want = append(want, obsOf("en:base1-2", "holo/unlimited", "273697", map[string]int64{"avg": 14000, "low": 12000, "trend": 15000, "avg1": 14500, "avg7": 14800, "avg30": 15100})...)
	// 1st edition and shadowless share the product: the shadowless (not 1st edition) takes it.
	want = append(want, obsOf("en:base1-4", "holo/shadowless", "660224", map[string]int64{"trend": 90000})...)
	// One product for the card as a whole, normal and reverse: plain to normal, -holo to reverse.
	want = append(want, obsOf("en:sv1-6", "normal", "702303", map[string]int64{"avg": 9, "low": 2, "trend": 10})...)
	want = append(want, obsOf("en:sv1-6", "reverse", "702303", map[string]int64{"avg": 30, "low": 15, "trend": 35})...)
	// Printings unknown: plain to the one printing, -holo dropped.
	want = append(want, obsOf("en:xy1-1", "", "281338", map[string]int64{"trend": 500})...)
	want = append(want, obsOf("en:sv3pt5-1", "normal", "733596", map[string]int64{"trend": 20})...)
	want = append(want, obsOf("en:sv3pt5-1", "reverse", "733596", map[string]int64{"trend": 50})...)
	// A reverse printing with its own product: its plain fields.
	want = append(want, obsOf("ja:SV2a-001", "reverse/pokeball", "837230", map[string]int64{"trend": 300})...)
	// Shared by ja and zh-tw: the Japanese card.
	want = append(want, obsOf("ja:SV1S-001", "normal", "692967", map[string]int64{"trend": 5})...)
	if diff := cmp.Diff(want, sourcetest.Flatten(obs)); diff != "" {
		t.Errorf("observations (-want +got):\n%s", diff)
	}
	if got, want := [7]int{rep.Read, rep.ByID, rep.ByNumberName, rep.Ambiguous, rep.Unmatched, rep.Rejected, rep.Observations}, [7]int{10, 8, 0, 0, 1, 1, len(want)}; got != want {
		t.Errorf("[read id number ambiguous unmatched rejected observations] = %v, want %v", got, want)
	}
	wantReasons := map[string]int{
		"no card has this idProduct": 1, "bad field type": 1, "id shared with another language": 1,
		"-holo fields: the card's printings are unknown": 1, "-holo fields: the product is a reverse printing of its own: its plain fields price it": 1,
	}
	if diff := cmp.Diff(wantReasons, rep.Reasons); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
}

func TestPrintings(t *testing.T) {
	cat := sourcetest.MustCatalog(t)
	for _, tt := range []struct {
		card        string
		product     int64
		plain, foil int
	}{
		{"en:base1-4", 273699, 0, -1},
		{"en:base1-4", 660224, 2, -1},
		{"en:sv1-6", 702303, 1, 0},
		{"en:sv3pt5-1", 733596, 0, 1},
		{"en:sv3pt5-1", 720365, 2, -1}, // set-logo normal: a product of its own
		{"en:sv3pt5-1", 794908, 3, -1}, // cosmos reverse: a product of its own
		{"en:xy1-1", 281338, 0, -1},
		{"ja:SV2a-001", 719442, 0, -1},
		{"ja:SV2a-001", 837231, 2, -1},
	} {
		c := sourcetest.Card(t, cat, tt.card)
		plain, foil, _ := cardmarket.Printings(c, c.PrintingsOf("cardmarket", tt.product))
		if plain != tt.plain || foil != tt.foil {
			t.Errorf("%s %d: plain %d foil %d, want %d %d", tt.card, tt.product, plain, foil, tt.plain, tt.foil)
		}
	}
	// A product standing for a normal and a holo printing: the holo is the foil.
	c := sourcetest.Card(t, cat, "en:base1-4")
	c2 := *c
	c2.Variants = []string{"normal", "holo/energy"}
	if plain, foil, _ := cardmarket.Printings(&c2, []int{0, 1}); plain != 0 || foil != 1 {
		t.Errorf("normal + holo: plain %d foil %d, want 0 1", plain, foil)
	}
}

// FuzzParse: no panic; a refusal wraps source.ErrRefused; an accepted file
// has rows with positive product ids and amounts within bounds.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"price_guide_6-2026-11-19.json", "price_guide_6-2026-11-20.json", "truncated-2026-11-21.json", "version2-2026-11-21.json"} {
		b, err := os.ReadFile(sourcetest.Path("cardmarket", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"version":1,"createdAt":"2026-11-20T02:51:40+0100","priceGuides":[{"idProduct":1,"trend":1e400}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := cardmarket.Parse(b)
		if err != nil {
			if !errors.Is(err, source.ErrRefused) {
				t.Fatalf("error %v does not wrap ErrRefused", err)
			}
			return
		}
		if len(d.Rows) == 0 || d.Date == 0 {
			t.Fatalf("accepted a file without rows or day")
		}
		for _, r := range d.Rows {
			if r.Product == "" || r.Product[0] == '-' || r.Product == "0" {
				t.Fatalf("row with product %q", r.Product)
			}
			for k, v := range r.Prices {
				if v < 0 || v > source.MaxAmount {
					t.Fatalf("row %s: %s = %d", r.Product, k, v)
				}
			}
		}
	})
}

// TestRead_Guides: guides=6+18 reads Pokémon's and One Piece's guides from
// one directory as one day; guides of two days, a missing guide or a bad
// one refuse the day whole.
func TestRead_Guides(t *testing.T) {
	dir := t.TempDir()
	pokemon, err := os.ReadFile(sourcetest.Path("cardmarket", "price_guide_6-2026-11-20.json"))
	if err != nil {
		t.Fatal(err)
	}
	onePiece := `{"version":1,"createdAt":"2026-11-20T02:53:02+0100","priceGuides":[` +
		`{"idProduct":800001,"idCategory":1621,"trend":1.5},{"idProduct":702303,"idCategory":1621,"trend":9}]}`
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("price_guide_6.json", string(pokemon))
	write("price_guide_18.json", onePiece)
	f := source.NewFetcher("test", "test@example.com", "")
	read := func(guides string) (*source.Day, error) {
		return cardmarket.Source{}.Read(context.Background(), f, source.Input{Source: "cardmarket", Location: dir, Options: map[string]string{"guides": guides}})
	}
	d, err := read("6+18")
	if err != nil {
		t.Fatal(err)
	}
	single := mustRead(t, "price_guide_6-2026-11-20.json")
	if d.Date != single.Date || len(d.Rows) != len(single.Rows)+1 || d.Rows[len(d.Rows)-1].Product != "800001" {
		t.Errorf("day %s, %d rows, want %s and %d rows ending with 800001", d.Date, len(d.Rows), single.Date, len(single.Rows)+1)
	}
	if got, want := d.CreatedAt.UTC(), time.Date(2026, 11, 20, 1, 53, 2, 0, time.UTC); !got.Equal(want) {
		t.Errorf("createdAt %v, want the later guide's %v", got, want)
	}
	if n := len(d.Rejected); n != len(single.Rejected)+1 || d.Rejected[n-1].Product != "702303" || d.Rejected[n-1].Reason != "duplicate idProduct" {
		t.Errorf("rejected %+v, want 702303 of price_guide_18.json refused as a duplicate", d.Rejected)
	}
	if d.Digest == single.Digest {
		t.Error("the two guides' day has the digest of one")
	}
	// One guide through guides=: the same day as the file read alone.
	if one, err := read("6"); err != nil || one.Digest != single.Digest || len(one.Rows) != len(single.Rows) {
		t.Errorf("guides=6: %v, digest %s, want %s", err, one.Digest, single.Digest)
	}

	for _, tt := range []struct {
		name, guides, body, want string
	}{
		{"two days", "6+18", strings.Replace(onePiece, "2026-11-20T02", "2026-11-19T02", 1), "price_guide_6.json is of 2026-11-20, price_guide_18.json of 2026-11-19"},
		{"truncated", "6+18", onePiece[:60], "not whole JSON"},
		{"missing", "6+7", onePiece, "not found"},
		{"bad list", "6+x", onePiece, "want game numbers"},
		{"twice", "6+6", onePiece, "each once"},
	} {
		write("price_guide_18.json", tt.body)
		if _, err := read(tt.guides); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}
