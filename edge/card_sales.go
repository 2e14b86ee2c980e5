package edge

import (
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
		pos, err := pricing.ParseCursor(r.srv.opts.CursorSecret, p.str("cursor"), binding)
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
		cur := pg.Last.Cursor(r.srv.opts.CursorSecret, binding)
		out.NextCursor = &cur
	}
	return out, nil
}
