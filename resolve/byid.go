package resolve

import (
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/snapshots"
)

// ByID finds the card an id names in game: a card id ("en:base1-4", any
// case); for an id of digits only, the card one of whose printings has
// that TCGplayer productId (the partner product id: the card whose
// partner_product_id it is first); for "tcgplayer:<productId>" the same,
// and for "cardmarket:<idProduct>" the card one of whose printings has
// that Cardmarket idProduct (a bare number names TCGplayer's: the two
// marketplaces' numbers overlap). It says how it found the card (ByCardID,
// ByPartnerID or ByCardmarketID). An id that names no card is the card
// lookup's ENOTFOUND error; storage errors are returned as they are.
//
// It is the id step of every resolution: REST's card routes, batch and
// /prices, the agent's tools, collection imports and Resolve.
func ByID(r snapshots.Reader, game, id string) (*snapshots.Card, string, error) {
	c, err := r.Card(game, id)
	if err == nil {
		return c, ByCardID, nil
	}
	if apperr.ErrorCode(err) != apperr.ENOTFOUND {
		return nil, "", err
	}
	market, by, digits := snapshots.MarketIDTCGplayer, ByPartnerID, id
	if p, rest, ok := strings.Cut(id, ":"); ok {
		switch strings.ToLower(p) {
		case PrefixTCGplayer:
		case PrefixCardmarket:
			market, by = snapshots.MarketIDCardmarket, ByCardmarketID
		default:
			return nil, "", err
		}
		digits = rest
	}
	if !isDigits(digits) || len(digits) > 18 {
		return nil, "", err
	}
	if n, perr := strconv.ParseInt(digits, 10, 64); perr == nil && n > 0 {
		pc, perr := r.CardByMarketID(game, market, n)
		if perr == nil {
			return pc, by, nil
		}
		if apperr.ErrorCode(perr) != apperr.ENOTFOUND {
			return nil, "", perr
		}
	}
	return nil, "", err
}

// The prefixes of a marketplace's product id (ByID): "cardmarket:273699",
// "tcgplayer:42382" (a bare number is TCGplayer's).
const (
	PrefixCardmarket = "cardmarket"
	PrefixTCGplayer  = "tcgplayer"
)

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
