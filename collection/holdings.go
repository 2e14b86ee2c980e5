package collection

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
)

// Change is copies of one card, printing and grade to add to a collection
// or remove from it.
type Change struct {
	Game   string // the card's game (required)
	CardID string // the card's id, any case (required)
	// Printing is one of the card's variants, as a finish names it
	// ("holo/1st edition", "1st-edition", "reverse"); "" is the card's
	// base printing.
	Printing string
	// Grade is a grade as the API writes it ("raw:near_mint", "slab:10");
	// "" is raw:near_mint.
	Grade string
	// Quantity is the number of copies: 1 to MaxQuantity. Remove: 0
	// removes every copy.
	Quantity int
	// PaidUSD is the price paid per copy (Add only; nil: unknown).
	PaidUSD *float64
}

// target resolves ch against src: the card (canonical id), the printing to
// store and the grade. EINVALID, ENOTFOUND.
func (ch Change) target(src *live.View) (c *snapshots.Card, printing string, g snapshots.Grade, err error) {
	if ch.Game == "" || strings.TrimSpace(ch.CardID) == "" {
		return nil, "", g, apperr.Errorf(apperr.EINVALID, "a change names a game and a card_id")
	}
	if c, err = src.Reader.Card(ch.Game, strings.TrimSpace(ch.CardID)); err != nil {
		return nil, "", g, err
	}
	if printing, err = printingOf(c, ch.Printing); err != nil {
		return nil, "", g, err
	}
	g = snapshots.RawNearMint
	if strings.TrimSpace(ch.Grade) != "" {
		if g, err = snapshots.ReadGrade(ch.Grade); err != nil { // the usual spellings: PSA 10, NM, raw:near_mint
			return nil, "", g, apperr.Errorf(apperr.EINVALID, "grade %q: %s", ch.Grade, apperr.ErrorMessage(err))
		}
	}
	return c, printing, g, nil
}

// printingOf returns the printing of c that finish names (pricing.PrintingOf:
// a variant, or parts of one, in collectors' words), as a holding stores
// it: "" for the base printing, else the variant as the catalog spells it.
// EINVALID for a finish c does not have.
func printingOf(c *snapshots.Card, finish string) (string, error) {
	i, err := pricing.PrintingOf(c, finish)
	if err != nil {
		return "", err
	}
	if i == snapshots.BasePrinting(c) || i >= len(c.Variants) {
		return "", nil
	}
	return c.Variants[i], nil
}

// printingIndex is the index in c.Variants of a stored printing (the base
// printing for ""); false when the catalog no longer has it.
func printingIndex(c *snapshots.Card, printing string) (int, bool) {
	if printing == "" {
		return snapshots.BasePrinting(c), true
	}
	for i, v := range c.Variants {
		if strings.EqualFold(v, printing) {
			return i, true
		}
	}
	return 0, false
}

// Add adds ch.Quantity copies of a card, printing and grade to o's
// collection (merged with a holding of the same three) and returns that
// holding after the change, valued as of src. EINVALID (quantity, price,
// grade, printing, or a full collection), ENOTFOUND (card); storage errors
// wrapped.
func (s *Service) Add(ctx context.Context, src *live.View, o Owner, ch Change) (*HoldingRow, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	c, printing, g, err := ch.target(src)
	if err != nil {
		return nil, err
	}
	if ch.Quantity < 1 || ch.Quantity > MaxQuantity {
		return nil, apperr.Errorf(apperr.EINVALID, "quantity %d: want a whole number from 1 to %d", ch.Quantity, MaxQuantity)
	}
	var paid int64
	if ch.PaidUSD != nil {
		if p := *ch.PaidUSD; math.IsNaN(p) || p < 0 || p > 1e9 {
			return nil, apperr.Errorf(apperr.EINVALID, "price paid %v: want an amount in USD from 0 (per copy)", p)
		}
		paid = int64(math.Round(*ch.PaidUSD * 100))
	}
	now := s.clock()
	var out holding
	err = s.update(ctx, o, func(coll *collection) error {
		k := holdingKey(c.Game, c.ID, printing, g.String())
		idx := coll.index()
		i, ok := idx[k]
		if !ok {
			if len(coll.Holdings) >= MaxHoldings {
				return apperr.Errorf(apperr.EINVALID, "the collection holds %d holdings (card, printing and grade), the most it may: remove some first", len(coll.Holdings))
			}
			coll.Holdings = append(coll.Holdings, holding{Game: c.Game, CardID: c.ID, Printing: printing, Grade: g.String(), Added: now})
			i = len(coll.Holdings) - 1
		}
		h := &coll.Holdings[i]
		if h.Quantity+ch.Quantity > MaxQuantity {
			return apperr.Errorf(apperr.EINVALID, "the holding would have %d copies; at most %d", h.Quantity+ch.Quantity, MaxQuantity)
		}
		h.Quantity += ch.Quantity
		if ch.PaidUSD != nil {
			h.PaidCents += paid * int64(ch.Quantity)
			h.PaidQuantity += ch.Quantity
		}
		coll.Updated = now
		out = *h
		return nil
	})
	if err != nil {
		return nil, err
	}
	row := valueHolding(src, out, snapshots.NoDay)
	return &row, nil
}

// Remove removes ch.Quantity copies (0: all) of a card, printing and grade
// from o's collection and returns the holding after the change (quantity 0
// when none is left), valued as of src. Copies with a price paid keep their
// average price. ENOTFOUND when the collection has no such holding;
// EINVALID for more copies than it has.
func (s *Service) Remove(ctx context.Context, src *live.View, o Owner, ch Change) (*HoldingRow, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	c, printing, g, err := ch.target(src)
	if err != nil {
		return nil, err
	}
	if ch.Quantity < 0 || ch.Quantity > MaxQuantity {
		return nil, apperr.Errorf(apperr.EINVALID, "quantity %d: want 0 (every copy) or a whole number up to %d", ch.Quantity, MaxQuantity)
	}
	var out holding
	err = s.update(ctx, o, func(coll *collection) error {
		k := holdingKey(c.Game, c.ID, printing, g.String())
		i, ok := coll.index()[k]
		if !ok {
			return apperr.Errorf(apperr.ENOTFOUND, "the collection holds no %s of %s%s", g, c.ID, printingWords(printing))
		}
		h := coll.Holdings[i]
		n := ch.Quantity
		if n == 0 {
			n = h.Quantity
		}
		if n > h.Quantity {
			return apperr.Errorf(apperr.EINVALID, "the collection holds %d copies of %s %s%s; cannot remove %d", h.Quantity, c.ID, g, printingWords(printing), n)
		}
		left := h.Quantity - n
		if pq := min(h.PaidQuantity, left); pq < h.PaidQuantity {
			h.PaidCents = h.PaidCents * int64(pq) / int64(h.PaidQuantity)
			h.PaidQuantity = pq
		}
		h.Quantity = left
		out = h
		if left == 0 {
			coll.Holdings = append(coll.Holdings[:i], coll.Holdings[i+1:]...)
		} else {
			coll.Holdings[i] = h
		}
		coll.Updated = s.clock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	row := valueHolding(src, out, snapshots.NoDay)
	return &row, nil
}

func printingWords(printing string) string {
	if printing == "" {
		return ""
	}
	return " (" + printing + ")"
}

// update runs fn on o's collection in one transaction and writes it back
// (folding a legacy record in).
func (s *Service) update(ctx context.Context, o Owner, fn func(*collection) error) error {
	sctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	err := s.state.Update(sctx, func(tx state.Tx) error {
		c, folded, err := load(tx, o)
		if err != nil {
			return err
		}
		if err := fn(&c); err != nil {
			return err
		}
		return save(tx, o, c, folded)
	})
	if err != nil && apperr.ErrorCode(err) == apperr.EINTERNAL {
		return fmt.Errorf("collection: %w", err)
	}
	return err
}
