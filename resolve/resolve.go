package resolve

import (
	"context"
	"math"
	"strings"
	"unicode"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/snapshots"
)

// Resolution rules and limits.
const (
	// MaxCandidates is the most candidates an ambiguous reference lists.
	MaxCandidates = 5
	// DominanceRatio: a free-text reference whose best match scores at least
	// this many times the second best resolves to the best match.
	DominanceRatio = 2.0
	// MaxRefs is the most references one call may carry (the keyed JSON id
	// cap of the access layer, access.MaxJSONIDs).
	MaxRefs = 1000
	// MaxRefLen is the longest reference, in bytes (the REST q bound).
	MaxRefLen = 256
)

// Statuses of a resolution (and of a quote).
const (
	Resolved  = "resolved"
	Ambiguous = "ambiguous"
	NotFound  = "not_found"
)

// How a reference was resolved (Resolution.ResolvedBy).
const (
	ByPartnerID = "partner_product_id"
	// ByCardmarketID: a "cardmarket:<idProduct>" id (ByID).
	ByCardmarketID = "cardmarket_product_id"
	ByCardID       = "card_id"
	BySourceID     = "source_id"
	ByText         = "text"
)

// Candidate is a card offered for a reference: enough to tell cards apart.
type Candidate struct {
	CardID           string   `json:"card_id"`
	Game             string   `json:"game"`
	Name             string   `json:"name"`
	SetID            string   `json:"set_id"`
	SetName          string   `json:"set_name,omitempty"`
	Number           string   `json:"number"`
	Language         string   `json:"language"`
	Rarity           string   `json:"rarity,omitempty"`
	Variants         []string `json:"variants,omitempty"`
	PartnerProductID int64    `json:"partner_product_id,omitempty"`
	// MarketIDs are the card's printings at the marketplaces (their
	// product ids and pages).
	MarketIDs []snapshots.MarketLink `json:"market_ids"`
	// PriceUSD is the card's price: the raw:near_mint fmv of its base
	// printing (null when unpriced, or at confidence none;
	// snapshots.ShownPrice).
	PriceUSD *float64 `json:"price_usd"`
	// Score is the search relevance (text matches only).
	Score float64 `json:"score,omitempty"`
	// Play is the card's gameplay facts (search results: Search and the
	// MCP search tool set it; nil elsewhere, and omitted).
	Play *Play `json:"play,omitempty"`
}

// NewCandidate describes card c (its set name read from r).
func NewCandidate(r snapshots.Reader, c *snapshots.Card) Candidate {
	cand := Candidate{
		CardID: c.ID, Game: c.Game, Name: c.Name, SetID: c.SetID, Number: c.Number, Language: c.Language,
		Rarity: c.Rarity, Variants: c.Variants, PartnerProductID: c.PartnerProductID, MarketIDs: snapshots.MarketLinks(c),
	}
	if price, err := snapshots.ShownPrice(r, c); err == nil {
		cand.PriceUSD = snapshots.USDOrNil(price)
	}
	if s, err := r.Set(c.Game, c.SetID); err == nil {
		cand.SetName = s.Name
	}
	return cand
}

// Resolution is the outcome of resolving one reference.
type Resolution struct {
	Ref        string      `json:"ref"`
	Status     string      `json:"status"`
	ResolvedBy string      `json:"resolved_by,omitempty"`
	Candidates []Candidate `json:"candidates,omitempty"`
	Message    string      `json:"message,omitempty"`
	// Understood is what a free-text reference said besides the card's
	// words (grade, printing, art, set; see Read); nil when nothing.
	Understood *Understood `json:"understood,omitempty"`
	// Card is the resolved card (Status Resolved).
	Card *snapshots.Card `json:"-"`
}

// Resolve resolves one reference in game (see the package doc for the
// order). When explicit is false, card ids of the snapshot's other games are
// tried too. It returns an error only when ctx ends or the index fails.
func Resolve(ctx context.Context, src *live.View, game string, explicit bool, ref string) (Resolution, error) {
	res := Resolution{Ref: ref}
	q := strings.TrimSpace(ref)
	switch {
	case q == "":
		res.Status, res.Message = NotFound, "empty reference: give a card id, a partner product id or a card name"
		return res, nil
	case len(q) > MaxRefLen:
		res.Status, res.Message = NotFound, "reference longer than 256 bytes"
		return res, nil
	}
	r := src.Reader
	if c, by, err := ByID(r, game, q); err == nil {
		return resolved(res, c, by), nil
	} else if apperr.ErrorCode(err) != apperr.ENOTFOUND {
		return res, err
	}
	if !explicit && strings.Contains(q, ":") {
		for _, g := range r.Manifest().Games {
			if g == game {
				continue
			}
			if c, err := r.Card(g, q); err == nil {
				return resolved(res, c, ByCardID), nil
			}
		}
	}
	// Exact keys of the typeahead (source ids such as "base1-4").
	var exact []*snapshots.Card
	for _, s := range src.Index.Lookup(game, q, "", 2*MaxCandidates) {
		if !s.Exact || s.Kind != "card" {
			continue
		}
		if c, err := r.Card(game, s.ID); err == nil {
			exact = append(exact, c)
		}
	}
	switch {
	case len(exact) == 1:
		return resolved(res, exact[0], BySourceID), nil
	case len(exact) > 1:
		res.Status = Ambiguous
		res.Message = "several cards have this id; pick one card_id from candidates"
		for _, c := range exact[:min(len(exact), MaxCandidates)] {
			res.Candidates = append(res.Candidates, NewCandidate(r, c))
		}
		return res, nil
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	var hits []index.SearchHit
	u, w := Read(r, game, q)
	res.Understood = u
	if u != nil && u.Query != "" {
		var err error
		if hits, _, err = searchWords(ctx, src, game, "", w, MaxCandidates+1); err != nil {
			return res, err
		}
	} else {
		sr, err := src.Index.Search(ctx, index.SearchRequest{Game: game, Q: q, Limit: MaxCandidates + 1, MinPriceCents: -1, MaxPriceCents: -1})
		if err != nil {
			return res, err
		}
		hits = sr.Hits
	}
	if len(hits) == 0 {
		if !explicit {
			if other, ok, err := otherGames(ctx, src, game, ref); err != nil || ok {
				return other, err
			}
		}
		res.Status = NotFound
		res.Message = "no card of " + game + " matches this reference; try a card id (" + exampleID(r, game) + "), a partner product id, or fewer words"
		if games := r.Manifest().Games; !explicit && len(games) > 1 {
			res.Message += " (no other game's card matches either: " + strings.Join(games, ", ") + ")"
		}
		return res, nil
	}
	if len(hits) == 1 || hits[0].Score >= DominanceRatio*hits[1].Score {
		if c, err := r.Card(game, hits[0].CardID); err == nil {
			return resolved(res, c, ByText), nil
		}
	}
	res.Status = Ambiguous
	res.Message = "several cards match; pick one card_id from candidates (or add the set name or number)"
	for _, h := range hits[:min(len(hits), MaxCandidates)] {
		c, err := r.Card(game, h.CardID)
		if err != nil {
			continue
		}
		cand := NewCandidate(r, c)
		cand.Score = math.Round(h.Score*1000) / 1000
		res.Candidates = append(res.Candidates, cand)
	}
	return res, nil
}

// otherGames resolves a free-text reference that no card of game matches in
// the snapshot's other games, in order: the first game where it resolves or
// is ambiguous answers (ok), its message saying so and naming the game
// parameter that searches it first ("luffy op01" without a game finds One
// Piece's cards while Pokemon is the default).
func otherGames(ctx context.Context, src *live.View, game, ref string) (Resolution, bool, error) {
	for _, g := range src.Reader.Manifest().Games {
		if g == game {
			continue
		}
		res, err := Resolve(ctx, src, g, true, ref)
		if err != nil {
			return res, false, err
		}
		if res.Status == NotFound || !namesWord(res, ref) {
			continue
		}
		found := "no card of " + game + " (the default game) matches this reference; found in " + g + " instead (add game=" + g + " to search it first)"
		if res.Message != "" {
			found += "; " + res.Message
		}
		res.Message = found
		return res, true, nil
	}
	return Resolution{}, false, nil
}

// namesWord reports whether a card res found by text is named by a word of
// ref (three letters or more): another game's loose matches (a word of a
// rarity, "SP CARD") are not offered for it.
func namesWord(res Resolution, ref string) bool {
	if res.ResolvedBy != ByText && res.Status == Resolved {
		return true // an id
	}
	var names []string
	if res.Card != nil {
		names = append(names, res.Card.Name)
	}
	for _, c := range res.Candidates {
		names = append(names, c.Name)
	}
	words := strings.FieldsFunc(index.FoldKey(ref), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, n := range names {
		n = index.FoldKey(n)
		for _, w := range words {
			if len(w) >= 3 && strings.Contains(n, w) {
				return true
			}
		}
	}
	return false
}

func resolved(res Resolution, c *snapshots.Card, by string) Resolution {
	res.Status, res.ResolvedBy, res.Card = Resolved, by, c
	return res
}

func exampleID(r snapshots.Reader, game string) string {
	if cards, err := r.Cards(game); err == nil && len(cards) > 0 {
		return cards[0].ID
	}
	return "<language>:<set>-<number>"
}

// ResolveAll resolves refs in order; equal references (after trimming, any
// case) are resolved once. It fails with EINVALID for more than MaxRefs
// references, and otherwise only when ctx ends or the index fails.
func ResolveAll(ctx context.Context, src *live.View, game string, explicit bool, refs []string) ([]Resolution, error) {
	if len(refs) > MaxRefs {
		return nil, apperr.Errorf(apperr.EINVALID, "too many ids: %d, at most %d per call; split the call", len(refs), MaxRefs)
	}
	out := make([]Resolution, len(refs))
	seen := make(map[string]int, len(refs))
	for i, ref := range refs {
		k := strings.ToLower(strings.TrimSpace(ref))
		if j, ok := seen[k]; ok {
			out[i] = out[j]
			out[i].Ref = ref
			continue
		}
		res, err := Resolve(ctx, src, game, explicit, ref)
		if err != nil {
			return nil, err
		}
		out[i] = res
		seen[k] = i
	}
	return out, nil
}

// UniqueCards returns the distinct cards of the resolved resolutions, in
// first-seen order: what a batch call costs.
func UniqueCards(rs []Resolution) []*snapshots.Card {
	seen := make(map[string]bool, len(rs))
	var out []*snapshots.Card
	for _, r := range rs {
		if r.Status != Resolved || r.Card == nil {
			continue
		}
		k := r.Card.Game + "|" + strings.ToLower(r.Card.ID)
		if !seen[k] {
			seen[k] = true
			out = append(out, r.Card)
		}
	}
	return out
}

// SearchRequest is a single free-text lookup (the search tool's q).
type SearchRequest struct {
	Game string // "" = the snapshot's first game
	Q    string
	// Query, when not nil, is Q parsed with the search syntax (package
	// index/syntax); Q is then ignored (see index.SearchRequest).
	Query    *syntax.Query
	Language string // optional: en, ja, zh-cn, zh-tw
	SetID    string // optional
	Rarity   string // optional
	Finish   string // optional: cards that have this variant (whole or one part)
	Limit    int    // 1..index.MaxLimit; 0 = 10
}

// SearchResult is the ranked matches of a search and how many cards match.
type SearchResult struct {
	Game  string      `json:"game"`
	Total int         `json:"total"`
	Items []Candidate `json:"items"`
	// Understood is what q said besides the card's words (Read); nil when
	// nothing, or when filters were given.
	Understood *Understood `json:"understood,omitempty"`
}

// Search ranks the cards matching a free-text query (and filters), best
// first. EINVALID for bad filters.
func Search(ctx context.Context, src *live.View, req SearchRequest) (SearchResult, error) {
	game, _, err := src.Game(req.Game)
	if err != nil {
		return SearchResult{}, err
	}
	if req.Limit == 0 {
		req.Limit = 10
	}
	var hits []index.SearchHit
	total := 0
	var u *Understood
	if req.SetID == "" && req.Rarity == "" && req.Finish == "" && (req.Query == nil || !req.Query.Structured()) {
		var w snapshots.Words
		if u, w = Read(src.Reader, game, req.Q); u != nil && u.Query != "" {
			if hits, total, err = searchWords(ctx, src, game, req.Language, w, req.Limit); err != nil {
				return SearchResult{}, err
			}
		} else {
			u = nil
		}
	}
	if u == nil {
		sr, err := src.Index.Search(ctx, index.SearchRequest{
			Game: game, Q: req.Q, Query: req.Query, Language: req.Language, SetID: req.SetID, Rarity: req.Rarity, Variant: req.Finish,
			Limit: req.Limit, MinPriceCents: -1, MaxPriceCents: -1,
		})
		if err != nil {
			return SearchResult{}, err
		}
		hits, total = sr.Hits, sr.Total
	}
	out := SearchResult{Game: game, Total: total, Items: make([]Candidate, 0, len(hits)), Understood: u}
	for _, h := range hits {
		c, err := src.Reader.Card(game, h.CardID)
		if err != nil {
			continue
		}
		cand := NewCandidate(src.Reader, c)
		cand.Score = math.Round(h.Score*1000) / 1000
		cand.Play = NewPlay(c.Play)
		out.Items = append(out.Items, cand)
	}
	return out, nil
}
