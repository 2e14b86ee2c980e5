package bolt

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cardedge/cardedge/state"
	bbolt "go.etcd.io/bbolt"
)

// formatCurrent is the version of the file's layout (see tx.go). Format "1"
// was access's own layout, before this package; Update upgrades it in
// place (upgrade1), and View and Check run such an Update first.
const formatCurrent = "2"

var (
	bucketMeta = []byte("meta")
	keyFormat  = []byte("access.format")
)

// formatOf returns the file's format marker, "" when there is none.
func formatOf(btx *bbolt.Tx) string {
	if b := btx.Bucket(bucketMeta); b != nil {
		return string(b.Get(keyFormat))
	}
	return ""
}

// upgrade brings the file to formatCurrent: it marks a new file, upgrades a
// format 1 file, and refuses anything else.
func upgrade(btx *bbolt.Tx, now time.Time) error {
	switch f := formatOf(btx); f {
	case formatCurrent:
		return nil
	case "":
		empty := true
		btx.ForEach(func([]byte, *bbolt.Bucket) error { empty = false; return nil })
		if !empty {
			return fmt.Errorf("%w: buckets but no format marker", ErrFormat)
		}
		return markFormat(btx)
	case "1":
		return upgrade1(btx, now)
	default:
		return fmt.Errorf("%w: format %q, want %q", ErrFormat, f, formatCurrent)
	}
}

func markFormat(btx *bbolt.Tx) error {
	b, err := btx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return err
	}
	return b.Put(keyFormat, []byte(formatCurrent))
}

// Format 1, written by access (and edge/imports.go, mcp/cohort.go)
// before this package:
//
//	keys                 key id -> JSON key record
//	usage                key id (a nested bucket) -> day (uint32 BE, days since 1970) -> count (uint64 BE)
//	meta                 "access.format" -> "1", "access.keys_rev" -> uint64 BE
//	imports.previews     preview id -> JSON preview with "expires" (RFC 3339)
//	imports.collections  key id -> JSON collection
//	mcp_cohorts          cohort handle -> JSON cohort with "key_id" and "expires_at"
//
// Usage was kept format1RetainDays days: every writer of format 1 used
// access's default, which no flag changed.
const format1RetainDays = 90

// upgrade1 rewrites a format 1 file in the current layout, in the caller's
// transaction: every key, usage count still within its retention, the key
// table's revision, every preview and cohort that has not expired and every
// collection, with their expiry. Anything it does not recognize is
// ErrCorrupt or ErrFormat, and nothing is written.
func upgrade1(btx *bbolt.Tx, now time.Time) error {
	type kv struct{ k, v []byte }
	collect := func(name string) ([]kv, error) {
		var out []kv
		b := btx.Bucket([]byte(name))
		if b == nil {
			return nil, nil
		}
		err := b.ForEach(func(k, v []byte) error {
			if v == nil {
				return fmt.Errorf("%w: format 1 %s %q: a nested bucket", ErrCorrupt, name, k)
			}
			out = append(out, kv{bytes.Clone(k), bytes.Clone(v)})
			return nil
		})
		return out, err
	}
	known := map[string]bool{"keys": true, "usage": true, "meta": true, "imports.previews": true, "imports.collections": true, "mcp_cohorts": true}
	if err := btx.ForEach(func(name []byte, _ *bbolt.Bucket) error {
		if !known[string(name)] {
			return fmt.Errorf("%w: format 1 file with an unknown bucket %q", ErrFormat, name)
		}
		return nil
	}); err != nil {
		return err
	}

	keys, err := collect("keys")
	if err != nil {
		return err
	}
	type count struct {
		id  []byte
		day uint32
		n   uint64
	}
	var usage []count
	if ub := btx.Bucket([]byte("usage")); ub != nil {
		err := ub.ForEach(func(id, v []byte) error {
			kb := ub.Bucket(id)
			if v != nil || kb == nil {
				return fmt.Errorf("%w: format 1 usage %q: not a bucket", ErrCorrupt, id)
			}
			return kb.ForEach(func(d, c []byte) error {
				if len(d) != 4 || len(c) != 8 {
					return fmt.Errorf("%w: format 1 usage of %q: bad entry", ErrCorrupt, id)
				}
				usage = append(usage, count{bytes.Clone(id), binary.BigEndian.Uint32(d), binary.BigEndian.Uint64(c)})
				return nil
			})
		})
		if err != nil {
			return err
		}
	}
	meta, err := collect("meta")
	if err != nil {
		return err
	}
	var keysRev uint64
	for _, e := range meta {
		switch string(e.k) {
		case "access.format":
		case "access.keys_rev":
			if len(e.v) != 8 {
				return fmt.Errorf("%w: format 1 meta access.keys_rev: %d bytes", ErrCorrupt, len(e.v))
			}
			keysRev = binary.BigEndian.Uint64(e.v)
		default:
			return fmt.Errorf("%w: format 1 meta key %q", ErrFormat, e.k)
		}
	}
	previews, err := collect("imports.previews")
	if err != nil {
		return err
	}
	colls, err := collect("imports.collections")
	if err != nil {
		return err
	}
	cohorts, err := collect("mcp_cohorts")
	if err != nil {
		return err
	}

	for _, name := range []string{"keys", "usage", "meta", "imports.previews", "imports.collections", "mcp_cohorts"} {
		if btx.Bucket([]byte(name)) != nil {
			if err := btx.DeleteBucket([]byte(name)); err != nil {
				return err
			}
		}
	}
	if err := markFormat(btx); err != nil {
		return err
	}
	t := newTx(btx, now)
	// at is the TTL that expires a record at Unix nanoseconds exp; ok false
	// when that has passed.
	at := func(exp int64) (time.Duration, bool) {
		d := time.Duration(exp - t.now)
		return d, d > 0
	}
	for _, e := range keys {
		if !json.Valid(e.v) {
			return fmt.Errorf("%w: format 1 key %q: not JSON", ErrCorrupt, e.k)
		}
		if err := t.Put(state.Keys, string(e.k), e.v, 0); err != nil {
			return err
		}
	}
	for _, c := range usage {
		ttl, ok := at(int64(c.day+format1RetainDays) * 86400 * int64(time.Second))
		if !ok {
			continue // beyond retention: format 1 pruned it at the key's next sync
		}
		day := time.Unix(int64(c.day)*86400, 0).UTC().Format(time.DateOnly)
		if err := t.Add(state.Usage, string(c.id)+"/"+day, int64(c.n), ttl); err != nil {
			return err
		}
	}
	if keysRev > 0 {
		if err := t.Add(state.Meta, state.MetaKeysRev, int64(keysRev), 0); err != nil {
			return err
		}
	}
	for _, e := range previews {
		var p struct {
			Expires time.Time `json:"expires"`
		}
		if json.Unmarshal(e.v, &p) != nil {
			continue // format 1 pruned undecodable previews at the next upload
		}
		if ttl, ok := at(p.Expires.UnixNano()); ok {
			if err := t.Put(state.ImportPreviews, string(e.k), e.v, ttl); err != nil {
				return err
			}
		}
	}
	for _, e := range colls {
		if !json.Valid(e.v) {
			return fmt.Errorf("%w: format 1 collection %q: not JSON", ErrCorrupt, e.k)
		}
		if err := t.Put(state.Collections, string(e.k), e.v, 0); err != nil {
			return err
		}
	}
	for _, e := range cohorts {
		var c struct {
			KeyID   string    `json:"key_id"`
			Expires time.Time `json:"expires_at"`
		}
		if json.Unmarshal(e.v, &c) != nil || c.KeyID == "" {
			continue // format 1 pruned undecodable cohorts at the next pin
		}
		if ttl, ok := at(c.Expires.UnixNano()); ok {
			if err := t.Put(state.Cohorts, c.KeyID+"/"+string(e.k), e.v, ttl); err != nil {
				return err
			}
		}
	}
	return nil
}
