package access

import (
	"errors"
	"strings"
	"time"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
)

// What an account's data export and deletion (package account) read and
// remove of the access layer's records, inside the account's transaction:
// its keys, their last use and the usage counters kept under a key's id (or
// the account's id, for its chat quota).

// UsageCount is one usage counter: the units charged to an id (a key's or,
// for the chat quota, an account's) on a day, or the calls refused that day
// for a reason.
type UsageCount struct {
	ID     string `json:"id"`
	Day    string `json:"day"`
	Reason string `json:"refused,omitempty"` // "401", "429", ...: calls refused; "" units charged
	Count  int64  `json:"count"`
}

// ExportUsage returns the usage counters of the ids (keys, an account), in
// key order.
func ExportUsage(tx state.Tx, ids []string) ([]UsageCount, error) {
	out := []UsageCount{}
	for _, id := range ids {
		err := tx.ScanCounts(state.Usage, state.ScanOptions{Prefix: id + "/"}, func(k string, n int64) error {
			rest := strings.TrimPrefix(k, id+"/")
			day, reason, _ := strings.Cut(rest, "/")
			out = append(out, UsageCount{ID: id, Day: day, Reason: reason, Count: n})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// LastUsed returns when key id was last used (zero: never, or not known).
func LastUsed(tx state.Tx, id string) (time.Time, error) {
	t, err := lastUsedTable.Get(tx, id)
	if errors.Is(err, state.ErrNotFound) {
		return time.Time{}, nil
	}
	return t, err
}

// DeleteUsage removes the usage counters of id (a key's or an account's):
// each is set to 0 with an expiry of a millisecond (counters are only
// changed by adds), so that nothing of them is read again.
func DeleteUsage(tx state.Tx, id string) error {
	if id == "" || strings.Contains(id, "/") {
		return apperr.Errorf(apperr.EINTERNAL, "access: no id")
	}
	type counter struct {
		key string
		n   int64
	}
	var cs []counter
	if err := tx.ScanCounts(state.Usage, state.ScanOptions{Prefix: id + "/"}, func(k string, n int64) error {
		cs = append(cs, counter{k, n})
		return nil
	}); err != nil {
		return err
	}
	for _, c := range cs {
		if err := tx.Add(state.Usage, c.key, -c.n, time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// DeleteKey removes key id for good (an account's deletion): its record,
// its last use and its usage counters; the key table's revision moves, so
// that every server refuses the key within a second. ENOTFOUND: no such
// key.
func DeleteKey(tx state.Tx, id string) error {
	if !wellFormedID(id) {
		return apperr.Errorf(apperr.ENOTFOUND, "no key with id %q", id)
	}
	if _, err := keysTable.Get(tx, id); errors.Is(err, state.ErrNotFound) {
		return apperr.Errorf(apperr.ENOTFOUND, "no key with id %q", id)
	} else if err != nil {
		return err
	}
	if err := keysTable.Delete(tx, id); err != nil {
		return err
	}
	if err := lastUsedTable.Delete(tx, id); err != nil {
		return err
	}
	if err := DeleteUsage(tx, id); err != nil {
		return err
	}
	return tx.Add(state.Meta, state.MetaKeysRev, 1, 0)
}
