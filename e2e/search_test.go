package e2e_test

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/e2e/e2etest"
	"github.com/cardedge/cardedge/mcp/mcptest"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/bolt"
)

// The search syntax of q end to end (README "Search syntax"): /api/v3/search,
// /api/v3/cards and MCP search on the tiny snapshot (the shared edge, here)
// and on the default snapshot (search_default_test.go), every response
// checked against the OpenAPI document by doAt. Each check is a function of
// the edge it talks to, so both snapshots run the same checks.

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
// one card and only cards that pass ok (read off the response); want is a
// card that must be among them ("": none in particular). card is the same
// rule read off the snapshot's catalog: the routes must return exactly the
// cards of the game that pass it (nil: no such rule, the query has plain
// words whose full-text matching the catalog cannot tell).
var syntaxCases = []struct {
	game, q, want string
	ok            func(c map[string]any) bool
	card          func(c *snapshots.Card) bool
}{
	{"pokemon", `a:"Mitsuhiro Arita" charizard`, "en:base1-4", func(c map[string]any) bool {
		return playOf(c)["artist"] == "Mitsuhiro Arita"
	}, nil},
	{"pokemon", `t:water hp>=300 legal:standard`, "en:sv3pt5-9", func(c map[string]any) bool {
		p := playOf(c)
		return slices.Contains(strs(p["types"]), "Water") && num(p["hp"]) >= 300 && p["legalities"].(map[string]any)["standard"] == "legal"
	}, func(c *snapshots.Card) bool {
		p := c.Play.Pokemon
		return p != nil && slices.Contains(p.Types, "Water") && p.HP != nil && *p.HP >= 300 && p.Legalities.Standard == snapshots.LegalityLegal
	}},
	{"pokemon", `attack:"Fire Spin"`, "en:base1-4", func(c map[string]any) bool {
		for _, a := range playOf(c)["attacks"].([]any) {
			if hasPhrase(fmt.Sprint(a.(map[string]any)["name"]), "fire spin") {
				return true
			}
		}
		return false
	}, func(c *snapshots.Card) bool {
		if c.Play.Pokemon == nil {
			return false
		}
		return slices.ContainsFunc(c.Play.Pokemon.Attacks, func(a snapshots.Attack) bool { return hasPhrase(a.Name, "fire spin") })
	}},
	{"onepiece", `c:red cost=5 power>=7000`, "en:OP02-006", func(c map[string]any) bool {
		p := playOf(c)
		return slices.Contains(strs(c["colors"]), "Red") && num(p["cost"]) == 5 && num(p["power"]) >= 7000 && c["supertype"] == "Character"
	}, func(c *snapshots.Card) bool {
		p := c.Play.OnePiece
		return p != nil && slices.Contains(c.Colors, "Red") && p.Cost != nil && *p.Cost == 5 && p.Power != nil && *p.Power >= 7000
	}},
	{"pokemon", `charizard -set:base1`, "", func(c map[string]any) bool {
		return setCode(c) != "base1"
	}, nil},
}

// hasPhrase reports whether the words of phrase (lower case) occur in
// order as whole words of s, case ignored: what attack:"..." matches.
func hasPhrase(s, phrase string) bool {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	want := strings.Fields(phrase)
	for i := 0; i+len(want) <= len(words); i++ {
		if slices.Equal(words[i:i+len(want)], want) {
			return true
		}
	}
	return false
}

// setCode is the code of a card's set (en:base1 -> base1).
func setCode(c map[string]any) string {
	id := fmt.Sprint(c["set"].(map[string]any)["id"])
	return strings.TrimPrefix(id, fmt.Sprint(c["language"])+":")
}

// searchEdge is an edge the search checks talk to with an Elite key.
type searchEdge struct{ base, key string }

func sharedSearchEdge() searchEdge { return searchEdge{env.base, env.keys["elite"]} }

func (e searchEdge) get(t *testing.T, path string) e2etest.Reply {
	t.Helper()
	return doAt(t, keyedClient, e.base, "GET", path, e.key, nil)
}

// all returns every card q matches on route for game, page by page
// (offset), and checks that total counts them.
func (e searchEdge) all(t *testing.T, route, game, q string) []map[string]any {
	t.Helper()
	limit := map[string]int{"/api/v3/search": 100, "/api/v3/cards": 200}[route]
	var out []map[string]any
	for offset := 0; offset < 10000; offset += limit {
		path := fmt.Sprintf("%s?limit=%d&offset=%d&q=%s", route, limit, offset, url.QueryEscape(q))
		if game != "pokemon" {
			path += "&game=" + game
		}
		r := e.get(t, path)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", path, r.Status, truncate(r.Body))
		}
		d := data(t, r)
		page := items(t, d["items"])
		for _, it := range page {
			out = append(out, cardOf(it))
		}
		if total := int(num(d["total"])); len(page) < limit || offset+limit >= total {
			if total != len(out) {
				t.Errorf("%s %q: total %d, %d cards on its pages", route, q, total, len(out))
			}
			return out
		}
	}
	t.Fatalf("%s %q: more than 10,000 cards", route, q)
	return nil
}

func ids(cards []map[string]any) []string {
	out := make([]string, len(cards))
	for i, c := range cards {
		out[i] = fmt.Sprint(c["card_id"])
	}
	return out
}

// sameIDs reports the difference of two sets of card ids (empty: none).
func sameIDs(got, want []string) string {
	in := func(list []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range list {
			m[x] = true
		}
		return m
	}
	g, w := in(got), in(want)
	var extra, missing []string
	for x := range g {
		if !w[x] {
			extra = append(extra, x)
		}
	}
	for x := range w {
		if !g[x] {
			missing = append(missing, x)
		}
	}
	if len(extra) == 0 && len(missing) == 0 && len(got) == len(g) {
		return ""
	}
	sort.Strings(extra)
	sort.Strings(missing)
	return fmt.Sprintf("%d returned (%d distinct), %d expected; not expected: %v; missing: %v", len(got), len(g), len(w), extra[:min(10, len(extra))], missing[:min(10, len(missing))])
}

// snapshotCards reads the cards of every game of the live snapshot of root.
func snapshotCards(t *testing.T, root string) map[string][]*snapshots.Card {
	t.Helper()
	_, m, r := openCurrent(t, root)
	out := map[string][]*snapshots.Card{}
	for _, g := range m.Games {
		var err error
		if out[g], err = r.Cards(g); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// openCurrent opens the current snapshot of root: its directory, manifest
// and reader (closed when the test ends).
func openCurrent(t *testing.T, root string) (string, *snapshots.Manifest, *bolt.Reader) {
	t.Helper()
	id, err := snapshots.ReadCurrent(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, id)
	m, err := snapshots.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := bolt.Open(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return dir, m, r
}

// checkSyntaxCases runs syntaxCases on both routes of e, every page:
// only cards that pass ok, want among them, and exactly the catalog's
// cards that pass card.
func checkSyntaxCases(t *testing.T, e searchEdge, catalog map[string][]*snapshots.Card) {
	for _, route := range []string{"/api/v3/search", "/api/v3/cards"} {
		for _, tc := range syntaxCases {
			t.Run(route+"/"+tc.game+"/"+tc.q, func(t *testing.T) {
				cards := e.all(t, route, tc.game, tc.q)
				if len(cards) == 0 {
					t.Fatalf("no items")
				}
				for _, c := range cards {
					if playOf(c) == nil || !tc.ok(c) {
						t.Errorf("%s does not pass: %v", c["card_id"], c["play"])
					}
				}
				if tc.want != "" && !slices.Contains(ids(cards), tc.want) {
					t.Errorf("%s is not among %v", tc.want, ids(cards))
				}
				if tc.card != nil {
					var want []string
					for _, c := range catalog[tc.game] {
						if tc.card(c) {
							want = append(want, c.ID)
						}
					}
					if diff := sameIDs(ids(cards), want); diff != "" {
						t.Errorf("not the catalog's cards: %s", diff)
					}
				}
				t.Logf("%d cards", len(cards))
			})
		}
	}
	// charizard -set:base1: exactly the Charizards of charizard outside
	// Base Set (every language's edition).
	for _, route := range []string{"/api/v3/search", "/api/v3/cards"} {
		all, base1 := e.all(t, route, "pokemon", "charizard"), 0
		var want []string
		for _, c := range all {
			if setCode(c) == "base1" {
				base1++
			} else {
				want = append(want, fmt.Sprint(c["card_id"]))
			}
		}
		got := ids(e.all(t, route, "pokemon", "charizard -set:base1"))
		if base1 == 0 || len(got) == 0 {
			t.Errorf("%s: charizard has %d Base Set cards of %d, charizard -set:base1 %d cards", route, base1, len(all), len(got))
		}
		if diff := sameIDs(got, want); diff != "" {
			t.Errorf("%s: charizard -set:base1 is not charizard without Base Set: %s", route, diff)
		}
	}
	// Terms combine with the route's parameters.
	r := e.get(t, "/api/v3/cards?language=ja&q="+url.QueryEscape("t:water hp>=300"))
	for _, it := range items(t, data(t, r)["items"]) {
		if c := cardOf(it); c["language"] != "ja" {
			t.Errorf("language=ja let through %s", c["card_id"])
		}
	}
	// Plain words answer as before: the same items with and without
	// parentheses that group nothing else.
	a := e.get(t, "/api/v3/search?q=charizard")
	b := e.get(t, "/api/v3/search?q="+url.QueryEscape("(charizard)"))
	if fmt.Sprint(data(t, a)["items"]) != fmt.Sprint(data(t, b)["items"]) {
		t.Errorf("(charizard) and charizard differ")
	}
}

func TestSearchSyntax(t *testing.T) {
	checkSyntaxCases(t, sharedSearchEdge(), snapshotCards(t, env.root))
}

// checkSyntaxErrs: bad terms are 422s at ["query", "q"] that name the
// term, its position and the known fields, on both routes.
func checkSyntaxErrs(t *testing.T, e searchEdge) {
	for _, route := range []string{"/api/v3/search", "/api/v3/cards"} {
		for _, tc := range []struct{ q, term, pos string }{
			{"hp>=abc", `"hp>=abc"`, "position 0"},
			{"pikachu foo:bar", `"foo:bar"`, "position 8"},
			{`"unclosed`, `"\"unclosed"`, "position 0"},
		} {
			t.Run(route+"/"+tc.q, func(t *testing.T) {
				r := e.get(t, route+"?q="+url.QueryEscape(tc.q))
				if r.Status != 422 {
					t.Fatalf("status %d, want 422: %s", r.Status, truncate(r.Body))
				}
				detail, _ := r.JSON["detail"].([]any)
				if len(detail) != 1 {
					t.Fatalf("detail %v, want one entry", r.JSON["detail"])
				}
				entry := detail[0].(map[string]any)
				msg := fmt.Sprint(entry["msg"])
				if fmt.Sprint(entry["loc"]) != "[query q]" || !strings.Contains(msg, tc.term) || !strings.Contains(msg, tc.pos) ||
					!strings.Contains(msg, "known fields: name, artist (a), type (t)") || entry["input"] != tc.q {
					t.Errorf("422 entry %v", entry)
				}
			})
		}
	}
}

func TestSearchSyntax_Err(t *testing.T) { checkSyntaxErrs(t, sharedSearchEdge()) }

// TestSearch_Hints (issue 34): the Cards page's example set:base
// rarity:holo finds Base Set's holo rares on both routes, and a query that
// matches nothing because of a field's value says which values it has.
func TestSearch_Hints(t *testing.T) {
	e := sharedSearchEdge()
	for _, route := range []string{"/api/v3/search", "/api/v3/cards"} {
		cards := e.all(t, route, "pokemon", "set:base rarity:holo")
		if len(cards) != 16 {
			t.Errorf("%s set:base rarity:holo: %d cards, want Base Set's 16 holo rares", route, len(cards))
		}
		for _, c := range cards {
			if setCode(c) != "base1" || !strings.Contains(strings.ToLower(fmt.Sprint(c["rarity"])), "holo") {
				t.Errorf("%s set:base rarity:holo: %v", route, c["card_id"])
			}
		}
	}
	r := e.get(t, "/api/v3/search?q="+url.QueryEscape("set:base rarity:holx"))
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, truncate(r.Body))
	}
	d := data(t, r)
	hints, _ := d["hints"].([]any)
	if num(d["total"]) != 0 || len(hints) != 1 {
		t.Fatalf("total %v, hints %v", d["total"], d["hints"])
	}
	h := hints[0].(map[string]any)
	if h["field"] != "rarity" || h["term"] != "rarity:holx" || !slices.Contains(strs(h["known_values"]), "rare holo") {
		t.Errorf("hint %v", h)
	}
	if r := e.get(t, "/api/v3/search?q=charizard"); data(t, r)["hints"] != nil {
		t.Errorf("a search with results has hints: %v", data(t, r)["hints"])
	}
}

// checkCardPlay: card detail carries the play facts: Base Set Charizard's
// HP, artist, retreat and its attack; a One Piece character's cost and
// power.
func checkCardPlay(t *testing.T, e searchEdge) {
	c := data(t, e.get(t, "/api/v3/cards/en:base1-4"))
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
	op := playOf(data(t, e.get(t, "/api/v3/cards/en:OP02-006?game=onepiece")))
	if op == nil || op["cost"] != 5.0 || op["power"] != 7000.0 || op["life"] != nil {
		t.Errorf("en:OP02-006 play: %v", op)
	}
}

func TestCardDetail_Play(t *testing.T) { checkCardPlay(t, sharedSearchEdge()) }

// checkMCPSearchSyntax: MCP search takes the same syntax and returns the
// play facts; a bad term is a tool error that names it.
func checkMCPSearchSyntax(t *testing.T, s *mcptest.Session) {
	d := s.OK("search", map[string]any{"q": `attack:"Fire Spin"`}).Data
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
	d = s.OK("search", map[string]any{"q": "c:red cost=5 power>=7000", "game": "onepiece"}).Data
	if len(items(t, d["items"])) == 0 {
		t.Errorf("c:red cost=5 power>=7000: no items")
	}
	for _, it := range items(t, d["items"]) {
		if p, _ := it["play"].(map[string]any); p == nil || p["cost"] != 5.0 || p["power"].(float64) < 7000 {
			t.Errorf("c:red cost=5 power>=7000 let through %v", it)
		}
	}
	d = s.OK("search", map[string]any{"q": "en:base1-4"}).Data
	if d["status"] != "resolved" || items(t, d["items"])[0]["play"] == nil {
		t.Errorf("q en:base1-4: %v", d)
	}
	s.Fails("search", map[string]any{"q": "hp>=abc"}, "at position 0: hp takes a whole number")
	s.Fails("search", map[string]any{"q": "foo:bar"}, "known fields")
}

func TestMCP_SearchSyntax(t *testing.T) {
	checkMCPSearchSyntax(t, openSession(t, mustKey(t, access.Elite, true)))
}
