package access

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"strings"
	"time"

	"github.com/cardedge/cardedge/apperr"
)

// Key is the public record of an API key. The secret itself is never stored:
// only its SHA-256 hash is, in the state store.
type Key struct {
	ID        string    `json:"id"`   // short public id, "k_" + 8 base32 characters
	Name      string    `json:"name"` // free text chosen at creation
	Tier      Tier      `json:"tier"`
	SQL       bool      `json:"sql"`       // on the allowlist for POST /api/v3/sql
	Unmetered bool      `json:"unmetered"` // no quota or rate limit (load tests)
	Created   time.Time `json:"created"`
	Revoked   time.Time `json:"revoked,omitzero"` // zero while the key is active

	// Account is the dashboard account that owns the key (package account);
	// "" for a key made by `cardedge keys create`, which belongs to nobody.
	Account string `json:"account,omitempty"`
	// Expires is when the key stops working: from then on it is a 401
	// key_expired. Zero means never.
	Expires time.Time `json:"expires,omitzero"`
	// Suspended is set while the owning account is disabled: the key is a
	// 401 until the operator enables the account again.
	Suspended bool `json:"suspended,omitempty"`
	// RolledTo is the id of the key that replaced this one (a roll); the
	// old key works until its Expires, the end of the grace period.
	RolledTo string `json:"rolled_to,omitempty"`
	// Hint is the secret's prefix and last four characters ("ce_f_…x9Qz"),
	// so that people can tell their keys apart; 24 of the secret's 256 bits.
	// Empty for keys made before it was kept.
	Hint string `json:"hint,omitempty"`
}

// Active reports whether k has not been revoked.
func (k Key) Active() bool { return k.Revoked.IsZero() }

// Expired reports whether k has expired at t.
func (k Key) Expired(t time.Time) bool { return !k.Expires.IsZero() && !t.Before(k.Expires) }

// Usable reports whether k authenticates at t: not revoked, not suspended,
// not expired.
func (k Key) Usable(t time.Time) bool { return k.Active() && !k.Suspended && !k.Expired(t) }

// Key secrets look like
//
//	ce_<t>_<43 base64url characters>
//
// where <t> is the tier letter (f, p or e) and the rest encodes 32 random
// bytes (base64url, no padding). The prefix lets people and secret scanners
// recognise a cardedge key and its tier at a glance; the tier that applies is
// always the stored one, and because the hash covers the whole string, a key
// whose letter was edited is simply unknown.
const (
	secretBytes  = 32
	secretPrefix = "ce_"
	secretB64Len = 43 // base64.RawURLEncoding.EncodedLen(32)
	secretLen    = len(secretPrefix) + 2 + secretB64Len
)

var tierLetters = [numTiers]byte{0, 'f', 'p', 'e'}

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newSecret returns a fresh secret for tier t.
func newSecret(t Tier) (string, error) {
	var b [secretBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	var sb strings.Builder
	sb.Grow(secretLen)
	sb.WriteString(secretPrefix)
	sb.WriteByte(tierLetters[t])
	sb.WriteByte('_')
	sb.WriteString(base64.RawURLEncoding.EncodeToString(b[:]))
	return sb.String(), nil
}

// newKeyID returns a fresh public key id.
func newKeyID() (string, error) {
	var b [5]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "k_" + idEncoding.EncodeToString(b[:]), nil
}

// hashSecret is the stored form of a secret.
func hashSecret(secret []byte) [sha256.Size]byte { return sha256.Sum256(secret) }

// b64url marks the bytes of the base64url alphabet.
var b64url = func() (t [256]uint8) {
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" {
		t[c] = 1
	}
	return t
}()

// wellFormed reports whether tok has the shape of a key secret.
func wellFormed(tok []byte) bool {
	if len(tok) != secretLen || string(tok[:3]) != secretPrefix || tok[4] != '_' {
		return false
	}
	switch tok[3] {
	case 'f', 'p', 'e':
	default:
		return false
	}
	ok := uint8(1)
	for _, c := range tok[5:] {
		ok &= b64url[c]
	}
	return ok == 1
}

// Messages of the 401 errors Authenticate returns.
const (
	msgScheme    = "malformed Authorization header: want \"Bearer <API_KEY>\""
	msgEmpty     = "malformed Authorization header: the API key is empty"
	msgSpace     = "malformed Authorization header: want exactly one space after Bearer and no whitespace in the API key"
	msgMalformed = "invalid API key: not a cardedge key (ce_<tier>_<secret>)"
	msgUnknown   = "invalid API key"
	msgRevoked   = "API key revoked"
	msgSuspended = "API key suspended: its account is disabled"
)

// EKEYEXPIRED is the error code of a key past its expiry (401): see
// apperr.EKEYEXPIRED.
const EKEYEXPIRED = apperr.EKEYEXPIRED

// parseBearer returns the token of an Authorization value "Bearer <token>"
// or the message of the 401 to answer. The scheme is case-insensitive;
// exactly one space separates it from the token, which must be a well-formed
// key: non-empty, without whitespace or control bytes.
func parseBearer(h []byte) ([]byte, string) {
	const scheme = "bearer"
	if len(h) < len(scheme) || !equalFoldASCII(h[:len(scheme)], scheme) {
		return nil, msgScheme
	}
	rest := h[len(scheme):]
	if len(rest) > 1 && rest[0] == ' ' && wellFormed(rest[1:]) {
		return rest[1:], "" // the fast path
	}
	switch {
	case len(rest) == 0:
		return nil, msgEmpty
	case rest[0] != ' ' && !isSpace(rest[0]):
		return nil, msgScheme // e.g. "Bearerx ..."
	case rest[0] != ' ':
		return nil, msgSpace
	case len(rest) == 1:
		return nil, msgEmpty
	}
	for _, c := range rest[1:] {
		if isSpace(c) {
			return nil, msgSpace
		}
	}
	if LooksLikeJWT(rest[1:]) {
		return nil, msgChatOnly
	}
	return nil, msgMalformed
}

func isSpace(c byte) bool { return c <= ' ' || c == 0x7f }

func equalFoldASCII(b []byte, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// unauthorized returns a fresh EUNAUTHORIZED error (callers may keep it).
func unauthorized(msg string) error {
	return &apperr.Error{Code: apperr.EUNAUTHORIZED, Message: msg}
}

// expired returns the key_expired error of a key that expired at exp (unix
// nanoseconds); a rolled key says so.
func expired(exp int64, rolled bool) error {
	at := time.Unix(0, exp).UTC().Format(time.RFC3339)
	msg := "API key expired at " + at + "; create a new key in the dashboard"
	if rolled {
		msg = "API key was rolled and its grace period ended at " + at + "; use the key that replaced it"
	}
	return &apperr.Error{Code: apperr.EKEYEXPIRED, Message: msg}
}
