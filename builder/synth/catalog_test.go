package synth_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardedge/cardedge/builder/synth"
	"github.com/cardedge/cardedge/snapshots"
)

func TestPresetByName(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		for _, name := range []string{"tiny", "default", "large"} {
			p, err := synth.PresetByName(name)
			if err != nil {
				t.Fatal(err)
			}
			if p.Name != name || p.HistoryDays != 730 || p.SalesScale <= 0 {
				t.Errorf("PresetByName(%q) = %+v", name, p)
			}
		}
	})
	t.Run("ErrUnknown", func(t *testing.T) {
		_, err := synth.PresetByName("huge")
		if err == nil {
			t.Fatal("no error for an unknown preset")
		}
		for _, name := range []string{"tiny", "default", "large"} {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("error %q does not list %q", err, name)
			}
		}
	})
}

// checkCatalog checks what every preset's catalog must hold.
func checkCatalog(t *testing.T, cards []*snapshots.Card, sets []*snapshots.Set) {
	t.Helper()
	ids := map[string]bool{}
	lastGame := -1
	counts := map[string]int{}
	for _, c := range cards {
		gi := synth.GameIndex(c.Game)
		if gi < lastGame {
			t.Fatalf("card %s of %s after a card of game %d: not in game order", c.ID, c.Game, lastGame)
		}
		lastGame = gi
		k := c.Game + "\x00" + strings.ToLower(c.ID)
		if ids[k] {
			t.Fatalf("duplicate card id %s %s (case-insensitive)", c.Game, c.ID)
		}
		ids[k] = true
		counts[c.Game+"\x00"+c.SetID]++
		if c.Ordinal != 0 {
			t.Fatalf("card %s: Ordinal set by Catalog", c.ID)
		}
	}
	seen := map[string]bool{}
	for _, s := range sets {
		k := s.Game + "\x00" + s.ID
		if seen[k] {
			t.Fatalf("duplicate set %s %s", s.Game, s.ID)
		}
		seen[k] = true
		if got, want := s.CardCount, counts[k]; got != want || want == 0 {
			t.Errorf("set %s: CardCount %d, cards %d", s.ID, got, want)
		}
	}
	for k := range counts {
		if !seen[k] {
			t.Errorf("cards of set %q but no such set", k)
		}
	}
}

func TestPreset_Catalog_Tiny(t *testing.T) {
	in, inSets := MustLoadCatalog(t)
	cards, sets := MustPreset(t, "tiny").Catalog(1, in, inSets)
	checkCatalog(t, cards, sets)
	if n := len(cards); n < 450 || n > 600 {
		t.Errorf("tiny has %d cards, want about 500", n)
	}
	if n := len(sets); n < 10 || n > 14 {
		t.Errorf("tiny has %d sets, want about 12", n)
	}
	byID := map[string]*snapshots.Card{}
	langs := map[string]bool{}
	games := map[string]bool{}
	var pikachu, linkedJA, linkedZH, altArt, en151, enOP01, jaOP01 int
	for _, c := range cards {
		byID[c.ID] = c
		langs[c.Language] = true
		games[c.Game] = true
		switch {
		case c.Game == "pokemon" && slices.Contains(c.NationalDex, 25):
			pikachu++
		}
		if c.Game == "pokemon" && c.ENCardID != "" {
			switch c.Language {
			case "ja":
				linkedJA++
			case "zh-tw":
				linkedZH++
			}
		}
		if strings.HasSuffix(c.ID, "_p1") {
			altArt++
		}
		switch {
		case strings.HasPrefix(c.ID, "en:sv3pt5-"):
			en151++
		case c.Game == "onepiece" && strings.HasPrefix(c.ID, "en:OP01-"):
			enOP01++
		case c.Game == "onepiece" && strings.HasPrefix(c.ID, "ja:OP01-"):
			jaOP01++
		}
	}
	for _, id := range []string{"en:base1-4", "en:base1-58", "en:sv3pt5-25", "en:sv3pt5-199", "ja:SV2a-025",
		"zh-tw:SV2a-025", "en:OP01-001", "en:OP01-001_p1", "ja:OP01-001_p1", "en:OP01-120"} {
		if byID[id] == nil {
			t.Errorf("tiny lacks %s", id)
		}
	}
	if c := byID["en:base1-4"]; c != nil && c.Name != "Charizard" {
		t.Errorf("en:base1-4 is %q", c.Name)
	}
	for _, s := range sets {
		if s.ID == "en:base1" && s.CardCount != s.CardCountTotal {
			t.Errorf("en:base1 has %d of %d cards, want it whole", s.CardCount, s.CardCountTotal)
		}
	}
	for _, l := range snapshots.Languages {
		if !langs[l] {
			t.Errorf("no %s cards", l)
		}
	}
	if !games["pokemon"] || !games["onepiece"] {
		t.Errorf("games %v, want both", games)
	}
	for name, n := range map[string]int{"Pikachu": pikachu, "ja with en_card_id": linkedJA, "zh-tw with en_card_id": linkedZH,
		"_p1": altArt, "en:sv3pt5": en151, "en:OP01": enOP01, "ja:OP01": jaOP01} {
		if n < 3 {
			t.Errorf("%d %s cards, want a few", n, name)
		}
	}
	// Tiny does not depend on the seed.
	cards2, sets2 := MustPreset(t, "tiny").Catalog(99, in, inSets)
	if diff := cmp.Diff(cards, cards2); diff != "" {
		t.Errorf("tiny catalog depends on the seed (-1 +99):\n%s", diff)
	}
	if diff := cmp.Diff(sets, sets2); diff != "" {
		t.Errorf("tiny sets depend on the seed (-1 +99):\n%s", diff)
	}
}

func TestPreset_Catalog_Default(t *testing.T) {
	in, inSets := MustLoadCatalog(t)
	cards, sets := MustPreset(t, "default").Catalog(1, in, inSets)
	checkCatalog(t, cards, sets)
	if got, want := len(cards), len(in); got != want || want != 51152 {
		t.Errorf("default has %d cards, shipped %d, want 51152", got, want)
	}
	if len(sets) == 0 || len(sets) > len(inSets) {
		t.Errorf("default has %d sets of %d", len(sets), len(inSets))
	}
	// Same cards, in game order then file order.
	var want []*snapshots.Card
	for _, game := range synth.Games {
		for _, c := range in {
			if c.Game == game {
				want = append(want, c)
			}
		}
	}
	if !slices.Equal(cards, want) {
		t.Error("default cards are not the shipped ones in game order")
	}
	if inSets[0].CardCount != 0 {
		t.Error("Catalog modified the caller's sets")
	}
}

func TestPreset_Catalog_Large(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("large catalog in -short mode or under the race detector")
	}
	in, inSets := MustLoadCatalog(t)
	p := MustPreset(t, "large")
	cards, sets := p.Catalog(1, in, inSets)
	checkCatalog(t, cards, sets)
	if n := len(cards); n < 180_000 || n > 220_000 {
		t.Errorf("large has %d cards, want about 200k", n)
	}
	byID := map[string]*snapshots.Card{}
	for _, c := range cards {
		byID[c.Game+"\x00"+c.ID] = c
	}
	synthetic := 0
	for _, c := range cards {
		if c.Source != synth.SyntheticSource {
			continue
		}
		synthetic++
		if !strings.Contains(c.ID, ":x-") || !strings.Contains(c.SetID, ":x-") {
			t.Fatalf("synthetic card %s in set %s: want x- ids", c.ID, c.SetID)
		}
		if c.ENCardID != "" && byID[c.Game+"\x00"+c.ENCardID] == nil {
			t.Fatalf("synthetic card %s: en_card_id %s not in the catalog", c.ID, c.ENCardID)
		}
	}
	if synthetic < len(in)*2 {
		t.Errorf("%d synthetic cards", synthetic)
	}
	for _, s := range sets {
		if s.Source == synth.SyntheticSource && (!strings.Contains(s.ID, ":x-") || !strings.Contains(s.Name, "Reprint Edition")) {
			t.Errorf("synthetic set %s %q: want an x- id and a reprint name", s.ID, s.Name)
		}
	}
	if s := findSet(sets, "en:x-base1-r2"); s == nil || s.Source != synth.SyntheticSource || s.CardCount != 102 {
		t.Errorf("en:x-base1-r2 = %+v, want a synthetic reprint of Base Set", s)
	}
	if c := byID["pokemon\x00en:x-base1-4-r2"]; c == nil || c.Name != "Charizard" {
		t.Errorf("en:x-base1-4-r2 = %+v, want Charizard", c)
	}

	cards2, sets2 := p.Catalog(1, in, inSets)
	if len(cards2) != len(cards) || len(sets2) != len(sets) {
		t.Fatal("large catalog is not deterministic")
	}
	for i := range cards {
		if !reflect.DeepEqual(cards[i], cards2[i]) {
			t.Fatalf("card %d differs between two runs:\n%s", i, cmp.Diff(cards[i], cards2[i]))
		}
	}
	cards3, _ := p.Catalog(2, in, inSets)
	if len(cards3) == len(cards) {
		t.Logf("seeds 1 and 2 give the same number of cards (%d)", len(cards))
	}
}

func findSet(sets []*snapshots.Set, id string) *snapshots.Set {
	for _, s := range sets {
		if s.ID == id {
			return s
		}
	}
	return nil
}

func TestReleaseDay(t *testing.T) {
	for _, tc := range []struct {
		set  snapshots.Set
		want string
	}{
		{snapshots.Set{ReleaseDate: "1999-01-09", SourceID: "base1", Language: "en"}, "1999-01-09"},
		{snapshots.Set{SourceID: "OP-01", Language: "en"}, "2022-12-02"},
		{snapshots.Set{SourceID: "OP-01", Language: "ja"}, "2022-07-22"},
		{snapshots.Set{SourceID: "OP-14-EB04", Language: "en"}, "2026-02-27"},
		{snapshots.Set{SourceID: "x-winner-prize-for-flagship-battle-in-april-2024", Language: "ja"}, "2024-04-01"},
		{snapshots.Set{SourceID: "x-family-deck-set", Language: "ja"}, ""},
	} {
		d, ok := synth.ReleaseDay(&tc.set)
		got := ""
		if ok {
			got = d.String()
		}
		if got != tc.want {
			t.Errorf("ReleaseDay(%s %s) = %q, want %q", tc.set.Language, tc.set.SourceID, got, tc.want)
		}
	}
	if _, ok := synth.ReleaseDay(nil); ok {
		t.Error("ReleaseDay(nil) ok")
	}
}

func ExamplePresetByName() {
	_, err := synth.PresetByName("huge")
	fmt.Println(err)
	// Output: synth: unknown preset "huge": want one of tiny, default, large
}
