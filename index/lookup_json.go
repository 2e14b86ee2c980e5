package index

import (
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// LookupResult is REST's lookup.v1: a lookup's suggestions (the first Exact
// one resolved) with, for cards, the raw near-mint price the builder gave
// them (null when unpriced). It is the documented shape (encoding/json); a
// LookupAnswer writes the same bytes.
type LookupResult struct {
	Query    string       `json:"query"`
	Items    []LookupItem `json:"items"`
	Resolved *LookupItem  `json:"resolved"`
	Limit    int          `json:"limit"`
}

// LookupItem is one suggestion of a LookupResult with its price.
type LookupItem struct {
	Suggestion
	PriceUSD *float64 `json:"price_usd"`
}

// LookupAnswer is a lookup as REST answers it. Everything a suggestion
// shows, its price included, was computed at build time into the typeahead
// structure, so a lookup reads no card and the answer is written without
// reflection (AppendJSON): one allocation for the suggestions, one for the
// answer.
type LookupAnswer struct {
	query string
	items []Suggestion
	limit int
}

// NewLookupAnswer looks q up in ix (Lookup); a blank q has no suggestions.
func NewLookupAnswer(ix *Index, game, q, language string, limit int) *LookupAnswer {
	a := &LookupAnswer{query: q, limit: limit}
	if strings.TrimSpace(q) != "" {
		a.items = ix.AppendLookup(make([]Suggestion, 0, max(limit, 1)), game, q, language, limit)
	}
	return a
}

// Result returns the documented form of a.
func (a *LookupAnswer) Result() LookupResult {
	p := LookupResult{Query: a.query, Items: []LookupItem{}, Limit: a.limit}
	for _, s := range a.items {
		it := LookupItem{Suggestion: s}
		if s.Kind == "card" {
			it.PriceUSD = snapshots.USDOrNil(s.PriceCents)
		}
		p.Items = append(p.Items, it)
		if s.Exact && p.Resolved == nil {
			x := it
			p.Resolved = &x
		}
	}
	return p
}

// AppendJSON writes a exactly as encoding/json writes a.Result() (without
// HTML escaping): the suggestions' members come pre-encoded from the index.
func (a *LookupAnswer) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"query":`...)
	dst = jsontext.AppendStr(dst, a.query)
	dst = append(dst, `,"items":[`...)
	resolved := -1
	for i := range a.items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendLookupItem(dst, &a.items[i])
		if resolved < 0 && a.items[i].Exact {
			resolved = i
		}
	}
	dst = append(dst, `],"resolved":`...)
	if resolved >= 0 {
		dst = appendLookupItem(dst, &a.items[resolved])
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"limit":`...)
	dst = strconv.AppendInt(dst, int64(a.limit), 10)
	return append(dst, '}')
}

// appendLookupItem writes one LookupItem: the suggestion's members, then
// price_usd.
func appendLookupItem(dst []byte, s *Suggestion) []byte {
	dst = append(dst, '{')
	dst = s.AppendJSONMembers(dst)
	dst = append(dst, `,"price_usd":`...)
	if s.Kind != "card" {
		return append(dst, "null}"...)
	}
	return append(appendUSDOrNull(dst, s.PriceCents), '}')
}

// appendUSDOrNull writes snapshots.USDOrNil(cents) as encoding/json does:
// the float nearest to cents/100 prints as cents/100 while cents has at
// most 15 digits.
func appendUSDOrNull(dst []byte, cents int64) []byte {
	switch {
	case cents == 0:
		return append(dst, "null"...)
	case -1e15 < cents && cents < 1e15:
		return jsontext.AppendCents(dst, cents)
	}
	return jsontext.AppendNumber(dst, snapshots.USD(cents))
}
