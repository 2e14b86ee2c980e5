package collection

import (
	"errors"
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
)

// An account's collection in its data export and deletion (package account
// calls these inside the account's transaction). An account owns the
// records under its id and under its keys' ids: a key's collection from
// before collections belonged to accounts, a key's history, the import
// previews its keys and pages made.

// AccountExport is what ExportAccount returns.
type AccountExport struct {
	// Collections are the stored collections, as kept (holdings by card,
	// printing and grade, amounts in cents; the imports that added to
	// them), one per owner id that has one.
	Collections []StoredCollection `json:"collections"`
	// History is the value recorded at each snapshot, per owner id.
	History map[string][]HistoryPoint `json:"history"`
	// Previews are the ids of the import previews waiting (kept 24 hours).
	Previews []string `json:"previews"`
}

// StoredCollection is one owner's collection as stored.
type StoredCollection struct {
	Owner    string          `json:"owner"`
	Holdings []StoredHolding `json:"holdings"`
	Imports  []StoredImport  `json:"imports"`
}

// StoredHolding is a holding as stored.
type StoredHolding struct {
	Game         string `json:"game"`
	CardID       string `json:"card_id"`
	Printing     string `json:"printing"`
	Grade        string `json:"grade"`
	Quantity     int    `json:"quantity"`
	PaidCents    int64  `json:"paid_cents"`
	PaidQuantity int    `json:"paid_quantity"`
	Added        string `json:"added,omitempty"`
}

// StoredImport is an import confirmed into a collection.
type StoredImport struct {
	ImportID    string `json:"import_id"`
	ConfirmedAt string `json:"confirmed_at"`
	Rows        int    `json:"rows"`
	Quantity    int    `json:"quantity"`
}

func checkOwners(owners []string) error {
	for _, o := range owners {
		if o == "" || strings.Contains(o, "/") {
			return apperr.Errorf(apperr.EINTERNAL, "collection: no owner")
		}
	}
	return nil
}

// ExportAccount returns the collections, histories and previews of owners
// (an account's id and its keys' ids), read in tx.
func ExportAccount(tx state.Tx, owners []string) (AccountExport, error) {
	x := AccountExport{Collections: []StoredCollection{}, History: map[string][]HistoryPoint{}, Previews: []string{}}
	if err := checkOwners(owners); err != nil {
		return x, err
	}
	mine := map[string]bool{}
	for _, o := range owners {
		mine[o] = true
		c, err := collections.Get(tx, o)
		switch {
		case errors.Is(err, state.ErrNotFound):
		case err != nil:
			return x, err
		default:
			sc := StoredCollection{Owner: o, Holdings: []StoredHolding{}, Imports: []StoredImport{}}
			for _, h := range c.Holdings {
				sh := StoredHolding{Game: h.Game, CardID: h.CardID, Printing: h.Printing, Grade: h.Grade, Quantity: h.Quantity,
					PaidCents: h.PaidCents, PaidQuantity: h.PaidQuantity}
				if !h.Added.IsZero() {
					sh.Added = h.Added.UTC().Format("2006-01-02T15:04:05Z")
				}
				sc.Holdings = append(sc.Holdings, sh)
			}
			for _, im := range c.Imports {
				sc.Imports = append(sc.Imports, StoredImport{ImportID: im.ImportID, ConfirmedAt: im.ConfirmedAt.UTC().Format("2006-01-02T15:04:05Z"),
					Rows: im.Rows, Quantity: im.Quantity})
			}
			x.Collections = append(x.Collections, sc)
		}
		pts, err := readHistory(tx, o, snapshots.NoDay)
		if err != nil {
			return x, err
		}
		if len(pts) > 0 {
			x.History[o] = pts
		}
	}
	err := previews.Scan(tx, state.ScanOptions{}, func(id string, p storedPreview) error {
		if mine[p.Owner] || mine[p.KeyID] {
			x.Previews = append(x.Previews, id)
		}
		return nil
	})
	return x, err
}

// DeleteAccount deletes the collections, histories and import previews of
// owners (an account's id and its keys' ids), in tx.
func DeleteAccount(tx state.Tx, owners []string) error {
	if err := checkOwners(owners); err != nil {
		return err
	}
	mine := map[string]bool{}
	for _, o := range owners {
		mine[o] = true
		if err := collections.Delete(tx, o); err != nil {
			return err
		}
		if err := DeleteHistory(tx, o); err != nil {
			return err
		}
	}
	var ids []string
	if err := previews.Scan(tx, state.ScanOptions{}, func(id string, p storedPreview) error {
		if mine[p.Owner] || mine[p.KeyID] {
			ids = append(ids, id)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, id := range ids {
		if err := previews.Delete(tx, id); err != nil {
			return err
		}
	}
	return nil
}
