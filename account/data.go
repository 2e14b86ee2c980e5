package account

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
)

// An account's data: its export (everything it owns, as JSON) and its
// deletion (everything it owns, and nothing of anyone else's). This package
// reads and removes what it keeps (the account, its email, sessions and
// audit log) and the access layer's records of its keys (the keys without
// their secrets' hashes, their last use, their usage counters); the rest
// (collections and their history, alerts, webhooks, connected apps,
// cohorts) is kept by other packages, which the caller names as Parts:
// each reads or deletes its records inside the same transaction.

// ExportFormat names the export's layout.
const ExportFormat = "cardedge-account-export.v1"

// Owned names what an account owns in the state store: records under its
// id, and records under its keys' ids (a key's usage, a key's collection
// from before collections belonged to accounts, a key's cohorts).
type Owned struct {
	Account string   // "a_..."
	Keys    []string // its keys' ids, revoked ones included
}

// IDs returns the account's id and its keys' ids.
func (o Owned) IDs() []string { return append([]string{o.Account}, o.Keys...) }

// Part is data of an account another package keeps: Export reads it and
// Delete deletes it, in the transaction of the account's export or
// deletion (Delete may run more than once: state.Store.Update).
type Part struct {
	// Name is the part's key in the export's data ("alerts").
	Name   string
	Export func(tx state.Tx, o Owned) (any, error)
	Delete func(tx state.Tx, o Owned) error
}

// Export is an account's data export.
type Export struct {
	Format   string    `json:"format"` // ExportFormat
	Exported time.Time `json:"exported"`
	Account  struct {
		ID              string    `json:"id"`
		Email           string    `json:"email"`
		Tier            string    `json:"tier"`
		Disabled        bool      `json:"disabled"`
		Created         time.Time `json:"created"`
		PasswordChanged time.Time `json:"password_changed"`
	} `json:"account"`
	// Keys are the account's API keys without their secrets (nor the
	// hash or hint of them).
	Keys     []ExportKey         `json:"keys"`
	Sessions []ExportSession     `json:"sessions"`
	Usage    []access.UsageCount `json:"usage"`
	Audit    []Event             `json:"audit"` // newest first
	// Data holds the parts' exports by name.
	Data map[string]any `json:"data"`
}

// ExportKey is a key in an export.
type ExportKey struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Tier      string     `json:"tier"`
	SQL       bool       `json:"sql"`
	Created   time.Time  `json:"created"`
	Expires   *time.Time `json:"expires"`
	Revoked   *time.Time `json:"revoked"`
	RolledTo  string     `json:"rolled_to,omitempty"`
	Suspended bool       `json:"suspended"`
	LastUsed  *time.Time `json:"last_used"`
}

// ExportSession is a signed-in session in an export (never its id).
type ExportSession struct {
	Created time.Time `json:"created"`
	Seen    time.Time `json:"seen"`
	Addr    string    `json:"addr,omitempty"`
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

// owned reads what account id owns, in tx. ENOTFOUND.
func owned(tx state.Tx, id string) (Account, Owned, []access.Key, error) {
	a, err := getAccount(tx, id)
	if err != nil {
		return a, Owned{}, nil, err
	}
	o := Owned{Account: a.ID}
	var keys []access.Key
	err = access.ScanKeys(tx, func(k access.Key) error {
		if k.Account == a.ID {
			keys = append(keys, k)
			o.Keys = append(o.Keys, k.ID)
		}
		return nil
	})
	return a, o, keys, err
}

// Export returns everything account id owns: the account (without its
// password hash), its keys (without secrets), sessions, usage and audit
// log, and each part's data, read in one transaction. ENOTFOUND.
func (s *Service) Export(ctx context.Context, id string, parts []Part) (Export, error) {
	var x Export
	err := s.st.View(ctx, func(tx state.Tx) error {
		x = Export{Format: ExportFormat, Exported: s.now().UTC().Truncate(time.Second), Keys: []ExportKey{}, Sessions: []ExportSession{},
			Audit: []Event{}, Data: map[string]any{}}
		a, o, keys, err := owned(tx, id)
		if err != nil {
			return err
		}
		x.Account.ID, x.Account.Email, x.Account.Tier, x.Account.Disabled = a.ID, a.Email, a.Tier.String(), a.Disabled
		x.Account.Created, x.Account.PasswordChanged = a.Created, a.PasswordChanged
		for _, k := range keys {
			last, err := access.LastUsed(tx, k.ID)
			if err != nil {
				return err
			}
			x.Keys = append(x.Keys, ExportKey{ID: k.ID, Name: k.Name, Tier: k.Tier.String(), SQL: k.SQL, Created: k.Created,
				Expires: timePtr(k.Expires), Revoked: timePtr(k.Revoked), RolledTo: k.RolledTo, Suspended: k.Suspended, LastUsed: timePtr(last)})
		}
		prefix := a.ID + "/"
		if err := sessionIndexes.Scan(tx, state.ScanOptions{Prefix: prefix}, func(k string, _ sessionIndex) error {
			r, err := sessions.Get(tx, strings.TrimPrefix(k, prefix))
			if errors.Is(err, state.ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			x.Sessions = append(x.Sessions, ExportSession{Created: r.Created, Seen: r.Seen, Addr: r.Addr})
			return nil
		}); err != nil {
			return err
		}
		if x.Usage, err = access.ExportUsage(tx, o.IDs()); err != nil {
			return err
		}
		if err := auditLog.Scan(tx, state.ScanOptions{Prefix: prefix, Reverse: true}, func(_ string, e Event) error {
			x.Audit = append(x.Audit, e)
			return nil
		}); err != nil {
			return err
		}
		for _, p := range parts {
			v, err := p.Export(tx, o)
			if err != nil {
				return errors.Join(errors.New("export "+p.Name), err)
			}
			x.Data[p.Name] = v
		}
		return nil
	})
	return x, err
}

// Delete deletes account id and everything it owns, in one transaction:
// each part's data first, then its keys (refused by every server within a
// second), their last use and usage, its sessions (signed out everywhere),
// its audit log, the account and its email (free to sign up again).
// Nothing of another account is touched. ENOTFOUND.
func (s *Service) Delete(ctx context.Context, id string, parts []Part) error {
	return s.st.Update(ctx, func(tx state.Tx) error {
		a, o, _, err := owned(tx, id)
		if err != nil {
			return err
		}
		for _, p := range parts {
			if err := p.Delete(tx, o); err != nil {
				return errors.Join(errors.New("delete "+p.Name), err)
			}
		}
		for _, k := range o.Keys {
			if err := access.DeleteKey(tx, k); err != nil {
				return err
			}
		}
		if err := access.DeleteUsage(tx, a.ID); err != nil { // the chat quota's counters
			return err
		}
		if err := deleteSessions(tx, a.ID, ""); err != nil {
			return err
		}
		var audit []string
		if err := tx.Scan(state.Audit, state.ScanOptions{Prefix: a.ID + "/"}, func(k string, _ []byte) error {
			audit = append(audit, k)
			return nil
		}); err != nil {
			return err
		}
		for _, k := range audit {
			if err := tx.Delete(state.Audit, k); err != nil {
				return err
			}
		}
		if err := emails.Delete(tx, a.Email); err != nil {
			return err
		}
		return accounts.Delete(tx, a.ID)
	})
}

// DeleteSignedIn deletes the account signed in with session sessionID
// after checking its password again (as ChangePassword does: throttled),
// with Delete. EUNAUTHORIZED: the session has ended or the password is not
// right.
func (s *Service) DeleteSignedIn(ctx context.Context, sessionID, password string, parts []Part, by Client) error {
	_, a, err := s.Session(ctx, sessionID)
	if err != nil {
		return err
	}
	if wait := s.throttle.check(a.Email, by.Addr, s.now()); wait > 0 {
		return throttled(wait)
	}
	hctx, cancel := context.WithTimeout(ctx, s.opts.HashWait)
	ok, _, err := s.verify(hctx, password, a.Password)
	cancel()
	if err != nil {
		return err
	}
	if !ok {
		s.throttle.fail(a.Email, by.Addr, s.now())
		return apperr.Errorf(apperr.EUNAUTHORIZED, "the password is not right: the account was not deleted")
	}
	return s.Delete(ctx, a.ID, parts)
}
