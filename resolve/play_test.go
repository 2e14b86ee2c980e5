package resolve_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
)

// TestAppendPlay: AppendPlay writes what encoding/json writes for NewPlay
// (SetEscapeHTML(false)), for each game's part, empty values and none.
func TestAppendPlay(t *testing.T) {
	hp, retreat, life := 120, 2, 5
	for _, c := range []struct {
		name string
		play snapshots.Play
	}{
		{"None", snapshots.Play{}},
		{"Pokemon", snapshots.Play{Pokemon: &snapshots.PokemonPlay{HP: &hp, Types: []string{"Fire"}, EvolvesFrom: "Charmeleon", Level: "76",
			Abilities:  []snapshots.Ability{{Name: "Energy Burn", Type: "Poké-Power"}, {}},
			Attacks:    []snapshots.Attack{{Name: "Fire <Spin> & \"more\"", Cost: []string{"Fire", "Fire"}, Damage: "100×"}, {}},
			Weaknesses: []snapshots.TypeModifier{{Type: "Water", Value: "×2"}}, Resistances: []snapshots.TypeModifier{{Type: "Fighting"}},
			Retreat: &retreat, Artist: "Mitsuhiro Arita", RegulationMark: "D",
			Legalities: snapshots.Legalities{Unlimited: "legal"}}}},
		{"PokemonEmpty", snapshots.Play{Pokemon: &snapshots.PokemonPlay{}}},
		{"OnePiece", snapshots.Play{OnePiece: &snapshots.OnePiecePlay{Life: &life, Attributes: []string{"Slash"}}}},
		{"OnePieceEmpty", snapshots.Play{OnePiece: &snapshots.OnePiecePlay{}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(resolve.NewPlay(c.play)); err != nil {
				t.Fatal(err)
			}
			got, want := string(resolve.AppendPlay([]byte("x"), c.play)), "x"+string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
			if got != want {
				t.Errorf("\n got %s\nwant %s", got, want)
			}
		})
	}
}
