package resolve

import (
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/snapshots"
)

// ByID finds the card an id names in game: a card id ("en:base1-4", any
// case), or for an id of digits only, the card with that partner product id.
// It says how it found the card (ByCardID or ByPartnerID). An id that names
// no card is the card lookup's ENOTFOUND error; storage errors are returned
// as they are.
//
// It is the id step of every resolution: REST's card routes, batch and
// /prices, the agent's tools, collection imports and Resolve.
func ByID(r snapshots.Reader, game, id string) (*snapshots.Card, string, error) {
	c, err := r.Card(game, id)
	if err == nil {
		return c, ByCardID, nil
	}
	if apperr.ErrorCode(err) != apperr.ENOTFOUND || !isDigits(id) || len(id) > 18 {
		return nil, "", err
	}
	if n, perr := strconv.ParseInt(id, 10, 64); perr == nil && n > 0 {
		pc, perr := r.CardByPartnerID(game, n)
		if perr == nil {
			return pc, ByPartnerID, nil
		}
		if apperr.ErrorCode(perr) != apperr.ENOTFOUND {
			return nil, "", perr
		}
	}
	return nil, "", err
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// NormalizeNumber is a collector number as numbers are compared: trimmed,
// lowercased, without a "/total" part or leading zeros ("004/102" -> "4").
func NormalizeNumber(n string) string {
	n, _, _ = strings.Cut(strings.TrimSpace(n), "/")
	return strings.TrimLeft(strings.ToLower(n), "0")
}
