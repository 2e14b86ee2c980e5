package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"log/slog"
	"os"
	"sync"

	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	stateredis "github.com/cardedge/cardedge/state/redis"
	"github.com/redis/go-redis/v9"
)

// redisLogOnce sets go-redis's global logger once per process.
var redisLogOnce sync.Once

// quietRedis routes go-redis's own messages to log (at debug level).
func quietRedis(log *slog.Logger) { redisLogOnce.Do(func() { redis.SetLogger(redisLogger{log}) }) }

// storeFlags choose a command's state store: --state FILE (the state file
// of one node) or --redis URL (the shared store of a fleet).
type storeFlags struct {
	path, redis string
}

func (f *storeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.path, "state", "", "state file (one node; or --redis)")
	fs.StringVar(&f.redis, "redis", "", "redis://host:port/db: the state store of a fleet (in place of --state)")
}

// check says what is wrong with the flags of command cmd.
func (f storeFlags) check(cmd string) error {
	switch {
	case f.path == "" && f.redis == "":
		return fmt.Errorf("%s: --state FILE or --redis URL is required", cmd)
	case f.path != "" && f.redis != "":
		return fmt.Errorf("%s: --state and --redis are exclusive (cardedge state migrate moves a state file into Redis)", cmd)
	}
	return nil
}

// empty reports whether the store does not exist yet (a state file not
// created), so that a listing need not create it.
func (f storeFlags) empty() bool {
	if f.path == "" {
		return false
	}
	_, err := os.Stat(f.path)
	return errors.Is(err, iofs.ErrNotExist)
}

// open opens the store (a state file is created when missing).
func (f storeFlags) open() (state.Store, error) {
	if f.redis != "" {
		quietRedis(slog.New(slog.DiscardHandler)) // the command reports a failure itself
		return stateredis.Open(f.redis, stateredis.Options{})
	}
	return statebolt.Open(f.path, statebolt.Options{})
}

// openServeStore opens serve's state store and the access layer's shared
// quota counters (nil: counted in memory), over one Redis client:
//
//   - --redis URL alone: everything in Redis (accounts, sessions, keys,
//     usage, previews, collections, cohorts, server secrets) and the quota
//     counters and rate buckets too: any replica serves any user;
//   - --state FILE alone: the state file, counters in memory;
//   - both: the state file, and only the quota counters and rate buckets
//     shared in Redis (replicas that each keep a copy of the state file:
//     the mode before the shared store).
//
// The store is checked (every record decodes) before it is used.
//
// Close the counters (when not nil) before the store.
func openServeStore(ctx context.Context, cfg ServeConfig) (st state.Store, counters *stateredis.Counter, err error) {
	switch {
	case cfg.State == "" && cfg.Redis == "":
		return nil, nil, errors.New("--state FILE or --redis URL is required")
	case cfg.State == "":
		rs, err := stateredis.Open(cfg.Redis, stateredis.Options{})
		if err != nil {
			return nil, nil, err
		}
		if err := rs.Check(ctx); err != nil {
			rs.Close()
			return nil, nil, err
		}
		return rs, rs.Counter(stateredis.CounterOptions{}), nil
	}
	bs, err := openState(ctx, cfg.State)
	if err != nil {
		return nil, nil, err
	}
	if cfg.Redis == "" {
		return bs, nil, nil
	}
	if counters, err = stateredis.OpenCounter(cfg.Redis, stateredis.CounterOptions{}); err != nil {
		bs.Close()
		return nil, nil, err
	}
	return bs, counters, nil
}

// redisLogger sends go-redis's own messages (a pool that cannot dial, every
// time it tries) to the server's log at debug level: the store and the
// access layer report Redis being down once, as a warning, themselves.
type redisLogger struct{ log *slog.Logger }

func (l redisLogger) Printf(ctx context.Context, format string, v ...any) {
	l.log.Debug("redis: " + fmt.Sprintf(format, v...))
}
