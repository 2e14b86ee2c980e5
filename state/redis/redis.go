package redis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cardedge/cardedge/state"
	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Options configure a Store. Every zero value has a documented default.
type Options struct {
	// Prefix prefixes every Redis key of the store; empty means
	// "cardedge:state:". Two deployments sharing one Redis use two prefixes.
	Prefix string
	// Now is the clock of record expiry; nil means time.Now.
	Now func() time.Time
	// Timeout bounds dialing and each read and write on a connection; zero
	// means 1 s. A context deadline that comes sooner wins. A Redis that
	// does not answer in time is state.ErrUnavailable.
	Timeout time.Duration
	// Attempts is how many times Update runs its function when concurrent
	// writers change what it read; zero means 10. Beyond it, ErrConflict.
	Attempts int
}

// Store is a state.Store in Redis, shared by every replica of a fleet. See
// the package doc for the layout.
type Store struct {
	c        *goredis.Client
	own      bool // Close closes c
	prefix   string
	now      func() time.Time
	attempts int
}

var _ state.Store = (*Store)(nil)

// formatKey holds the store's format; formatCurrent is this package's.
const (
	formatKey     = "format"
	formatCurrent = "1"
)

// Open connects to the Redis at url (redis://[user:password@]host:port/db,
// rediss:// for TLS, unix:// for a socket) and returns its store, after
// checking (or, on an empty Redis, writing) the store's format marker. A
// Redis that does not answer is state.ErrUnavailable; data of another
// format, ErrFormat.
func Open(url string, o Options) (*Store, error) {
	opt, err := goredis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("state/redis: %w", err)
	}
	if o.Timeout <= 0 {
		o.Timeout = time.Second
	}
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout, opt.PoolTimeout = o.Timeout, o.Timeout, o.Timeout, o.Timeout
	opt.MaxRetries = 1
	opt.DialerRetries = 1 // a Redis that is down fails fast: callers keep what they hold
	opt.DisableIdentity = true
	opt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	s := New(goredis.NewClient(opt), o)
	s.own = true
	if err := s.init(context.Background(), o.Timeout); err != nil {
		s.c.Close()
		return nil, err
	}
	return s, nil
}

// New returns the store over client c (which the caller closes), without
// checking the format marker (Check does).
func New(c *goredis.Client, o Options) *Store {
	if o.Prefix == "" {
		o.Prefix = "cardedge:state:"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Attempts <= 0 {
		o.Attempts = 10
	}
	return &Store{c: c, prefix: o.Prefix, now: o.Now, attempts: o.Attempts}
}

// init checks the format marker, writing it on an empty store.
func (s *Store) init(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, 4*timeout)
	defer cancel()
	if err := s.c.SetNX(ctx, s.prefix+formatKey, formatCurrent, 0).Err(); err != nil {
		return s.wrap("open", err)
	}
	f, err := s.c.Get(ctx, s.prefix+formatKey).Result()
	if err != nil {
		return s.wrap("open", err)
	}
	if f != formatCurrent {
		return fmt.Errorf("%w: %s: format %q, want %q", ErrFormat, s.prefix, f, formatCurrent)
	}
	return nil
}

// Client returns the Redis client of the store.
func (s *Store) Client() *goredis.Client { return s.c }

// Prefix returns the prefix of the store's keys.
func (s *Store) Prefix() string { return s.prefix }

// Close closes the client when Open made it.
func (s *Store) Close() error {
	if s.own {
		return s.c.Close()
	}
	return nil
}

// Errors of the store, each also the state sentinel of its kind.
var (
	// ErrFormat means the prefix holds data of another format (a newer
	// version of this package). It is state.ErrFormat.
	ErrFormat = fmt.Errorf("state/redis: %w", state.ErrFormat)
	// ErrCorrupt means a key under the prefix is not what the layout says.
	// It is state.ErrCorrupt.
	ErrCorrupt = fmt.Errorf("state/redis: %w", state.ErrCorrupt)
)

// wrap turns a client error into the store's: a Redis that does not answer
// (a network error, a timeout, a closed client, a loading or read-only
// server) is state.ErrUnavailable; a value of the wrong type, ErrCorrupt; a
// context canceled by the caller stays what it is.
func (s *Store) wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	var rerr goredis.Error
	if errors.As(err, &rerr) && !transient(rerr.Error()) {
		if strings.HasPrefix(rerr.Error(), "WRONGTYPE") {
			return fmt.Errorf("%w: %s: %v", ErrCorrupt, what, err)
		}
		return fmt.Errorf("state/redis: %s: %w", what, err)
	}
	return fmt.Errorf("state/redis: %s: %w: %v", what, state.ErrUnavailable, err)
}

// transient reports whether a Redis error reply means the server cannot
// serve now (loading its data, a replica that is read-only, out of memory,
// a script timeout).
func transient(msg string) bool {
	for _, p := range []string{"LOADING", "READONLY", "MASTERDOWN", "BUSY", "OOM", "TRYAGAIN", "CLUSTERDOWN"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// Keys of the layout.
func (s *Store) dataKey(b state.Bucket, key string) string {
	return s.prefix + "d:" + string(b) + ":" + key
}
func (s *Store) indexKey(b state.Bucket) string { return s.prefix + "i:" + string(b) }
func (s *Store) expiryKey() string              { return s.prefix + "x" }

// nowMs is the store's clock in Unix milliseconds.
func (s *Store) nowMs() int64 { return s.now().UnixMilli() }

// View runs fn on plain reads (no transaction: each read sees the latest
// value).
func (s *Store) View(ctx context.Context, fn func(state.Tx) error) error {
	t := &tx{s: s, ctx: ctx, now: s.nowMs()}
	return t.run(fn)
}

// Update runs fn in an optimistic transaction: every record fn reads is
// WATCHed first; its writes are buffered (fn reads its own) and committed in
// one MULTI/EXEC (one script, so all or nothing); when a watched record
// changed meanwhile, fn runs again, up to Attempts times, then ErrConflict.
// After a commit, it sweeps records that expired.
func (s *Store) Update(ctx context.Context, fn func(state.Tx) error) error {
	if fn == nil {
		return errors.New("state/redis: Update with a nil function")
	}
	for range s.attempts {
		var fnErr error
		var wrote bool
		err := s.c.Watch(ctx, func(rt *goredis.Tx) error {
			t := &tx{s: s, ctx: ctx, rt: rt, now: s.nowMs(), writable: true}
			if err := t.run(fn); err != nil {
				fnErr = err
				return nil
			}
			if len(t.ops) == 0 {
				return nil
			}
			keys, args := t.commitArgs()
			_, err := rt.TxPipelined(ctx, func(p goredis.Pipeliner) error {
				p.Eval(ctx, commitScript, keys, args...)
				return nil
			})
			wrote = err == nil
			return err
		})
		if fnErr != nil {
			return fnErr
		}
		if errors.Is(err, goredis.TxFailedErr) {
			continue
		}
		if err != nil {
			return s.wrap("commit", err)
		}
		if wrote {
			s.sweep(ctx)
		}
		return nil
	}
	return fmt.Errorf("state/redis: %w: %d attempts lost to concurrent writers", state.ErrConflict, s.attempts)
}

// sweepMax bounds the expired records one sweep deletes.
const sweepMax = 200

// sweep deletes records and counters that expired by the store's clock
// (best effort: a failure leaves them for the next one; reads skip them).
func (s *Store) sweep(ctx context.Context) {
	s.c.Eval(ctx, sweepScript, []string{s.expiryKey()}, s.nowMs(), sweepMax, s.prefix)
}
