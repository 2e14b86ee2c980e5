package pokemontcg_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/cardedge/cardedge/pokemontcg"
	"github.com/cardedge/cardedge/snapshots"
)

// TestCard_Golden: a few cards and a set as /v2 writes them, without and
// with the card text of a pokemon-tcg-data clone (the builder's hand-made
// fixture).
func TestCard_Golden(t *testing.T) {
	plain, text := MustCatalogs(t)
	for _, tc := range []struct {
		name string
		cat  *pokemontcg.Catalog
		id   string
	}{
		{"card-base1-4.json", plain, "base1-4"},
		{"card-base1-4-text.json", text, "base1-4"},
		{"card-base1-46-text.json", text, "base1-46"},
		{"card-base1-91-text.json", text, "base1-91"},
		{"card-sv3pt5-6.json", plain, "sv3pt5-6"},
		{"card-swsh7-215.json", plain, "swsh7-215"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkGolden(t, tc.name, MustCard(t, tc.cat, tc.id).AppendJSON(nil, pokemontcg.All))
		})
	}
	s, ok := plain.SetByID("base1")
	if !ok {
		t.Fatal("no set base1")
	}
	checkGolden(t, "set-base1.json", s.AppendJSON(nil, pokemontcg.All))
}

// TestCard_AppendJSON: for every card and set, AppendJSON writes what
// encoding/json writes of the object, and a selection keeps the selected
// members of it, in order.
func TestCard_AppendJSON(t *testing.T) {
	plain, text := MustCatalogs(t)
	for _, cat := range []*pokemontcg.Catalog{plain, text} {
		for _, c := range cat.Cards() {
			card := cat.Card(c)
			got, want := card.AppendJSON(nil, pokemontcg.All), stdJSON(t, card)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s:\n got %s\nwant %s", card.ID, got, want)
			}
		}
		for _, s := range cat.Sets() {
			if got, want := s.AppendJSON(nil, pokemontcg.All), stdJSON(t, s); !bytes.Equal(got, want) {
				t.Fatalf("set %s:\n got %s\nwant %s", s.ID, got, want)
			}
		}
	}
	card := MustCard(t, plain, "base1-4")
	sel, err := pokemontcg.ParseSelect("cards", "NAME, id,hp,images,cardedge,flavorText")
	if err != nil {
		t.Fatal(err)
	}
	got := string(card.AppendJSON(nil, sel))
	want := `{"id":"base1-4","name":"Charizard","hp":"120","images":{"small":"https://images.pokemontcg.io/base1/4.png","large":"https://images.pokemontcg.io/base1/4_hires.png"},"cardedge":{"id":"en:base1-4","detail":"/api/v3/cards/en:base1-4"}}`
	if got != want {
		t.Errorf("select:\n got %s\nwant %s", got, want)
	}
}

// TestCard_SDKShapes checks every card and set against the shapes of
// pokemontcg.io's SDKs: the Python SDK's data classes (pokemontcgsdk,
// loaded with dacite: a field not Optional must be there with its type)
// and the TypeScript SDK's interfaces (pokemon-tcg-sdk-typescript 1.3.4).
func TestCard_SDKShapes(t *testing.T) {
	plain, text := MustCatalogs(t)
	date := regexp.MustCompile(`^\d{4}/\d{2}/\d{2}$`)
	stamp := regexp.MustCompile(`^\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}$`)
	isStr := func(v any) bool { _, ok := v.(string); return ok }
	isNum := func(v any) bool { _, ok := v.(float64); return ok }
	isList := func(v any) bool { _, ok := v.([]any); return ok }
	required := func(where string, m map[string]any, check map[string]func(any) bool) {
		t.Helper()
		for k, ok := range check {
			if v, has := m[k]; !has || !ok(v) {
				t.Fatalf("%s: %s is %#v", where, k, m[k])
			}
		}
	}
	checkSet := func(where string, s map[string]any) {
		required(where+" set", s, map[string]func(any) bool{
			"id": isStr, "name": isStr, "series": isStr, "printedTotal": isNum, "total": isNum, "releaseDate": isStr,
			"updatedAt": isStr, "images": func(v any) bool { _, ok := v.(map[string]any); return ok },
			"legalities": func(v any) bool { _, ok := v.(map[string]any); return ok },
		})
		if !date.MatchString(s["releaseDate"].(string)) || !stamp.MatchString(s["updatedAt"].(string)) {
			t.Fatalf("%s: set dates %v %v", where, s["releaseDate"], s["updatedAt"])
		}
		required(where+" set images", s["images"].(map[string]any), map[string]func(any) bool{"symbol": isStr, "logo": isStr})
	}
	legal := func(where string, v any) {
		for f, l := range v.(map[string]any) {
			if (f != "standard" && f != "expanded" && f != "unlimited") || (l != "Legal" && l != "Banned") {
				t.Fatalf("%s: legalities %v", where, v)
			}
		}
	}
	for _, cat := range []*pokemontcg.Catalog{plain, text} {
		for _, c := range cat.Cards() {
			var m map[string]any
			if err := json.Unmarshal(cat.Card(c).AppendJSON(nil, pokemontcg.All), &m); err != nil {
				t.Fatal(err)
			}
			where := c.ID
			required(where, m, map[string]func(any) bool{
				"id": isStr, "name": isStr, "number": isStr, "supertype": isStr,
				"set":        func(v any) bool { _, ok := v.(map[string]any); return ok },
				"images":     func(v any) bool { _, ok := v.(map[string]any); return ok },
				"legalities": func(v any) bool { _, ok := v.(map[string]any); return ok },
			})
			checkSet(where, m["set"].(map[string]any))
			legal(where, m["legalities"])
			required(where+" images", m["images"].(map[string]any), map[string]func(any) bool{"small": isStr, "large": isStr})
			optional := map[string]func(any) bool{
				"hp": isStr, "level": isStr, "evolvesFrom": isStr, "artist": isStr, "rarity": isStr, "flavorText": isStr,
				"regulationMark": isStr, "subtypes": isList, "types": isList, "evolvesTo": isList, "rules": isList,
				"retreatCost": isList, "nationalPokedexNumbers": isList, "convertedRetreatCost": isNum,
			}
			for k, ok := range optional {
				if v, has := m[k]; has && !ok(v) {
					t.Fatalf("%s: %s is %#v", where, k, v)
				}
			}
			for _, a := range asList(m["attacks"]) {
				required(where+" attack", a, map[string]func(any) bool{"name": isStr, "cost": isList, "convertedEnergyCost": isNum, "damage": isStr})
			}
			for _, a := range asList(m["abilities"]) {
				// text: str in the Python SDK's Ability, "" without card text.
				required(where+" ability", a, map[string]func(any) bool{"name": isStr, "text": isStr, "type": isStr})
			}
			for _, k := range []string{"weaknesses", "resistances"} {
				for _, x := range asList(m[k]) {
					required(where+" "+k, x, map[string]func(any) bool{"type": isStr, "value": isStr})
				}
			}
			if tr, has := m["ancientTrait"]; has {
				required(where+" ancientTrait", tr.(map[string]any), map[string]func(any) bool{"name": isStr, "text": isStr})
			}
			if n, has := m["convertedRetreatCost"]; has && len(asAny(m["retreatCost"])) != int(n.(float64)) {
				t.Fatalf("%s: retreatCost %v, convertedRetreatCost %v", where, m["retreatCost"], n)
			}
		}
	}
	for _, s := range plain.Sets() {
		var m map[string]any
		if err := json.Unmarshal(s.AppendJSON(nil, pokemontcg.All), &m); err != nil {
			t.Fatal(err)
		}
		checkSet(s.ID, m)
		legal(s.ID, m["legalities"])
	}
}

func asAny(v any) []any {
	l, _ := v.([]any)
	return l
}

func asList(v any) []map[string]any {
	var out []map[string]any
	for _, x := range asAny(v) {
		out = append(out, x.(map[string]any))
	}
	return out
}

// TestCatalog_Fields checks fields the golden files show for one card
// against the catalog, for every card: ids, hp, legalities, retreat, the
// set's fields.
func TestCatalog_Fields(t *testing.T) {
	plain, _ := MustCatalogs(t)
	n := 0
	for _, c := range plain.Cards() {
		card := plain.Card(c)
		p := c.Play.Pokemon
		if card.ID != c.SourceID || card.Set == nil || card.Cardedge.ID != c.ID || card.Number != c.Number {
			t.Fatalf("%s: %+v", c.ID, card)
		}
		if (p.HP == nil) != (card.HP == "") {
			t.Fatalf("%s: hp %q", c.ID, card.HP)
		}
		if p.Legalities.Standard == snapshots.LegalityNotLegal && card.Legalities.Standard != "" {
			t.Fatalf("%s: legalities %+v", c.ID, card.Legalities)
		}
		if (p.Retreat == nil) != (card.ConvertedRetreatCost == nil) {
			t.Fatalf("%s: retreat", c.ID)
		}
		for _, a := range card.Attacks {
			if a.Cost == nil || a.Text != nil {
				t.Fatalf("%s: attack %+v", c.ID, a)
			}
		}
		n++
	}
	if n < 20000 {
		t.Errorf("%d English Pokémon cards, want the catalog's 20541 or so", n)
	}
	// Only English Pokémon cards are /v2 cards.
	for _, c := range plainCards {
		got, ok := plain.CardByID(c.SourceID)
		if en := c.Game == "pokemon" && c.Language == "en"; en != (ok && got == c) {
			t.Fatalf("%s/%s: CardByID(%s) = %v, %v", c.Game, c.ID, c.SourceID, got, ok)
		}
	}
}
