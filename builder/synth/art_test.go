package synth

import (
	"testing"

	"github.com/cardedge/cardedge/snapshots"
)

func TestGenerator_WithCatalog(t *testing.T) {
	set := func(id, release string) *snapshots.Set {
		return &snapshots.Set{Game: "pokemon", ID: id, Language: "en", SourceID: id[3:], ReleaseDate: release}
	}
	card := func(setID, num, name, rarity string, variants ...string) *snapshots.Card {
		return &snapshots.Card{Game: "pokemon", ID: setID + "-" + num, SetID: setID, Number: num, Name: name, Rarity: rarity, Variants: variants}
	}
	sets := []*snapshots.Set{set("en:swsh7", "2021-08-27"), set("en:swsh8", "2021-11-12"), set("en:xy1", "2014-02-05")}
	cards := []*snapshots.Card{
		// Listed out of order: the lower collector number is the full art.
		card("en:swsh7", "189", "Umbreon V", "Rare Ultra", "holo"),
		card("en:swsh7", "188", "Umbreon V", "Rare Ultra", "holo"),
		card("en:swsh7", "214", "Umbreon VMAX", "Rare Rainbow", "holo/rainbow"),
		card("en:swsh7", "215", "Umbreon VMAX", "Rare Rainbow", "holo"),
		card("en:swsh7", "95", "Umbreon VMAX", "Rare Holo VMAX", "holo"),
		card("en:swsh7", "224", "Raihan", "Rare Rainbow", "holo/rainbow"),
		// Fusion Strike: an alternate-art VMAX without a rainbow twin.
		card("en:swsh8", "268", "Mew VMAX", "Rare Rainbow", "holo/rainbow"),
		card("en:swsh8", "271", "Gengar VMAX", "Rare Rainbow", "holo"),
		// XY printed no alternate arts.
		card("en:xy1", "140", "Xerneas EX", "Rare Ultra", "holo"),
		card("en:xy1", "146", "Xerneas EX", "Rare Ultra", "holo"),
	}
	g := New(presets[0], 1, mustDay("2026-11-20")).WithCatalog(cards, sets)
	want := map[string]bool{"en:swsh7-189": true, "en:swsh7-215": true, "en:swsh8-271": true}
	for _, c := range cards {
		if got := g.isPokemonAltArt(c); got != want[c.ID] {
			t.Errorf("%s (%s, %v): alternate art %v, want %v", c.ID, c.Rarity, c.Variants, got, want[c.ID])
		}
	}
	if New(presets[0], 1, mustDay("2026-11-20")).isPokemonAltArt(cards[0]) {
		t.Error("without a catalog, a card is judged alone: not an alternate art")
	}
}

func TestIsManga(t *testing.T) {
	op05 := &snapshots.Set{Game: "onepiece", ID: "en:OP-05", SourceID: "OP-05"}
	for _, tt := range []struct {
		sourceID, rarity string
		want             bool
	}{
		{"OP05-119_p2", "SEC", true},
		{"OP05-119_p3", "SEC", true},
		{"OP05-119_p1", "SEC", false}, // the alternate art
		{"OP05-119", "SEC", false},
		{"OP02-120_p2", "SEC", false}, // another set's card reprinted here
		{"OP05-069_p2", "SR", false},
	} {
		c := &snapshots.Card{Game: "onepiece", SourceID: tt.sourceID, Rarity: tt.rarity}
		if got := isManga(c, op05); got != tt.want {
			t.Errorf("isManga(%s %s in OP-05) = %v, want %v", tt.sourceID, tt.rarity, got, tt.want)
		}
	}
}

// TestGradeMultiplier_Rises: within each grader, every step up the ladder
// is dearer, for modern and vintage cards of any premium, and so is the
// floor.
func TestGradeMultiplier_Rises(t *testing.T) {
	for g, steps := range graderSteps {
		nums := make([]float64, len(steps))
		for i, s := range steps {
			nums[len(steps)-1-i] = s.num // ascending
		}
		for _, logP10 := range []float64{0.35, 0.8, 1.5, 3} {
			for _, vintage := range []float64{0, 0.5, 1} {
				for i := 1; i < len(nums); i++ {
					lo, hi := gradeMultiplier(g, nums[i-1], logP10, vintage), gradeMultiplier(g, nums[i], logP10, vintage)
					if hi <= lo*1.02 {
						t.Errorf("grader %s, logP10 %v, vintage %v: %v -> %v is x%.3f, want a rise", snapshots.Graders[g], logP10, vintage, nums[i-1], nums[i], hi/lo)
					}
					if gradedFloor(nums[i]) <= gradedFloor(nums[i-1]) {
						t.Errorf("floor of %v not above %v", nums[i], nums[i-1])
					}
				}
			}
		}
	}
}
