package edge

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
)

// GET and POST /prices (contract prices.v1): current prices of many cards by
// source. The sources are never blended into one number:
//
//	own       our fmv of the grade (the price the card routes show)
//	partner   the partner price feed's latest daily market median
//	observed  the latest verified executed sale of the grade
//	tcgplayer, cardmarket, pricecharting   that source's newest file
//	all       own and partner side by side
//
// GET takes ids as a comma list (at most pricesGetMax), POST a JSON body of up
// to access.MaxJSONIDs ids. Both are keyed and cost one unit per unique
// resolved card (at least one). Unknown ids are reported per id.

// pricesGetMax is the most ids GET /prices takes (a URL stays short); POST
// takes access.MaxJSONIDs.
const pricesGetMax = 50

func (s *Server) registerPriceRoutes() {
	params := []paramSpec{
		pStr("ids", 8192, "Comma list of card ids, TCGplayer product ids of any printing (partner product ids) or cardmarket:<idProduct>, at most 50; POST takes up to 1,000."),
		pEnum("source", "own", pricing.SourceOptions, "own: our fmv (its source says what made it); partner: the partner price feed's latest daily median (TCGplayer's file in a snapshot built from sources); "+
			"observed: the latest verified sale; tcgplayer, cardmarket, pricecharting: that source's newest file (with the original currency and the ECB rate); all: own and partner side by side (never blended)."),
		pStr("grade", 32, gradeDoc+" Default Raw, near mint."),
		finishParam(),
		gameParam(),
	}
	s.router.add(&route{method: "GET", pattern: "/prices", name: "prices_get", contract: "prices.v1", cacheable: true, hasGame: true,
		summary: "Current prices of up to 50 cards by source; costs one unit per unique resolved card", schema: "Prices",
		params: params, cost: pricesCost, handle: handlePrices})
	s.router.add(&route{method: "POST", pattern: "/prices", name: "prices_post", contract: "prices.v1", cacheable: true,
		summary: "Current prices of up to 1,000 cards by source ({ids, source, grade, finish, game}); costs one unit per unique resolved card", schema: "Prices",
		cost: pricesCost, handle: handlePrices})
}

type pricesBody struct {
	IDs    []string `json:"ids"`
	Source string   `json:"source"`
	Grade  string   `json:"grade"`
	Finish string   `json:"finish"`
	Game   string   `json:"game"`
}

func parsePrices(r *request) (pricing.PricesRequest, error) {
	q := pricing.PricesRequest{Game: r.game}
	var ids []string
	var grade string
	loc := "query"
	var verrs validationErrors
	if r.ctx.IsPost() {
		loc = "body"
		var b pricesBody
		dec := json.NewDecoder(bytes.NewReader(r.body))
		if err := dec.Decode(&b); err != nil {
			return q, validationErrors{{Loc: []any{"body"}, Msg: "body must be a JSON object {\"ids\": [...], \"source\": ..., \"grade\": ..., \"game\": ...}: " + err.Error(), Type: "json_invalid"}}
		}
		ids, grade, q.Source, q.Finish = b.IDs, b.Grade, b.Source, strings.TrimSpace(b.Finish)
		if q.Source == "" {
			q.Source = pricing.SourceOwn
		}
		if !slices.Contains(pricing.SourceOptions, q.Source) {
			verrs = append(verrs, validationError{Loc: []any{"body", "source"}, Msg: "Input should be " + enumList(pricing.SourceOptions), Type: "enum", Input: q.Source})
		}
		q.Game = r.snap.Manifest().Games[0]
		if b.Game != "" {
			if !r.snap.Manifest().HasGame(b.Game) {
				verrs = append(verrs, validationError{Loc: []any{"body", "game"}, Msg: "Input should be " + enumList(r.snap.Manifest().Games), Type: "enum", Input: b.Game})
			}
			q.Game = b.Game
		}
	} else {
		for _, id := range strings.Split(r.p.str("ids"), ",") {
			if id = strings.TrimSpace(id); id != "" {
				ids = append(ids, id)
			}
		}
		grade, q.Source, q.Finish = r.p.str("grade"), r.p.str("source"), strings.TrimSpace(r.p.str("finish"))
	}
	maxIDs, hint := pricesGetMax, " (POST /prices takes up to 1,000)"
	if r.ctx.IsPost() {
		maxIDs, hint = access.MaxJSONIDs, ""
	}
	if len(ids) == 0 {
		verrs = append(verrs, validationError{Loc: []any{loc, "ids"}, Msg: "ids must name at least one card id", Type: "missing"})
	}
	g, err := snapshots.ReadGradeOr(grade, snapshots.RawNearMint)
	if err != nil {
		verrs = append(verrs, validationError{Loc: []any{loc, "grade"}, Msg: err.Error(), Type: "value_error", Input: grade})
	}
	q.Grade = g
	seen := map[string]bool{}
	for i, id := range ids {
		if id == "" || len(id) > 128 {
			verrs = append(verrs, validationError{Loc: []any{loc, "ids", i}, Msg: "a card id must be 1 to 128 characters", Type: "string_too_long", Input: id})
			continue
		}
		if k := strings.ToLower(id); !seen[k] {
			seen[k] = true
			q.IDs = append(q.IDs, id)
		}
	}
	q.Requested = len(ids)
	if len(ids) > maxIDs {
		verrs = append(verrs, validationError{Loc: []any{loc, "ids"}, Msg: "too many ids: " + strconv.Itoa(len(ids)) + ", at most " + strconv.Itoa(maxIDs) + " per request" + hint,
			Type: "too_long", Ctx: map[string]any{"max_length": maxIDs}})
	}
	if len(verrs) > 0 {
		return q, verrs
	}
	return q, nil
}

// pricesCost is the number of unique resolved cards (at least one): ids that
// name no card cost nothing.
func pricesCost(r *request) (int, error) {
	q, err := parsePrices(r)
	if err != nil {
		return 0, err
	}
	seen := map[string]bool{}
	for _, id := range q.IDs {
		if c, _, err := resolve.ByID(r.snap.Reader, q.Game, id); err == nil {
			seen[strings.ToLower(c.ID)] = true
		}
	}
	return max(1, len(seen)), nil
}

func handlePrices(r *request) (any, error) {
	q, err := parsePrices(r)
	if err != nil {
		return nil, err
	}
	return pricing.CurrentPrices(r.view(), q)
}
