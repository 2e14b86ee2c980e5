package mcp

import (
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

type searchArgs struct {
	Q        *string  `json:"q"`
	IDs      []string `json:"ids"`
	Game     string   `json:"game"`
	Language string   `json:"language"`
	SetID    string   `json:"set_id"`
	Rarity   string   `json:"rarity"`
	Finish   string   `json:"finish"`
	Limit    int      `json:"limit"`
}

// searchIDsOut is search's data with ids (a batch resolve).
type searchIDsOut struct {
	Mode         string         `json:"mode" enum:"ids"`
	Game         string         `json:"game"`
	Items        []idResolution `json:"items"`
	Resolved     int            `json:"resolved"`
	Ambiguous    int            `json:"ambiguous"`
	NotFound     int            `json:"not_found"`
	UniqueCards  int            `json:"unique_cards"`
	ResultHandle *string        `json:"result_handle"`
}

// searchQOut is search's data with q (one lookup): status resolved (with
// resolved_by and card_id), ambiguous or not_found (with a message).
type searchQOut struct {
	Mode         string              `json:"mode" enum:"q"`
	Game         string              `json:"game"`
	Query        string              `json:"query"`
	Status       string              `json:"status" enum:"resolved,ambiguous,not_found"`
	ResolvedBy   string              `json:"resolved_by,omitempty"`
	CardID       string              `json:"card_id,omitempty"`
	Message      string              `json:"message,omitempty"`
	Total        int                 `json:"total"`
	Items        []resolve.Candidate `json:"items"`
	Understood   *resolve.Understood `json:"understood,omitempty"`
	ResultHandle *string             `json:"result_handle"`
}

// quoteOut is quote's data.
type quoteOut struct {
	Game         string                `json:"game"`
	Items        []pricing.QuoteResult `json:"items"`
	Rule         string                `json:"rule"`
	Resolved     int                   `json:"resolved"`
	Ambiguous    int                   `json:"ambiguous"`
	NotFound     int                   `json:"not_found"`
	UniqueCards  int                   `json:"unique_cards"`
	ResultHandle *string               `json:"result_handle"`
}

// idResolution is one batch-resolved reference of search.
type idResolution struct {
	Ref        string              `json:"ref"`
	Status     string              `json:"status"`
	ResolvedBy string              `json:"resolved_by,omitempty"`
	Card       *resolve.Candidate  `json:"card,omitempty"`
	Candidates []resolve.Candidate `json:"candidates,omitempty"`
	Message    string              `json:"message,omitempty"`
}

func (s *Server) toolSearch(t *toolCall) (any, error) {
	var a searchArgs
	if err := t.bind(&a); err != nil {
		return nil, err
	}
	game, explicit, err := t.game(a.Game)
	if err != nil {
		return nil, err
	}
	switch {
	case a.Q != nil && a.IDs != nil:
		return nil, apperr.Errorf(apperr.EINVALID, "give q (one lookup) or ids (batch resolve), not both")
	case a.Q == nil && a.IDs == nil:
		return nil, apperr.Errorf(apperr.EINVALID, "give q (a card name, card id or partner product id) or ids (a list of them)")
	case a.IDs != nil:
		if a.Language != "" || a.SetID != "" || a.Rarity != "" || a.Finish != "" {
			return nil, apperr.Errorf(apperr.EINVALID, "language, set_id, rarity and finish filter a q lookup; leave them out with ids")
		}
		rs, cards, err := t.resolveIDs("ids", game, explicit, a.IDs)
		if err != nil {
			return nil, err
		}
		if err := t.charge(len(cards)); err != nil {
			return nil, err
		}
		out := searchIDsOut{Mode: "ids", Game: game, Items: make([]idResolution, len(rs))}
		n := map[string]int{resolve.Resolved: 0, resolve.Ambiguous: 0, resolve.NotFound: 0}
		for i, r := range rs {
			out.Items[i] = idResolution{Ref: r.Ref, Status: r.Status, ResolvedBy: r.ResolvedBy, Candidates: r.Candidates, Message: r.Message}
			if r.Card != nil {
				c := resolve.NewCandidate(t.snap.Reader, r.Card)
				c.Play = resolve.NewPlay(r.Card.Play)
				out.Items[i].Card = &c
			}
			n[r.Status]++
		}
		out.Resolved, out.Ambiguous, out.NotFound = n[resolve.Resolved], n[resolve.Ambiguous], n[resolve.NotFound]
		out.UniqueCards = len(cards)
		out.ResultHandle = nilIfEmpty(s.sessions.addResult(t.session(), "search", game, cardIDs(cards)))
		return out, nil
	}

	q := strings.TrimSpace(*a.Q)
	if q == "" {
		return nil, apperr.Errorf(apperr.EINVALID, "q is empty: give a card name, card id or partner product id")
	}
	parsed, err := syntax.Parse(q)
	if err != nil {
		return nil, apperr.Errorf(apperr.EINVALID, "q: %v", err)
	}
	if a.Limit == 0 {
		a.Limit = SearchDefaultLimit
	}
	if err := t.charge(1); err != nil {
		return nil, err
	}
	out := searchQOut{Mode: "q", Game: game, Query: q}
	filtered := a.Language != "" || a.SetID != "" || a.Rarity != "" || a.Finish != ""
	// An id (card id, product id, source id) resolves straight to its card;
	// a q with syntax terms (t:water hp>=300) is a search.
	if !filtered && !parsed.Structured() {
		r, err := resolve.Resolve(t.ctx, t.snap, game, explicit, q)
		if err != nil {
			return nil, err
		}
		if r.Status == resolve.Resolved && r.ResolvedBy != resolve.ByText {
			c := resolve.NewCandidate(t.snap.Reader, r.Card)
			c.Play = resolve.NewPlay(r.Card.Play)
			out.Status, out.ResolvedBy, out.CardID = r.Status, r.ResolvedBy, c.CardID
			out.Total, out.Items = 1, []resolve.Candidate{c}
			out.ResultHandle = nilIfEmpty(s.sessions.addResult(t.session(), "search", c.Game, []string{c.CardID}))
			return out, nil
		}
	}
	res, err := resolve.Search(t.ctx, t.snap, resolve.SearchRequest{
		Game: game, Q: q, Query: parsed, Language: a.Language, SetID: a.SetID, Rarity: a.Rarity, Finish: a.Finish, Limit: a.Limit,
	})
	if err != nil {
		return nil, err
	}
	items := res.Items
	switch {
	case len(items) == 0:
		out.Status = resolve.NotFound
		out.Message = "no card matches; try fewer words, a card id or a partner product id"
	case len(items) == 1 || items[0].Score >= resolve.DominanceRatio*items[1].Score:
		out.Status, out.ResolvedBy, out.CardID = resolve.Resolved, resolve.ByText, items[0].CardID
	default:
		out.Status = resolve.Ambiguous
		out.Message = "several cards match: pick a card_id from items (or add the set name or number to q)"
	}
	out.Total, out.Items = res.Total, jsontext.NonNil(items)
	out.Understood = res.Understood // grade, printing, art and set words q said
	ids := make([]string, len(items))
	for i, c := range items {
		ids[i] = c.CardID
	}
	out.ResultHandle = nilIfEmpty(s.sessions.addResult(t.session(), "search", game, ids))
	return out, nil
}

func nilIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

type quoteArgs struct {
	IDs    []string `json:"ids"`
	Grade  string   `json:"grade"`
	Finish string   `json:"finish"`
	Game   string   `json:"game"`
}

func (s *Server) toolQuote(t *toolCall) (any, error) {
	var a quoteArgs
	if err := t.bind(&a); err != nil {
		return nil, err
	}
	if err := checkIDs("ids", a.IDs); err != nil {
		return nil, err
	}
	if len(a.IDs) == 0 {
		return nil, apperr.Errorf(apperr.EINVALID, "ids is empty: give at least one card id, partner product id or card name")
	}
	game, explicit, err := t.game(a.Game)
	if err != nil {
		return nil, err
	}
	if _, err := pricing.QuoteGrades(a.Grade); err != nil {
		return nil, err
	}
	// Resolve first (free), charge the unique resolved cards, then quote.
	rs, err := resolve.ResolveAll(t.ctx, t.snap, game, explicit, a.IDs)
	if err != nil {
		return nil, err
	}
	cards := resolve.UniqueCards(rs)
	if err := t.charge(len(cards)); err != nil {
		return nil, err
	}
	quotes, err := pricing.QuoteResolutions(t.ctx, t.snap, rs, a.Grade, a.Finish)
	if err != nil {
		return nil, err
	}
	n := map[string]int{resolve.Resolved: 0, resolve.Ambiguous: 0, resolve.NotFound: 0}
	for _, q := range quotes {
		n[q.Status]++
	}
	rule := "per grade: Midprice when usable (status ok or thin and above 0), else Last verified sale, else cheapest Ask"
	if a.Grade == "" {
		rule += "; ungraded: PSA 10 (slab:10) first, then Raw, near mint (raw:near_mint): each quote's grade_basis says why it is of its grade"
	}
	return quoteOut{
		Game: game, Items: quotes, Rule: rule,
		Resolved: n[resolve.Resolved], Ambiguous: n[resolve.Ambiguous], NotFound: n[resolve.NotFound], UniqueCards: len(cards),
		ResultHandle: nilIfEmpty(s.sessions.addResult(t.session(), "quote", game, cardIDs(cards))),
	}, nil
}
