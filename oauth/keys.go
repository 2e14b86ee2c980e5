package oauth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/cardedge/cardedge/state"
)

// Signing keys of access tokens: HS256 secrets kept in the state store
// (state.Secrets, record SecretName) so that a token minted by one process
// verifies on every other. The current key signs; Rotate makes a new current
// key and retires the old one, which verifies for the rotation's grace. A
// keyring reloads the set when a token names a key it does not know (at most
// once a second) and when its copy is over a minute old. This is the scheme
// of package chattoken, with its own record and key ids ("ok_...").

// SecretName is the record of the signing keys in state.Secrets.
const SecretName = "oauth-token"

const (
	keyBytes      = 32 // HS256: 256 bits
	unknownReload = time.Second
	keysMaxAge    = time.Minute
)

type signingKey struct {
	ID      string    `json:"kid"`
	Secret  []byte    `json:"secret"`
	Created time.Time `json:"created"`
	Retired time.Time `json:"retired,omitzero"` // zero: the current key
	Until   time.Time `json:"until,omitzero"`   // end of a retired key's grace
}

type keySet struct {
	Keys []signingKey `json:"keys"`
}

var secrets = state.NewTable[keySet](state.Secrets)

type keyring struct {
	st  state.Store
	now func() time.Time
	log *slog.Logger

	mu       sync.Mutex
	set      keySet
	loaded   time.Time
	loading  bool
	reloaded time.Time
}

func newKey(now time.Time) (signingKey, error) {
	k := signingKey{Secret: make([]byte, keyBytes), Created: now.UTC()}
	if _, err := rand.Read(k.Secret); err != nil {
		return k, err
	}
	var id [6]byte
	if _, err := rand.Read(id[:]); err != nil {
		return k, err
	}
	k.ID = "ok_" + base64.RawURLEncoding.EncodeToString(id[:])
	return k, nil
}

// newKeyring reads the key set, creating the first key when there is none.
func newKeyring(ctx context.Context, st state.Store, now func() time.Time, log *slog.Logger) (*keyring, error) {
	k, err := newKey(now())
	if err != nil {
		return nil, err
	}
	var set keySet
	err = st.Update(ctx, func(tx state.Tx) (err error) {
		set, err = secrets.Get(tx, SecretName)
		if err == nil && len(set.Keys) > 0 {
			return nil
		}
		if err != nil && !errors.Is(err, state.ErrNotFound) {
			return err
		}
		set = keySet{Keys: []signingKey{k}}
		return secrets.Put(tx, SecretName, set, 0)
	})
	if err != nil {
		return nil, fmt.Errorf("oauth: signing keys: %w", err)
	}
	return &keyring{st: st, now: now, log: log, set: set, loaded: now()}, nil
}

// Rotate makes a new current signing key in st and retires the current one,
// which keeps verifying the tokens it signed for grace (give at least the
// access tokens' lifetime); keys whose grace has ended are dropped. Running
// servers pick the new key up within a minute, or at the first token it
// signed. It returns the new key's id.
func Rotate(ctx context.Context, st state.Store, now time.Time, grace time.Duration) (string, error) {
	if grace <= 0 {
		grace = 2 * DefaultAccessTTL
	}
	k, err := newKey(now)
	if err != nil {
		return "", err
	}
	err = st.Update(ctx, func(tx state.Tx) error {
		set, err := secrets.Get(tx, SecretName)
		if err != nil && !errors.Is(err, state.ErrNotFound) {
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
		return secrets.Put(tx, SecretName, out, 0)
	})
	if err != nil {
		return "", fmt.Errorf("oauth: rotate the signing keys: %w", err)
	}
	return k.ID, nil
}

// current returns the key to sign with.
func (r *keyring) current() (signingKey, error) {
	r.refresh()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range r.set.Keys {
		if k.Retired.IsZero() {
			return k, nil
		}
	}
	return signingKey{}, errors.New("oauth: no current signing key")
}

// verifyKey returns the secret of key kid if it may verify now, reloading
// the set (at most once per unknownReload) when kid is unknown.
func (r *keyring) verifyKey(kid string) ([]byte, bool) {
	find := func() (signingKey, bool) {
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, k := range r.set.Keys {
			if k.ID == kid {
				return k, true
			}
		}
		return signingKey{}, false
	}
	r.refresh()
	now := r.now()
	k, ok := find()
	if !ok {
		r.mu.Lock()
		again := now.Sub(r.reloaded) >= unknownReload
		if again {
			r.reloaded = now
		}
		r.mu.Unlock()
		if !again {
			return nil, false
		}
		if err := r.reload(); err != nil {
			r.log.Warn("oauth: reloading the signing keys", "err", err)
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

// refresh reloads the set when the copy is older than keysMaxAge: one caller
// reloads, the others go on with the copy they have.
func (r *keyring) refresh() {
	r.mu.Lock()
	stale := r.now().Sub(r.loaded) >= keysMaxAge && !r.loading
	if stale {
		r.loading = true
	}
	r.mu.Unlock()
	if !stale {
		return
	}
	err := r.reload()
	r.mu.Lock()
	r.loading = false
	r.mu.Unlock()
	if err != nil {
		r.log.Warn("oauth: reloading the signing keys; going on with the known ones", "err", err)
	}
}

func (r *keyring) reload() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var set keySet
	err := r.st.View(ctx, func(tx state.Tx) (err error) {
		set, err = secrets.Get(tx, SecretName)
		return err
	})
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.set, r.loaded = set, r.now()
	r.mu.Unlock()
	return nil
}
