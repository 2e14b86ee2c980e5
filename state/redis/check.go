package redis

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/state"
	goredis "github.com/redis/go-redis/v9"
)

// Check reads every key below the prefix (SCAN) and verifies the layout: the
// format marker; only data keys of declared buckets, their indexes and the
// expiry set; every data key a hash of its bucket's kind (a record's value
// JSON, a counter an integer), listed in its bucket's index, and in the
// expiry set with its expiry when it expires. It returns ErrCorrupt or
// ErrFormat naming the first problem, state.ErrUnavailable when Redis does
// not answer.
func (s *Store) Check(ctx context.Context) error {
	f, err := s.c.Get(ctx, s.prefix+formatKey).Result()
	if err == goredis.Nil {
		return fmt.Errorf("%w: %s: no format marker", ErrCorrupt, s.prefix)
	}
	if err != nil {
		return s.wrap("check", err)
	}
	if f != formatCurrent {
		return fmt.Errorf("%w: %s: format %q, want %q", ErrFormat, s.prefix, f, formatCurrent)
	}
	var cursor uint64
	for {
		keys, next, err := s.c.Scan(ctx, cursor, escapeGlob(s.prefix)+"*", 1000).Result()
		if err != nil {
			return s.wrap("check", err)
		}
		if err := s.checkKeys(ctx, keys); err != nil {
			return err
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}

// checkKeys checks one SCAN batch.
func (s *Store) checkKeys(ctx context.Context, keys []string) error {
	type dataKey struct {
		b   state.Bucket
		key string
		k   string
	}
	var data []dataKey
	for _, k := range keys {
		rest := strings.TrimPrefix(k, s.prefix)
		switch {
		case rest == formatKey:
		case rest == "x":
			if err := s.checkType(ctx, k, "zset"); err != nil {
				return err
			}
		case strings.HasPrefix(rest, "i:"):
			if state.Bucket(rest[2:]).Kind() == state.KindNone {
				return fmt.Errorf("%w: %q: the index of an unknown bucket", ErrCorrupt, k)
			}
			if err := s.checkType(ctx, k, "zset"); err != nil {
				return err
			}
		case strings.HasPrefix(rest, "d:"):
			b, key, ok := strings.Cut(rest[2:], ":")
			if !ok || state.Bucket(b).Kind() == state.KindNone || key == "" || len(key) > state.MaxKeyLen {
				return fmt.Errorf("%w: %q: not a key of a declared bucket", ErrCorrupt, k)
			}
			data = append(data, dataKey{state.Bucket(b), key, k})
		default:
			return fmt.Errorf("%w: %q: not a key of the store's layout", ErrCorrupt, k)
		}
	}
	if len(data) == 0 {
		return nil
	}
	cmds, err := s.c.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for _, d := range data {
			p.HGetAll(ctx, d.k)
			p.ZScore(ctx, s.indexKey(d.b), d.key)
			p.ZScore(ctx, s.expiryKey(), d.k)
		}
		return nil
	})
	if err != nil && err != goredis.Nil {
		if strings.HasPrefix(err.Error(), "WRONGTYPE") {
			return fmt.Errorf("%w: a data key is not a hash: %v", ErrCorrupt, err)
		}
		return s.wrap("check", err)
	}
	for i, d := range data {
		h, err := cmds[3*i].(*goredis.MapStringStringCmd).Result()
		if err != nil {
			return corrupt(d.b, d.key, err.Error())
		}
		if len(h) == 0 {
			continue // expired by Redis since the SCAN
		}
		e, err := strconv.ParseInt(h["e"], 10, 64)
		if err != nil || e < 0 {
			return corrupt(d.b, d.key, "no valid expiry field")
		}
		switch d.b.Kind() {
		case state.KindRecords:
			v, ok := h["v"]
			if !ok || len(h) != 2 {
				return corrupt(d.b, d.key, "not a record {v, e}")
			}
			if !json.Valid([]byte(v)) {
				return corrupt(d.b, d.key, "not JSON")
			}
		case state.KindCounters:
			n, ok := h["n"]
			if _, err := strconv.ParseInt(n, 10, 64); !ok || err != nil || len(h) != 2 {
				return corrupt(d.b, d.key, "not a counter {n, e}")
			}
		}
		if _, err := cmds[3*i+1].(*goredis.FloatCmd).Result(); err != nil {
			return corrupt(d.b, d.key, "not in its bucket's index")
		}
		score, err := cmds[3*i+2].(*goredis.FloatCmd).Result()
		if e > 0 && (err != nil || int64(score) != e) {
			return corrupt(d.b, d.key, "expires but is not in the expiry set with its expiry")
		}
		if e == 0 && err == nil {
			return corrupt(d.b, d.key, "does not expire but is in the expiry set")
		}
	}
	return nil
}

func (s *Store) checkType(ctx context.Context, k, want string) error {
	got, err := s.c.Type(ctx, k).Result()
	if err != nil {
		return s.wrap("check", err)
	}
	if got != want && got != "none" {
		return fmt.Errorf("%w: %q is a %s, want a %s", ErrCorrupt, k, got, want)
	}
	return nil
}

// escapeGlob escapes the glob characters of SCAN MATCH in s.
func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
