package edge

import (
	"github.com/cardedge/cardedge/pricing"
)

func (s *Server) registerQuoteRoutes() {
	s.router.add(&route{method: "GET", pattern: "/api/v3/quote", name: "quote", contract: "quote.v1", keyless: true, cacheable: true, hasGame: true,
		summary: "Keyless quote of a free-text card reference (the MCP quote rule)", schema: "Quote",
		params: []paramSpec{
			pStr("q", 256, "Card id, TCGplayer product id (the partner product id), cardmarket:<idProduct> or free text (name, set, number). Free text may also say the grade (PSA 10, BGS 9.5, cgc9), "+
				"the printing (1st edition, shadowless, reverse holo, unlimited), the art (alt art, full art, SIR) and the set name (Evolving Skies, base set): "+
				"understood in the answer says how it was read; grade and finish, when given, win. Required."),
			pStr("grade", 32, gradeDoc+" Empty quotes ungraded: PSA 10 (slab:10) first, then Raw, near mint; grade_basis says why the quote is of its grade."),
			finishParam(),
			gameParam(),
		},
		handle: handleQuote})
}

// quotePayload is quote.v1: the reference and its quote (resolved: label,
// price_usd, price_basis; ambiguous: up to 5 candidates; not_found: a
// message). The quote has the shape of the MCP quote tool's results.
type quotePayload struct {
	Query string              `json:"query"`
	Quote pricing.QuoteResult `json:"quote"`
	Rule  string              `json:"rule"`
}

func handleQuote(r *request) (any, error) {
	q := r.p.str("q")
	if q == "" {
		return nil, validationErrors{queryError("q", "Field required: a card id, partner product id or card name", "missing", nil, nil)}
	}
	src := r.view()
	game := ""
	if r.p.has("game") || r.ctx.QueryArgs().Has("game") {
		game = r.game
	}
	res, err := pricing.Quote(r.ctx, src, pricing.QuoteRequest{Game: game, Refs: []string{q}, Grade: r.p.str("grade"), Finish: r.p.str("finish")})
	if err != nil {
		return nil, err
	}
	return quotePayload{Query: q, Quote: res[0],
		Rule: "one printing (finish, or the printing q names, else the card's base printing); per grade: midprice (the printing's fmv) when usable (status ok or thin: estimator confidence high or medium, or low), " +
			"else the last verified sale of the printing, else its cheapest ask; ungraded tries PSA 10 (slab:10), the top grade, then Raw, near mint (or the grade q names): grade_basis says which and why; " +
			"without game, words no card of the default game matches are tried in the other games (message says where)"}, nil
}
