package collection

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cardedge/cardedge/state"
)

// collection is an owner's stored collection: holdings merged by card,
// printing and grade, and the imports that added to them.
type collection struct {
	Owner    string         `json:"owner,omitempty"`  // the owner's id (account or key id)
	KeyID    string         `json:"key_id,omitempty"` // records written before owners: the key's id
	Holdings []holding      `json:"holdings"`
	Imports  []importRecord `json:"imports"`
	Updated  time.Time      `json:"updated"`
}

type holding struct {
	Game   string `json:"game"`
	CardID string `json:"card_id"`
	// Printing is the card's variant the copies are of, as the catalog
	// spells it; "" is the card's base printing (and the only one of a
	// card without variants): holdings recorded before printings have "".
	Printing     string    `json:"printing,omitempty"`
	Grade        string    `json:"grade"`
	Quantity     int       `json:"quantity"`
	PaidCents    int64     `json:"paid_cents"`    // total paid for the copies with a price
	PaidQuantity int       `json:"paid_quantity"` // copies with a price paid
	Added        time.Time `json:"added,omitzero"`
}

// key is the holding's identity in its collection: game, card (any case),
// printing (any case) and grade.
func (h holding) key() string {
	return holdingKey(h.Game, h.CardID, h.Printing, h.Grade)
}

func holdingKey(game, cardID, printing, grade string) string {
	return game + "|" + strings.ToLower(cardID) + "|" + strings.ToLower(printing) + "|" + grade
}

type importRecord struct {
	ImportID    string    `json:"import_id"`
	ConfirmedAt time.Time `json:"confirmed_at"`
	Rows        int       `json:"rows"`
	Quantity    int       `json:"quantity"`
}

// merge adds src's holdings and imports to c (a key's collection folded
// into its account's).
func (c *collection) merge(src collection) {
	idx := c.index()
	for _, h := range src.Holdings {
		if i, ok := idx[h.key()]; ok {
			d := &c.Holdings[i]
			d.Quantity += h.Quantity
			d.PaidCents += h.PaidCents
			d.PaidQuantity += h.PaidQuantity
			continue
		}
		c.Holdings = append(c.Holdings, h)
		idx[h.key()] = len(c.Holdings) - 1
	}
	seen := map[string]bool{}
	for _, im := range c.Imports {
		seen[im.ImportID] = true
	}
	for _, im := range src.Imports {
		if !seen[im.ImportID] {
			c.Imports = append(c.Imports, im)
		}
	}
	if src.Updated.After(c.Updated) {
		c.Updated = src.Updated
	}
}

// index maps each holding's key to its position.
func (c *collection) index() map[string]int {
	idx := make(map[string]int, len(c.Holdings))
	for i, h := range c.Holdings {
		idx[h.key()] = i
	}
	return idx
}

// load reads o's collection in tx, with the legacy record of o's key (see
// Owner.legacy) merged in; folded reports whether there was one, so that a
// write deletes it. A missing collection is an empty one.
func load(tx state.Tx, o Owner) (c collection, folded bool, err error) {
	c, err = collections.Get(tx, o.id())
	if err != nil && !errors.Is(err, state.ErrNotFound) {
		return c, false, fmt.Errorf("collection of %s: %w", o.id(), err)
	}
	if k := o.legacy(); k != "" {
		old, err := collections.Get(tx, k)
		switch {
		case err == nil:
			c.merge(old)
			folded = true
		case !errors.Is(err, state.ErrNotFound):
			return c, false, fmt.Errorf("collection of %s: %w", k, err)
		}
	}
	c.Owner, c.KeyID = o.id(), ""
	return c, folded, nil
}

// save writes o's collection and removes the legacy record load folded in.
func save(tx state.Tx, o Owner, c collection, folded bool) error {
	if err := collections.Put(tx, o.id(), c, 0); err != nil {
		return err
	}
	if folded {
		return collections.Delete(tx, o.legacy())
	}
	return nil
}

// read returns o's collection (a copy, valid after the transaction).
func (s *Service) read(ctx context.Context, o Owner) (collection, error) {
	if err := o.check(); err != nil {
		return collection{}, err
	}
	var c collection
	sctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	err := s.state.View(sctx, func(tx state.Tx) error {
		var err error
		c, _, err = load(tx, o)
		return err
	})
	return c, err
}

// Adopt folds the collections that keys of accounts kept under their own
// key id (before collections belonged to accounts) into their accounts'
// collections; accountOf names a key's account ("" for none, or for an
// unknown key: its collection stays). It returns how many it folded. The
// server runs it once at start; later keyed calls fold what is left (a
// record an older replica wrote).
func (s *Service) Adopt(ctx context.Context, accountOf func(keyID string) string) (int, error) {
	n := 0
	err := s.state.Update(ctx, func(tx state.Tx) error {
		n = 0
		var owners []Owner
		err := collections.Scan(tx, state.ScanOptions{Prefix: "k_"}, func(key string, _ collection) error {
			if a := accountOf(key); a != "" {
				owners = append(owners, KeyOwner(key, a))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, o := range owners {
			c, folded, err := load(tx, o)
			if err != nil {
				return err
			}
			if err := save(tx, o, c, folded); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("collection: adopt keys' collections: %w", err)
	}
	return n, nil
}
