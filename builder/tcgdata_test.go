package builder_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardedge/cardedge/builder"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// tcgDataFixture is a hand-made stand-in for a pokemon-tcg-data clone
// (made-up text, its layout).
var tcgDataFixture = filepath.Join("testdata", "pokemon-tcg-data")

func strPtr(s string) *string { return &s }

// TestReadTCGData_Join reads the fixture and joins it to the small
// catalog: by source_id, English Pokémon only, attack and ability text by
// name.
func TestReadTCGData_Join(t *testing.T) {
	data, err := builder.ReadTCGData(tcgDataFixture)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(data.Cards), 5; got != want {
		t.Errorf("%d cards, want %d", got, want)
	}
	if len(data.Digest) != 64 {
		t.Errorf("digest %q", data.Digest)
	}
	cat, err := builder.ReadCatalog(smallCatalog)
	if err != nil {
		t.Fatal(err)
	}
	// A Japanese row whose source_id is an English id takes nothing.
	ja := *cat.Cards[len(cat.Cards)-1]
	ja.SourceID = "base1-4"
	jaPlay := *ja.Play.Pokemon
	ja.Play.Pokemon = &jaPlay
	cards := append(cat.Cards, &ja)
	if got, want := data.Join(cards), 2; got != want { // base1-1, base1-4 (base1-46, base1-91 are not in the small catalog)
		t.Errorf("Join = %d, want %d", got, want)
	}
	byID := map[string]*snapshots.Card{}
	for _, c := range cat.Cards {
		byID[c.ID] = c
	}
	alakazam := byID["en:base1-1"].Play.Pokemon
	want := &snapshots.PokemonPlay{
		Abilities:  []snapshots.Ability{{Name: "Damage Swap", Type: "Pokémon Power", Text: strPtr("Made-up text: move a damage counter around.")}},
		Attacks:    []snapshots.Attack{{Name: "Confuse Ray", Text: strPtr("Made-up text: flip a coin to confuse.")}},
		FlavorText: "Made-up flavor of a clever spoon bender.",
	}
	got := &snapshots.PokemonPlay{Abilities: alakazam.Abilities, Attacks: alakazam.Attacks, FlavorText: alakazam.FlavorText,
		Rules: alakazam.Rules, EvolvesTo: alakazam.EvolvesTo, AncientTrait: alakazam.AncientTrait}
	got.Attacks = []snapshots.Attack{{Name: alakazam.Attacks[0].Name, Text: alakazam.Attacks[0].Text}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("en:base1-1 (-want +got):\n%s", diff)
	}
	if p := byID["en:base1-2"].Play.Pokemon; p.FlavorText != "" || p.Attacks[0].Text != nil {
		t.Errorf("en:base1-2 (not in the clone) has text: %+v", p)
	}
	if jaPlay.FlavorText != "" {
		t.Errorf("a Japanese card took text: %q", jaPlay.FlavorText)
	}
}

// TestTCGData_JoinEmptyText: an attack the clone prints without text gets
// "" (known), one it does not name nil (unknown); rules and evolvesTo.
func TestTCGData_JoinEmptyText(t *testing.T) {
	data, err := builder.ReadTCGData(tcgDataFixture)
	if err != nil {
		t.Fatal(err)
	}
	charmander := &snapshots.Card{Game: "pokemon", ID: "en:base1-46", Language: "en", SourceID: "base1-46",
		Play: snapshots.Play{Pokemon: &snapshots.PokemonPlay{Attacks: []snapshots.Attack{{Name: "Scratch"}, {Name: "Ember"}, {Name: "Tail Whip"}}}}}
	bill := &snapshots.Card{Game: "pokemon", ID: "en:base1-91", Language: "en", SourceID: "base1-91",
		Play: snapshots.Play{Pokemon: &snapshots.PokemonPlay{}}}
	if n := data.Join([]*snapshots.Card{charmander, bill}); n != 2 {
		t.Fatalf("Join = %d", n)
	}
	a := charmander.Play.Pokemon.Attacks
	if a[0].Text == nil || *a[0].Text != "" || a[1].Text == nil || *a[1].Text != "Made-up text: discard a fire energy." || a[2].Text != nil {
		t.Errorf("attack texts: %v %v %v", a[0].Text, a[1].Text, a[2].Text)
	}
	if got := charmander.Play.Pokemon.EvolvesTo; len(got) != 1 || got[0] != "Charmeleon" {
		t.Errorf("evolvesTo %q", got)
	}
	if got := bill.Play.Pokemon.Rules; len(got) != 1 || got[0] != "Made-up rule: draw two cards." {
		t.Errorf("rules %q", got)
	}
}

// TestReadTCGData_Err: each bad clone is an error naming the file.
func TestReadTCGData_Err(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no sets", map[string]string{}, "sets/en.json"},
		{"sets not JSON", map[string]string{"sets/en.json": "{"}, "en.json"},
		{"no card file", map[string]string{"sets/en.json": `[{"id":"base1"}]`}, "base1.json"},
		{"bad set id", map[string]string{"sets/en.json": `[{"id":"../x"}]`}, `id "../x" is not a set id`},
		{"card without id", map[string]string{"sets/en.json": `[{"id":"a"}]`, "cards/en/a.json": `[{"name":"x"}]`}, "a.json: card 0: no id"},
		{"card twice", map[string]string{"sets/en.json": `[{"id":"a"},{"id":"b"}]`, "cards/en/a.json": `[{"id":"a-1"}]`, "cards/en/b.json": `[{"id":"a-1"}]`}, `b.json: card "a-1" twice`},
		{"cards not an array", map[string]string{"sets/en.json": `[{"id":"a"}]`, "cards/en/a.json": `{"id":"a-1"}`}, "a.json"},
		{"no cards", map[string]string{"sets/en.json": `[]`}, "no cards"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range tc.files {
				path := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := builder.ReadTCGData(dir)
			if err == nil || !strings.Contains(filepath.ToSlash(err.Error()), tc.want) || !strings.HasPrefix(err.Error(), "pokemon-tcg-data: ") {
				t.Fatalf("err = %v, want one naming %q", err, tc.want)
			}
		})
	}
}

// TestCompile_TCGData builds the small catalog with the fixture: the
// snapshot's cards carry the text, and the manifest the clone's digest.
func TestCompile_TCGData(t *testing.T) {
	root := t.TempDir()
	opts := smallOptions(root, "tcgdata")
	opts.PokemonTCGData = tcgDataFixture
	m := MustCompile(t, opts)
	if len(m.InputDigests["catalog/pokemon-tcg-data"]) != 64 {
		t.Errorf("input digests %v, want catalog/pokemon-tcg-data", m.InputDigests)
	}
	r := snapshotstest.MustOpen(t, filepath.Join(root, "tcgdata"))
	c, err := r.Card("pokemon", "en:base1-4")
	if err != nil {
		t.Fatal(err)
	}
	p := c.Play.Pokemon
	if p.FlavorText != "Made-up flavor: a dragon that melts boulders." || p.Attacks[0].Text == nil || p.Abilities[0].Text == nil ||
		*p.Attacks[0].Text != "Made-up text: discard two energies to spin fire." {
		t.Errorf("en:base1-4 play %+v", p)
	}
	opts = smallOptions(root, "bad")
	opts.PokemonTCGData = filepath.Join(root, "missing")
	if _, err := builder.Compile(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "pokemon-tcg-data") {
		t.Errorf("a missing clone: %v", err)
	}
}
