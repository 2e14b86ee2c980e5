package pricing

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/cardedge/cardedge/snapshots"
)

// A sales cursor is a SalePosition signed for one query: the position, the
// first 8 bytes of the SHA-256 of the query's binding (the card and every
// filter) and an HMAC-SHA256 of both under the server's secret, cut to 16
// bytes:
//
//	base64url(version 1, day, id, sha256(binding)[:8]) "." base64url(hmac[:16])
//
// A cursor of another query, another secret or not issued byte for byte is
// refused.

// Cursor is p's cursor for the query binding, signed with secret.
func (p SalePosition) Cursor(secret []byte, binding string) string {
	b := make([]byte, 0, 21)
	b = append(b, 1)
	b = binary.BigEndian.AppendUint32(b, uint32(p.Day))
	b = binary.BigEndian.AppendUint64(b, p.ID)
	bh := sha256.Sum256([]byte(binding))
	b = append(b, bh[:8]...)
	mac := hmac.New(sha256.New, secret)
	mac.Write(b)
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:16])
}

// ParseCursor returns the position of cursor s issued (Cursor) for the
// query binding with secret; the error says why it is refused.
func ParseCursor(secret []byte, s, binding string) (SalePosition, error) {
	payload, sig, ok := strings.Cut(s, ".")
	if !ok {
		return SalePosition{}, fmt.Errorf("cursor is not a value this API issued")
	}
	b, err1 := base64.RawURLEncoding.DecodeString(payload)
	m, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || len(b) != 21 || b[0] != 1 {
		return SalePosition{}, fmt.Errorf("cursor is not a value this API issued")
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(b)
	if !hmac.Equal(mac.Sum(nil)[:16], m) {
		return SalePosition{}, fmt.Errorf("cursor signature does not verify")
	}
	bh := sha256.Sum256([]byte(binding))
	if !hmac.Equal(bh[:8], b[13:21]) {
		return SalePosition{}, fmt.Errorf("cursor belongs to another card or other filters; start again without cursor")
	}
	pos := SalePosition{Day: snapshots.Day(binary.BigEndian.Uint32(b[1:])), ID: binary.BigEndian.Uint64(b[5:])}
	if pos.Cursor(secret, binding) != s {
		// base64 decoding tolerates newlines and non-zero padding bits: only
		// the exact string issued is accepted (one cursor, one cache entry).
		return SalePosition{}, fmt.Errorf("cursor is not a value this API issued")
	}
	return pos, nil
}
