package access

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
)

// Key operations inside a transaction of the state store, for callers that
// change keys together with records of their own in one transaction (package
// account: a key and its audit event, an account's tier and its keys'). Every
// change adds 1 to state.MetaKeysRev, so running services reload the key
// table at their next sync (within a second). Keys wraps them for the CLI.

// Secret is a freshly drawn key secret. Draw it with NewSecret before the
// transaction (Update may run its function more than once, and must not draw
// a new secret each time) and show Text once: only its hash is stored.
type Secret struct {
	Text string
	hash [sha256.Size]byte
}

// NewSecret draws a secret for tier t (free, pro or elite).
func NewSecret(t Tier) (Secret, error) {
	if t == Playground || !t.Valid() {
		return Secret{}, apperr.Errorf(apperr.EINVALID, "a key's tier must be free, pro or elite")
	}
	text, err := newSecret(t)
	if err != nil {
		return Secret{}, err
	}
	return Secret{Text: text, hash: hashSecret([]byte(text))}, nil
}

// CheckName returns the name a key would get (trimmed) or EINVALID when it is
// longer than 100 characters or has control characters. Empty is allowed:
// InsertKey names the key after its id.
func CheckName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if n := utf8.RuneCountInString(name); n > 100 || !utf8.ValidString(name) ||
		strings.IndexFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0 {
		return "", apperr.Errorf(apperr.EINVALID, "a key's name must be up to 100 printable characters")
	}
	return name, nil
}

// InsertKey stores a new key with secret sec: k's Tier, Name (checked with
// CheckName; empty means "key-" and the id's 8 characters), flags, Account,
// Expires and Created (which the caller stamps) are kept; a fresh id is drawn.
// It returns the stored key. EINVALID: bad tier or name.
func InsertKey(tx state.Tx, sec Secret, k Key) (Key, error) {
	if k.Tier == Playground || !k.Tier.Valid() {
		return Key{}, apperr.Errorf(apperr.EINVALID, "a key's tier must be free, pro or elite")
	}
	if sec.Text == "" {
		return Key{}, errors.New("access: InsertKey without a secret (use NewSecret)")
	}
	name, err := CheckName(k.Name)
	if err != nil {
		return Key{}, err
	}
	k.Revoked, k.RolledTo = k.Revoked.UTC(), ""
	k.Hint = sec.Text[:len(secretPrefix)+2] + "…" + sec.Text[len(sec.Text)-4:]
	for range 10 {
		id, err := newKeyID()
		if err != nil {
			return Key{}, err
		}
		k.ID, k.Name = id, name
		if k.Name == "" {
			k.Name = "key-" + strings.TrimPrefix(id, "k_")
		}
		err = keysTable.Insert(tx, id, keyRecord{Key: k, Hash: hex.EncodeToString(sec.hash[:])}, 0)
		if errors.Is(err, state.ErrConflict) {
			continue
		}
		if err != nil {
			return Key{}, err
		}
		return k, tx.Add(state.Meta, state.MetaKeysRev, 1, 0)
	}
	return Key{}, errors.New("access: could not draw an unused key id")
}

// wellFormedID reports whether id looks like a key id ("k_" + 8 base32
// characters), so that ids from URLs never reach the store unchecked.
func wellFormedID(id string) bool {
	if len(id) != 10 || !strings.HasPrefix(id, "k_") {
		return false
	}
	_, err := idEncoding.DecodeString(id[2:])
	return err == nil
}

// GetKey returns key id. ENOTFOUND: no such key (or not an id at all).
func GetKey(tx state.Tx, id string) (Key, error) {
	if !wellFormedID(id) {
		return Key{}, apperr.Errorf(apperr.ENOTFOUND, "no key with id %q", id)
	}
	r, err := keysTable.Get(tx, id)
	if errors.Is(err, state.ErrNotFound) {
		return Key{}, apperr.Errorf(apperr.ENOTFOUND, "no key with id %q", id)
	}
	if err != nil {
		return Key{}, err
	}
	return r.Key, nil
}

// UpdateKey rewrites key k.ID with k's fields (its secret's hash is kept) and
// moves the key table's revision. The id and creation time cannot change.
// ENOTFOUND: no such key; EINVALID: a bad tier or name.
func UpdateKey(tx state.Tx, k Key) error {
	if k.Tier == Playground || !k.Tier.Valid() {
		return apperr.Errorf(apperr.EINVALID, "a key's tier must be free, pro or elite")
	}
	if _, err := CheckName(k.Name); err != nil {
		return err
	}
	if !wellFormedID(k.ID) {
		return apperr.Errorf(apperr.ENOTFOUND, "no key with id %q", k.ID)
	}
	r, err := keysTable.Get(tx, k.ID)
	if errors.Is(err, state.ErrNotFound) {
		return apperr.Errorf(apperr.ENOTFOUND, "no key with id %q", k.ID)
	}
	if err != nil {
		return err
	}
	k.Created = r.Created
	r.Key = k
	return putKey(tx, r)
}

// ScanKeys calls fn with every key, in id order. The key table is small (it
// is held in memory by every server): an account's keys are found by a scan.
func ScanKeys(tx state.Tx, fn func(Key) error) error {
	recs, err := readKeys(tx)
	if err != nil {
		return err
	}
	for _, r := range recs {
		if err := fn(r.Key); err != nil {
			return err
		}
	}
	return nil
}
