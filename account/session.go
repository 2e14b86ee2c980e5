package account

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
)

// Sessions are server-side: the browser holds a random 256-bit id (a cookie),
// the store holds the hex SHA-256 of it (state.Sessions), so a copy of the
// state file cannot be replayed as a cookie. A session lives SessionIdle
// unused (its TTL, renewed as it is used) and SessionMax at most.

// sessionRecord is a stored session.
type sessionRecord struct {
	Account string    `json:"account"`
	CSRF    string    `json:"csrf"`
	Created time.Time `json:"created"`
	Seen    time.Time `json:"seen"`
	Addr    string    `json:"addr,omitempty"`
	// Flash is a one-time message for the next page (a new key's secret),
	// sealed with a key derived from the session id: the store alone cannot
	// open it. FlashAt is when it was set; it is dropped after flashTTL.
	Flash   []byte    `json:"flash,omitempty"`
	FlashAt time.Time `json:"flash_at,omitzero"`
}

// sessionIndex is the record "<account id>/<session hash>" beside each
// session, so that an account's sessions can be found and ended.
type sessionIndex struct {
	Created time.Time `json:"created"`
}

var (
	sessions       = state.NewTable[sessionRecord](state.Sessions)
	sessionIndexes = state.NewTable[sessionIndex](state.Sessions)
)

const (
	sessionIDLen = 43 // base64url of 32 bytes, no padding
	flashTTL     = 5 * time.Minute
)

// Session is a signed-in session.
type Session struct {
	Account string    // account id
	CSRF    string    // the token every state-changing form of the session carries
	Created time.Time // sign-in time
	hash    string
}

// newToken returns 32 random bytes as base64url.
func newToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// sessionHash returns the stored key of session id, or "" when id is not
// well formed.
func sessionHash(id string) string {
	if len(id) != sessionIDLen {
		return ""
	}
	if _, err := base64.RawURLEncoding.DecodeString(id); err != nil {
		return ""
	}
	h := sha256.Sum256([]byte(id))
	return hex.EncodeToString(h[:])
}

var errNoSession = apperr.Errorf(apperr.EUNAUTHORIZED, "not signed in, or the session has ended")

// newSession stores a new session of account a and returns its id.
func (s *Service) newSession(tx state.Tx, id, csrf string, a Account, addr string) error {
	now := s.now().UTC()
	h := sessionHash(id)
	if err := sessions.Insert(tx, h, sessionRecord{Account: a.ID, CSRF: csrf, Created: now, Seen: now, Addr: addr}, s.opts.SessionIdle); err != nil {
		return err
	}
	return sessionIndexes.Put(tx, a.ID+"/"+h, sessionIndex{Created: now}, s.opts.SessionIdle)
}

// Session returns the session of id (the cookie's value) and its account,
// renewing its idle timeout when it was last renewed more than a minute ago.
// EUNAUTHORIZED: no such session (ended, expired, malformed id) or the
// account is disabled.
func (s *Service) Session(ctx context.Context, id string) (Session, Account, error) {
	h := sessionHash(id)
	if h == "" {
		return Session{}, Account{}, errNoSession
	}
	now := s.now().UTC()
	var rec sessionRecord
	var a Account
	err := s.st.View(ctx, func(tx state.Tx) (err error) {
		if rec, err = sessions.Get(tx, h); err != nil {
			return err
		}
		a, err = getAccount(tx, rec.Account)
		return err
	})
	if errors.Is(err, state.ErrNotFound) || apperr.ErrorCode(err) == apperr.ENOTFOUND {
		return Session{}, Account{}, errNoSession
	}
	if err != nil {
		return Session{}, Account{}, err
	}
	if a.Disabled || now.Sub(rec.Created) >= s.opts.SessionMax || now.Sub(rec.Seen) >= s.opts.SessionIdle {
		s.st.Update(ctx, func(tx state.Tx) error { return deleteSession(tx, rec.Account, h) })
		return Session{}, Account{}, errNoSession
	}
	if now.Sub(rec.Seen) >= time.Minute {
		err := s.st.Update(ctx, func(tx state.Tx) error {
			r, err := sessions.Get(tx, h)
			if err != nil {
				return err
			}
			r.Seen = now
			if err := sessions.Put(tx, h, r, s.opts.SessionIdle); err != nil {
				return err
			}
			return sessionIndexes.Put(tx, r.Account+"/"+h, sessionIndex{Created: r.Created}, s.opts.SessionIdle)
		})
		if errors.Is(err, state.ErrNotFound) { // ended meanwhile
			return Session{}, Account{}, errNoSession
		}
		if err != nil {
			return Session{}, Account{}, err
		}
	}
	return Session{Account: a.ID, CSRF: rec.CSRF, Created: rec.Created, hash: h}, a, nil
}

// SignOut ends session id. Ending a session that is not there is not an
// error.
func (s *Service) SignOut(ctx context.Context, id string, by Client) error {
	h := sessionHash(id)
	if h == "" {
		return nil
	}
	return s.st.Update(ctx, func(tx state.Tx) error {
		rec, err := sessions.Get(tx, h)
		if errors.Is(err, state.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := deleteSession(tx, rec.Account, h); err != nil {
			return err
		}
		return s.audit(tx, rec.Account, Event{What: EventSignedOut, Addr: by.Addr})
	})
}

// SignOutEverywhere ends every session of the account of session id, this
// one included.
func (s *Service) SignOutEverywhere(ctx context.Context, id string, by Client) error {
	sess, _, err := s.Session(ctx, id)
	if err != nil {
		return err
	}
	return s.st.Update(ctx, func(tx state.Tx) error {
		if err := deleteSessions(tx, sess.Account, ""); err != nil {
			return err
		}
		return s.audit(tx, sess.Account, Event{What: EventSignedOutEverywhere, Addr: by.Addr})
	})
}

// deleteSession deletes one session and its index record.
func deleteSession(tx state.Tx, account, h string) error {
	if err := sessions.Delete(tx, h); err != nil {
		return err
	}
	return sessionIndexes.Delete(tx, account+"/"+h)
}

// deleteSessions deletes the sessions of account but the one whose hash is
// keep ("": all).
func deleteSessions(tx state.Tx, account, keep string) error {
	var hashes []string
	prefix := account + "/"
	err := tx.Scan(state.Sessions, state.ScanOptions{Prefix: prefix}, func(k string, _ []byte) error {
		if h := strings.TrimPrefix(k, prefix); h != keep {
			hashes = append(hashes, h)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, h := range hashes {
		if err := deleteSession(tx, account, h); err != nil {
			return err
		}
	}
	return nil
}

// SessionCount returns the number of live sessions of account id.
func (s *Service) SessionCount(ctx context.Context, id string) (int, error) {
	n := 0
	err := s.st.View(ctx, func(tx state.Tx) error {
		n = 0
		return tx.Scan(state.Sessions, state.ScanOptions{Prefix: id + "/"}, func(string, []byte) error { n++; return nil })
	})
	return n, err
}

// flashAEAD is the cipher of session id's flash.
func flashAEAD(id string) (cipher.AEAD, error) {
	k := sha256.Sum256([]byte("cardedge session flash v1\x00" + id))
	b, err := aes.NewCipher(k[:])
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

// SetFlash keeps msg for the next TakeFlash of session id (within five
// minutes), sealed so that only a holder of the session id can read it.
func (s *Service) SetFlash(ctx context.Context, id string, msg []byte) error {
	h := sessionHash(id)
	if h == "" {
		return errNoSession
	}
	aead, err := flashAEAD(id)
	if err != nil {
		return err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return err
	}
	sealed := aead.Seal(nonce, nonce, msg, []byte(h))
	err = s.st.Update(ctx, func(tx state.Tx) error {
		r, err := sessions.Get(tx, h)
		if err != nil {
			return err
		}
		r.Flash, r.FlashAt = sealed, s.now().UTC()
		return sessions.Put(tx, h, r, s.opts.SessionIdle)
	})
	if errors.Is(err, state.ErrNotFound) {
		return errNoSession
	}
	return err
}

// TakeFlash returns and forgets the flash of session id (nil when there is
// none, or it is older than five minutes).
func (s *Service) TakeFlash(ctx context.Context, id string) ([]byte, error) {
	h := sessionHash(id)
	if h == "" {
		return nil, errNoSession
	}
	var sealed []byte
	var at time.Time
	err := s.st.View(ctx, func(tx state.Tx) error {
		r, err := sessions.Get(tx, h)
		sealed, at = r.Flash, r.FlashAt
		return err
	})
	if errors.Is(err, state.ErrNotFound) {
		return nil, errNoSession
	}
	if err != nil || sealed == nil {
		return nil, err
	}
	err = s.st.Update(ctx, func(tx state.Tx) error {
		r, err := sessions.Get(tx, h)
		if err != nil {
			return err
		}
		sealed, at = r.Flash, r.FlashAt
		r.Flash, r.FlashAt = nil, time.Time{}
		return sessions.Put(tx, h, r, s.opts.SessionIdle)
	})
	if err != nil || sealed == nil || s.now().Sub(at) > flashTTL {
		return nil, err
	}
	aead, err := flashAEAD(id)
	if err != nil {
		return nil, err
	}
	if len(sealed) < aead.NonceSize() {
		return nil, nil
	}
	msg, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], []byte(h))
	if err != nil {
		return nil, nil // not sealed for this id: nothing to show
	}
	return msg, nil
}
