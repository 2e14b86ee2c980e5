package redis_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	stateredis "github.com/cardedge/cardedge/state/redis"
	"github.com/cardedge/cardedge/state/redis/redistest"
	"github.com/cardedge/cardedge/state/statetest"
	"github.com/google/go-cmp/cmp"
)

func export(t *testing.T, s state.Exporter) []state.Entry {
	t.Helper()
	var out []state.Entry
	if err := s.Export(context.Background(), func(e state.Entry) error {
		if e.Value != nil {
			e.Value = append([]byte(nil), e.Value...)
		}
		e.Expires = e.Expires.Truncate(time.Millisecond)
		out = append(out, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMigrate moves a state file into Redis and compares every record,
// counter and expiry; an expired record is left behind; a second migration
// into the same prefix is refused.
func TestMigrate(t *testing.T) {
	ctx := context.Background()
	clock := statetest.NewClock(time.Date(2026, 11, 20, 12, 0, 0, 123456789, time.UTC))
	file, err := statebolt.Open(filepath.Join(t.TempDir(), "state.bolt"), statebolt.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	err = file.Update(ctx, func(tx state.Tx) error {
		for i := range 300 {
			if err := tx.Put(state.Keys, fmt.Sprintf("k_%04d", i), fmt.Appendf(nil, `{"id":"k_%04d"}`, i), 0); err != nil {
				return err
			}
			if err := tx.Add(state.Usage, fmt.Sprintf("k_%04d/2026-11-20", i), int64(i), 90*24*time.Hour); err != nil {
				return err
			}
		}
		if err := tx.Put(state.Sessions, "s1", []byte(`{"a":1}`), time.Hour); err != nil {
			return err
		}
		if err := tx.Put(state.ImportPreviews, "gone", []byte(`{}`), time.Minute); err != nil {
			return err
		}
		if err := tx.Put(state.Secrets, "cursor", []byte(`"c2VjcmV0"`), 0); err != nil {
			return err
		}
		return tx.Add(state.Meta, state.MetaKeysRev, 301, 0)
	})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Minute) // the preview expired

	srv := redistest.Start(t, false)
	rs, err := stateredis.Open(srv.URL(), stateredis.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	n, err := state.Migrate(ctx, file, rs)
	if err != nil {
		t.Fatal(err)
	}
	if n != 603 {
		t.Fatalf("migrated %d entries, want 603", n)
	}
	want, got := export(t, file), export(t, rs)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Redis differs from the state file (-file +redis):\n%s", diff)
	}
	statetest.MustCheck(t, rs)
	if _, err := state.Migrate(ctx, file, rs); !errors.Is(err, state.ErrConflict) {
		t.Fatalf("second migration: %v, want ErrConflict", err)
	}
	// The migrated session still expires on time.
	clock.Advance(58*time.Minute + time.Second)
	err = rs.View(ctx, func(tx state.Tx) error { _, err := tx.Get(state.Sessions, "s1"); return err })
	if !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("session after its expiry: %v", err)
	}
}
