package edge

import (
	"sort"
	"strings"
	"sync"

	"github.com/cardedge/cardedge/snapshots"
)

// cardOrders are per-snapshot, per-game views of the catalog that the card
// list needs on every uncached request: the cards pre-sorted by each sort key
// and order, and their folded names. They are computed once, on first use.
type cardOrders struct {
	once   sync.Once
	folded []string                     // by ordinal: foldString(name)
	sorted map[string][]*snapshots.Card // "volume|desc" ...
	err    error
}

// orders returns the game's card orders, computing them on first use.
func (s *Snapshot) orders(game string) (*cardOrders, error) {
	v, _ := s.cardOrders.LoadOrStore(game, &cardOrders{})
	o := v.(*cardOrders)
	o.once.Do(func() {
		cards, err := s.Cards(game)
		if err != nil {
			o.err = err
			return
		}
		o.folded = make([]string, len(cards))
		for i, c := range cards {
			o.folded[i] = foldString(c.Name)
		}
		o.sorted = map[string][]*snapshots.Card{}
		for _, key := range []string{"volume", "name", "price"} {
			for _, asc := range []bool{false, true} {
				sorted := append([]*snapshots.Card(nil), cards...)
				sortCardsFolded(sorted, key, asc, o.folded)
				o.sorted[orderKey(key, asc)] = sorted
			}
		}
	})
	return o, o.err
}

func orderKey(key string, asc bool) string {
	if asc {
		return key + "|asc"
	}
	return key + "|desc"
}

// sortCards sorts cards by key (volume: 30-day volume then sales; name; price)
// in the given order, ties in catalog order whatever the order.
func sortCards(cards []*snapshots.Card, key string, asc bool) {
	sortCardsFolded(cards, key, asc, nil)
}

func sortCardsFolded(cards []*snapshots.Card, key string, asc bool, folded []string) {
	name := func(c *snapshots.Card) string {
		if folded != nil {
			return folded[c.Ordinal]
		}
		return foldString(c.Name)
	}
	cmp := func(a, b *snapshots.Card) int {
		switch key {
		case "name":
			return strings.Compare(name(a), name(b))
		case "price":
			return cmpInt64(a.PriceCents, b.PriceCents)
		default:
			if a.Volume30dCents != b.Volume30dCents {
				return cmpInt64(a.Volume30dCents, b.Volume30dCents)
			}
			return cmpInt64(int64(a.SalesAll), int64(b.SalesAll))
		}
	}
	sort.SliceStable(cards, func(i, j int) bool {
		c := cmp(cards[i], cards[j])
		if c == 0 {
			return cards[i].Ordinal < cards[j].Ordinal
		}
		if asc {
			return c < 0
		}
		return c > 0
	})
}
