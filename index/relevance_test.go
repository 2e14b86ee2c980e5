package index_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/snapshots"
)

// relCase is a query and the card a collector expects in the top 3: one of
// want, or a card named name (exactly as printed) and/or named with
// contains, and/or from set.
type relCase struct {
	game     string // "" = pokemon
	q        string
	lang     string
	want     []string
	name     string
	contains string
	set      string
}

func (c relCase) ok(card *snapshots.Card) bool {
	if len(c.want) > 0 {
		for _, w := range c.want {
			if card.ID == w {
				return true
			}
		}
		return false
	}
	return (c.name == "" || card.Name == c.name) &&
		(c.contains == "" || strings.Contains(card.Name, c.contains)) &&
		(c.set == "" || card.SetID == c.set)
}

func relevanceCases(tb testing.TB) []relCase {
	// (also called while the catalog loads, by raceSubset: read cardByID,
	// not card(); callers load the catalog first)
	product := "0"
	if c := cardByID["pokemon/en:base1-4"]; c != nil {
		product = strconv.FormatInt(c.PartnerProductID, 10)
	}
	return []relCase{
		// names, exact and popular first
		{q: "pikachu", name: "Pikachu"},
		{q: "mew", name: "Mew"}, // before the more popular Mewtwo
		{q: "umbreon vmax", name: "Umbreon VMAX"},
		{q: "gengar vmax", name: "Gengar VMAX"},
		{q: "lugia v", name: "Lugia V"},
		{q: "mewtwo gx", name: "Mewtwo-GX"},
		{q: "dark charizard", name: "Dark Charizard"},
		{q: "shining charizard", want: []string{"en:neo4-107"}},
		{q: "professors research", name: "Professor's Research"},
		{q: "garchomp c lv x", name: "Garchomp C LV.X"},
		{q: "blaines charizard", want: []string{"en:gym2-2"}},
		{q: "blaine's charizard", want: []string{"en:gym2-2"}},
		{q: "mr mime", name: "Mr. Mime"},
		{q: "porygonz", name: "Porygon-Z"},
		{q: "hooh", name: "Ho-Oh"},
		// accents and case never matter
		{q: "flabebe", name: "Flabébé"},
		{q: "FLABÉBÉ", name: "Flabébé"},
		{q: "pokemon center", name: "Pokémon Center"},
		{q: "POKÉMON CATCHER", name: "Pokémon Catcher"},
		// typos
		{q: "charizrd", name: "Charizard"},
		{q: "eeveee", name: "Eevee"},
		{q: "charmandr", name: "Charmander"},
		// name + set + number
		{q: "charizard base set 4", want: []string{"en:base1-4"}},
		{q: "base set 2 charizard", want: []string{"en:base4-4"}},
		{q: "zapdos base", want: []string{"en:base1-16"}},
		{q: "jungle pikachu", want: []string{"en:base2-60"}},
		{q: "umbreon vmax evolving skies", name: "Umbreon VMAX", set: "en:swsh7"},
		{q: "charizard ex obsidian flames", name: "Charizard ex", set: "en:sv3"},
		{q: "charizard gx hidden fates", want: []string{"en:sm115-9"}},
		{q: "rayquaza vmax 218", want: []string{"en:swsh7-218"}},
		// numbers in the forms collectors type
		{q: "4/102", want: []string{"en:base1-4"}},
		{q: "pikachu 58/102", want: []string{"en:base1-58"}},
		{q: "charizard #4", want: []string{"en:base1-4"}},
		// ids, set ids, product ids
		{q: "en:base1-4", want: []string{"en:base1-4"}},
		{q: "base1-4", want: []string{"en:base1-4"}},
		{q: product, want: []string{"en:base1-4"}},
		{q: "base1", set: "en:base1"},
		{q: "SV1S-001", want: []string{"ja:SV1S-001", "zh-tw:SV1S-001"}},
		// Chinese: characters and pinyin
		{q: "噴火龍", name: "噴火龍"},
		{q: "火龍", contains: "火龍"},
		{q: "皮卡丘", name: "皮卡丘"},
		{q: "penhuolong", name: "噴火龍"},
		{q: "pen huo long", name: "噴火龍"},
		{q: "pikaqiu", name: "皮卡丘"},
		// Japanese: katakana, hiragana, romaji
		{q: "リザードン", name: "リザードン"},
		{q: "りざーどん", name: "リザードン"},
		{q: "いーぶい", name: "イーブイ"},
		{q: "rizadon", name: "リザードン"},
		{q: "burakki", name: "ブラッキー"},
		{q: "pikachu", lang: "ja", name: "ピカチュウ"},
		{q: "charizard", lang: "ja", contains: "リザードン"}, // through the linked English card
		// One Piece
		{game: "onepiece", q: "OP01-001", want: []string{"en:OP01-001"}},
		{game: "onepiece", q: "st01-001", want: []string{"en:ST01-001"}},
		{game: "onepiece", q: "luffy", contains: "Luffy"},
		{game: "onepiece", q: "monkey d luffy", name: "Monkey.D.Luffy"},
		{game: "onepiece", q: "monkey.d.luffy", name: "Monkey.D.Luffy"},
		{game: "onepiece", q: "zoro", contains: "Zoro"},
		{game: "onepiece", q: "roronoa zoro op01", name: "Roronoa Zoro", set: "en:OP-01"},
		{game: "onepiece", q: "sabo", name: "Sabo"},
	}
}

// TestSearch_Relevance checks that the card a collector expects is in the
// top 3 for each query, and reports the share that is.
func TestSearch_Relevance(t *testing.T) {
	full(t) // before relevanceCases, which reads the catalog
	cases := relevanceCases(t)
	if len(cases) < 40 {
		t.Fatalf("only %d relevance cases, want >= 40", len(cases))
	}
	pass := 0
	for _, c := range cases {
		game := c.game
		if game == "" {
			game = "pokemon"
		}
		res := mustSearch(t, index.SearchRequest{Game: game, Q: c.q, Language: c.lang, Limit: 3})
		found := false
		var got []string
		for _, h := range res.Hits {
			cd := card(t, game, h.CardID)
			got = append(got, h.CardID+" "+cd.Name)
			if c.ok(cd) {
				found = true
			}
		}
		if found {
			pass++
		} else {
			t.Errorf("%s %q (lang %q): want %v%s%s%s in the top 3, got %q",
				game, c.q, c.lang, c.want, c.name, c.contains, c.set, got)
		}
	}
	share := float64(pass) / float64(len(cases))
	_, cards := catalog(t)
	t.Logf("relevance: %d/%d queries (%.1f%%) have the expected card in the top 3 (%d cards indexed)", pass, len(cases), 100*share, len(cards))
}
