package index_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/snapshots"
)

// lookupFixture is a small index whose names and ids hold every kind of
// character JSON must escape, and prices of every shape.
func lookupFixture(tb testing.TB) (*index.Index, []*snapshots.Card) {
	tb.Helper()
	sets := []*snapshots.Set{
		{Game: "pokemon", ID: "en:base1", Language: "en", SourceID: "base1", Name: "Base Set", ReleaseDate: "1999-01-09", CardCount: 3, Sales30d: 4},
		{Game: "pokemon", ID: "ja:sv2a", Language: "ja", SourceID: "sv2a", Name: "ポケモンカード151", Abbreviation: "SV2a", CardCount: 2},
		{Game: "onepiece", ID: "en:op01", Language: "en", SourceID: "op01", Name: "Romance Dawn \"<&>\"", CardCount: 2},
	}
	names := []string{"Charizard", "Char \"quoted\" \\ back", "Ch\tab\nline\u2028sep\u2029", "Charmander <&> \x01\x1f\x7f", "Ch\xffbad\xe2\x82utf8",
		"リザードン", "噴火龍", "Ｃｈａｒｉｚａｒｄ", "Mr. Mime", "Farfetch'd"}
	prices := []int64{0, 1, 99, 100, 12345, 1 << 40, 7, 250000, 5, 10}
	var cards []*snapshots.Card
	for i, n := range names {
		set := sets[i%2]
		cards = append(cards, &snapshots.Card{Game: "pokemon", ID: fmt.Sprintf("%s-%d", set.ID, i+1), Language: set.Language, SourceID: fmt.Sprintf("%s-%d", set.SourceID, i+1),
			SetID: set.ID, Name: n, NameLanguage: set.Language, Number: fmt.Sprint(i + 1), PriceCents: prices[i],
			Volume30dCents: int64(1000 * (i + 1)), Sales30d: i, PartnerProductID: int64(500 + i)})
	}
	cards = append(cards,
		&snapshots.Card{Game: "onepiece", ID: "en:OP01-001", Language: "en", SourceID: "OP01-001", SetID: "en:op01", Name: "Roronoa Zoro", NameLanguage: "en", Number: "001", PriceCents: 4321},
		&snapshots.Card{Game: "onepiece", ID: "en:OP01-001_p1", Language: "en", SourceID: "OP01-001_p1", SetID: "en:op01", Name: "Roronoa \"Zoro\"", NameLanguage: "en", Number: "001"})
	dir := filepath.Join(tb.TempDir(), "ix")
	if err := index.Build(context.Background(), dir, sets, cards, index.BuildOptions{}); err != nil {
		tb.Fatal(err)
	}
	ix, err := index.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	return ix, cards
}

// TestLookupAnswer_AppendJSON checks that the answer written without
// reflection is byte for byte encoding/json's encoding of the documented
// LookupResult, and that the prices it shows are the cards' own.
func TestLookupAnswer_AppendJSON(t *testing.T) {
	ix, cards := lookupFixture(t)
	queries := []string{"", " ", "c", "ch", "char", "CHAR", "charizard", "ｃｈａｒ", "ri", "リ", "り", "噴", "mr", "far", "ba", "base",
		"en:base1", "en:base1-1", "EN:BASE1-2", "base1-3", "501", "502", "sv2a", "ja:sv2a-2", "op01", "en:op01-001", "roronoa", "zoro",
		"\"", "\\", "<&>", "\x00", "\xff", "a\u2028", strings.Repeat("é", 100)}
	for _, c := range cards {
		queries = append(queries, c.ID, c.Name)
	}
	n := 0
	for _, game := range []string{"pokemon", "onepiece", "nogame"} {
		for _, lang := range []string{"", "en", "ja", "zh-tw"} {
			for _, limit := range []int{1, 3, 25, 100} {
				for _, q := range queries {
					a := index.NewLookupAnswer(ix, game, q, lang, limit)
					fast, want := a.AppendJSON(nil), encodeJSON(a.Result())
					if !bytes.Equal(fast, want) {
						t.Fatalf("%s %q lang %q limit %d:\n got %s\nwant %s", game, q, lang, limit, fast, want)
					}
					if !json.Valid(fast) {
						t.Fatalf("%q: invalid JSON %s", q, fast)
					}
					n++
				}
			}
		}
	}
	// Prices come from the typeahead structure: they must be the cards'.
	for _, c := range cards {
		fast := index.NewLookupAnswer(ix, c.Game, c.ID, "", 5).AppendJSON(nil)
		var body struct {
			Resolved *struct {
				ID       string   `json:"id"`
				PriceUSD *float64 `json:"price_usd"`
			} `json:"resolved"`
		}
		if err := json.Unmarshal(fast, &body); err != nil || body.Resolved == nil {
			t.Fatalf("%s does not resolve: %v %s", c.ID, err, fast)
		}
		got, want := body.Resolved.PriceUSD, c.PriceCents
		if want == 0 && got != nil || want != 0 && (got == nil || *got != float64(want)/100) {
			t.Errorf("%s: price_usd %v, want %d cents", c.ID, got, want)
		}
	}
	t.Logf("%d bodies compared", n)
}

// FuzzLookupJSON checks the lookup answer's encoders of the query and of a
// price against encoding/json.
func FuzzLookupJSON(f *testing.F) {
	for _, s := range []string{"", "a", "\"\\", "\x00\x1f\x7f", "\b\f\n\r\t", "<&>", "\u2028\u2029", "\xff\xfe", "\xe2\x82", "é噴リ", "\U0001F600"} {
		f.Add(s, int64(1))
	}
	for _, c := range []int64{-1, 1, 10, 99, 100, 101, 12345, 1 << 40, 1<<53 + 1, math.MaxInt64, math.MinInt64} {
		f.Add("x", c)
	}
	f.Fuzz(func(t *testing.T, s string, cents int64) {
		if got, want := index.EmptyLookupAnswer(s, 7).AppendJSON(nil), encodeJSON(index.EmptyLookupAnswer(s, 7).Result()); !bytes.Equal(got, want) {
			t.Errorf("query %q: got %s, want %s", s, got, want)
		}
		if got, want := index.AppendUSDOrNull(nil, cents), encodeJSON(snapshots.USDOrNil(cents)); !bytes.Equal(got, want) {
			t.Errorf("price of %d cents: got %s, want %s", cents, got, want)
		}
	})
}
