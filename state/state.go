package state

import (
	"context"
	"time"
)

// Store is the state store: the keys, usage, previews, collections, cohorts
// (and, next, accounts and sessions) of every process serving one
// deployment. state/bolt is the embedded default (one file on one node); a
// Redis store shares it between replicas (see the package doc).
//
// Its methods are safe for concurrent use. Every method that reads or writes
// returns ErrUnavailable (wrapped) when the store cannot be reached or locked
// in time, and ErrCorrupt or ErrFormat when its data cannot be read.
type Store interface {
	// View runs fn in a read-only transaction. Values fn reads are valid
	// only until fn returns; writes return an error. An error fn returns
	// is returned as is.
	View(ctx context.Context, fn func(Tx) error) error

	// Update runs fn in a read-write transaction and commits what it wrote
	// when fn returns nil; when fn returns an error nothing is written and
	// the error is returned as is. fn may run more than once (an
	// optimistic store runs it again when a record it read changed before
	// the commit): it must have no effect outside the transaction, and
	// what it hands out (through variables it sets) must be what its last
	// run computed. ErrConflict: concurrent writers won too many times.
	Update(ctx context.Context, fn func(Tx) error) error

	// Check reads every record and verifies that it decodes (and, for a
	// file, that its pages are consistent). It returns ErrCorrupt or
	// ErrFormat naming the first problem. It may take long on a big store:
	// servers run it once at start, tests in their Cleanup.
	Check(ctx context.Context) error

	// Close releases what the store holds (connections). Transactions
	// after Close fail.
	Close() error
}

// Tx is a transaction of a Store. Its methods are not safe for concurrent
// use, and it must not be used after the function it was given to returns.
//
// Keys are 1 to MaxKeyLen bytes; a bucket is one of Buckets, of the right
// Kind for the method (records or counters): anything else is an error.
// Expired records and counters are invisible: Get and Count do not find
// them, scans skip them, Insert may take their place. The store sweeps them
// some time after they expire.
//
// A TTL of 0 means no expiry; a positive TTL expires the record that long
// after the store's clock reads now; a negative one is an error.
type Tx interface {
	// Get returns the record at key, valid only inside the transaction.
	// ErrNotFound: none (or expired).
	Get(b Bucket, key string) ([]byte, error)

	// Put writes the record at key, replacing any, to expire after ttl.
	Put(b Bucket, key string, value []byte, ttl time.Duration) error

	// Insert writes the record at key only if there is none: ErrConflict
	// when there is (put-if-absent: unique emails, ids).
	Insert(b Bucket, key string, value []byte, ttl time.Duration) error

	// Delete removes the record at key; removing nothing is not an error.
	Delete(b Bucket, key string) error

	// Scan calls fn for each record of b whose key matches o, in key order
	// (reverse with o.Reverse), with values valid only during the call. An
	// error fn returns stops the scan and is returned.
	Scan(b Bucket, o ScanOptions, fn func(key string, value []byte) error) error

	// Count returns the counter at key: 0 when there is none (or expired).
	// Inside Update it includes this transaction's own Adds.
	Count(b Bucket, key string) (int64, error)

	// Counts is Count of each of keys, in one read (a store over the
	// network makes one round trip, not one per key): ns[i] is keys[i]'s.
	Counts(b Bucket, keys []string) (ns []int64, err error)

	// Add adds n (which may be negative) to the counter at key, creating it
	// at 0 first when there is none. A positive ttl sets the counter to
	// expire ttl from now; 0 keeps its expiry (none for a new counter).
	// Adds commute: concurrent Adds are never a conflict.
	Add(b Bucket, key string, n int64, ttl time.Duration) error

	// ScanCounts is Scan for counters.
	ScanCounts(b Bucket, o ScanOptions, fn func(key string, n int64) error) error
}

// ScanOptions select the keys of a scan. The zero value selects every key of
// the bucket in ascending order.
type ScanOptions struct {
	// Prefix keeps only keys that start with it.
	Prefix string
	// After starts the scan after this key (excluded): with Reverse, at
	// the greatest key below it. Pagination passes the last key seen.
	After string
	// Reverse scans in descending key order (newest first, for keys that
	// end with a time).
	Reverse bool
	// Limit stops after that many records; 0 means no limit.
	Limit int
}
