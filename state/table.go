package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Table is a records bucket whose values are Ts, stored as JSON. Its methods
// take the transaction they run in, so one transaction can read and write
// several tables. Decoding errors are ErrCorrupt naming the bucket and key.
//
//	var keys = state.NewTable[keyRecord](state.Keys)
//	err := st.Update(ctx, func(tx state.Tx) error { return keys.Put(tx, r.ID, r, 0) })
type Table[T any] struct {
	bucket Bucket
}

// NewTable returns the table of bucket b, which must hold records.
func NewTable[T any](b Bucket) Table[T] {
	if b.Kind() != KindRecords {
		panic(fmt.Sprintf("state: bucket %q does not hold records", b))
	}
	return Table[T]{bucket: b}
}

// Bucket returns the table's bucket.
func (t Table[T]) Bucket() Bucket { return t.bucket }

// Get returns the record at key. ErrNotFound: none (or expired).
func (t Table[T]) Get(tx Tx, key string) (T, error) {
	var v T
	b, err := tx.Get(t.bucket, key)
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return v, fmt.Errorf("%w: %s %q: %v", ErrCorrupt, t.bucket, key, err)
	}
	return v, nil
}

// Put writes v at key, replacing any record, to expire after ttl (0: never).
func (t Table[T]) Put(tx Tx, key string, v T, ttl time.Duration) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("state: encode %s %q: %w", t.bucket, key, err)
	}
	return tx.Put(t.bucket, key, b, ttl)
}

// Insert writes v at key if there is no record there; ErrConflict if there
// is.
func (t Table[T]) Insert(tx Tx, key string, v T, ttl time.Duration) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("state: encode %s %q: %w", t.bucket, key, err)
	}
	return tx.Insert(t.bucket, key, b, ttl)
}

// Delete removes the record at key (nothing there is not an error).
func (t Table[T]) Delete(tx Tx, key string) error { return tx.Delete(t.bucket, key) }

// Scan calls fn with each record matching o, decoded.
func (t Table[T]) Scan(tx Tx, o ScanOptions, fn func(key string, v T) error) error {
	return tx.Scan(t.bucket, o, func(key string, b []byte) error {
		var v T
		if err := json.Unmarshal(b, &v); err != nil {
			return fmt.Errorf("%w: %s %q: %v", ErrCorrupt, t.bucket, key, err)
		}
		return fn(key, v)
	})
}

// Update reads the record at key (found false and v the zero T when there is
// none), lets fn change it and writes it back with ttl. fn returning an error
// writes nothing and returns the error; returning ErrDelete deletes the
// record instead. tx must be an Update transaction, whose fn may run more than
// once: so may this fn.
func (t Table[T]) Update(tx Tx, key string, ttl time.Duration, fn func(v *T, found bool) error) error {
	v, err := t.Get(tx, key)
	found := err == nil
	if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	if err := fn(&v, found); err != nil {
		if errors.Is(err, ErrDelete) {
			return t.Delete(tx, key)
		}
		return err
	}
	return t.Put(tx, key, v, ttl)
}

// ErrDelete, returned by the function of Table.Update, deletes the record.
var ErrDelete = errors.New("state: delete the record")
