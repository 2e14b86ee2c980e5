package queries

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/snapshots"
)

// Query is one search query and the game it asks.
type Query struct {
	Game string
	Q    string
}

// Plain draws n plain-word queries from random cards and sets: whole card
// names, their first word, name and number, a set name, a name with one
// letter dropped (a typo). Every query parses as plain words.
func Plain(sets []*snapshots.Set, cards []*snapshots.Card, n int, seed uint64) []Query {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make([]Query, 0, n)
	for len(out) < n {
		c := cards[r.IntN(len(cards))]
		q := c.Name
		switch r.IntN(5) {
		case 1:
			q = strings.Fields(c.Name + " x")[0]
		case 2:
			q = c.Name + " " + c.Number
		case 3:
			s := sets[r.IntN(len(sets))]
			q, c = s.Name, &snapshots.Card{Game: s.Game}
		case 4:
			if rs := []rune(q); len(rs) > 5 {
				i := 1 + r.IntN(len(rs)-2)
				q = string(append(rs[:i:i], rs[i+1:]...))
			}
		}
		// A dropped letter can leave a stray quote or parenthesis, which
		// the search syntax refuses, or make a field term: not plain words.
		if p, err := syntax.Parse(q); strings.TrimSpace(q) == "" || err != nil || p.Structured() {
			continue
		}
		out = append(out, Query{c.Game, q})
	}
	return out
}

// Syntax draws n queries with the search syntax's terms from random cards
// (README "Search syntax"): artist and name, type and HP with a legality,
// attack names, a name without its set, rarity and printing, or-groups;
// One Piece color, cost and power, types and counters, names of alternate
// arts. Every query parses. Fewer than n come back when the cards give too
// few (a catalog without play facts).
func Syntax(cards []*snapshots.Card, n int, seed uint64) []Query {
	r := rand.New(rand.NewPCG(seed, 3))
	quote := func(s string) string { return `"` + s + `"` }
	usable := func(s string) bool { return s != "" && !strings.ContainsAny(s, `"\`) }
	first := func(c *snapshots.Card) string { return strings.Fields(c.Name + " x")[0] }
	out := make([]Query, 0, n)
	for tries := 0; len(out) < n && tries < 100*n; tries++ {
		c := cards[r.IntN(len(cards))]
		var q string
		switch p, op := c.Play.Pokemon, c.Play.OnePiece; {
		case p != nil:
			switch r.IntN(6) {
			case 0:
				if usable(p.Artist) {
					q = "a:" + quote(p.Artist) + " " + first(c)
				}
			case 1:
				if p.HP != nil && len(p.Types) > 0 {
					q = fmt.Sprintf("t:%s hp>=%d", strings.ToLower(p.Types[0]), *p.HP/10*10)
					if r.IntN(2) == 0 {
						q += " legal:" + []string{"standard", "expanded", "unlimited"}[r.IntN(3)]
					}
				}
			case 2:
				if len(p.Attacks) > 0 && usable(p.Attacks[0].Name) {
					q = "attack:" + quote(p.Attacks[0].Name)
				}
			case 3:
				q = first(c) + " -set:" + strings.TrimPrefix(c.SetID, c.Language+":")
			case 4:
				if usable(c.Rarity) && len(c.Variants) > 0 {
					q = "r:" + quote(c.Rarity) + " is:" + strings.Split(c.Variants[0], "/")[0]
				}
			case 5:
				if p.HP != nil {
					q = fmt.Sprintf("(t:fire or t:water or t:grass) hp>=%d -t:ex", *p.HP/10*10)
				}
			}
		case op != nil:
			switch r.IntN(3) {
			case 0:
				if len(c.Colors) > 0 && op.Cost != nil && op.Power != nil {
					q = fmt.Sprintf("c:%s cost=%d power>=%d", strings.ToLower(c.Colors[0]), *op.Cost, *op.Power)
				}
			case 1:
				if len(c.Subtypes) > 0 && usable(c.Subtypes[0]) {
					q = "t:" + quote(c.Subtypes[0]) + " counter>=1000"
				}
			case 2:
				q = first(c) + " is:alternate-art"
			}
		}
		if q == "" {
			continue
		}
		if _, err := syntax.Parse(q); err != nil {
			continue
		}
		out = append(out, Query{c.Game, q})
	}
	return out
}
