package synth

import (
	"maps"

	"github.com/cardedge/cardedge/snapshots"
)

// WithCatalog returns a generator that knows the catalog the cards come
// from (cards and their sets): what a card alone does not say, such as
// which cards are alternate arts (snapshots.AlternateArts, the rule the
// edge reads "alt art" with). The builder passes the preset's catalog;
// without it, CardMarket judges each card alone. The result depends only on
// the catalog's contents, not its order.
func (g *Generator) WithCatalog(cards []*snapshots.Card, sets []*snapshots.Set) *Generator {
	out := *g
	out.altArt = maps.Clone(g.altArt)
	if out.altArt == nil {
		out.altArt = map[string]bool{}
	}
	for k := range snapshots.AlternateArts(cards, sets) {
		out.altArt[k] = true
	}
	return &out
}

// isPokemonAltArt reports whether the generator's catalog marks c as an
// alternate art.
func (g *Generator) isPokemonAltArt(c *snapshots.Card) bool { return g.altArt[c.Game+"|"+c.ID] }
