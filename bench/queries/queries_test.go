package queries_test

import (
	"slices"
	"testing"

	"github.com/cardedge/cardedge/bench/queries"
	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/snapshots"
)

func ptr(n int) *int { return &n }

// catalog is a few cards of both games with their play facts.
func catalog() ([]*snapshots.Set, []*snapshots.Card) {
	sets := []*snapshots.Set{{ID: "en:base1", Game: "pokemon", Name: "Base Set"}, {ID: "en:OP-01", Game: "onepiece", Name: "Romance Dawn"}}
	cards := []*snapshots.Card{
		{ID: "en:base1-4", Game: "pokemon", Language: "en", SetID: "en:base1", Name: "Charizard", Number: "4", Rarity: "Rare Holo",
			Variants: []string{"holo/unlimited", "holo/shadowless/1st-edition"},
			Play: snapshots.Play{Pokemon: &snapshots.PokemonPlay{HP: ptr(120), Types: []string{"Fire"}, Artist: "Mitsuhiro Arita",
				Attacks: []snapshots.Attack{{Name: "Fire Spin", Damage: "100"}}}}},
		{ID: "en:base1-2", Game: "pokemon", Language: "en", SetID: "en:base1", Name: "Blastoise", Number: "2", Rarity: "Rare Holo",
			Variants: []string{"holo/unlimited"},
			Play: snapshots.Play{Pokemon: &snapshots.PokemonPlay{HP: ptr(100), Types: []string{"Water"}, Artist: "Ken Sugimori",
				Attacks: []snapshots.Attack{{Name: "Hydro Pump", Damage: "40+"}}}}},
		{ID: "en:OP01-001", Game: "onepiece", Language: "en", SetID: "en:OP-01", Name: "Roronoa Zoro", Number: "OP01-001", Colors: []string{"Red"},
			Subtypes: []string{"Straw Hat Crew"}, Play: snapshots.Play{OnePiece: &snapshots.OnePiecePlay{Cost: ptr(3), Power: ptr(5000), Counter: ptr(1000)}}},
	}
	return sets, cards
}

func TestPlain(t *testing.T) {
	sets, cards := catalog()
	qs := queries.Plain(sets, cards, 200, 1)
	if len(qs) != 200 {
		t.Fatalf("%d queries, want 200", len(qs))
	}
	games := map[string]bool{}
	for _, q := range qs {
		games[q.Game] = true
		p, err := syntax.Parse(q.Q)
		if q.Q == "" || err != nil {
			t.Errorf("%q: %v", q.Q, err)
		} else if p.Structured() {
			t.Errorf("%q has syntax terms", q.Q)
		}
	}
	if !games["pokemon"] || !games["onepiece"] {
		t.Errorf("games %v", games)
	}
	if !slices.Equal(qs, queries.Plain(sets, cards, 200, 1)) || slices.Equal(qs, queries.Plain(sets, cards, 200, 2)) {
		t.Errorf("the draws are not a function of the seed")
	}
}

func TestSyntax(t *testing.T) {
	_, cards := catalog()
	qs := queries.Syntax(cards, 200, 1)
	if len(qs) != 200 {
		t.Fatalf("%d queries, want 200", len(qs))
	}
	games := map[string]bool{}
	for _, q := range qs {
		games[q.Game] = true
		p, err := syntax.Parse(q.Q)
		if err != nil || !p.Structured() {
			t.Errorf("%q: %v, structured %v", q.Q, err, err == nil && p.Structured())
		}
	}
	if !games["pokemon"] || !games["onepiece"] {
		t.Errorf("games %v", games)
	}
	if !slices.Equal(qs, queries.Syntax(cards, 200, 1)) {
		t.Errorf("the draws are not a function of the seed")
	}
	// Without play facts there is nothing to draw from: fewer come back.
	bare := []*snapshots.Card{{ID: "x", Game: "pokemon", Name: "X"}}
	if n := len(queries.Syntax(bare, 10, 1)); n != 0 {
		t.Errorf("%d queries from a card without play facts", n)
	}
}
