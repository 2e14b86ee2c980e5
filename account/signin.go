package account

import (
	"context"
	"errors"
	"math"
	"sync"
	"time"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
)

// Throttle are the sign-in limits: token buckets of failed attempts, one per
// account (by email, known or not) and one per client address. A failure
// takes a token from both; an attempt finding either empty is refused before
// its password is checked. The address limit is the tighter one, so that one
// attacker's address is stopped long before the account's own budget runs
// out and its owner, elsewhere, still signs in; only attempts from many
// addresses at once can exhaust the account's budget.
type Throttle struct {
	AddrBurst    int           // failures an address may make at once; 0: 10
	AddrEvery    time.Duration // one more failure allowed per; 0: 1 minute
	AccountBurst int           // failures one account may take at once; 0: 50
	AccountEvery time.Duration // one more per; 0: 20 seconds
}

// DefaultThrottle is the throttle of a zero Options.Throttle.
var DefaultThrottle = Throttle{AddrBurst: 10, AddrEvery: time.Minute, AccountBurst: 50, AccountEvery: 20 * time.Second}

func (t Throttle) withDefaults() Throttle {
	if t.AddrBurst <= 0 {
		t.AddrBurst = DefaultThrottle.AddrBurst
	}
	if t.AddrEvery <= 0 {
		t.AddrEvery = DefaultThrottle.AddrEvery
	}
	if t.AccountBurst <= 0 {
		t.AccountBurst = DefaultThrottle.AccountBurst
	}
	if t.AccountEvery <= 0 {
		t.AccountEvery = DefaultThrottle.AccountEvery
	}
	return t
}

// throttle holds the buckets, in memory (per process: replicas each keep
// their own, so a fleet of n allows n times the attempts).
type throttle struct {
	cfg       Throttle
	mu        sync.Mutex
	addrs     map[string]*failBucket
	accounts  map[string]*failBucket
	lastSweep time.Time
}

// failBucket counts failures as a token bucket: tokens is what is left at
// last.
type failBucket struct {
	tokens float64
	last   time.Time
}

func newThrottle(cfg Throttle) *throttle {
	return &throttle{cfg: cfg, addrs: map[string]*failBucket{}, accounts: map[string]*failBucket{}}
}

func (b *failBucket) level(now time.Time, burst int, every time.Duration) float64 {
	return math.Min(float64(burst), b.tokens+float64(now.Sub(b.last))/float64(every))
}

// wait returns how long before a bucket has a token again (0: now).
func wait(m map[string]*failBucket, key string, now time.Time, burst int, every time.Duration) time.Duration {
	b := m[key]
	if b == nil {
		return 0
	}
	l := b.level(now, burst, every)
	if l >= 1 {
		return 0
	}
	return time.Duration((1 - l) * float64(every))
}

// check returns how long the attempt of email from addr must wait (0: go).
func (t *throttle) check(email, addr string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	return max(wait(t.addrs, addr, now, t.cfg.AddrBurst, t.cfg.AddrEvery),
		wait(t.accounts, email, now, t.cfg.AccountBurst, t.cfg.AccountEvery))
}

// fail takes a token from both buckets.
func (t *throttle) fail(email, addr string, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	take := func(m map[string]*failBucket, key string, burst int, every time.Duration) {
		b := m[key]
		if b == nil {
			b = &failBucket{tokens: float64(burst), last: now}
			m[key] = b
		}
		b.tokens, b.last = math.Max(0, b.level(now, burst, every)-1), now
	}
	take(t.addrs, addr, t.cfg.AddrBurst, t.cfg.AddrEvery)
	take(t.accounts, email, t.cfg.AccountBurst, t.cfg.AccountEvery)
	if now.Sub(t.lastSweep) > time.Minute { // drop full buckets: the maps hold recent failures only
		t.lastSweep = now
		sweep := func(m map[string]*failBucket, burst int, every time.Duration) {
			for k, b := range m {
				if b.level(now, burst, every) >= float64(burst) {
					delete(m, k)
				}
			}
		}
		sweep(t.addrs, t.cfg.AddrBurst, t.cfg.AddrEvery)
		sweep(t.accounts, t.cfg.AccountBurst, t.cfg.AccountEvery)
	}
}

// throttled is the error of a refused attempt.
func throttled(d time.Duration) error {
	s := int(math.Ceil(d.Seconds()))
	return &ThrottleError{RetryAfter: s, err: apperr.Errorf(apperr.EQUOTA,
		"too many failed sign-in attempts; try again in %d seconds", s)}
}

// ThrottleError is the EQUOTA error of a throttled sign-in, with the seconds
// to wait.
type ThrottleError struct {
	RetryAfter int
	err        error
}

func (e *ThrottleError) Error() string { return e.err.Error() }
func (e *ThrottleError) Unwrap() error { return e.err }

// errSignIn is the one answer to a wrong email or password, whichever it is.
var errSignIn = apperr.Errorf(apperr.EUNAUTHORIZED, "the email or the password is not right")

// SignIn checks email and password and starts a session: it returns the new
// session's id (for the cookie), never one the client had. An unknown email
// and a wrong password get the same answer (EUNAUTHORIZED) after the same
// work (a hash with the same parameters); attempts are throttled per email
// and per client address (a *ThrottleError, EQUOTA); a disabled account is
// EFORBIDDEN once its password is right. A password hashed with weaker
// parameters than Options.Hash is rehashed.
func (s *Service) SignIn(ctx context.Context, email, password string, by Client) (string, Account, error) {
	e, err := NormalizeEmail(email)
	if err != nil {
		return "", Account{}, err
	}
	if wait := s.throttle.check(e, by.Addr, s.now()); wait > 0 {
		return "", Account{}, throttled(wait)
	}
	var a Account
	err = s.st.View(ctx, func(tx state.Tx) error {
		id, err := emails.Get(tx, e)
		if err != nil {
			return err
		}
		a, err = getAccount(tx, id)
		return err
	})
	found := err == nil
	if err != nil && !errors.Is(err, state.ErrNotFound) && apperr.ErrorCode(err) != apperr.ENOTFOUND {
		return "", Account{}, err
	}
	hctx, cancel := context.WithTimeout(ctx, s.opts.HashWait)
	ok, rehash, err := s.verify(hctx, password, a.Password)
	cancel()
	if err != nil {
		return "", Account{}, err
	}
	if !found || !ok {
		s.throttle.fail(e, by.Addr, s.now())
		if found {
			s.auditLater(a.ID, Event{What: EventSignInFailed, Addr: by.Addr})
		}
		return "", Account{}, errSignIn
	}
	if a.Disabled {
		return "", Account{}, apperr.Errorf(apperr.EFORBIDDEN, "this account is disabled; ask the operator of this service")
	}
	var phc string
	if rehash {
		hctx, cancel := context.WithTimeout(ctx, s.opts.HashWait)
		phc, err = s.hash(hctx, password)
		cancel()
		if err != nil {
			return "", Account{}, err
		}
	}
	id, err := newToken()
	if err != nil {
		return "", Account{}, err
	}
	csrf, err := newToken()
	if err != nil {
		return "", Account{}, err
	}
	err = s.st.Update(ctx, func(tx state.Tx) error {
		cur, err := getAccount(tx, a.ID)
		if err != nil {
			return err
		}
		if phc != "" && cur.Password == a.Password {
			cur.Password = phc
			if err := accounts.Put(tx, a.ID, cur, 0); err != nil {
				return err
			}
		}
		if err := s.newSession(tx, id, csrf, cur, by.Addr); err != nil {
			return err
		}
		a = cur
		return s.audit(tx, a.ID, Event{What: EventSignedIn, Addr: by.Addr})
	})
	if err != nil {
		return "", Account{}, err
	}
	return id, a, nil
}
