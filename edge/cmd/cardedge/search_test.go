package main_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/edge/access"
)

// The search syntax of q end to end (README "Search syntax"): /api/v3/search,
// /api/v3/cards and MCP search on the tiny snapshot, every response checked
// against the OpenAPI document by do.

// cardOf returns the card object of a search item or a card list item.
func cardOf(it map[string]any) map[string]any {
	if c, ok := it["card"].(map[string]any); ok {
		return c
	}
	return it
}

// playOf returns a card's play object (nil when it is null).
func playOf(c map[string]any) map[string]any {
	p, _ := c["play"].(map[string]any)
	return p
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

func num(v any) float64 {
	f, _ := v.(float64)
	return f
}

// syntaxCases are the queries: each route must return at least
// one card and only cards that pass ok; want is a card that must be among
// them ("" : none in particular).
var syntaxCases = []struct {
	game, q, want string
	ok            func(c map[string]any) bool
}{
	{"pokemon", `a:"Mitsuhiro Arita" charizard`, "en:base1-4", func(c map[string]any) bool {
		return playOf(c)["artist"] == "Mitsuhiro Arita"
	}},
	{"pokemon", `t:water hp>=300 legal:standard`, "en:sv3pt5-9", func(c map[string]any) bool {
		p := playOf(c)
		return slices.Contains(strs(p["types"]), "Water") && num(p["hp"]) >= 300 && p["legalities"].(map[string]any)["standard"] == "legal"
	}},
	{"pokemon", `attack:"Fire Spin"`, "en:base1-4", func(c map[string]any) bool {
		for _, a := range playOf(c)["attacks"].([]any) {
			if a.(map[string]any)["name"] == "Fire Spin" {
				return true
			}
		}
		return false
	}},
	{"onepiece", `c:red cost=5 power>=7000`, "en:OP02-006", func(c map[string]any) bool {
		p := playOf(c)
		return slices.Contains(strs(c["colors"]), "Red") && num(p["cost"]) == 5 && num(p["power"]) >= 7000 && c["supertype"] == "Character"
	}},
	{"pokemon", `charizard -set:base1`, "", func(c map[string]any) bool {
		return c["set"].(map[string]any)["id"] != "en:base1"
	}},
}

func TestSearchSyntax(t *testing.T) {
	key := env.keys["elite"]
	for _, route := range []string{"/api/v3/search", "/api/v3/cards"} {
		for _, tc := range syntaxCases {
			t.Run(route+"/"+tc.game+"/"+tc.q, func(t *testing.T) {
				path := route + "?limit=100&q=" + url.QueryEscape(tc.q)
				if tc.game != "pokemon" {
					path += "&game=" + tc.game
				}
				r := do(t, keyedClient, "GET", path, key, nil)
				if r.status != 200 {
					t.Fatalf("%d %s", r.status, truncate(r.body))
				}
				items := data(t, r)["items"].([]any)
				if len(items) == 0 {
					t.Fatalf("no items")
				}
				var ids []string
				for _, it := range items {
					c := cardOf(it.(map[string]any))
					ids = append(ids, fmt.Sprint(c["card_id"]))
					if playOf(c) == nil || !tc.ok(c) {
						t.Errorf("%s does not pass: %v", c["card_id"], c["play"])
					}
				}
				if tc.want != "" && !slices.Contains(ids, tc.want) {
					t.Errorf("%s is not among %v", tc.want, ids)
				}
			})
		}
	}
	// charizard -set:base1: the Charizards of other sets only.
	for _, route := range []string{"/api/v3/search", "/api/v3/cards"} {
		r := do(t, keyedClient, "GET", route+"?q="+url.QueryEscape("charizard"), key, nil)
		all := len(data(t, r)["items"].([]any))
		r = do(t, keyedClient, "GET", route+"?q="+url.QueryEscape("charizard -set:base1"), key, nil)
		for _, it := range data(t, r)["items"].([]any) {
			if c := cardOf(it.(map[string]any)); !strings.Contains(strings.ToLower(fmt.Sprint(c["name"])), "charizard") && route == "/api/v3/cards" {
				t.Errorf("%s: %s is no Charizard", route, c["card_id"])
			}
		}
		if n := len(data(t, r)["items"].([]any)); n == 0 || n >= all {
			t.Errorf("%s: charizard -set:base1 gives %d of %d charizard items", route, n, all)
		}
	}
	// Terms combine with the route's parameters.
	r := do(t, keyedClient, "GET", "/api/v3/cards?language=ja&q="+url.QueryEscape("t:water hp>=300"), key, nil)
	for _, it := range data(t, r)["items"].([]any) {
		if c := cardOf(it.(map[string]any)); c["language"] != "ja" {
			t.Errorf("language=ja let through %s", c["card_id"])
		}
	}
	// Plain words answer as before: the same items with and without
	// parentheses that group nothing else.
	a := do(t, keyedClient, "GET", "/api/v3/search?q=charizard", key, nil)
	b := do(t, keyedClient, "GET", "/api/v3/search?q="+url.QueryEscape("(charizard)"), key, nil)
	if fmt.Sprint(data(t, a)["items"]) != fmt.Sprint(data(t, b)["items"]) {
		t.Errorf("(charizard) and charizard differ")
	}
}

func TestSearchSyntax_Err(t *testing.T) {
	key := env.keys["elite"]
	for _, route := range []string{"/api/v3/search", "/api/v3/cards"} {
		for _, tc := range []struct{ q, term, pos string }{
			{"hp>=abc", `"hp>=abc"`, "position 0"},
			{"pikachu foo:bar", `"foo:bar"`, "position 8"},
			{`"unclosed`, `"\"unclosed"`, "position 0"},
		} {
			t.Run(route+"/"+tc.q, func(t *testing.T) {
				r := do(t, keyedClient, "GET", route+"?q="+url.QueryEscape(tc.q), key, nil)
				if r.status != 422 {
					t.Fatalf("status %d, want 422: %s", r.status, truncate(r.body))
				}
				detail, _ := r.json["detail"].([]any)
				if len(detail) != 1 {
					t.Fatalf("detail %v, want one entry", r.json["detail"])
				}
				e := detail[0].(map[string]any)
				msg := fmt.Sprint(e["msg"])
				if fmt.Sprint(e["loc"]) != "[query q]" || !strings.Contains(msg, tc.term) || !strings.Contains(msg, tc.pos) ||
					!strings.Contains(msg, "known fields: name, artist (a), type (t)") || e["input"] != tc.q {
					t.Errorf("422 entry %v", e)
				}
			})
		}
	}
}

func TestCardDetail_Play(t *testing.T) {
	key := env.keys["elite"]
	c := data(t, do(t, keyedClient, "GET", "/api/v3/cards/en:base1-4", key, nil))
	p := playOf(c)
	if p == nil || p["hp"] != 120.0 || p["artist"] != "Mitsuhiro Arita" || p["retreat"] != 3.0 {
		t.Fatalf("en:base1-4 play: %v", c["play"])
	}
	atk := p["attacks"].([]any)
	if len(atk) != 1 || atk[0].(map[string]any)["name"] != "Fire Spin" || atk[0].(map[string]any)["damage"] != "100" ||
		len(atk[0].(map[string]any)["cost"].([]any)) != 4 {
		t.Errorf("en:base1-4 attacks: %v", atk)
	}
	if p["legalities"].(map[string]any)["unlimited"] != "legal" || p["legalities"].(map[string]any)["standard"] != nil {
		t.Errorf("en:base1-4 legalities: %v", p["legalities"])
	}
	op := playOf(data(t, do(t, keyedClient, "GET", "/api/v3/cards/en:OP02-006?game=onepiece", key, nil)))
	if op == nil || op["cost"] != 5.0 || op["power"] != 7000.0 || op["life"] != nil {
		t.Errorf("en:OP02-006 play: %v", op)
	}
}

func TestMCP_SearchSyntax(t *testing.T) {
	s := openSession(t, mustKey(t, access.Elite, true))
	d := s.ok("search", map[string]any{"q": `attack:"Fire Spin"`}).data
	found := false
	for _, it := range items(t, d["items"]) {
		if it["card_id"] == "en:base1-4" {
			found = true
			if p, _ := it["play"].(map[string]any); p == nil || p["hp"] != 120.0 {
				t.Errorf("en:base1-4 item without its play: %v", it)
			}
		}
	}
	if !found {
		t.Errorf(`attack:"Fire Spin": %v`, d)
	}
	d = s.ok("search", map[string]any{"q": "c:red cost=5 power>=7000", "game": "onepiece"}).data
	for _, it := range items(t, d["items"]) {
		if p, _ := it["play"].(map[string]any); p == nil || p["cost"] != 5.0 || p["power"].(float64) < 7000 {
			t.Errorf("c:red cost=5 power>=7000 let through %v", it)
		}
	}
	d = s.ok("search", map[string]any{"q": "en:base1-4"}).data
	if d["status"] != "resolved" || items(t, d["items"])[0]["play"] == nil {
		t.Errorf("q en:base1-4: %v", d)
	}
	s.fails("search", map[string]any{"q": "hp>=abc"}, "at position 0: hp takes a whole number")
	s.fails("search", map[string]any{"q": "foo:bar"}, "known fields")
}
