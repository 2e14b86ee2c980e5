package access

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
)

// Options configure a Service. Every zero value has a documented default.
type Options struct {
	// State is the state store holding the keys and the daily usage
	// (required). Open reads it; the sync writes it once a second.
	State state.Store
	// Counter, when set, shares the day counters and token buckets with the
	// other replicas of a fleet (state/redis's Counter); nil means local
	// counting only. The Service does not close it.
	Counter Counter
	// SendInterval is, with a Counter, how long the calls this replica
	// answered on its own (within the bound of doc.go, "Several replicas")
	// wait at most before they are sent to the Counter, in one round trip
	// for every key; zero means 1 s. Negative turns local admission off:
	// every charge of a metered key then waits for the Counter's answer.
	SendInterval time.Duration
	// Now is the wall clock (quota days and token buckets); nil means
	// time.Now.
	Now func() time.Time
	// Logger receives state and Redis problems; nil means discard.
	Logger *slog.Logger
	// SyncInterval is the period of the background sync (flush usage, reload
	// keys, probe Redis); zero means 1s, negative disables the background
	// loop (tests then call Sync).
	SyncInterval time.Duration
	// LockTimeout bounds how long a sync or Usage waits for the state store
	// (the state file's lock); zero means 1s. Open and Close wait five
	// times as long (5s by default); a sync that times out only delays the
	// flush.
	LockTimeout time.Duration
	// RetainDays is how many days of per-key usage the state store keeps;
	// zero means 90.
	RetainDays int
	// Chat verifies the chat-user tokens AuthenticateChat accepts (package
	// chattoken); nil refuses them (401).
	Chat ChatVerifier
	// Apps verifies the access tokens of connected apps (package oauth)
	// that AuthenticateMCP accepts; nil refuses them (401).
	Apps AppVerifier
}

// Caller is who is calling, as Authenticate found it. The zero Caller is a
// Playground caller with no address.
type Caller struct {
	// KeyID is the id usage is counted under: the key's, "" for
	// Playground, the account's for a chat-user token (see Account).
	KeyID      string
	Tier       Tier
	SQL        bool   // on the SQL allowlist
	Unmetered  bool   // no quota or rate limit
	ClientAddr string // client address, the Playground rate-limit key
	// Account is set for a chat-user token (AuthenticateChat) and a
	// connected app's token (AuthenticateMCP): the account it was minted
	// for, also its KeyID. "" for an API key.
	Account string
	// App is set for a connected app's access token; Collection says that
	// it was granted the collection scope (the chat tools).
	App, Collection bool

	st *keyState // cached state of KeyID
}

// Reason says why a charge was refused.
type Reason uint8

// Reasons of a refusal.
const (
	ReasonNone  Reason = iota
	ReasonRate         // token bucket empty: RetryAfter is the time to a token
	ReasonQuota        // daily quota spent: RetryAfter is the time to 00:00 UTC
)

// Decision is the outcome of a charge and the data of the rate-limit headers.
type Decision struct {
	Allowed    bool
	Reason     Reason
	RetryAfter int // seconds; > 0 when refused
	Tier       Tier
	Unmetered  bool

	Limit     int // daily quota; 0 for Playground
	Remaining int // daily quota left after this charge
	Reset     int // seconds to the next 00:00 UTC

	RateRemaining int // whole tokens left in the bucket
	RateReset     int // seconds until the bucket is full again
}

// Service is the access layer: it authenticates callers, charges them against
// rate limits and quotas, and accounts usage. Its methods are safe for
// concurrent use.
type Service struct {
	opts  Options
	now   func() time.Time
	log   *slog.Logger
	store state.Store

	keys     atomic.Pointer[keyTable]
	statesMu sync.Mutex
	states   map[string]*keyState
	keysRev  int64 // state.MetaKeysRev of the table installed; guarded by syncMu

	addrs [numAddrShards]addrShard

	shared *shared // nil without Options.Counter
	sendOn bool    // shared's sendLoop runs

	syncMu    sync.Mutex
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

type keyTable struct {
	gen    uint64 // KeyTableGen: 1 for the first table, +1 per install
	byHash map[[sha256.Size]byte]*keyEntry
	byID   map[string]*keyEntry
}

type keyEntry struct {
	key  Key
	hash [sha256.Size]byte
	st   *keyState
}

// Open loads the key table and today's usage from the state store, connects
// to Redis when configured, and starts the background sync. It fails with the
// store's error (state.ErrUnavailable, state.ErrCorrupt naming a key record
// that does not decode) rather than start with an empty table. An unreachable
// Redis is not an error: the service counts locally until Redis answers.
func Open(opts Options) (*Service, error) {
	if opts.State == nil {
		return nil, errors.New("access: Options.State is required")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.SyncInterval == 0 {
		opts.SyncInterval = time.Second
	}
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = time.Second
	}
	if opts.RetainDays <= 0 {
		opts.RetainDays = 90
	}
	s := &Service{
		opts:   opts,
		now:    opts.Now,
		log:    opts.Logger,
		store:  opts.State,
		states: map[string]*keyState{},
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	for i := range s.addrs {
		s.addrs[i].m = map[string]*bucket{}
	}
	s.keys.Store(&keyTable{byHash: map[[sha256.Size]byte]*keyEntry{}, byID: map[string]*keyEntry{}})

	ctx, cancel := context.WithTimeout(context.Background(), 5*opts.LockTimeout)
	defer cancel()
	if err := s.load(ctx); err != nil {
		return nil, err
	}
	if opts.SendInterval == 0 {
		opts.SendInterval = defaultSendInterval
		s.opts.SendInterval = opts.SendInterval
	}
	if opts.Counter != nil {
		s.shared = newShared(opts.Counter, s.log, opts.Now, opts.SendInterval > 0)
		if s.shared.local {
			s.sendOn = true
			go s.shared.sendLoop(opts.SendInterval, s.stop)
		}
	}
	if opts.SyncInterval > 0 {
		go s.loop()
	} else {
		close(s.done)
	}
	return s, nil
}

// load reads the key table and today's counts.
func (s *Service) load(ctx context.Context) error {
	today := dayOf(s.now())
	var recs []keyRecord
	var rev int64
	totals := map[string]int64{}
	err := s.store.View(ctx, func(tx state.Tx) error {
		var err error
		if rev, err = tx.Count(state.Meta, state.MetaKeysRev); err != nil { // before the keys: a change in between reloads them at the next sync
			return err
		}
		if recs, err = readKeys(tx); err != nil {
			return err
		}
		for _, r := range recs {
			if totals[r.ID], err = tx.Count(state.Usage, usageKey(r.ID, today)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.install(recs)
	s.keysRev = rev
	for id, n := range totals {
		ks := s.states[id]
		ks.day, ks.used, ks.floor = today, n, n
	}
	return nil
}

// install builds a key table from recs, keeping each key's state.
func (s *Service) install(recs []keyRecord) {
	var gen uint64 = 1
	if old := s.keys.Load(); old != nil {
		gen = old.gen + 1
	}
	t := &keyTable{
		gen:    gen,
		byHash: make(map[[sha256.Size]byte]*keyEntry, len(recs)),
		byID:   make(map[string]*keyEntry, len(recs)),
	}
	s.statesMu.Lock()
	for _, r := range recs {
		h, _ := r.hash() // checked by readKeys
		st := s.states[r.ID]
		if st == nil {
			st = &keyState{id: r.ID}
			s.states[r.ID] = st
		}
		var exp int64
		if !r.Expires.IsZero() {
			exp = r.Expires.UnixNano()
		}
		st.exp.Store(exp)
		e := &keyEntry{key: r.Key, hash: h, st: st}
		t.byHash[h] = e
		t.byID[r.ID] = e
	}
	s.statesMu.Unlock()
	s.keys.Store(t)
}

// Authenticate turns an Authorization header value into a Caller. An empty
// value (no header) is a Playground caller: the edge decides whether the route
// is keyless. Otherwise the value must be "Bearer <key>" (scheme in any case,
// one space, a key without whitespace) naming an active key; anything else is
// an EUNAUTHORIZED *apperr.Error whose message says what is wrong.
//
// clientAddr is kept in the Caller (Playground rate limits are per address);
// it must be a real string, not one aliasing a request buffer. Authenticate
// does not allocate for a valid key.
func (s *Service) Authenticate(authorization []byte, clientAddr string) (Caller, error) {
	if len(authorization) == 0 {
		return Caller{Tier: Playground, ClientAddr: clientAddr}, nil
	}
	tok, msg := parseBearer(authorization)
	if msg != "" {
		return Caller{}, unauthorized(msg)
	}
	return s.authenticate(tok, clientAddr)
}

// AuthenticateKey is Authenticate for a key given as it is, as
// pokemontcg.io's SDKs send it in X-Api-Key (the edge's /v2): an empty key
// is a Playground caller, one that is not a well-formed cardedge key or an
// active key's EUNAUTHORIZED.
func (s *Service) AuthenticateKey(key []byte, clientAddr string) (Caller, error) {
	if len(key) == 0 {
		return Caller{Tier: Playground, ClientAddr: clientAddr}, nil
	}
	if !wellFormed(key) {
		return Caller{}, unauthorized("invalid X-Api-Key: not a cardedge key (ce_<tier>_<secret>)")
	}
	return s.authenticate(key, clientAddr)
}

// authenticate returns the Caller of a well-formed key secret.
func (s *Service) authenticate(tok []byte, clientAddr string) (Caller, error) {
	h := hashSecret(tok)
	e := s.keys.Load().byHash[h]
	if e == nil || subtle.ConstantTimeCompare(h[:], e.hash[:]) != 1 {
		return Caller{}, unauthorized(msgUnknown)
	}
	if !e.key.Active() || e.key.Suspended {
		s.refuse(e.st, Refused401, s.now())
		if e.key.Suspended && e.key.Active() {
			return Caller{}, unauthorized(msgSuspended)
		}
		return Caller{}, unauthorized(msgRevoked)
	}
	if exp := e.st.exp.Load(); exp != 0 { // a clock read only for keys that expire
		if now := s.now(); now.UnixNano() >= exp {
			s.refuse(e.st, Refused401, now)
			return Caller{}, expired(exp, e.key.RolledTo != "")
		}
	}
	k := &e.key
	return Caller{KeyID: k.ID, Tier: k.Tier, SQL: k.SQL, Unmetered: k.Unmetered, ClientAddr: clientAddr, st: e.st}, nil
}

// KeyTableGen identifies the key table Authenticate reads: it changes
// whenever the table is reloaded (a key created, revoked or changed), so a
// Caller authenticated while the generation was g is still what Authenticate
// would answer while KeyTableGen returns g. The edge's front-door memo uses it
// to skip authenticating a request it has seen.
func (s *Service) KeyTableGen() uint64 { return s.keys.Load().gen }

// SharedUp reports whether shared counters are configured and answering
// (their circuit breaker is closed), for health checks. Without
// Options.Counter it is false.
func (s *Service) SharedUp() bool { return s.shared != nil && s.shared.up() }

// Key returns the record of key id as the running service knows it.
func (s *Service) Key(id string) (Key, bool) {
	e := s.keys.Load().byID[id]
	if e == nil {
		return Key{}, false
	}
	return e.key, true
}

var (
	quotaMsgs [numTiers]string
	rateMsgs  [numTiers]string
)

func init() {
	for t := Playground; t < numTiers; t++ {
		l := LimitsOf(t)
		quotaMsgs[t] = fmt.Sprintf("daily quota of %d exhausted for the %s tier; it resets at 00:00 UTC (see Retry-After)", l.DailyQuota, t)
		rateMsgs[t] = fmt.Sprintf("rate limit of %s requests per second exceeded for the %s tier (see Retry-After)",
			strconv.FormatFloat(l.RatePerSec, 'f', -1, 64), t)
	}
}

// Charge spends units of caller c's allowance: every request costs 1, a batch
// (REST or MCP) its number of unique resolved ids; units below 1 count as 1.
// A request takes one token of the rate bucket whatever its units.
//
// Playground callers are limited by rate per ClientAddr and are not counted.
// Unmetered keys are counted but never refused. When refused, Charge returns
// the Decision (with RetryAfter) and an EQUOTA *apperr.Error; a refused
// charge spends nothing. It returns EUNAUTHORIZED for a KeyID the service does
// not know. Charge never fails because of Redis: it then counts locally.
//
// In steady state Charge does not allocate (without Redis) and takes one
// per-key mutex, or one sharded mutex for Playground.
func (s *Service) Charge(c Caller, units int) (Decision, error) {
	if units < 1 {
		units = 1
	}
	now := s.now()
	nowNs := now.UnixNano()
	if c.KeyID == "" {
		return s.chargeAddr(c.ClientAddr, nowNs)
	}
	st := c.st
	if st == nil {
		e := s.keys.Load().byID[c.KeyID]
		if e == nil {
			return Decision{}, unauthorized(msgUnknown)
		}
		st = e.st
	}
	if exp := st.exp.Load(); exp != 0 && nowNs >= exp { // expired since Authenticate (the memo skips it)
		s.refuse(st, Refused401, now)
		return Decision{}, expired(exp, false)
	}
	c.Tier = tierIndex(c.Tier) // an invalid tier gets Playground's limits (no quota)
	lim := LimitsOf(c.Tier)
	today := dayOf(now)
	d := Decision{Tier: c.Tier, Limit: lim.DailyQuota, Reset: secondsToMidnight(now)}
	n := int64(units)

	if c.Unmetered {
		st.mu.Lock()
		day := st.rollover(today)
		st.used += n
		st.pend.add(day, n)
		st.last = nowNs
		used := st.used
		st.mu.Unlock()
		d.Allowed, d.Unmetered = true, true
		d.Remaining = max(0, lim.DailyQuota-int(used))
		d.RateRemaining = int(lim.Burst)
		return d, nil
	}

	owed := false
	if r := s.shared; r != nil {
		if r.up() {
			if r.local {
				a := r.admit(st, c.Tier, lim, today, nowNs, n, &d, false)
				for i := 0; a == waitSend; i++ {
					if i == maxWaits || !r.waitSend() {
						r.unwait(st)
						break
					}
					// The charge is decided after the send: at its time.
					now = s.now()
					nowNs, today = now.UnixNano(), dayOf(now)
					d.Reset = secondsToMidnight(now)
					a = r.admit(st, c.Tier, lim, today, nowNs, n, &d, true)
				}
				if a == admittedLocally {
					return d, nil
				}
			}
			res, units, calls, err := r.charge(st, today, nowNs, lim, n)
			if err == nil {
				return s.applyShared(st, c.Tier, lim, today, nowNs, n, res, d, units, calls)
			}
			r.trip(err)
			r.uncarry(st, today, units, calls)
		}
		owed = true
	}

	st.mu.Lock()
	day := st.rollover(today)
	if st.used+n > int64(lim.DailyQuota) {
		d.Remaining = max(0, lim.DailyQuota-int(st.used))
		st.bucket.refill(nowNs, lim.RatePerSec, lim.Burst)
		d.RateRemaining = int(st.bucket.tokens)
		d.RateReset = fullSeconds(st.bucket.tokens, lim.RatePerSec, lim.Burst)
		st.refused[Refused429].add(day, 1)
		st.mu.Unlock()
		return refuseQuota(d, c.Tier)
	}
	st.bucket.refill(nowNs, lim.RatePerSec, lim.Burst)
	if st.bucket.tokens < 1 {
		tokens := st.bucket.tokens
		d.Remaining = lim.DailyQuota - int(st.used)
		st.refused[Refused429].add(day, 1)
		st.mu.Unlock()
		return refuseRate(d, c.Tier, tokens, lim)
	}
	st.bucket.tokens--
	st.used += n
	st.pend.add(day, n)
	st.last = nowNs
	if owed {
		st.owed.add(day, n)
	}
	used, tokens := st.used, st.bucket.tokens
	st.mu.Unlock()

	d.Allowed = true
	d.Remaining = lim.DailyQuota - int(used)
	d.RateRemaining = int(tokens)
	d.RateReset = fullSeconds(tokens, lim.RatePerSec, lim.Burst)
	return d, nil
}

// applyShared records an exact charge's decision locally; it carried units
// and calls this replica had admitted on its own.
func (s *Service) applyShared(st *keyState, t Tier, lim Limits, today snapshots.Day, nowNs, n int64, res state.ChargeResult, d Decision, units, calls int64) (Decision, error) {
	r := s.shared
	wake := false
	st.mu.Lock()
	day := st.rollover(today)
	g := &st.grant
	if g.day == today {
		g.sent -= units
		g.sentCalls -= calls
	}
	if day == today {
		r.view(st, today, nowNs, res)
	} else {
		st.bucket = bucket{tokens: float64(res.TokensMilli) / 1000, last: nowNs}
	}
	if res.Status == state.ChargeAllowed {
		st.pend.add(day, n)
		st.last = nowNs
		if r.local {
			wake = r.wantGrant(st, t, lim, today, r.mono())
		}
	} else {
		st.refused[Refused429].add(day, 1)
	}
	used, tokens := st.used, st.bucket.tokens
	st.mu.Unlock()
	if wake {
		r.wake()
	}

	d.Remaining = max(0, lim.DailyQuota-int(used))
	d.RateRemaining = max(0, int(tokens))
	d.RateReset = fullSeconds(tokens, lim.RatePerSec, lim.Burst)
	switch res.Status {
	case state.ChargeQuota:
		return refuseQuota(d, t)
	case state.ChargeRate:
		return refuseRate(d, t, tokens, lim)
	}
	d.Allowed = true
	return d, nil
}

func refuseQuota(d Decision, t Tier) (Decision, error) {
	d.Reason, d.RetryAfter = ReasonQuota, d.Reset
	return d, &apperr.Error{Code: apperr.EQUOTA, Message: quotaMsgs[t]}
}

func refuseRate(d Decision, t Tier, tokens float64, lim Limits) (Decision, error) {
	d.Reason, d.RetryAfter = ReasonRate, waitSeconds(tokens, lim.RatePerSec)
	d.RateRemaining = 0
	d.RateReset = fullSeconds(tokens, lim.RatePerSec, lim.Burst)
	return d, &apperr.Error{Code: apperr.EQUOTA, Message: rateMsgs[t]}
}

// chargeAddr applies the Playground rate limit of one client address.
func (s *Service) chargeAddr(addr string, nowNs int64) (Decision, error) {
	lim := LimitsOf(Playground)
	d := Decision{Tier: Playground}
	sh := &s.addrs[addrHash(addr)%numAddrShards]
	sh.mu.Lock()
	b := sh.m[addr]
	if b == nil {
		b = &bucket{}
		sh.m[addr] = b
	}
	b.refill(nowNs, lim.RatePerSec, lim.Burst)
	tokens := b.tokens
	if tokens < 1 {
		sh.mu.Unlock()
		return refuseRate(d, Playground, tokens, lim)
	}
	b.tokens--
	tokens = b.tokens
	sh.mu.Unlock()
	d.Allowed = true
	d.RateRemaining = int(tokens)
	d.RateReset = fullSeconds(tokens, lim.RatePerSec, lim.Burst)
	return d, nil
}

// Usage is a key's usage, as GET /keys/usage reports it.
type Usage struct {
	KeyID string `json:"key_id"`
	Tier  Tier   `json:"tier"`
	// HistoryDays is the tier's history window; nil (JSON null) means
	// unlimited (Elite).
	HistoryDays  *int       `json:"history_days"`
	Unmetered    bool       `json:"unmetered"`
	Today        TodayUsage `json:"today"`
	RetainedDays int        `json:"retained_days"`
	// Days lists the retained days with a non-zero count, newest first, today
	// included.
	Days []DayCount `json:"days"`
}

// TodayUsage is the current UTC day's quota.
type TodayUsage struct {
	Date         string `json:"date"`
	Used         int64  `json:"used"`
	Remaining    int64  `json:"remaining"`
	Limit        int64  `json:"limit"`
	ResetSeconds int    `json:"reset_seconds"`
}

// Usage returns the usage of key keyID: the state store's per-day counts
// (every process sharing it), plus what this process has not flushed yet,
// plus, with Redis, today's shared counter when it is higher. It reads the
// state store and so may wait for it (up to LockTimeout). It returns
// ENOTFOUND for an unknown key.
func (s *Service) Usage(keyID string) (Usage, error) {
	e := s.keys.Load().byID[keyID]
	if e == nil {
		return Usage{}, apperr.Errorf(apperr.ENOTFOUND, "no key with id %q", keyID)
	}
	now := s.now()
	today := dayOf(now)
	from := today - snapshots.Day(s.opts.RetainDays) + 1
	lim := LimitsOf(e.key.Tier)

	s.syncMu.Lock() // no flush between reading pend and the file
	st := e.st
	st.mu.Lock()
	pend := append([]dayCount{st.pend.cur}, st.pend.older...)
	var live int64
	if st.day == today {
		live = st.used
	}
	st.mu.Unlock()
	var days map[snapshots.Day]int64
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.LockTimeout)
	err := s.store.View(ctx, func(tx state.Tx) (err error) {
		days, err = readDays(tx, keyID, from)
		return err
	})
	cancel()
	s.syncMu.Unlock()
	if errors.Is(err, state.ErrNotFound) { // the state file was removed: no history
		days, err = map[snapshots.Day]int64{}, nil
	}
	if err != nil {
		return Usage{}, err
	}
	for _, p := range pend {
		if p.n != 0 && p.day >= from {
			days[p.day] += p.n
		}
	}
	used := max(days[today], live)
	if s.shared != nil {
		if n, ok := s.shared.dayCount(st, today); ok && n > used {
			used = n
		}
	}
	if used > 0 {
		days[today] = used
	}

	u := Usage{
		KeyID:        keyID,
		Tier:         e.key.Tier,
		Unmetered:    e.key.Unmetered,
		RetainedDays: s.opts.RetainDays,
		Today: TodayUsage{
			Date:         today.String(),
			Used:         used,
			Remaining:    max(0, int64(lim.DailyQuota)-used),
			Limit:        int64(lim.DailyQuota),
			ResetSeconds: secondsToMidnight(now),
		},
		Days: []DayCount{},
	}
	if h := lim.HistoryDays; h > 0 {
		u.HistoryDays = &h
	}
	for d, n := range days {
		if n != 0 {
			u.Days = append(u.Days, DayCount{Date: d.String(), Requests: n, day: d})
		}
	}
	sort.Slice(u.Days, func(i, j int) bool { return u.Days[i].day > u.Days[j].day })
	return u, nil
}

func (s *Service) loop() {
	defer close(s.done)
	t := time.NewTicker(s.opts.SyncInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			if err := s.Sync(); err != nil {
				s.log.Warn("access: sync failed; usage stays in memory until the next sync", "err", err)
			}
		}
	}
}

// Sync runs one sync now (the background loop runs it every SyncInterval): it
// adds the unflushed usage to the state store (each day's counter expiring
// once it is RetainDays old), refreshes today's counts written by other
// processes, reloads the key table when its revision moved (new and revoked
// keys), drops idle Playground buckets and, with Redis, probes it and adds the
// counts admitted while it was down. On a state store error (unavailable:
// locked, removed; corrupted) the usage stays in memory for the next sync. It
// waits at most LockTimeout for the store.
func (s *Service) Sync() error {
	return s.sync(s.opts.LockTimeout, false)
}

// sync flushes and reloads; final (Close) also writes last-used times that
// moved by less than LastUsedResolution.
func (s *Service) sync(wait time.Duration, final bool) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	now := s.now()
	today := dayOf(now)
	lp := LimitsOf(Playground)
	for i := range s.addrs {
		s.addrs[i].sweep(now.UnixNano(), lp.RatePerSec, lp.Burst)
	}

	s.statesMu.Lock()
	states := make([]*keyState, 0, len(s.states))
	for _, st := range s.states {
		states = append(states, st)
	}
	s.statesMu.Unlock()

	type delta struct {
		st     *keyState
		counts []dayCount
	}
	var deltas []delta
	for _, st := range states {
		st.mu.Lock()
		c := st.pend.take()
		st.flushing = c
		st.mu.Unlock()
		if c != nil {
			deltas = append(deltas, delta{st, c})
		}
	}
	refusals := takeRefusals(states)
	lastUsed := takeLastUsed(states, final)
	keys := make([]string, len(states))
	for i, st := range states {
		keys[i] = usageKey(st.id, today)
	}
	var totals []int64
	var rev int64
	var recs []keyRecord
	read := func(tx state.Tx) (err error) {
		recs = nil
		if rev, err = tx.Count(state.Meta, state.MetaKeysRev); err != nil { // before the keys, as in load
			return err
		}
		if totals, err = tx.Counts(state.Usage, keys); err != nil { // one round trip in Redis, not one per key
			return err
		}
		if rev != s.keysRev {
			recs, err = readKeys(tx)
		}
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var err error
	retained := func(d snapshots.Day) time.Duration { return (d + snapshots.Day(s.opts.RetainDays)).Time().Sub(now) }
	if len(deltas) == 0 && len(refusals) == 0 && len(lastUsed) == 0 {
		err = s.store.View(ctx, read)
	} else {
		err = s.store.Update(ctx, func(tx state.Tx) error {
			for _, d := range deltas {
				for _, c := range d.counts {
					ttl := retained(c.day)
					if ttl <= 0 {
						continue // beyond the retained days already
					}
					if err := tx.Add(state.Usage, usageKey(d.st.id, c.day), c.n, ttl); err != nil {
						return err
					}
				}
			}
			for _, d := range refusals {
				for r, cs := range d.counts {
					for _, c := range cs {
						if ttl := retained(c.day); ttl > 0 {
							if err := tx.Add(state.Usage, refusedKey(d.st.id, c.day, Refusal(r)), c.n, ttl); err != nil {
								return err
							}
						}
					}
				}
			}
			for _, l := range lastUsed {
				if err := lastUsedTable.Put(tx, l.st.id, time.Unix(0, l.t).UTC(), 0); err != nil {
					return err
				}
			}
			return read(tx)
		})
	}
	if err != nil {
		for _, d := range deltas { // keep them for the next sync
			d.st.mu.Lock()
			for _, c := range d.counts {
				d.st.pend.add(c.day, c.n)
			}
			d.st.flushing = nil
			d.st.mu.Unlock()
		}
		for _, d := range refusals {
			d.giveBack()
		}
	} else {
		for _, l := range lastUsed {
			l.st.lastSaved = l.t
		}
		for i, st := range states {
			st.mu.Lock()
			st.flushing = nil
			if st.rollover(today) == today {
				st.floor = totals[i]
				st.used = max(st.used, totals[i]+st.pend.on(today))
			}
			st.mu.Unlock()
		}
		if recs != nil || rev != s.keysRev {
			s.install(recs)
			s.keysRev = rev
		}
	}
	if s.shared != nil {
		if s.shared.local {
			s.shared.send(final)
		}
		s.shared.tick(states)
	}
	return err
}

// Close stops the background sync and flushes the usage a last time, waiting
// up to five times LockTimeout for the state store. It does not close the
// store, which belongs to the caller. Charges after Close are
// answered but not persisted.
func (s *Service) Close() error {
	s.closeOnce.Do(func() {
		close(s.stop)
		<-s.done
		if s.sendOn {
			<-s.shared.sendDone
		}
		s.closeErr = s.sync(5*s.opts.LockTimeout, true)
	})
	return s.closeErr
}
