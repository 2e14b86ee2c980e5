package edge

import (
	"errors"
	"fmt"

	"github.com/cardedge/cardedge/catalog"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

// derivationName names the edge's data of each snapshot (live.View.Derived).
const derivationName = "edge"

// Derivation is the edge's data of each snapshot, built before the snapshot
// serves (register it in live.Options.Derive): the per-game card and set
// orders of the list routes (package catalog), each card's encoded detail,
// each set's encoded list item and the bulk files.
func Derivation() live.Derivation {
	return live.Derivation{Name: derivationName, Build: func(v *live.View, meter *snapshots.Meter) (any, error) {
		s := &snapshot{View: v, Reader: v.Reader, catalog: catalog.New(v.Reader)}
		if err := s.warm(meter); err != nil {
			return nil, err
		}
		return s, nil
	}}
}

// errNoDerivation is a Live opened without Derivation.
var errNoDerivation = errors.New("edge: the live snapshot has no edge data: register edge.Derivation() in live.Options.Derive")

// snapshot is a live snapshot with the edge's own data of it. Its Reader is
// the view's, promoted for the handlers (snap.Card, snap.Manifest). Take
// one with Server.acquire and give it back with release.
type snapshot struct {
	*live.View
	snapshots.Reader

	// catalog holds the per-game sorted views of the catalog and the sets
	// (the card list's orders, the set list's, top cards, set trending).
	catalog *catalog.Catalog
	// encoded holds each game's cards encoded (pricing.CardObjects) and setItems
	// each game's set list items in every order (sets.go), built by warm
	// and read-only after.
	encoded  map[string]*pricing.CardObjects
	setItems map[string]*setItems
	// bulk is the bulk files (bulk.go), loaded by warm.
	bulk *snapshotBulk
}

// release drops the reference Server.acquire took.
func (s *snapshot) release() { s.View.Release() }

// warm builds the per-game card and set orders of the list routes and the
// encoded cards before the snapshot serves (about 0.6 s for 51k cards), so
// that the first requests after a start or a swap do not pay for them.
func (s *snapshot) warm(meter *snapshots.Meter) error {
	var err error
	if s.bulk, err = loadBulk(s.Dir(), s.Manifest()); err != nil {
		return err
	}
	s.encoded, s.setItems = map[string]*pricing.CardObjects{}, map[string]*setItems{}
	for _, game := range s.Manifest().Games {
		o, err := s.catalog.CardsMetered(game, meter)
		if err != nil {
			return fmt.Errorf("card orders of %s: %w", game, err)
		}
		if s.encoded[game], err = pricing.EncodeCards(o.All(), s.setOf, func(c *snapshots.Card) (*pricing.MarketObject, error) {
			meter.Tick()
			return pricing.DefaultMarketObject(s.Reader, c)
		}); err != nil {
			return err
		}
		if s.setItems[game], err = s.encodeSets(game); err != nil {
			return fmt.Errorf("set orders of %s: %w", game, err)
		}
	}
	return nil
}

// setOf returns c's set, or nil when the snapshot does not have it.
func (s *snapshot) setOf(c *snapshots.Card) *snapshots.Set {
	set, err := s.Set(c.Game, c.SetID)
	if err != nil {
		return nil
	}
	return set
}

// cardDetail returns the card detail payload of c, without includes, from
// its encoded object (pricing.CardObjects).
func (s *snapshot) cardDetail(c *snapshots.Card) pricing.CardDetail {
	if obj := s.encoded[c.Game].Object(c.Ordinal); obj != nil {
		return pricing.CardDetail{Card: c, Object: obj}
	}
	// Not warmed: encoded per request.
	m, err := pricing.DefaultMarketObject(s.Reader, c)
	if err != nil {
		mm := pricing.NewMarketObject(c, pricing.NewMarketView(nil, snapshots.BasePrinting(c), c.PriceDay))
		m = &mm
	}
	return pricing.CardDetail{Card: c, Set: s.setOf(c), Market: m}
}
