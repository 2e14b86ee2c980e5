package edge

import (
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

// page is the shape of every list payload.
type page[T any] struct {
	Items  []T `json:"items"`
	Total  int `json:"total"`
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
}

// paginate cuts items[offset:offset+limit].
func paginate[T any](items []T, offset, limit int) page[T] {
	p := page[T]{Total: len(items), Offset: offset, Limit: limit, Items: []T{}}
	if offset < len(items) {
		p.Items = items[offset:min(len(items), offset+limit)]
	}
	return p
}

// cardGold is card c with its default market (the base printing).
func (r *request) cardGold(c *snapshots.Card) (pricing.CardGold, error) {
	m, err := pricing.DefaultMarketObject(r.snap.Reader, c)
	if err != nil {
		return pricing.CardGold{}, err
	}
	return pricing.NewCardGold(c, r.setOf(c), m), nil
}
