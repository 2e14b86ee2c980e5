package catalog

// Internal test: the fold key, and the card views over made-up catalogs
// full of ties the tiny snapshot lacks.

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/cardedge/cardedge/snapshots"
)

// TestEqualFoldKey: two strings share a key exactly when strings.EqualFold
// holds, over runes with several case forms, invalid UTF-8 and strings of
// different lengths.
func TestEqualFoldKey(t *testing.T) {
	alphabet := []string{"a", "A", "k", "K", "\u212a", "s", "S", "\u017f", "ß", "ẞ", "é", "É", "σ", "Σ", "ς", "ǅ", "ǆ", "Ǆ",
		"1", "-", ":", "\xff", "\ufffd", "İ", "i", "ı", "Ω", "\u2126", "ω"}
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		var b strings.Builder
		for range r.IntN(4) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 200000 {
		a, b := word(), word()
		if got, want := equalFoldKey(a) == equalFoldKey(b), strings.EqualFold(a, b); got != want {
			t.Fatalf("%q %q: same key %v, EqualFold %v", a, b, got, want)
		}
	}
	for c := rune(0); c <= unicode.MaxRune; c++ {
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			if equalFoldKey(string(c)) != equalFoldKey(string(f)) {
				t.Fatalf("%U and %U fold together but have keys %q and %q", c, f, equalFoldKey(string(c)), equalFoldKey(string(f)))
			}
		}
	}
}

// TestCards_Ties compares the top cards and the trending groups with plain
// references over made-up catalogs full of what the tiny snapshot lacks:
// unpriced cards and equal prices, card set ids in other case and in other
// forms of one fold (ſ, K).
func TestCards_Ties(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pick := func(list []string) string { return list[r.IntN(len(list))] }
	names := []string{"Base", "base", "BASE", "Bäse", "Éclat", "eclat", "Eclat", "151", "Romance Dawn", "ROMANCE DAWN", "zeta", "Ωmega", "ωmega", ""}
	setIDs := []string{"en:a", "EN:A", "en:A", "en:b", "EN:B", "ſet", "SET", "set", "en:k", "en:\u212a"}
	for round := range 300 {
		cards := make([]*snapshots.Card, 1+r.IntN(60))
		for i := range cards {
			cards[i] = &snapshots.Card{Ordinal: uint32(i), ID: fmt.Sprintf("en:c-%d", i), Name: pick(names), SetID: pick(setIDs),
				PriceCents: []int64{0, 0, 100, 100, 250, 999}[r.IntN(6)], Volume30dCents: int64(r.IntN(3))}
		}
		co := NewCards(cards, nil)
		var subset []*snapshots.Card // a set's cards, in catalog order
		for _, c := range cards {
			if r.IntN(3) > 0 {
				subset = append(subset, c)
			}
		}
		if got, want := co.topPriced(subset, TopCardsPerSet), referenceTopPriced(subset); !slices.Equal(got, want) {
			ids := func(cards []*snapshots.Card) (out []string) {
				for _, c := range cards {
					out = append(out, fmt.Sprintf("%s@%d", c.ID, c.PriceCents))
				}
				return out
			}
			t.Fatalf("round %d: top cards %v, want %v", round, ids(got), ids(want))
		}
		var entries []snapshots.TrendingRow
		for _, i := range r.Perm(len(cards))[:r.IntN(len(cards)+1)] {
			entries = append(entries, snapshots.TrendingRow{Ordinal: uint32(i), Value: float64(r.IntN(100))})
		}
		var tr setTrending
		tr.group(entries, co)
		for _, id := range append(setIDs, "nope", "EN:S1") {
			if got, want := tr.of(id), SetRows(entries, cards, id); !slices.Equal(got, want) {
				t.Fatalf("round %d, set %q: entries %v, want %v", round, id, got, want)
			}
		}
	}
}

// referenceTopPriced sorts a copy of cards by price (highest first, ties in
// catalog order) and keeps the priced ones of the first ten.
func referenceTopPriced(cards []*snapshots.Card) []*snapshots.Card {
	top := slices.Clone(cards)
	slices.SortStableFunc(top, func(a, b *snapshots.Card) int { return int(b.PriceCents - a.PriceCents) })
	var out []*snapshots.Card
	for _, c := range top[:min(TopCardsPerSet, len(top))] {
		if c.PriceCents > 0 {
			out = append(out, c)
		}
	}
	return out
}
