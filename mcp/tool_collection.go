package mcp

import (
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
	mcpproto "github.com/mark3labs/mcp-go/mcp"
)

// The collection tools (chat tools: tokens with Apps access only): the
// token's account's collection, the one its keys, its dashboard pages and
// its chat share (package collection). Each call costs 1 unit.

// Bounds of list_collection.
const (
	CollectionDefaultLimit = 50
	CollectionMaxLimit     = 200
)

// collectionToolDefs declares list_collection, add_to_collection and
// remove_from_collection (none without Options.Collections).
func (s *Server) collectionToolDefs() []toolDef {
	if s.opts.Collections == nil {
		return nil
	}
	game := s.gameOption()
	card := mcpproto.WithString("card", mcpproto.Required(), mcpproto.MinLength(1), mcpproto.MaxLength(256),
		mcpproto.Description("The card: a card id (\"en:base1-4\"), a numeric partner product id or a name that resolves to one card (an ambiguous name is refused with its candidates)."))
	grade := mcpproto.WithString("grade", mcpproto.MaxLength(32), mcpproto.DefaultString("raw:near_mint"), mcpproto.Description(descGrade+" Default Raw, near mint."))
	printing := mcpproto.WithString("printing", mcpproto.MaxLength(64), mcpproto.Description("The printing: one of the card's variants (\"holo/shadowless\") or parts of one (\"1st-edition\", \"reverse\"). Default: the card's base printing."))
	return []toolDef{
		def(mcpproto.NewTool("list_collection",
			mcpproto.WithDescription("The account's collection (shared by its keys, dashboard pages and chat): a summary (holdings, cards, copies, value, paid, gain, 30-day change) "+
				"and its holdings by card, printing and grade, each valued with its printing's and grade's estimate (fmv, confidence, flags), gain and 30-day change. "+
				"Chat-user tokens with Apps access only. Cost: 1 unit."),
			mcpproto.WithString("sort", mcpproto.Enum(collection.Sorts...), mcpproto.DefaultString("value"), mcpproto.Description("Order of the holdings, highest first (name: A to Z). Default value.")),
			mcpproto.WithInteger("limit", mcpproto.Min(1), mcpproto.Max(CollectionMaxLimit), mcpproto.DefaultNumber(CollectionDefaultLimit), mcpproto.Description("Most holdings returned, 1 to 200 (default 50); the summary counts them all.")),
			mcpproto.WithInteger("offset", mcpproto.Min(0), mcpproto.DefaultNumber(0), mcpproto.Description("Holdings to skip (paging).")),
			mcpproto.WithString("game", mcpproto.MaxLength(32), mcpproto.Description("Only this game's holdings. Default: every game.")),
			hints("List the collection", true),
		), s.toolListCollection, collection.View{}),
		def(mcpproto.NewTool("add_to_collection",
			mcpproto.WithDescription("Add copies of one card, printing and grade to the account's collection (merged with the holding of the same three). Returns the holding after the change, valued, "+
				"and the collection's summary. Chat-user tokens with Apps access only. Cost: 1 unit."),
			card, grade, printing,
			mcpproto.WithInteger("quantity", mcpproto.Min(1), mcpproto.Max(collection.MaxQuantity), mcpproto.DefaultNumber(1), mcpproto.Description("Copies to add, 1 to 100000 (default 1).")),
			mcpproto.WithNumber("price_paid_usd", mcpproto.Min(0), mcpproto.Max(1e9), mcpproto.Description("Price paid per copy in USD (optional: the gain counts only copies with a price paid).")),
			game,
			changeHints("Add to the collection", false),
		), s.toolAddToCollection, collectionChangeOut{}),
		def(mcpproto.NewTool("remove_from_collection",
			mcpproto.WithDescription("Remove copies of one card, printing and grade from the account's collection. Returns the holding after the change (quantity 0 when none is left) "+
				"and the collection's summary. A holding the collection does not have is a tool error. Chat-user tokens with Apps access only. Cost: 1 unit."),
			card, grade, printing,
			mcpproto.WithInteger("quantity", mcpproto.Min(0), mcpproto.Max(collection.MaxQuantity), mcpproto.DefaultNumber(1), mcpproto.Description("Copies to remove (default 1); 0 removes every copy of the holding.")),
			game,
			changeHints("Remove from the collection", true),
		), s.toolRemoveFromCollection, collectionChangeOut{}),
	}
}

// owner is the collection of the call's caller: its account's (the
// collection tools are for chat-user tokens, which always name one).
func (t *toolCall) owner() (collection.Owner, error) {
	c := t.call.caller
	if c.Account == "" {
		return collection.Owner{}, apperr.Errorf(apperr.EFORBIDDEN, "the collection tools need a chat-user token")
	}
	return collection.AccountOwner(c.Account), nil
}

// resolveOne resolves ref to one card, or says why not (ENOTFOUND, with the
// candidates of an ambiguous reference).
func (t *toolCall) resolveOne(game string, explicit bool, ref string) (*snapshots.Card, error) {
	r, err := resolve.Resolve(t.ctx, t.snap, game, explicit, ref)
	if err != nil {
		return nil, err
	}
	if r.Status == resolve.Resolved {
		return r.Card, nil
	}
	msg := r.Message
	if msg == "" {
		msg = "card " + ref + " is " + r.Status
	}
	if len(r.Candidates) > 0 {
		ids := make([]string, len(r.Candidates))
		for i, c := range r.Candidates {
			ids[i] = c.CardID + " (" + c.Name + ", " + c.SetName + " #" + c.Number + ")"
		}
		msg += "; candidates: " + strings.Join(ids, "; ")
	}
	return nil, apperr.Errorf(apperr.ENOTFOUND, "%s", msg)
}

type listCollectionArgs struct {
	Sort   string `json:"sort"`
	Limit  int    `json:"limit"`
	Offset int    `json:"offset"`
	Game   string `json:"game"`
}

func (s *Server) toolListCollection(t *toolCall) (any, error) {
	var a listCollectionArgs
	if err := t.bind(&a); err != nil {
		return nil, err
	}
	o, err := t.owner()
	if err != nil {
		return nil, err
	}
	if err := t.checkGameFilter(a.Game); err != nil {
		return nil, err
	}
	if a.Limit == 0 {
		a.Limit = CollectionDefaultLimit
	}
	if err := t.charge(1); err != nil {
		return nil, err
	}
	v, err := s.opts.Collections.View(t.ctx, t.snap, o, collection.ViewOptions{Game: a.Game, Sort: a.Sort, Offset: a.Offset, Limit: a.Limit})
	if err != nil {
		return nil, err
	}
	return *v, nil
}

type changeArgs struct {
	Card     string   `json:"card"`
	Grade    string   `json:"grade"`
	Printing string   `json:"printing"`
	Quantity *int     `json:"quantity"`
	PaidUSD  *float64 `json:"price_paid_usd"`
	Game     string   `json:"game"`
}

// collectionChangeOut is add_to_collection's and remove_from_collection's
// data: the holding after the change and the whole collection's summary.
type collectionChangeOut struct {
	Holding    collection.HoldingRow `json:"holding"`
	Collection collection.Summary    `json:"collection"`
}

// change applies add (or remove) of the call's arguments.
func (s *Server) change(t *toolCall, add bool) (any, error) {
	var a changeArgs
	if err := t.bind(&a); err != nil {
		return nil, err
	}
	o, err := t.owner()
	if err != nil {
		return nil, err
	}
	game, explicit, err := t.game(a.Game)
	if err != nil {
		return nil, err
	}
	c, err := t.resolveOne(game, explicit, a.Card)
	if err != nil {
		return nil, err
	}
	ch := collection.Change{Game: c.Game, CardID: c.ID, Printing: a.Printing, Grade: a.Grade, Quantity: 1, PaidUSD: a.PaidUSD}
	if a.Quantity != nil {
		ch.Quantity = *a.Quantity
	}
	if !add && a.PaidUSD != nil {
		return nil, apperr.Errorf(apperr.EINVALID, "price_paid_usd is for add_to_collection; leave it out")
	}
	if err := t.charge(1); err != nil {
		return nil, err
	}
	var h *collection.HoldingRow
	if add {
		h, err = s.opts.Collections.Add(t.ctx, t.snap, o, ch)
	} else {
		h, err = s.opts.Collections.Remove(t.ctx, t.snap, o, ch)
	}
	if err != nil {
		return nil, err
	}
	v, err := s.opts.Collections.View(t.ctx, t.snap, o, collection.ViewOptions{Limit: 1})
	if err != nil {
		return nil, err
	}
	return collectionChangeOut{Holding: *h, Collection: v.Summary}, nil
}

func (s *Server) toolAddToCollection(t *toolCall) (any, error)      { return s.change(t, true) }
func (s *Server) toolRemoveFromCollection(t *toolCall) (any, error) { return s.change(t, false) }
