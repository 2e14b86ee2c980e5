package edge

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// GET and POST /prices (contract prices.v1): current prices of many cards by
// source. The sources are never blended into one number:
//
//	own       our fmv of the grade (the price the card routes show)
//	partner   the partner price feed's latest daily market median
//	observed  the latest verified executed sale of the grade
//	all       own and partner side by side
//
// GET takes ids as a comma list (at most pricesGetMax), POST a JSON body of up
// to access.MaxJSONIDs ids. Both are keyed and cost one unit per unique
// resolved card (at least one). Unknown ids are reported per id.

// pricesGetMax is the most ids GET /prices takes (a URL stays short); POST
// takes access.MaxJSONIDs.
const pricesGetMax = 50

var priceSources = []string{"own", "partner", "observed", "all"}

func (s *Server) registerPriceRoutes() {
	params := []paramSpec{
		pStr("ids", 8192, "Comma list of card ids (or partner product ids), at most 50; POST takes up to 1,000."),
		pEnum("source", "own", priceSources, "own: our fmv; partner: the partner price feed's latest daily median; observed: the latest verified sale; all: own and partner side by side (never blended)."),
		pStr("grade", 32, "raw:<condition> or <grader>:<number>; default raw:near_mint."),
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

// pricesQuery is a parsed GET or POST /prices request.
type pricesQuery struct {
	ids       []string // unique (case-insensitive), in request order
	requested int
	source    string
	grade     snapshots.Grade
	finish    string // "" = each card's base printing
	game      string
}

// sources returns the sources a query reports.
func (q pricesQuery) sources() []string {
	if q.source == "all" {
		return []string{"own", "partner"}
	}
	return []string{q.source}
}

type pricesBody struct {
	IDs    []string `json:"ids"`
	Source string   `json:"source"`
	Grade  string   `json:"grade"`
	Finish string   `json:"finish"`
	Game   string   `json:"game"`
}

func parsePrices(r *request) (pricesQuery, error) {
	q := pricesQuery{game: r.game}
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
		ids, grade, q.source, q.finish = b.IDs, b.Grade, b.Source, strings.TrimSpace(b.Finish)
		if q.source == "" {
			q.source = "own"
		}
		if !slices.Contains(priceSources, q.source) {
			verrs = append(verrs, validationError{Loc: []any{"body", "source"}, Msg: "Input should be " + enumList(priceSources), Type: "enum", Input: q.source})
		}
		q.game = r.snap.Manifest().Games[0]
		if b.Game != "" {
			if !r.snap.Manifest().HasGame(b.Game) {
				verrs = append(verrs, validationError{Loc: []any{"body", "game"}, Msg: "Input should be " + enumList(r.snap.Manifest().Games), Type: "enum", Input: b.Game})
			}
			q.game = b.Game
		}
	} else {
		for _, id := range strings.Split(r.p.str("ids"), ",") {
			if id = strings.TrimSpace(id); id != "" {
				ids = append(ids, id)
			}
		}
		grade, q.source, q.finish = r.p.str("grade"), r.p.str("source"), strings.TrimSpace(r.p.str("finish"))
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
	q.grade = g
	seen := map[string]bool{}
	for i, id := range ids {
		if id == "" || len(id) > 128 {
			verrs = append(verrs, validationError{Loc: []any{loc, "ids", i}, Msg: "a card id must be 1 to 128 characters", Type: "string_too_long", Input: id})
			continue
		}
		if k := strings.ToLower(id); !seen[k] {
			seen[k] = true
			q.ids = append(q.ids, id)
		}
	}
	q.requested = len(ids)
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
	for _, id := range q.ids {
		if c, _, err := resolve.ByID(r.snap.Reader, q.game, id); err == nil {
			seen[strings.ToLower(c.ID)] = true
		}
	}
	return max(1, len(seen)), nil
}

// priceQuote is one source's current price of a card.
type priceQuote struct {
	PriceUSD *float64 `json:"price_usd"`
	Date     *string  `json:"date"`     // day of the price (last fmv change, feed day, sale day)
	AgeDays  *int     `json:"age_days"` // as_of - date
	// own only: the estimate behind the fmv (package estimate).
	SampleSize   *int      `json:"sample_size,omitempty"`
	LastSaleDate *string   `json:"last_sale_date,omitempty"`
	Confidence   *string   `json:"confidence,omitempty"`
	Flags        *[]string `json:"flags,omitempty"`
	// observed only
	Marketplace *string `json:"marketplace,omitempty"`
	TradeType   *string `json:"trade_type,omitempty"`
	SaleID      *string `json:"sale_id,omitempty"`
	// Note says why price_usd is null.
	Note string `json:"note,omitempty"`
}

type priceCard struct {
	CardID   string `json:"card_id"`
	Name     string `json:"name"`
	SetID    string `json:"set_id"`
	Number   string `json:"number"`
	Language string `json:"language"`
}

// priceItem is one requested id.
type priceItem struct {
	ID     string     `json:"id"`     // as requested
	Status string     `json:"status"` // ok or not_found
	Card   *priceCard `json:"card"`
	// Finish is the printing priced (null for a card without variants, or
	// when the finish asked for is not one of its printings: message says
	// so) and BaseFinish whether it is the card's base printing.
	Finish     *string                `json:"finish,omitempty"`
	BaseFinish bool                   `json:"base_finish"`
	Prices     map[string]*priceQuote `json:"prices,omitempty"`
	Message    string                 `json:"message,omitempty"`
}

// pricesSummary counts a call's ids: as sent, unique (case-insensitive),
// found and not, and the found cards each source could price.
type pricesSummary struct {
	Requested int            `json:"requested"`
	Unique    int            `json:"unique"`
	Found     int            `json:"found"`
	NotFound  int            `json:"not_found"`
	Priced    map[string]int `json:"priced"`
}

type pricesPayload struct {
	Source     string            `json:"source"`
	Sources    []string          `json:"sources"`
	Grade      string            `json:"grade"`
	Game       string            `json:"game"`
	AsOf       string            `json:"as_of"`
	Items      []priceItem       `json:"items"`
	Summary    pricesSummary     `json:"summary"`
	Cost       int               `json:"cost"`
	Basis      map[string]string `json:"basis"`
	SnapshotID string            `json:"snapshot_id"`
}

func handlePrices(r *request) (any, error) {
	q, err := parsePrices(r)
	if err != nil {
		return nil, err
	}
	return pricesFor(r.snap, q)
}

// pricesFor answers a parsed query from a snapshot (also the chat tools').
func pricesFor(snap *snapshot, q pricesQuery) (*pricesPayload, error) {
	sources := q.sources()
	out := &pricesPayload{Source: q.source, Sources: sources, Grade: q.grade.String(), Game: q.game, AsOf: snap.AsOf.String(),
		Items: make([]priceItem, 0, len(q.ids)), Basis: map[string]string{}, SnapshotID: snap.Manifest().SnapshotID}
	for _, s := range sources {
		out.Basis[s] = pricing.SourceBasis[s]
	}
	priced := map[string]int{}
	found, notFound := 0, 0
	cards := map[string]bool{}
	for _, id := range q.ids {
		c, _, err := resolve.ByID(snap.Reader, q.game, id)
		if err != nil {
			if apperr.ErrorCode(err) != apperr.ENOTFOUND {
				return nil, err
			}
			notFound++
			out.Items = append(out.Items, priceItem{ID: id, Status: "not_found", Message: "no card " + strconv.Quote(id) + " in " + q.game})
			continue
		}
		found++
		cards[strings.ToLower(c.ID)] = true
		it := priceItem{ID: id, Status: "ok", Card: &priceCard{CardID: c.ID, Name: c.Name, SetID: c.SetID, Number: c.Number, Language: c.Language},
			Prices: map[string]*priceQuote{}}
		finish, ferr := pricing.PrintingOf(c, q.finish)
		var quotes map[string]*priceQuote
		if ferr != nil {
			it.Message = apperr.ErrorMessage(ferr)
			quotes = map[string]*priceQuote{}
			for _, s := range sources {
				quotes[s] = &priceQuote{Note: it.Message}
			}
		} else {
			it.Finish, it.BaseFinish = jsontext.StrOrNil(pricing.PrintingName(c, finish)), finish == snapshots.BasePrinting(c)
			if quotes, err = cardPrices(snap, c, finish, q.grade, sources); err != nil {
				return nil, err
			}
		}
		for s, pq := range quotes {
			it.Prices[s] = pq
			if pq.PriceUSD != nil {
				priced[s]++
			}
		}
		out.Items = append(out.Items, it)
	}
	for _, s := range sources {
		priced[s] += 0
	}
	out.Cost = max(1, len(cards))
	out.Summary = pricesSummary{Requested: q.requested, Unique: len(q.ids), Found: found, NotFound: notFound, Priced: priced}
	return out, nil
}

// cardPrices computes the named sources' current prices of printing finish
// of card c in grade g (package pricing: one function per source).
func cardPrices(snap *snapshot, c *snapshots.Card, finish int, g snapshots.Grade, sources []string) (map[string]*priceQuote, error) {
	f := pricing.OnePrinting(c, finish)
	out := map[string]*priceQuote{}
	var sales []snapshots.Sale
	for _, s := range sources {
		if s != pricing.SourceOwn && sales == nil {
			var err error
			if sales, err = snap.Sales(c.Game, c.ID); err != nil {
				return nil, err
			}
		}
		var sp pricing.SourcePrice
		switch s {
		case pricing.SourceOwn:
			var err error
			if sp, err = pricing.Own(snap.Reader, c, finish, g, snap.AsOf); err != nil {
				return nil, err
			}
		case pricing.SourcePartner:
			sp = pricing.Partner(sales, g, f, snap.AsOf)
		case pricing.SourceObserved:
			sp = pricing.Observed(sales, g, f, snap.AsOf)
		}
		pq := &priceQuote{Note: sp.Note}
		if sp.Note == "" {
			pq.PriceUSD = snapshots.USDOrNil(sp.Cents)
			ds, age := sp.Day.String(), int(snap.AsOf-sp.Day)
			pq.Date, pq.AgeDays = &ds, &age
		}
		if e := sp.Estimate; e != nil {
			n, conf, flags := int(e.SampleSize), e.Confidence.String(), pricing.FlagNames(e.Flags)
			pq.SampleSize, pq.LastSaleDate, pq.Confidence, pq.Flags = &n, pricing.LastSaleDate(*e), &conf, &flags
		}
		if x := sp.Sale; x != nil {
			m, tt, id := x.Marketplace.String(), x.TradeType.String(), pricing.SaleID(x.ID)
			pq.Marketplace, pq.TradeType, pq.SaleID = &m, &tt, &id
		}
		out[s] = pq
	}
	return out, nil
}
