package pricing

import (
	"fmt"
	"math"
	"slices"

	"github.com/cardedge/cardedge/snapshots"
)

// CardObjects holds the object of every card of one game, encoded once
// when the snapshot opens (AppendCardObject, without the closing brace):
// card detail and the card list copy a card's bytes instead of encoding its
// fields on every request. A card's fields are read from all over the heap,
// its encoded object is one run of bytes. The default snapshot's 51,152
// cards take 36 MB. A nil *CardObjects holds no card.
type CardObjects struct {
	buf  []byte   // the objects back to back, in ordinal order
	ends []uint32 // ends[ordinal] is where the card's object ends in buf
	// unpriced has bit ordinal set when the card's default market shows no
	// price (price_usd null): market_summary then says why (Explain).
	unpriced []uint64
}

// EncodeCards encodes cards (a game's catalog, index = ordinal); setOf
// gives a card's set (nil when unknown), marketOf its default market.
func EncodeCards(cards []*snapshots.Card, setOf func(*snapshots.Card) *snapshots.Set, marketOf func(*snapshots.Card) (*MarketObject, error)) (*CardObjects, error) {
	e := &CardObjects{ends: make([]uint32, len(cards)), unpriced: make([]uint64, (len(cards)+63)/64)}
	n := 0
	for _, c := range cards {
		n += (&CardDetail{Card: c}).SizeHint()
	}
	e.buf = make([]byte, 0, n)
	for i, c := range cards {
		if int(c.Ordinal) != i {
			return nil, fmt.Errorf("encode cards: card %s has ordinal %d at position %d", c.ID, c.Ordinal, i)
		}
		m, err := marketOf(c)
		if err != nil {
			return nil, fmt.Errorf("encode cards: market of %s: %w", c.ID, err)
		}
		e.buf = AppendCardObject(e.buf, c, setOf(c), m)
		if m.PriceUSD == nil {
			e.unpriced[i/64] |= 1 << (i % 64)
		}
		if len(e.buf) > math.MaxUint32 {
			return nil, fmt.Errorf("encode cards: %d bytes at card %s, more than 4 GiB", len(e.buf), c.ID)
		}
		e.ends[i] = uint32(len(e.buf))
	}
	e.buf = slices.Clone(e.buf) // the exact size: the estimate is generous
	return e, nil
}

// Priced reports whether the default market of the card of ordinal ord
// shows a price; known is false when e does not hold the card.
func (e *CardObjects) Priced(ord uint32) (priced, known bool) {
	if e == nil || int(ord) >= len(e.ends) {
		return false, false
	}
	return e.unpriced[ord/64]&(1<<(ord%64)) == 0, true
}

// Object returns the encoded object of the card of ordinal ord (shared,
// read-only), or nil when e does not hold it.
func (e *CardObjects) Object(ord uint32) []byte {
	if e == nil || int(ord) >= len(e.ends) {
		return nil
	}
	start := uint32(0)
	if ord > 0 {
		start = e.ends[ord-1]
	}
	return e.buf[start:e.ends[ord]:e.ends[ord]]
}
