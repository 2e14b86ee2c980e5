package edge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

func handleCardGet(r *request) (any, error) {
	c, err := r.cardOf()
	if err != nil {
		return nil, err
	}
	finish, err := r.finishOf(c)
	if err != nil {
		return nil, err
	}
	d := &r.detail
	if finish < 0 {
		*d = r.snap.cardDetail(c)
	} else {
		m, err := pricing.ReadMarketObject(r.snap.Reader, c, finish, r.snap.AsOf)
		if err != nil {
			return nil, err
		}
		*d = pricing.CardDetail{Card: c, Set: r.setOf(c), Market: m}
	}
	var buf [16]string // more than the includes there are
	names := buf[:0]
	for n := range strings.SplitSeq(r.p.str("include"), ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if !slices.Contains(pricing.IncludeNames, n) {
			return nil, validationErrors{queryError("include", fmt.Sprintf("unknown include %q; allowed: %s", n, strings.Join(pricing.IncludeNames, ", ")), "enum", r.p.str("include"), nil)}
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) > 0 {
		if err := r.fillIncludes(&r.includes, c, finish, names); err != nil {
			return nil, err
		}
		d.Includes = &r.includes
	}
	return d, nil
}

// finishOf reads the request's finish parameter for card c: the printing it
// names (pricing.PrintingOf), or -1 when it is not given (the card's base
// printing, read through the reader's base-printing methods). A finish the
// card has not is a 422 naming its printings.
func (r *request) finishOf(c *snapshots.Card) (int, error) {
	if !r.p.has("finish") {
		return -1, nil
	}
	f, err := pricing.PrintingOf(c, r.p.str("finish"))
	if err != nil {
		return 0, validationErrors{queryError("finish", apperr.ErrorMessage(err), "value_error", r.p.str("finish"), nil)}
	}
	return f, nil
}

// finishParam is the finish parameter of the routes that price a card.
func finishParam() paramSpec {
	p := pStr("finish", 64, "Extension (not in the spec): the printing to price, one of the card's variants (holo/shadowless) or parts of one "+
		"(1st-edition, shadowless/1st-edition, reverse; the variant with the fewest other parts wins, the base printing on a tie). "+
		"Default: the card's base printing (see /api/v3/methodology, base_printing), named in the payload. Prices are never blended across printings.")
	p.extension = true
	return p
}

// historyStart is the first day a history include shows: the tier's window
// start or the default look-back, whichever is later.
func (r *request) historyStart(lookback int) snapshots.Day {
	start := r.snap.AsOf - snapshots.Day(lookback) + 1
	if w, ok := r.windowStart(); ok && w > start {
		start = w
	}
	return start
}

// cardIncludes computes the named subresources of a card in printing finish
// (-1: the base printing; see finishOf), in the caller's history window.
func (r *request) cardIncludes(c *snapshots.Card, finish int, names []string) (*pricing.CardIncludes, error) {
	out := &pricing.CardIncludes{}
	if err := r.fillIncludes(out, c, finish, names); err != nil {
		return nil, err
	}
	return out, nil
}

// fillIncludes is cardIncludes into out, which it expects zero.
func (r *request) fillIncludes(out *pricing.CardIncludes, c *snapshots.Card, finish int, names []string) error {
	o := pricing.IncludeOptions{AsOf: r.snap.AsOf, HistoryStart: r.historyStart(90), Objects: r.snap.encoded[c.Game]}
	o.SalesFrom, o.SalesFromSet = r.windowStart()
	return out.Read(r.snap.Reader, c, finish, names, o)
}
