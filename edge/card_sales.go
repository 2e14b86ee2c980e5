package edge

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

type salesPage struct {
	CardID       string            `json:"card_id"`
	Items        []pricing.SaleRow `json:"items"`
	Limit        int               `json:"limit"`
	NextCursor   *string           `json:"next_cursor"`
	WindowStart  *string           `json:"window_start"`
	HistoryDays  *int              `json:"history_days"`
	Filters      salesFilters      `json:"filters"`
	RowsInWindow int               `json:"rows_in_window"`
}

type salesFilters struct {
	Since                    *string `json:"since"`
	IncludeFiltered          bool    `json:"include_filtered"`
	IncludeUntrustedIdentity bool    `json:"include_untrusted_identity"`
	IncludePriceFeed         bool    `json:"include_price_feed"`
	TradeType                *string `json:"trade_type"`
}

func handleSales(r *request) (any, error) {
	c, err := r.cardOf()
	if err != nil {
		return nil, err
	}
	p := r.p
	since, sinceSet := p.day("since")
	since, sinceSet = r.clampSince(since, sinceSet)
	f := salesFilters{
		IncludeFiltered: p.flag("include_filtered"), IncludeUntrustedIdentity: p.flag("include_untrusted_identity"),
		IncludePriceFeed: p.flag("include_price_feed"), TradeType: jsontext.StrOrNil(p.str("trade_type")),
	}
	if sinceSet {
		d := since.String()
		f.Since = &d
	}
	// The cursor binds the card and every filter: a cursor of another query
	// is refused.
	binding := fmt.Sprintf("%s|%s|%s|%v|%v|%v|%s", r.game, strings.ToLower(c.ID), since, f.IncludeFiltered, f.IncludeUntrustedIdentity, f.IncludePriceFeed, p.str("trade_type"))
	var after *pricing.SalePosition
	if p.has("cursor") && p.str("cursor") != "" {
		if r.caller.Tier == access.Playground {
			return nil, validationErrors{queryError("cursor", "paging needs an API key: the Playground tier gets the first page only", "value_error", p.str("cursor"), nil)}
		}
		pos, err := decodeCursor(r.srv.opts.CursorSecret, p.str("cursor"), binding)
		if err != nil {
			return nil, validationErrors{queryError("cursor", err.Error(), "value_error", p.str("cursor"), nil)}
		}
		after = &pos
	}
	sales, err := r.snap.Sales(r.game, c.ID)
	if err != nil {
		return nil, err
	}
	sf := pricing.SaleFilter{From: since, FromSet: sinceSet, To: r.snap.AsOf,
		IncludeFiltered: f.IncludeFiltered, IncludeUntrusted: f.IncludeUntrustedIdentity, IncludePriceFeed: f.IncludePriceFeed}
	sf.TradeType, sf.HasTradeType = snapshots.ParseTradeType(p.str("trade_type"))
	out := salesPage{CardID: c.ID, Limit: p.int("limit"), Filters: f}
	if start, ok := r.windowStart(); ok {
		d := start.String()
		out.WindowStart = &d
		h := r.limits.HistoryDays
		out.HistoryDays = &h
	}
	pg := pricing.PageSales(c, sales, sf, after, out.Limit)
	out.Items, out.RowsInWindow = pg.Rows, pg.InRange
	if pg.More && len(pg.Rows) > 0 && r.caller.Tier != access.Playground {
		cur := encodeCursor(r.srv.opts.CursorSecret, pg.Last, binding)
		out.NextCursor = &cur
	}
	return out, nil
}

// encodeCursor: base64url(version, day, id, sha256(binding)[:8]) "." base64url(hmac[:16]).
func encodeCursor(secret []byte, pos pricing.SalePosition, binding string) string {
	b := make([]byte, 0, 21)
	b = append(b, 1)
	b = binary.BigEndian.AppendUint32(b, uint32(pos.Day))
	b = binary.BigEndian.AppendUint64(b, pos.ID)
	bh := sha256.Sum256([]byte(binding))
	b = append(b, bh[:8]...)
	mac := hmac.New(sha256.New, secret)
	mac.Write(b)
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:16])
}

func decodeCursor(secret []byte, s, binding string) (pricing.SalePosition, error) {
	payload, sig, ok := strings.Cut(s, ".")
	if !ok {
		return pricing.SalePosition{}, fmt.Errorf("cursor is not a value this API issued")
	}
	b, err1 := base64.RawURLEncoding.DecodeString(payload)
	m, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || len(b) != 21 || b[0] != 1 {
		return pricing.SalePosition{}, fmt.Errorf("cursor is not a value this API issued")
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(b)
	if !hmac.Equal(mac.Sum(nil)[:16], m) {
		return pricing.SalePosition{}, fmt.Errorf("cursor signature does not verify")
	}
	bh := sha256.Sum256([]byte(binding))
	if !hmac.Equal(bh[:8], b[13:21]) {
		return pricing.SalePosition{}, fmt.Errorf("cursor belongs to another card or other filters; start again without cursor")
	}
	pos := pricing.SalePosition{Day: snapshots.Day(binary.BigEndian.Uint32(b[1:])), ID: binary.BigEndian.Uint64(b[5:])}
	if encodeCursor(secret, pos, binding) != s {
		// base64 decoding tolerates newlines and non-zero padding bits: only
		// the exact string issued is accepted (one cursor, one cache entry).
		return pricing.SalePosition{}, fmt.Errorf("cursor is not a value this API issued")
	}
	return pos, nil
}
