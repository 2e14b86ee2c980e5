package account

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"log/slog"
	"net/mail"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
)

// Account is a dashboard account.
type Account struct {
	ID    string `json:"id"`    // "a_" + 16 base32 characters
	Email string `json:"email"` // normalized (NormalizeEmail)
	// Password is the Argon2id PHC string of the password.
	Password string      `json:"password"`
	Tier     access.Tier `json:"tier"` // its keys' tier
	// Disabled accounts cannot sign in and their keys are suspended.
	Disabled        bool      `json:"disabled,omitempty"`
	Created         time.Time `json:"created"`
	PasswordChanged time.Time `json:"password_changed"`
}

// Options configure a Service. Every zero value has a documented default.
type Options struct {
	// State is the state store (required).
	State state.Store
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Hash are the Argon2id parameters of new hashes; zero means
	// DefaultHashParams (OWASP's minimum). Raising them rehashes each
	// password at its next sign-in.
	Hash HashParams
	// MaxHashing bounds the password hashes computed at once (each takes
	// Hash.Memory); zero means the number of CPUs. Others wait, up to
	// HashWait.
	MaxHashing int
	// HashWait bounds how long a sign-in waits for a hashing slot before it
	// is answered "busy" (EQUOTA); zero means 10 s.
	HashWait time.Duration
	// SessionIdle is how long a session lives unused; zero means 24 hours.
	SessionIdle time.Duration
	// SessionMax is how long a session lives at most; zero means 30 days.
	SessionMax time.Duration
	// KeyMaxDays caps the lifetime of keys created or rolled in the
	// dashboard, in days; zero means no cap (keys may never expire).
	KeyMaxDays int
	// MaxKeys is the most unrevoked keys an account may hold; zero means 20.
	MaxKeys int
	// Throttle are the sign-in limits; zero fields take DefaultThrottle's.
	Throttle Throttle
	// Logger receives internal problems; nil means discard.
	Logger *slog.Logger
}

// Service manages accounts, their sessions, audit logs and keys. Its methods
// are safe for concurrent use.
type Service struct {
	opts     Options
	st       state.Store
	now      func() time.Time
	log      *slog.Logger
	hashing  chan struct{}
	dummy    string       // a hash of nothing, checked for unknown emails
	checked  atomic.Int64 // Argon2id checks run by verify, real or dummy
	throttle *throttle

	background chan struct{} // slots of background audit writes
	wg         sync.WaitGroup
	auditSeq   atomic.Uint32
}

var (
	accounts = state.NewTable[Account](state.Accounts)
	emails   = state.NewTable[string](state.AccountEmails)
)

// New returns a Service over o.State.
func New(o Options) (*Service, error) {
	if o.State == nil {
		return nil, errors.New("account: Options.State is required")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Hash == (HashParams{}) {
		o.Hash = DefaultHashParams
	}
	if o.MaxHashing <= 0 {
		o.MaxHashing = runtime.NumCPU()
	}
	if o.HashWait <= 0 {
		o.HashWait = 10 * time.Second
	}
	if o.SessionIdle <= 0 {
		o.SessionIdle = 24 * time.Hour
	}
	if o.SessionMax <= 0 {
		o.SessionMax = 30 * 24 * time.Hour
	}
	if o.MaxKeys <= 0 {
		o.MaxKeys = 20
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{opts: o, st: o.State, now: o.Now, log: o.Logger, hashing: make(chan struct{}, o.MaxHashing),
		throttle: newThrottle(o.Throttle.withDefaults()), background: make(chan struct{}, 4)}
	var err error
	if s.dummy, err = hashPassword("not a password: no account has it", o.Hash); err != nil {
		return nil, err
	}
	return s, nil
}

// KeyMaxDays returns the operator's cap on key lifetimes (0: none).
func (s *Service) KeyMaxDays() int { return s.opts.KeyMaxDays }

// NormalizeEmail returns the form an email is stored and compared in (trimmed,
// lower case), or EINVALID when it is not a plain address.
func NormalizeEmail(email string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(email))
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e || a.Name != "" || len(e) > 254 || !strings.Contains(e[strings.LastIndexByte(e, '@')+1:], ".") {
		return "", apperr.Errorf(apperr.EINVALID, "enter an email address such as name@example.com")
	}
	return e, nil
}

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

func newAccountID() (string, error) {
	var b [10]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "a_" + idEncoding.EncodeToString(b[:]), nil
}

// Client is who asks for a change, for the audit log.
type Client struct {
	Addr string // client address ("" for the operator's CLI)
}

// Create creates an account (the operator's CLI) and returns it. EINVALID: a
// bad email or a password that breaks the rules (CheckPassword), or an email
// already taken.
func (s *Service) Create(ctx context.Context, email, password string, tier access.Tier, by Client) (Account, error) {
	a, _, err := s.create(ctx, email, password, tier, false, by)
	return a, err
}

// SignUp creates a Free account and signs it in: it returns the new
// session's id. Errors as Create's.
func (s *Service) SignUp(ctx context.Context, email, password string, by Client) (string, Account, error) {
	a, id, err := s.create(ctx, email, password, access.Free, true, by)
	return id, a, err
}

func (s *Service) create(ctx context.Context, email, password string, tier access.Tier, signIn bool, by Client) (Account, string, error) {
	e, err := NormalizeEmail(email)
	if err != nil {
		return Account{}, "", err
	}
	if err := CheckPassword(password, e); err != nil {
		return Account{}, "", err
	}
	if tier == access.Playground || !tier.Valid() {
		return Account{}, "", apperr.Errorf(apperr.EINVALID, "an account's tier must be free, pro or elite")
	}
	hctx, cancel := context.WithTimeout(ctx, s.opts.HashWait)
	phc, err := s.hash(hctx, password)
	cancel()
	if err != nil {
		return Account{}, "", err
	}
	id, err := newAccountID()
	if err != nil {
		return Account{}, "", err
	}
	var sid, csrf string
	if signIn {
		if sid, err = newToken(); err != nil {
			return Account{}, "", err
		}
		if csrf, err = newToken(); err != nil {
			return Account{}, "", err
		}
	}
	now := s.now().UTC().Truncate(time.Second)
	a := Account{ID: id, Email: e, Password: phc, Tier: tier, Created: now, PasswordChanged: now}
	err = s.st.Update(ctx, func(tx state.Tx) error {
		if err := emails.Insert(tx, e, id, 0); errors.Is(err, state.ErrConflict) {
			return apperr.Errorf(apperr.EINVALID, "an account with this email already exists; sign in instead")
		} else if err != nil {
			return err
		}
		if err := accounts.Insert(tx, id, a, 0); err != nil {
			return err
		}
		if err := s.audit(tx, id, Event{What: EventCreated, Addr: by.Addr, Detail: "tier " + tier.String()}); err != nil {
			return err
		}
		if !signIn {
			return nil
		}
		if err := s.newSession(tx, sid, csrf, a, by.Addr); err != nil {
			return err
		}
		return s.audit(tx, id, Event{What: EventSignedIn, Addr: by.Addr})
	})
	if err != nil {
		return Account{}, "", err
	}
	return a, sid, nil
}

// Get returns account id. ENOTFOUND: none.
func (s *Service) Get(ctx context.Context, id string) (Account, error) {
	var a Account
	err := s.st.View(ctx, func(tx state.Tx) (err error) {
		a, err = getAccount(tx, id)
		return err
	})
	return a, err
}

// Lookup returns the account of an id ("a_...") or an email. ENOTFOUND: none.
func (s *Service) Lookup(ctx context.Context, idOrEmail string) (Account, error) {
	if strings.HasPrefix(idOrEmail, "a_") {
		return s.Get(ctx, idOrEmail)
	}
	e, err := NormalizeEmail(idOrEmail)
	if err != nil {
		return Account{}, apperr.Errorf(apperr.ENOTFOUND, "no account %q", idOrEmail)
	}
	var a Account
	err = s.st.View(ctx, func(tx state.Tx) error {
		id, err := emails.Get(tx, e)
		if errors.Is(err, state.ErrNotFound) {
			return apperr.Errorf(apperr.ENOTFOUND, "no account %q", idOrEmail)
		}
		if err != nil {
			return err
		}
		a, err = getAccount(tx, id)
		return err
	})
	return a, err
}

// GetIn returns account id read in tx (a transaction of the caller's, such
// as package oauth's refresh). ENOTFOUND: none.
func GetIn(tx state.Tx, id string) (Account, error) { return getAccount(tx, id) }

func getAccount(tx state.Tx, id string) (Account, error) {
	if id == "" || len(id) > 64 {
		return Account{}, apperr.Errorf(apperr.ENOTFOUND, "no account %q", id)
	}
	a, err := accounts.Get(tx, id)
	if errors.Is(err, state.ErrNotFound) {
		return Account{}, apperr.Errorf(apperr.ENOTFOUND, "no account %q", id)
	}
	return a, err
}

// List returns every account, oldest first.
func (s *Service) List(ctx context.Context) ([]Account, error) {
	var out []Account
	err := s.st.View(ctx, func(tx state.Tx) error {
		out = out[:0]
		return accounts.Scan(tx, state.ScanOptions{}, func(_ string, a Account) error {
			out = append(out, a)
			return nil
		})
	})
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].ID < out[j].ID
	})
	return out, err
}

// SetTier sets the tier of account id and of all its keys, in one
// transaction that moves the key table's revision: running servers apply it
// within a second. ENOTFOUND: no such account.
func (s *Service) SetTier(ctx context.Context, id string, tier access.Tier, by Client) (Account, error) {
	if tier == access.Playground || !tier.Valid() {
		return Account{}, apperr.Errorf(apperr.EINVALID, "an account's tier must be free, pro or elite")
	}
	var a Account
	err := s.st.Update(ctx, func(tx state.Tx) (err error) {
		if a, err = getAccount(tx, id); err != nil {
			return err
		}
		old := a.Tier
		a.Tier = tier
		if err := accounts.Put(tx, id, a, 0); err != nil {
			return err
		}
		if err := s.eachKey(tx, id, func(k access.Key) error {
			if k.Tier == tier {
				return nil
			}
			k.Tier = tier
			return access.UpdateKey(tx, k)
		}); err != nil {
			return err
		}
		return s.audit(tx, id, Event{What: EventTierChanged, Addr: by.Addr, Detail: old.String() + " → " + tier.String()})
	})
	return a, err
}

// SetDisabled disables (or enables again) account id: a disabled account
// cannot sign in, its sessions end and its keys are suspended (a 401 within a
// second on running servers) until it is enabled. ENOTFOUND: no such account.
func (s *Service) SetDisabled(ctx context.Context, id string, disabled bool, by Client) (Account, error) {
	var a Account
	err := s.st.Update(ctx, func(tx state.Tx) (err error) {
		if a, err = getAccount(tx, id); err != nil {
			return err
		}
		a.Disabled = disabled
		if err := accounts.Put(tx, id, a, 0); err != nil {
			return err
		}
		if err := s.eachKey(tx, id, func(k access.Key) error {
			if k.Suspended == disabled {
				return nil
			}
			k.Suspended = disabled
			return access.UpdateKey(tx, k)
		}); err != nil {
			return err
		}
		what := EventEnabled
		if disabled {
			what = EventDisabled
			if err := deleteSessions(tx, id, ""); err != nil {
				return err
			}
		}
		return s.audit(tx, id, Event{What: what, Addr: by.Addr})
	})
	return a, err
}

// ResetPassword sets account id's password (the operator's reset) and signs
// out all its sessions. EINVALID: the password breaks the rules.
func (s *Service) ResetPassword(ctx context.Context, id, password string, by Client) error {
	a, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	return s.setPassword(ctx, a, password, "", EventPasswordReset, by)
}

// ChangePassword changes the password of the account signed in with session
// sessionID after checking its current password, and signs out its other
// sessions. The current password is checked like a sign-in (throttled).
// EUNAUTHORIZED: the current password is wrong; EINVALID: the new one breaks
// the rules.
func (s *Service) ChangePassword(ctx context.Context, sessionID, current, password string, by Client) error {
	sess, a, err := s.Session(ctx, sessionID)
	if err != nil {
		return err
	}
	if err := CheckPassword(password, a.Email); err != nil {
		return err
	}
	if wait := s.throttle.check(a.Email, by.Addr, s.now()); wait > 0 {
		return throttled(wait)
	}
	hctx, cancel := context.WithTimeout(ctx, s.opts.HashWait)
	ok, _, err := s.verify(hctx, current, a.Password)
	cancel()
	if err != nil {
		return err
	}
	if !ok {
		s.throttle.fail(a.Email, by.Addr, s.now())
		return apperr.Errorf(apperr.EUNAUTHORIZED, "the current password is not right")
	}
	return s.setPassword(ctx, a, password, sess.hash, EventPasswordChanged, by)
}

// setPassword hashes password, stores it and deletes the account's sessions
// but keep (a session hash; "" deletes them all).
func (s *Service) setPassword(ctx context.Context, a Account, password, keep, what string, by Client) error {
	if err := CheckPassword(password, a.Email); err != nil {
		return err
	}
	hctx, cancel := context.WithTimeout(ctx, s.opts.HashWait)
	phc, err := s.hash(hctx, password)
	cancel()
	if err != nil {
		return err
	}
	return s.st.Update(ctx, func(tx state.Tx) error {
		cur, err := getAccount(tx, a.ID)
		if err != nil {
			return err
		}
		cur.Password, cur.PasswordChanged = phc, s.now().UTC().Truncate(time.Second)
		if err := accounts.Put(tx, a.ID, cur, 0); err != nil {
			return err
		}
		if err := deleteSessions(tx, a.ID, keep); err != nil {
			return err
		}
		return s.audit(tx, a.ID, Event{What: what, Addr: by.Addr})
	})
}

// eachKey calls fn with each key of account id.
func (s *Service) eachKey(tx state.Tx, id string, fn func(access.Key) error) error {
	var mine []access.Key
	if err := access.ScanKeys(tx, func(k access.Key) error {
		if k.Account == id {
			mine = append(mine, k)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, k := range mine {
		if err := fn(k); err != nil {
			return err
		}
	}
	return nil
}
