package chattoken

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
	"github.com/golang-jwt/jwt/v5"
)

// Defaults of Options.
const (
	DefaultTTL   = 15 * time.Minute
	DefaultGrace = 30 * time.Minute
)

// Fixed claims of every token.
const (
	Issuer   = "cardedge"
	Audience = "chat"
)

// secretName is the record of the signing keys in state.Secrets.
const secretName = "chat-token"

// secretBytes is the size of a signing key (HS256: 256 bits).
const secretBytes = 32

// Reload pacing: a token naming an unknown key reloads the keys at most once
// per unknownReload; minting and verifying reload them when they are older
// than maxAge.
const (
	unknownReload = time.Second
	maxAge        = time.Minute
)

// Options configure a Service. Every zero value has a documented default.
type Options struct {
	// State keeps the signing keys (required): bucket state.Secrets.
	State state.Store
	// Now is the clock of issue and expiry times; nil means time.Now.
	Now func() time.Time
	// TTL is how long a token works; zero means DefaultTTL (15 minutes).
	TTL time.Duration
	// Logger receives reload problems; nil means discard.
	Logger *slog.Logger
}

// signingKey is one key of the stored set.
type signingKey struct {
	ID      string    `json:"kid"`
	Secret  []byte    `json:"secret"` // secretBytes from crypto/rand
	Created time.Time `json:"created"`
	// Retired is when Rotate replaced the key (zero: the current key);
	// it verifies tokens until Until, the end of the rotation's grace.
	Retired time.Time `json:"retired,omitzero"`
	Until   time.Time `json:"until,omitzero"`
}

// keySet is the stored record: the current key first.
type keySet struct {
	Keys []signingKey `json:"keys"`
}

var secrets = state.NewTable[keySet](state.Secrets)

// Service mints and verifies chat-user tokens. Its methods are safe for
// concurrent use.
type Service struct {
	opts   Options
	now    func() time.Time
	log    *slog.Logger
	parser *jwt.Parser

	mu       sync.Mutex
	keys     keySet
	loaded   time.Time // when keys were read from the store
	loading  bool      // a refresh is reading them
	reloaded time.Time // the last reload for an unknown key
}

// New returns a Service over opts.State, creating the first signing key when
// the store has none. It fails with the store's error.
func New(ctx context.Context, opts Options) (*Service, error) {
	if opts.State == nil {
		return nil, errors.New("chattoken: Options.State is required")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{opts: opts, now: opts.Now, log: opts.Logger}
	s.parser = jwt.NewParser(
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(Issuer),
		jwt.WithAudience(Audience),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithTimeFunc(opts.Now),
	)
	var set keySet
	err := opts.State.Update(ctx, func(tx state.Tx) error {
		var err error
		set, err = secrets.Get(tx, secretName)
		if err == nil && len(set.Keys) > 0 {
			return nil
		}
		if err != nil && !errors.Is(err, state.ErrNotFound) {
			return err
		}
		k, err := newKey(opts.Now())
		if err != nil {
			return err
		}
		set = keySet{Keys: []signingKey{k}}
		return secrets.Put(tx, secretName, set, 0)
	})
	if err != nil {
		return nil, fmt.Errorf("chattoken: signing keys: %w", err)
	}
	s.keys, s.loaded = set, opts.Now()
	return s, nil
}

func newKey(now time.Time) (signingKey, error) {
	k := signingKey{Secret: make([]byte, secretBytes), Created: now.UTC()}
	if _, err := rand.Read(k.Secret); err != nil {
		return k, err
	}
	var id [6]byte
	if _, err := rand.Read(id[:]); err != nil {
		return k, err
	}
	k.ID = "ck_" + base64.RawURLEncoding.EncodeToString(id[:])
	return k, nil
}

// Rotate makes a new current signing key in st and retires the current one:
// tokens it signed keep verifying for grace (0: DefaultGrace: 30 minutes,
// twice a token's life), and keys whose grace has ended are dropped. Running services pick the new key up
// within a minute (before minting) or at the first token it signed. It
// returns the new key's id.
func Rotate(ctx context.Context, st state.Store, now time.Time, grace time.Duration) (string, error) {
	if grace <= 0 {
		grace = DefaultGrace
	}
	var kid string
	err := st.Update(ctx, func(tx state.Tx) error {
		set, err := secrets.Get(tx, secretName)
		if err != nil && !errors.Is(err, state.ErrNotFound) {
			return err
		}
		k, err := newKey(now)
		if err != nil {
			return err
		}
		out := keySet{Keys: []signingKey{k}}
		for _, old := range set.Keys {
			if old.Retired.IsZero() {
				old.Retired, old.Until = now.UTC(), now.Add(grace).UTC()
			}
			if now.Before(old.Until) {
				out.Keys = append(out.Keys, old)
			}
		}
		kid = k.ID
		return secrets.Put(tx, secretName, out, 0)
	})
	if err != nil {
		return "", fmt.Errorf("chattoken: rotate: %w", err)
	}
	return kid, nil
}

// Token is a minted token.
type Token struct {
	Value   string    `json:"token"`
	Expires time.Time `json:"expires_at"`
}

// claims are a token's claims.
type claims struct {
	Tier string `json:"tier"`
	jwt.RegisteredClaims
}

// Mint returns a token for account (an account id) of tier (free, pro or
// elite), valid for Options.TTL.
func (s *Service) Mint(account string, tier access.Tier) (Token, error) {
	if account == "" || !tier.Valid() || tier == access.Playground {
		return Token{}, apperr.Errorf(apperr.EINVALID, "chat tokens are for an account of tier free, pro or elite")
	}
	now := s.now()
	k, err := s.currentKey(now)
	if err != nil {
		return Token{}, err
	}
	var jti [12]byte
	if _, err := rand.Read(jti[:]); err != nil {
		return Token{}, err
	}
	iat := now.Truncate(time.Second)
	exp := iat.Add(s.opts.TTL)
	t := jwt.NewWithClaims(jwt.SigningMethodHS256, claims{Tier: tier.String(), RegisteredClaims: jwt.RegisteredClaims{
		Issuer: Issuer, Subject: account, Audience: jwt.ClaimStrings{Audience},
		IssuedAt: jwt.NewNumericDate(iat), ExpiresAt: jwt.NewNumericDate(exp),
		ID: base64.RawURLEncoding.EncodeToString(jti[:]),
	}})
	t.Header["kid"] = k.ID
	v, err := t.SignedString(k.Secret)
	if err != nil {
		return Token{}, fmt.Errorf("chattoken: sign: %w", err)
	}
	return Token{Value: v, Expires: exp.UTC()}, nil
}

// currentKey returns the key to sign with.
func (s *Service) currentKey(now time.Time) (signingKey, error) {
	s.refresh(now)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range s.keys.Keys {
		if k.Retired.IsZero() {
			return k, nil
		}
	}
	return signingKey{}, errors.New("chattoken: no current signing key")
}

// refresh reloads the key set when this copy is older than maxAge (a
// rotation made elsewhere): one caller reloads, the others go on with the
// copy they have.
func (s *Service) refresh(now time.Time) {
	s.mu.Lock()
	stale := now.Sub(s.loaded) >= maxAge && !s.loading
	if stale {
		s.loading = true
	}
	s.mu.Unlock()
	if !stale {
		return
	}
	err := s.reload()
	s.mu.Lock()
	s.loading = false
	s.mu.Unlock()
	if err != nil {
		s.log.Warn("chattoken: reloading the signing keys; going on with the known ones", "err", err)
	}
}

// reload reads the key set from the store.
func (s *Service) reload() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var set keySet
	err := s.opts.State.View(ctx, func(tx state.Tx) (err error) {
		set, err = secrets.Get(tx, secretName)
		return err
	})
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.keys, s.loaded = set, s.now()
	s.mu.Unlock()
	return nil
}

// verifyKey returns the secret of key kid when it may verify at now,
// reloading the set (at most once per unknownReload) when kid is unknown.
func (s *Service) verifyKey(kid string, now time.Time) ([]byte, bool) {
	find := func() (signingKey, bool) {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, k := range s.keys.Keys {
			if k.ID == kid {
				return k, true
			}
		}
		return signingKey{}, false
	}
	s.refresh(now)
	k, ok := find()
	if !ok {
		s.mu.Lock()
		again := now.Sub(s.reloaded) >= unknownReload
		if again {
			s.reloaded = now
		}
		s.mu.Unlock()
		if !again {
			return nil, false
		}
		if err := s.reload(); err != nil {
			s.log.Warn("chattoken: reloading the signing keys", "err", err)
			return nil, false
		}
		if k, ok = find(); !ok {
			return nil, false
		}
	}
	if !k.Retired.IsZero() && !now.Before(k.Until) {
		return nil, false
	}
	return k.Secret, true
}

// Messages of refused tokens.
const (
	msgInvalid  = "invalid chat token: get a new one from the dashboard's chat page"
	msgAudience = "not a chat token: its audience is not \"chat\""
)

var errUnknownKey = errors.New("unknown or retired signing key")

// VerifyChat verifies a token (access.ChatVerifier): signature (HS256, a
// key current or within its grace), issuer, audience "chat", expiry, and
// the tier claim. Errors are EUNAUTHORIZED *apperr.Error.
func (s *Service) VerifyChat(token []byte) (access.ChatClaims, error) {
	now := s.now()
	var cl claims
	_, err := s.parser.ParseWithClaims(string(token), &cl, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		secret, ok := s.verifyKey(kid, now)
		if !ok {
			return nil, errUnknownKey
		}
		return secret, nil
	})
	switch {
	case err == nil:
	case errors.Is(err, jwt.ErrTokenExpired) && cl.ExpiresAt != nil:
		return access.ChatClaims{}, apperr.Errorf(apperr.EUNAUTHORIZED,
			"chat token expired at %s: tokens work %s; the chat page fetches a new one", cl.ExpiresAt.UTC().Format(time.RFC3339), s.opts.TTL)
	case errors.Is(err, jwt.ErrTokenInvalidAudience), errors.Is(err, jwt.ErrTokenRequiredClaimMissing) && len(cl.Audience) == 0:
		return access.ChatClaims{}, &apperr.Error{Code: apperr.EUNAUTHORIZED, Message: msgAudience}
	default:
		return access.ChatClaims{}, &apperr.Error{Code: apperr.EUNAUTHORIZED, Message: msgInvalid}
	}
	tier, terr := access.ParseTier(cl.Tier)
	if terr != nil || tier == access.Playground || cl.Subject == "" {
		return access.ChatClaims{}, &apperr.Error{Code: apperr.EUNAUTHORIZED, Message: msgInvalid}
	}
	return access.ChatClaims{Account: cl.Subject, Tier: tier, Expires: cl.ExpiresAt.UTC()}, nil
}

var _ access.ChatVerifier = (*Service)(nil)
