package redis

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cardedge/cardedge/state"
	goredis "github.com/redis/go-redis/v9"
)

var (
	_ state.Exporter = (*Store)(nil)
	_ state.Importer = (*Store)(nil)
)

// Export implements state.Exporter: every live record and counter, bucket
// by bucket, keys in order (plain reads: stop writers first for a
// consistent copy).
func (s *Store) Export(ctx context.Context, fn func(state.Entry) error) error {
	t := &tx{s: s, ctx: ctx, now: s.nowMs()}
	for _, b := range state.Buckets {
		err := t.scan(b, state.ScanOptions{}, func(key string, d decoded) error {
			e := state.Entry{Bucket: b, Key: key}
			if d.e != 0 {
				e.Expires = time.UnixMilli(d.e)
			}
			if d.record {
				e.Value = []byte(d.v)
			} else {
				e.N = d.n
			}
			return fn(e)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Import implements state.Importer: one MULTI/EXEC holding every entry,
// into a prefix that holds no data yet. Expiries keep their instant (to the
// millisecond).
func (s *Store) Import(ctx context.Context, entries []state.Entry) error {
	for cursor := uint64(0); ; {
		keys, next, err := s.c.Scan(ctx, cursor, escapeGlob(s.prefix)+"[dix]*", 1000).Result()
		if err != nil {
			return s.wrap("import", err)
		}
		if len(keys) > 0 {
			return fmt.Errorf("state/redis: import: %w: %s holds data already (%s)", state.ErrConflict, s.prefix, strings.TrimPrefix(keys[0], s.prefix))
		}
		if cursor = next; cursor == 0 {
			break
		}
	}
	now := s.nowMs()
	for _, e := range entries {
		want := state.KindRecords
		if e.Value == nil {
			want = state.KindCounters
		}
		if err := checkKey(e.Bucket, want, e.Key); err != nil {
			return fmt.Errorf("state/redis: import: %w", err)
		}
	}
	_, err := s.c.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		for _, e := range entries {
			var exp int64
			if !e.Expires.IsZero() {
				if exp = e.Expires.UnixMilli(); exp <= now {
					continue
				}
			}
			k := s.dataKey(e.Bucket, e.Key)
			if e.Value != nil {
				p.HSet(ctx, k, "v", e.Value, "e", exp)
			} else {
				p.HSet(ctx, k, "n", e.N, "e", exp)
			}
			p.ZAdd(ctx, s.indexKey(e.Bucket), goredis.Z{Member: e.Key})
			if exp != 0 {
				p.PExpire(ctx, k, time.Duration(exp-now)*time.Millisecond+backstopGrace)
				p.ZAdd(ctx, s.expiryKey(), goredis.Z{Score: float64(exp), Member: k})
			}
		}
		return nil
	})
	return s.wrap("import", err)
}
