package pokemontcg

import (
	"fmt"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/snapshots"
)

// DerivationName names the /v2 catalog of a snapshot among its derived
// data (live.View.Derived).
const DerivationName = "pokemontcg"

// Derivation builds the /v2 catalog of each snapshot before it serves
// (register it in live.Options.Derive; Of finds it): Load with opts.
func Derivation(opts Options) live.Derivation {
	return live.Derivation{Name: DerivationName, Build: func(v *live.View, meter *snapshots.Meter) (any, error) {
		return Load(v, opts, meter)
	}}
}

// Of returns the /v2 catalog of a view, nil when none was derived.
func Of(v *live.View) *Catalog {
	cat, _ := v.Derived(DerivationName).(*Catalog)
	return cat
}

// WarmSorts are the orderBy fields whose ranks Load computes, so that
// the first requests sorted by them do not pay for it: pokemontcg.io's
// documented examples and the common ones.
var WarmSorts = []string{"name", "number", "id", "set.releasedate", "set.name", "hp", "nationalpokedexnumbers", "rarity", "supertype", "types", "artist"}

// Load builds the /v2 catalog of a snapshot (opts.AsOf is the view's):
// NewCatalog of its Pokémon sets and cards, each card's prices (prices.go:
// its sources' quotes in a build from sources, else the market's
// estimates, flagged as what they are), each card's
// object encoded whole once (what a list page copies), and the ranks of
// WarmSorts. A snapshot without Pokémon has an empty catalog. It calls
// meter.Tick per card.
func Load(v *live.View, opts Options, meter *snapshots.Meter) (*Catalog, error) {
	opts.AsOf = v.AsOf
	r := v.Reader
	var sets []*snapshots.Set
	var cards []*snapshots.Card
	if r.Manifest().HasGame(Game) {
		var err error
		if sets, err = r.Sets(Game); err != nil {
			return nil, fmt.Errorf("pokemontcg: sets: %w", err)
		}
		if cards, err = r.Cards(Game); err != nil {
			return nil, fmt.Errorf("pokemontcg: cards: %w", err)
		}
	}
	cat, err := NewCatalog(sets, cards, opts)
	if err != nil {
		return nil, err
	}
	prov, _ := r.(snapshots.ProvenanceReader)
	fromSources := r.Manifest().MarketSource == snapshots.MarketSources && prov != nil
	cat.prices = make([]*cardPrices, cat.maxOrd)
	for _, c := range cat.cards {
		meter.Tick()
		synthetic := !fromSources
		if fromSources {
			cs, err := prov.CardSources(c.Game, c.ID)
			if err != nil && apperr.ErrorCode(err) != apperr.ENOTFOUND {
				return nil, fmt.Errorf("pokemontcg: sources of %s: %w", c.ID, err)
			}
			if cs != nil && !cs.Synthetic {
				cat.prices[c.Ordinal] = pricesFromSources(c, cs)
			}
			synthetic = cs != nil && cs.Synthetic // --synthetic-fill
		}
		if synthetic {
			printings, err := r.Printings(c.Game, c.ID)
			if err != nil && apperr.ErrorCode(err) != apperr.ENOTFOUND {
				return nil, fmt.Errorf("pokemontcg: printings of %s: %w", c.ID, err)
			}
			cat.prices[c.Ordinal] = estimatePrices(c, printings, v.AsOf, priceSourceOf(r.Manifest()))
		}
	}
	objs := make([]*Card, cat.maxOrd)
	cat.encoded = make([][]byte, cat.maxOrd)
	for _, c := range cat.cards {
		meter.Tick()
		objs[c.Ordinal] = cat.Card(c)
		cat.encoded[c.Ordinal] = objs[c.Ordinal].AppendJSON(nil, All)
	}
	for _, f := range WarmSorts {
		cat.sortRanks[f] = cat.rank(f, func(c *snapshots.Card) *Card { return objs[c.Ordinal] }, meter)
	}
	return cat, nil
}
