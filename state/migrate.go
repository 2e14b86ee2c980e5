package state

import (
	"context"
	"fmt"
	"time"
)

// Entry is one record or counter of a store with its expiry: what Export
// lists and Import writes, so that state moves between stores exactly (a
// node's state file into a fleet's Redis).
type Entry struct {
	Bucket Bucket
	Key    string
	// Value is a record's bytes; nil for a counter, whose value is N.
	Value []byte
	N     int64
	// Expires is when the entry expires by the store's clock; zero: never.
	Expires time.Time
}

// Exporter is a store that lists everything it holds.
type Exporter interface {
	// Export calls fn with every live record and counter (expired ones are
	// left out), bucket by bucket in Buckets order, keys in order.
	Export(ctx context.Context, fn func(Entry) error) error
}

// Importer is a store that takes entries in bulk.
type Importer interface {
	// Import writes entries, all or nothing, into a store that holds no
	// record or counter yet (ErrConflict otherwise). An entry that has
	// expired already is left out.
	Import(ctx context.Context, entries []Entry) error
}

// Migrate copies every live record and counter of from into the empty
// store to, with their expiries, and returns how many it copied. Stop the
// servers of from first: writes after its Export are not copied.
func Migrate(ctx context.Context, from Exporter, to Importer) (int, error) {
	var all []Entry
	err := from.Export(ctx, func(e Entry) error {
		if e.Value != nil {
			e.Value = append([]byte(nil), e.Value...)
		}
		all = append(all, e)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("state: migrate: read the source: %w", err)
	}
	if err := to.Import(ctx, all); err != nil {
		return 0, fmt.Errorf("state: migrate: write the target: %w", err)
	}
	return len(all), nil
}
