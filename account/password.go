package account

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cardedge/cardedge/apperr"
	"golang.org/x/crypto/argon2"
	"golang.org/x/text/unicode/norm"
)

// HashParams are the Argon2id parameters of new password hashes.
type HashParams struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8  // lanes
}

// DefaultHashParams are OWASP's minimum for Argon2id (Password Storage Cheat
// Sheet): 19 MiB, 2 passes, 1 lane. Raising them is safe: a stored hash with
// lower parameters is rehashed at the next sign-in.
var DefaultHashParams = HashParams{Memory: 19 * 1024, Time: 2, Threads: 1}

const (
	saltLen = 16
	hashLen = 32
)

// Password rules (NIST SP 800-63B 3.1.1.2): at least MinPasswordLen and at
// most MaxPasswordLen characters (code points after NFKC normalization), any
// characters including spaces, no composition rules, and none of the common
// passwords and words of the blocklist, nor the service's name or the
// account's email.
const (
	MinPasswordLen = 8
	MaxPasswordLen = 256
)

// CheckPassword returns an EINVALID error saying what is wrong with password
// for the account of email, or nil.
func CheckPassword(password, email string) error {
	p := norm.NFKC.String(password)
	n := utf8.RuneCountInString(p)
	switch {
	case !utf8.ValidString(password):
		return apperr.Errorf(apperr.EINVALID, "the password is not valid UTF-8")
	case n < MinPasswordLen:
		return apperr.Errorf(apperr.EINVALID, "the password must have at least %d characters", MinPasswordLen)
	case n > MaxPasswordLen:
		return apperr.Errorf(apperr.EINVALID, "the password must have at most %d characters", MaxPasswordLen)
	}
	lower := strings.ToLower(p)
	if Blocked(lower) {
		return apperr.Errorf(apperr.EINVALID, "this password is too common: it is on a list of passwords and words attackers try first; choose another")
	}
	if r, _ := utf8.DecodeRuneInString(lower); strings.Count(lower, string(r)) == utf8.RuneCountInString(lower) {
		return apperr.Errorf(apperr.EINVALID, "the password repeats one character; choose another")
	}
	email = strings.ToLower(strings.TrimSpace(email))
	local, _, _ := strings.Cut(email, "@")
	for _, w := range []string{"cardedge", email, local} {
		if len(w) >= 4 && strings.Contains(lower, w) && len(lower) < len(w)+MinPasswordLen {
			return apperr.Errorf(apperr.EINVALID, "the password is too close to the service's name or your email; choose another")
		}
	}
	return nil
}

// hashPassword returns the PHC string of password with params p and a fresh
// salt:
//
//	$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>   (base64, no padding)
func hashPassword(password string, p HashParams) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(norm.NFKC.String(password)), salt, p.Time, p.Memory, p.Threads, hashLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// phc is a parsed PHC string.
type phc struct {
	params    HashParams
	salt, key []byte
}

// parsePHC parses an Argon2id PHC string of version 19.
func parsePHC(s string) (phc, error) {
	var h phc
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return h, fmt.Errorf("account: not an argon2id v=19 PHC string")
	}
	for _, kv := range strings.Split(parts[3], ",") {
		k, v, _ := strings.Cut(kv, "=")
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return h, fmt.Errorf("account: PHC parameter %q: %v", kv, err)
		}
		switch k {
		case "m":
			h.params.Memory = uint32(n)
		case "t":
			h.params.Time = uint32(n)
		case "p":
			if n > 255 {
				return h, fmt.Errorf("account: PHC parameter %q out of range", kv)
			}
			h.params.Threads = uint8(n)
		default:
			return h, fmt.Errorf("account: unknown PHC parameter %q", kv)
		}
	}
	if h.params.Memory < 8*uint32(h.params.Threads) || h.params.Time < 1 || h.params.Threads < 1 || h.params.Memory > 4<<20 {
		return h, fmt.Errorf("account: PHC parameters out of range")
	}
	var err error
	if h.salt, err = base64.RawStdEncoding.DecodeString(parts[4]); err != nil || len(h.salt) < 8 {
		return h, fmt.Errorf("account: PHC salt")
	}
	if h.key, err = base64.RawStdEncoding.DecodeString(parts[5]); err != nil || len(h.key) < 16 {
		return h, fmt.Errorf("account: PHC hash")
	}
	return h, nil
}

// verifyPassword reports whether password matches the PHC string, and
// whether the hash should be redone with params p (weaker than p).
func verifyPassword(password, stored string, p HashParams) (ok, rehash bool, err error) {
	h, err := parsePHC(stored)
	if err != nil {
		return false, false, err
	}
	key := argon2.IDKey([]byte(norm.NFKC.String(password)), h.salt, h.params.Time, h.params.Memory, h.params.Threads, uint32(len(h.key)))
	ok = subtle.ConstantTimeCompare(key, h.key) == 1
	rehash = h.params.Memory < p.Memory || h.params.Time < p.Time || h.params.Threads < p.Threads || len(h.key) < hashLen
	return ok, rehash, nil
}

// hashSlot waits for one of the hashing slots (Options.MaxHashing): a burst of
// sign-ins queues here instead of allocating Argon2's memory all at once. It
// returns EQUOTA when ctx ends first.
func (s *Service) hashSlot(ctx context.Context) (release func(), err error) {
	select {
	case s.hashing <- struct{}{}:
		return func() { <-s.hashing }, nil
	case <-ctx.Done():
		return nil, apperr.Errorf(apperr.EQUOTA, "the server is busy checking passwords; try again in a few seconds")
	}
}

// hash hashes password in a hashing slot.
func (s *Service) hash(ctx context.Context, password string) (string, error) {
	release, err := s.hashSlot(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	return hashPassword(password, s.opts.Hash)
}

// verify checks password against stored in a hashing slot. An empty stored
// hash (unknown account) is checked against a dummy hash with the same
// parameters, so that it takes as long, and never matches.
func (s *Service) verify(ctx context.Context, password, stored string) (ok, rehash bool, err error) {
	release, err := s.hashSlot(ctx)
	if err != nil {
		return false, false, err
	}
	defer release()
	s.checked.Add(1)
	if stored == "" {
		verifyPassword(password, s.dummy, s.opts.Hash)
		return false, false, nil
	}
	return verifyPassword(password, stored, s.opts.Hash)
}
