package access

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"time"

	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
)

// What this package keeps in the state store (see package state for the
// buckets' layouts):
//
//	state.Keys   key id -> keyRecord (JSON)
//	state.Usage  "<key id>/<YYYY-MM-DD>" -> units charged that UTC day, expiring after RetainDays
//	state.Meta   state.MetaKeysRev, +1 with every change to Keys
var keysTable = state.NewTable[keyRecord](state.Keys)

// keyRecord is the stored form of a key.
type keyRecord struct {
	Key
	Hash string `json:"sha256"` // hex SHA-256 of the secret
}

func (r keyRecord) hash() ([sha256.Size]byte, error) {
	var h [sha256.Size]byte
	b, err := hex.DecodeString(r.Hash)
	if err != nil || len(b) != len(h) {
		return h, fmt.Errorf("key %s: bad hash", r.ID)
	}
	copy(h[:], b)
	return h, nil
}

// readKeys decodes and validates every key record: a record that does not
// is state.ErrCorrupt naming the key.
func readKeys(tx state.Tx) ([]keyRecord, error) {
	var out []keyRecord
	err := keysTable.Scan(tx, state.ScanOptions{}, func(id string, r keyRecord) error {
		if r.ID != id || !r.Tier.Valid() || r.Tier == Playground {
			return fmt.Errorf("%w: key %q: bad record", state.ErrCorrupt, id)
		}
		if _, err := r.hash(); err != nil {
			return fmt.Errorf("%w: %v", state.ErrCorrupt, err)
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// putKey writes r and moves the key table's revision.
func putKey(tx state.Tx, r keyRecord) error {
	if err := keysTable.Put(tx, r.ID, r, 0); err != nil {
		return err
	}
	return tx.Add(state.Meta, state.MetaKeysRev, 1, 0)
}

// usageKey is the Usage counter of key id on day d.
func usageKey(id string, d snapshots.Day) string { return id + "/" + d.String() }

// readDays returns key id's stored counts of days >= from, by day.
func readDays(tx state.Tx, id string, from snapshots.Day) (map[snapshots.Day]int64, error) {
	out := map[snapshots.Day]int64{}
	prefix := id + "/"
	err := tx.ScanCounts(state.Usage, state.ScanOptions{Prefix: prefix}, func(k string, n int64) error {
		d, err := snapshots.ParseDay(k[len(prefix):])
		if err != nil { // "<id>/<day>/<reason>": not a charged count
			return nil
		}
		if d >= from {
			out[d] = n
		}
		return nil
	})
	return out, err
}

// DayCount is one day's usage.
type DayCount struct {
	Date     string `json:"date"` // YYYY-MM-DD (UTC)
	Requests int64  `json:"requests"`
	day      snapshots.Day
}

// Keys manages the API keys of a state store: what `cardedge keys` calls
// (and, next, the dashboard). Running services see a change within a second
// (their sync reloads the key table when its revision moves).
type Keys struct {
	State state.Store
	// Now stamps creation and revocation; nil means time.Now.
	Now func() time.Time
}

// KeySpec is what Keys.Create makes a key of.
type KeySpec struct {
	Tier Tier // free, pro or elite
	// Name is free text (up to 100 characters, no control characters);
	// empty means "key-" and the 8 characters of the key's id.
	Name      string
	SQL       bool // allowed to call POST /api/v3/sql
	Unmetered bool // no quota or rate limit (load tests)
	// Account binds the key to a dashboard account ("" = none).
	Account string
	// Expires is when the key stops working (zero = never).
	Expires time.Time
}

func (ks Keys) now() time.Time {
	if ks.Now != nil {
		return ks.Now()
	}
	return time.Now()
}

// Create creates a key and returns its secret, which is shown once and never
// stored, and its record. It returns EINVALID for a bad tier or name.
func (ks Keys) Create(ctx context.Context, spec KeySpec) (secret string, k Key, err error) {
	sec, err := NewSecret(spec.Tier)
	if err != nil {
		return "", Key{}, err
	}
	if _, err := CheckName(spec.Name); err != nil {
		return "", Key{}, err
	}
	created := ks.now().UTC().Truncate(time.Second)
	want := Key{Name: spec.Name, Tier: spec.Tier, SQL: spec.SQL, Unmetered: spec.Unmetered, Created: created,
		Account: spec.Account, Expires: spec.Expires.UTC()}
	err = ks.State.Update(ctx, func(tx state.Tx) (err error) {
		k, err = InsertKey(tx, sec, want)
		return err
	})
	if err != nil {
		return "", Key{}, err
	}
	return sec.Text, k, nil
}

// List returns every key, revoked ones included, by creation time then id.
func (ks Keys) List(ctx context.Context) ([]Key, error) {
	var recs []keyRecord
	err := ks.State.View(ctx, func(tx state.Tx) (err error) {
		recs, err = readKeys(tx)
		return err
	})
	if err != nil {
		return nil, err
	}
	keys := make([]Key, len(recs))
	for i, r := range recs {
		keys[i] = r.Key
	}
	sort.Slice(keys, func(i, j int) bool {
		if !keys[i].Created.Equal(keys[j].Created) {
			return keys[i].Created.Before(keys[j].Created)
		}
		return keys[i].ID < keys[j].ID
	})
	return keys, nil
}

// Revoke revokes key id and returns its record. Revoking twice keeps the
// first revocation time. It returns ENOTFOUND for an unknown id.
func (ks Keys) Revoke(ctx context.Context, id string) (Key, error) {
	var k Key
	revoked := ks.now().UTC().Truncate(time.Second)
	err := ks.State.Update(ctx, func(tx state.Tx) (err error) {
		if k, err = GetKey(tx, id); err != nil || !k.Revoked.IsZero() {
			return err
		}
		k.Revoked = revoked
		return UpdateKey(tx, k)
	})
	return k, err
}
