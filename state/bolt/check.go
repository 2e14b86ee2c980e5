package bolt

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/cardedge/cardedge/state"
	bbolt "go.etcd.io/bbolt"
)

// checkRecords verifies the current layout: only state buckets and the
// expiry index, flat; every value of the kind its bucket holds (a record is
// JSON, a counter 8 bytes); and an expiry index entry for exactly the values
// that expire.
func checkRecords(t *tx) error {
	btx := t.btx
	if f := formatOf(btx); f != formatCurrent && f != "" {
		return fmt.Errorf("%w: format %q, want %q", ErrFormat, f, formatCurrent)
	}
	index := map[string]bool{}
	if ib := btx.Bucket(expiryBucket); ib != nil {
		err := ib.ForEach(func(k, v []byte) error {
			_, b, _, ok := parseIndexKey(k)
			if !ok || v == nil && ib.Bucket(k) != nil || state.Bucket(b).Kind() == state.KindNone {
				return fmt.Errorf("%w: expiry index entry %x", ErrCorrupt, k)
			}
			index[string(k)] = false
			return nil
		})
		if err != nil {
			return err
		}
	}
	err := btx.ForEach(func(name []byte, bk *bbolt.Bucket) error {
		if bytes.Equal(name, expiryBucket) {
			return nil
		}
		b := state.Bucket(name)
		kind := b.Kind()
		if kind == state.KindNone {
			return fmt.Errorf("%w: unknown bucket %q", ErrFormat, name)
		}
		return bk.ForEach(func(k, v []byte) error {
			if v == nil {
				return corrupt(b, k, "a nested bucket")
			}
			if reserved(b, k) {
				return nil
			}
			vk, exp, p, ok := decode(v)
			switch {
			case !ok:
				return corrupt(b, k, "no record header")
			case kind == state.KindRecords && vk != kindRecord:
				return corrupt(b, k, "a counter in a bucket of records")
			case kind == state.KindCounters && vk != kindCounter:
				return corrupt(b, k, "a record in a bucket of counters")
			case vk == kindCounter && len(p) != 8:
				return corrupt(b, k, fmt.Sprintf("a counter of %d bytes", len(p)))
			case vk == kindRecord && !json.Valid(p):
				return corrupt(b, k, "not JSON")
			}
			if exp != 0 {
				ik := string(indexKey(exp, name, k))
				if _, ok := index[ik]; !ok {
					return corrupt(b, k, "expires but is not in the expiry index")
				}
				index[ik] = true
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	for k, seen := range index {
		if !seen {
			return fmt.Errorf("%w: expiry index entry %x names no record with that expiry", ErrCorrupt, k)
		}
	}
	return nil
}
