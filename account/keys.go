package account

import (
	"context"
	"sort"
	"strconv"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
)

// Key operations are bound to an account: the account id comes from the
// session, never from the request, and a key of another account is answered
// exactly as a key that does not exist (ENOTFOUND). Each one commits with its
// audit event, and moves the key table's revision (running servers see it
// within a second).

// Lifetimes offered for new keys, in days (0: never expires); KeyMaxDays caps
// them.
var Lifetimes = []int{30, 90, 365, 0}

// Graces offered when a key is rolled: how long the old key keeps working.
var Graces = []time.Duration{0, time.Hour, 24 * time.Hour}

// MaxGrace is the longest grace a roll accepts.
const MaxGrace = 7 * 24 * time.Hour

// Keys returns the keys of account id, newest first, revoked ones included.
func (s *Service) Keys(ctx context.Context, id string) ([]access.Key, error) {
	var out []access.Key
	err := s.st.View(ctx, func(tx state.Tx) error {
		out = out[:0]
		return s.eachKey(tx, id, func(k access.Key) error {
			out = append(out, k)
			return nil
		})
	})
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.After(out[j].Created)
		}
		return out[i].ID > out[j].ID
	})
	return out, err
}

// Key returns key keyID of account id. ENOTFOUND: no such key, or another
// account's.
func (s *Service) Key(ctx context.Context, id, keyID string) (access.Key, error) {
	var k access.Key
	err := s.st.View(ctx, func(tx state.Tx) (err error) {
		k, err = ownKey(tx, id, keyID)
		return err
	})
	return k, err
}

// ownKey returns key keyID if account id owns it, else ENOTFOUND with the
// message of a key that does not exist.
func ownKey(tx state.Tx, id, keyID string) (access.Key, error) {
	k, err := access.GetKey(tx, keyID)
	if err != nil {
		return access.Key{}, err
	}
	if k.Account != id || id == "" {
		return access.Key{}, apperr.Errorf(apperr.ENOTFOUND, "no key with id %q", keyID)
	}
	return k, nil
}

// checkLifetime returns EINVALID when days (0: never) is not allowed.
func (s *Service) checkLifetime(days int) error {
	max := s.opts.KeyMaxDays
	switch {
	case days < 0 || days > 3650:
		return apperr.Errorf(apperr.EINVALID, "a key's lifetime must be 1 to 3650 days, or never")
	case max > 0 && days == 0:
		return apperr.Errorf(apperr.EINVALID, "keys on this server expire within %d days: choose a lifetime", max)
	case max > 0 && days > max:
		return apperr.Errorf(apperr.EINVALID, "keys on this server live at most %d days", max)
	}
	return nil
}

// expiry returns the expiry of a key created at t living days (0: never).
func expiry(t time.Time, days int) time.Time {
	if days == 0 {
		return time.Time{}
	}
	return t.AddDate(0, 0, days)
}

// drawSecret reads account id's tier and draws a secret for it, outside a
// transaction; inside it, the caller checks the tier did not change (else
// it draws again).
func (s *Service) drawSecret(ctx context.Context, id string) (access.Secret, access.Tier, error) {
	a, err := s.Get(ctx, id)
	if err != nil {
		return access.Secret{}, 0, err
	}
	sec, err := access.NewSecret(a.Tier)
	return sec, a.Tier, err
}

// errTierMoved asks CreateKey and RollKey to draw again.
var errTierMoved = apperr.Errorf(apperr.EINTERNAL, "the account's tier changed meanwhile")

// CreateKey creates a key of account id (with the account's tier) named name,
// living days (0: never; see Lifetimes and KeyMaxDays), and returns its
// secret (shown once) and record. EINVALID: a bad name or lifetime, or too
// many keys; EFORBIDDEN: the account is disabled.
func (s *Service) CreateKey(ctx context.Context, id, name string, days int, by Client) (string, access.Key, error) {
	if err := s.checkLifetime(days); err != nil {
		return "", access.Key{}, err
	}
	if _, err := access.CheckName(name); err != nil {
		return "", access.Key{}, err
	}
	for range 3 {
		sec, tier, err := s.drawSecret(ctx, id)
		if err != nil {
			return "", access.Key{}, err
		}
		var k access.Key
		err = s.st.Update(ctx, func(tx state.Tx) error {
			a, err := getAccount(tx, id)
			if err != nil {
				return err
			}
			if a.Disabled {
				return apperr.Errorf(apperr.EFORBIDDEN, "this account is disabled")
			}
			if a.Tier != tier {
				return errTierMoved
			}
			now := s.now().UTC().Truncate(time.Second)
			n := 0
			if err := s.eachKey(tx, id, func(k access.Key) error {
				if k.Active() && !k.Expired(now) {
					n++
				}
				return nil
			}); err != nil {
				return err
			}
			if n >= s.opts.MaxKeys {
				return apperr.Errorf(apperr.EINVALID, "an account may hold %d working keys; revoke one first", s.opts.MaxKeys)
			}
			k, err = access.InsertKey(tx, sec, access.Key{Name: name, Tier: tier, Account: id, Created: now, Expires: expiry(now, days)})
			if err != nil {
				return err
			}
			return s.audit(tx, id, Event{What: EventKeyCreated, Addr: by.Addr, Detail: keyDetail(k)})
		})
		if err == errTierMoved {
			continue
		}
		if err != nil {
			return "", access.Key{}, err
		}
		return sec.Text, k, nil
	}
	return "", access.Key{}, errTierMoved
}

// RollKey replaces key keyID of account id with a new key of the same name,
// tier and settings (its lifetime too, counted from now, within KeyMaxDays),
// and returns the new secret (shown once) and key. The old key keeps working
// for grace (0: it is revoked now; at most MaxGrace), then answers 401
// key_expired. ENOTFOUND: no such key of this account; EINVALID: the key is
// revoked, expired or already rolled, or a bad grace.
func (s *Service) RollKey(ctx context.Context, id, keyID string, grace time.Duration, by Client) (string, access.Key, error) {
	if grace < 0 || grace > MaxGrace {
		return "", access.Key{}, apperr.Errorf(apperr.EINVALID, "the grace period must be 0 to 7 days")
	}
	for range 3 {
		sec, tier, err := s.drawSecret(ctx, id)
		if err != nil {
			return "", access.Key{}, err
		}
		var nk access.Key
		err = s.st.Update(ctx, func(tx state.Tx) error {
			a, err := getAccount(tx, id)
			if err != nil {
				return err
			}
			if a.Disabled {
				return apperr.Errorf(apperr.EFORBIDDEN, "this account is disabled")
			}
			if a.Tier != tier {
				return errTierMoved
			}
			old, err := ownKey(tx, id, keyID)
			if err != nil {
				return err
			}
			now := s.now().UTC().Truncate(time.Second)
			switch {
			case !old.Active():
				return apperr.Errorf(apperr.EINVALID, "key %s is revoked: create a new key instead", keyID)
			case old.RolledTo != "":
				return apperr.Errorf(apperr.EINVALID, "key %s was rolled already (to %s)", keyID, old.RolledTo)
			case old.Expired(now):
				return apperr.Errorf(apperr.EINVALID, "key %s has expired: create a new key instead", keyID)
			}
			days := 0
			if !old.Expires.IsZero() {
				days = max(1, int(old.Expires.Sub(old.Created).Round(24*time.Hour)/(24*time.Hour)))
			}
			if m := s.opts.KeyMaxDays; m > 0 && (days == 0 || days > m) {
				days = m
			}
			nk, err = access.InsertKey(tx, sec, access.Key{Name: old.Name, Tier: tier, SQL: old.SQL, Unmetered: old.Unmetered,
				Account: id, Created: now, Expires: expiry(now, days)})
			if err != nil {
				return err
			}
			old.RolledTo = nk.ID
			if grace == 0 {
				old.Revoked = now
			} else if end := now.Add(grace); old.Expires.IsZero() || end.Before(old.Expires) {
				old.Expires = end
			}
			if err := access.UpdateKey(tx, old); err != nil {
				return err
			}
			return s.audit(tx, id, Event{What: EventKeyRolled, Addr: by.Addr,
				Detail: keyDetail(old) + " → " + nk.ID + ", grace " + graceText(grace)})
		})
		if err == errTierMoved {
			continue
		}
		if err != nil {
			return "", access.Key{}, err
		}
		return sec.Text, nk, nil
	}
	return "", access.Key{}, errTierMoved
}

// RevokeKey revokes key keyID of account id (at once: running servers refuse
// it within a second). Revoking a revoked key changes nothing. ENOTFOUND: no
// such key of this account.
func (s *Service) RevokeKey(ctx context.Context, id, keyID string, by Client) (access.Key, error) {
	var k access.Key
	err := s.st.Update(ctx, func(tx state.Tx) (err error) {
		if k, err = ownKey(tx, id, keyID); err != nil || !k.Active() {
			return err
		}
		k.Revoked = s.now().UTC().Truncate(time.Second)
		if err := access.UpdateKey(tx, k); err != nil {
			return err
		}
		return s.audit(tx, id, Event{What: EventKeyRevoked, Addr: by.Addr, Detail: keyDetail(k)})
	})
	return k, err
}

func keyDetail(k access.Key) string { return k.ID + " (" + strconv.Quote(k.Name) + ")" }

// graceText says a grace period in words.
func graceText(d time.Duration) string {
	switch {
	case d == 0:
		return "none (revoked at once)"
	case d%time.Hour == 0 && d < 48*time.Hour:
		if d == time.Hour {
			return "1 hour"
		}
		return strconv.Itoa(int(d/time.Hour)) + " hours"
	}
	return d.String()
}
