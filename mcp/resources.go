package mcp

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
	mcpproto "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Resources: what a host attaches to a conversation (resources/list,
// resources/templates/list, resources/read). Each reads the data of a tool
// or route through the function that tool uses, in the envelope of a tool
// result ({contract "mcp.resource.<name>.v1", as_of, snapshot_id, cost,
// data}), as one application/json text content. A read costs 1 unit, charged
// like a tools/call by the HTTP layer (http.go).

// URIs of the resources.
const (
	CardURIPrefix   = "cardedge://cards/"
	SetURIPrefix    = "cardedge://sets/"
	MoversURIPrefix = "cardedge://movers/"
	CollectionURI   = "cardedge://me/collection"
)

// Bounds of the resources.
const (
	// SetTopCards is how many of a set's highest priced cards its resource
	// lists.
	SetTopCards = 10
	// MoversLimit is how many gainers and how many losers the movers
	// resource lists.
	MoversLimit = 10
	// MoversMetric and MoversWindow are the ranking the movers resource
	// reads: the movers' ranking (pricing.MoversMetric) over 7 days.
	MoversMetric = pricing.MoversMetric
	MoversWindow = "7d"
)

// SetPagePath is where a set's page is (the dashboard's set pages), + the
// set id.
const SetPagePath = "/dashboard/sets/"

// resourceMIME is the MIME type of every resource.
const resourceMIME = "application/json"

// readFunc reads one resource of a template: its data, or an error
// (ENOTFOUND for an id that names nothing, EFORBIDDEN for a resource the
// caller may not read). id is the URI's variable, unescaped.
type readFunc func(t *toolCall, id string) (any, error)

// resourceDef is one resource (uri) or resource template (prefix, with one
// variable after it).
type resourceDef struct {
	name        string // resource name and contract: mcp.resource.<name>.v1
	uri         string // a fixed resource, or
	prefix      string // a template: prefix + {+variable}
	variable    string
	title, desc string
	fn          readFunc
}

// template is d's URI template: the variable in reserved expansion ({+id}),
// so that ids with ':' (en:base1-4) match written as they are, and
// percent-encoded too.
func (d resourceDef) template() string { return d.prefix + "{+" + d.variable + "}" }

// resources declares the resources: the card, set and movers templates, and
// the caller's collection (with Options.Collections).
func (s *Server) resources() []resourceDef {
	defs := []resourceDef{
		{name: "card", prefix: CardURIPrefix, variable: "id", title: "Card",
			desc: "A card as a UI shows it (the show_cards tool's card): name, set, number, language, rarity, its dashboard page, " +
				"the raw near-mint price of its base printing with confidence and flags, and every printing with its own raw near-mint price, " +
				"30-day sales, listings and cheapest ask. {id} is a card id, e.g. en:base1-4 (search returns them), or a numeric partner product id. " +
				"Reading costs 1 unit of the daily quota.",
			fn: (*toolCall).readCard},
		{name: "set", prefix: SetURIPrefix, variable: "id", title: "Card set",
			desc: "A set: its catalog facts (series, release date, card counts, source), its market (30-day sales and volume, priced cards, value and median " +
				"price from each card's raw near-mint fmv), a breakdown by rarity and its " + fmt.Sprint(SetTopCards) + " highest priced cards. " +
				"{id} is a set id, e.g. en:base1 (search results' set_id). Reading costs 1 unit of the daily quota.",
			fn: (*toolCall).readSet},
		{name: "movers", prefix: MoversURIPrefix, variable: "game", title: "This week's movers",
			desc: "The printings that moved most over the 7 days to the snapshot's as_of: the " + fmt.Sprint(MoversLimit) +
				" biggest gainers and losers by the movers' ranking (the composite of GET /api/v3/trending, the dashboard's movers and the chat: " +
				"the fmv change weighted with the volume change and by the sales behind it; window 7d, every language), each with its " +
				"sample of verified sales and flags, under the methodology's liquidity rule and the movers' price floor. {game} is a game of the snapshot, e.g. pokemon. " +
				"Reading costs 1 unit of the daily quota.",
			fn: (*toolCall).readMovers},
	}
	if s.opts.Collections != nil {
		defs = append(defs, resourceDef{name: "collection", uri: CollectionURI, title: "My collection",
			desc: "The account's collection (the one its dashboard, chat and list_collection share): a summary (holdings, copies, value, paid, gain, " +
				"30-day change) and its " + fmt.Sprint(CollectionMaxLimit) + " most valuable holdings by card, printing and grade, each valued with its estimate " +
				"(total says how many there are; list_collection pages them all). Readable with a chat-user token, or a connected app granted the " +
				"collection scope, of a Pro or Elite account; an API key cannot read it. Reading costs 1 unit of the daily quota.",
			fn: (*toolCall).readCollection})
	}
	return defs
}

// addResources registers the resources and templates with mcp-go.
func (s *Server) addResources() {
	for _, d := range s.resources() {
		if d.uri != "" {
			s.mcp.AddResource(mcpproto.NewResource(d.uri, d.name, mcpproto.WithResourceTitle(d.title),
				mcpproto.WithResourceDescription(d.desc), mcpproto.WithMIMEType(resourceMIME)), s.readHandler(d))
			continue
		}
		s.mcp.AddResourceTemplate(mcpproto.NewResourceTemplate(d.template(), d.name, mcpproto.WithTemplateTitle(d.title),
			mcpproto.WithTemplateDescription(d.desc), mcpproto.WithTemplateMIMEType(resourceMIME)), server.ResourceTemplateHandlerFunc(s.readHandler(d)))
	}
}

// chargedRead reports whether the HTTP layer charges a resources/read of
// uri by caller: a read of one of these resources with an id (that may name
// nothing), but not the collection read by a caller who may not read it
// (refused, free, as a chat tool the caller does not have), nor a URI
// refused before any lookup (no id, or a malformed one).
func (s *Server) chargedRead(uri string, caller access.Caller) bool {
	if uri == CollectionURI {
		return s.opts.Collections != nil && caller.ChatTools()
	}
	for _, p := range []string{CardURIPrefix, SetURIPrefix, MoversURIPrefix} {
		if raw, ok := strings.CutPrefix(uri, p); ok {
			id, err := url.PathUnescape(raw)
			return err == nil && strings.TrimSpace(id) != ""
		}
	}
	return false
}

// readHandler adapts a readFunc to mcp-go: the URI's variable unescaped, a
// snapshot reference held, 1 unit charged (already, by the HTTP layer), the
// data encoded in its envelope. A refusal is a JSON-RPC error whose code the
// HTTP layer sets (call.fault): -32002, resource not found, with the
// error's code and the URI in its data.
func (s *Server) readHandler(d resourceDef) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcpproto.ReadResourceRequest) (_ []mcpproto.ResourceContents, err error) {
		uri := req.Params.URI
		c, err := callOf(ctx)
		if err != nil {
			return nil, err
		}
		id := ""
		if d.prefix != "" {
			raw, ok := strings.CutPrefix(uri, d.prefix)
			if !ok {
				return nil, c.refuseRead(ctx, uri, apperr.Errorf(apperr.EINVALID, "resource URI %q does not start with %s", uri, d.prefix))
			}
			if id, err = url.PathUnescape(raw); err != nil || strings.TrimSpace(id) == "" {
				return nil, c.refuseRead(ctx, uri, apperr.Errorf(apperr.EINVALID, "resource URI %q: give the %s after %s", uri, d.variable, d.prefix))
			}
		}
		snap := s.opts.Snapshots.Acquire()
		defer snap.Release()
		t := &toolCall{ctx: ctx, srv: s, name: "resource " + d.name, call: c, snap: snap, cost: c.charged}
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("mcp resource read panicked", "uri", uri, "panic", p, "stack", string(debug.Stack()))
				err = apperr.Errorf(apperr.EINTERNAL, "internal error")
			}
		}()
		data, err := d.fn(t, id)
		if err == nil {
			err = t.charge(1)
		}
		if err != nil {
			if apperr.ErrorCode(err) == apperr.EINTERNAL {
				s.log.Error("mcp resource read failed", "uri", uri, "key", c.caller.KeyID, "err", err)
				return nil, apperr.Errorf(apperr.EINTERNAL, "internal error")
			}
			return nil, c.refuseRead(ctx, uri, err)
		}
		text, err := envelopeJSON("mcp.resource."+d.name+".v1", snap, t.cost, data)
		if err != nil {
			s.log.Error("mcp resource does not encode", "uri", uri, "err", err)
			return nil, apperr.Errorf(apperr.EINTERNAL, "internal error")
		}
		return []mcpproto.ResourceContents{mcpproto.TextResourceContents{URI: uri, MIMEType: resourceMIME, Text: string(text)}}, nil
	}
}

// refuseRead is err as the answer to a resources/read of uri: a JSON-RPC
// error "resource not found" (-32002 until the 2026-07-28 revision, -32602
// from it: SEP-2164, as mcp-go answers a URI no resource matches) with the
// error's message, and its code and the URI in the data. A quota refusal
// stays mcp-go's internal error (with the message).
func (c *call) refuseRead(ctx context.Context, uri string, err error) error {
	code := mcpproto.RESOURCE_NOT_FOUND
	switch {
	case apperr.ErrorCode(err) == apperr.EQUOTA:
		return err
	case apperr.ErrorCode(err) == apperr.EINVALID, mcpproto.IsModernProtocol(server.RequestProtocolVersion(ctx)):
		code = mcpproto.INVALID_PARAMS
	}
	c.fault = &rpcFault{code: code, message: apperr.ErrorMessage(err), data: map[string]any{"uri": uri, "code": apperr.ErrorCode(err)}}
	return err
}

// cardOf finds the card id names: a card id of any game of the snapshot
// (the first game first), or a partner product id (resolve.ByID). Names are
// not resolved: a URI names one card.
func (t *toolCall) cardOf(id string) (*snapshots.Card, error) {
	r := t.snap.Reader
	for _, g := range r.Manifest().Games {
		c, _, err := resolve.ByID(r, g, id)
		if err == nil {
			return c, nil
		}
		if apperr.ErrorCode(err) != apperr.ENOTFOUND {
			return nil, err
		}
	}
	game, _, _ := t.game("")
	return nil, apperr.Errorf(apperr.ENOTFOUND, "no card has the id %q: card ids look like %q (search returns them), or give a numeric partner product id",
		id, exampleCard(r, game))
}

func exampleCard(r snapshots.Reader, game string) string {
	if cards, err := r.Cards(game); err == nil && len(cards) > 0 {
		return cards[0].ID
	}
	return "en:base1-4"
}

// readCard is the card resource: show_cards' card.
func (t *toolCall) readCard(id string) (any, error) {
	c, err := t.cardOf(id)
	if err != nil {
		return nil, err
	}
	return t.showCard(c)
}

// setOut is the set resource's data: the fields of REST's set (GET
// /api/v3/sets/{id}: set-gold and its market) and of its rarity breakdown.
type setOut struct {
	SetID            string      `json:"set_id"`
	Game             string      `json:"game"`
	Name             string      `json:"name"`
	Language         string      `json:"language"`
	Series           *string     `json:"series"`
	ReleaseDate      *string     `json:"release_date"`
	Abbreviation     *string     `json:"abbreviation"`
	CardCount        int         `json:"card_count"`
	CardCountPrinted *int        `json:"card_count_printed"`
	CardCountTotal   *int        `json:"card_count_total"`
	Volume30dUSD     float64     `json:"volume_30d_usd"`
	Sales30d         int         `json:"sales_30d"`
	Source           string      `json:"source"`
	URL              string      `json:"url"`
	Market           setMarket   `json:"market"`
	Rarities         []rarityRow `json:"rarities"`
	// TopCards are the set's highest priced cards (raw near-mint fmv of
	// their base printing), highest first.
	TopCards []resolve.Candidate `json:"top_cards"`
}

type setMarket struct {
	PricedCards    int      `json:"priced_cards"`
	ValueUSD       float64  `json:"value_usd"`
	MedianPriceUSD *float64 `json:"median_price_usd"`
	PriceBasis     string   `json:"price_basis"`
}

type rarityRow struct {
	Rarity         *string  `json:"rarity"` // null for cards without a rarity
	Cards          int      `json:"cards"`
	PricedCards    int      `json:"priced_cards"`
	ValueUSD       float64  `json:"value_usd"`
	MedianPriceUSD *float64 `json:"median_price_usd"`
	MaxPriceUSD    *float64 `json:"max_price_usd"`
	TopCardID      *string  `json:"top_card_id"`
	Volume30dUSD   float64  `json:"volume_30d_usd"`
	Sales30d       int      `json:"sales_30d"`
}

// setPriceBasis says how a set's market is priced.
const setPriceBasis = "fmv of the raw:near_mint verified sales of each card's base printing (exponentially smoothed daily medians, outliers set aside; see /api/v3/methodology)"

// setURL is the page of set id of game (the game named when it is not the
// snapshot's first).
func (t *toolCall) setURL(game, id string) string {
	u := SetPagePath + strings.ReplaceAll(url.PathEscape(id), "%3A", ":")
	if gs := t.snap.Reader.Manifest().Games; len(gs) > 0 && gs[0] != game {
		u += "?game=" + url.QueryEscape(game)
	}
	return u
}

// readSet is the set resource.
func (t *toolCall) readSet(id string) (any, error) {
	r := t.snap.Reader
	var set *snapshots.Set
	for _, g := range r.Manifest().Games {
		s, err := r.Set(g, id)
		if err == nil {
			set = s
			break
		}
		if apperr.ErrorCode(err) != apperr.ENOTFOUND {
			return nil, err
		}
	}
	if set == nil {
		game, _, _ := t.game("")
		return nil, apperr.Errorf(apperr.ENOTFOUND, "no set has the id %q: set ids look like %q (search results' set_id)", id, exampleSet(r, game))
	}
	agg, err := r.SetAggregates(set.Game, set.ID)
	if err != nil {
		return nil, err
	}
	cards, err := r.SetCards(set.Game, set.ID)
	if err != nil {
		return nil, err
	}
	out := setOut{SetID: set.ID, Game: set.Game, Name: set.Name, Language: set.Language, Series: jsontext.StrOrNil(set.Series),
		ReleaseDate: jsontext.StrOrNil(set.ReleaseDate), Abbreviation: jsontext.StrOrNil(set.Abbreviation), CardCount: set.CardCount,
		CardCountPrinted: intOrNil(set.CardCountPrinted), CardCountTotal: intOrNil(set.CardCountTotal), Volume30dUSD: snapshots.USD(set.Volume30dCents),
		Sales30d: set.Sales30d, Source: set.Source, URL: t.setURL(set.Game, set.ID),
		Market: setMarket{PricedCards: agg.Totals.PricedCards, ValueUSD: snapshots.USD(agg.Totals.ValueCents),
			MedianPriceUSD: snapshots.USDOrNil(agg.Totals.MedianPriceCents), PriceBasis: setPriceBasis},
		Rarities: make([]rarityRow, 0, len(agg.Breakdown)), TopCards: []resolve.Candidate{}}
	for _, b := range agg.Breakdown {
		out.Rarities = append(out.Rarities, rarityRow{Rarity: jsontext.StrOrNil(b.Rarity), Cards: b.Cards, PricedCards: b.PricedCards,
			ValueUSD: snapshots.USD(b.ValueCents), MedianPriceUSD: snapshots.USDOrNil(b.MedianPriceCents), MaxPriceUSD: snapshots.USDOrNil(b.MaxPriceCents),
			TopCardID: jsontext.StrOrNil(b.TopCardID), Volume30dUSD: snapshots.USD(b.Volume30dCents), Sales30d: b.Sales30d})
	}
	priced := slices.DeleteFunc(slices.Clone(cards), func(c *snapshots.Card) bool { return c.PriceCents <= 0 })
	slices.SortStableFunc(priced, func(a, b *snapshots.Card) int { return cmp.Compare(b.PriceCents, a.PriceCents) })
	for _, c := range priced[:min(SetTopCards, len(priced))] {
		out.TopCards = append(out.TopCards, resolve.NewCandidate(r, c))
	}
	return out, nil
}

func intOrNil(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

// moversOut is the movers resource's data: the two ends of the 7-day
// movers' ranking (pricing.MoversMetric; GET /api/v3/trending's items).
type moversOut struct {
	Game        string                 `json:"game"`
	Metric      string                 `json:"metric"`
	Window      string                 `json:"window"`
	Language    string                 `json:"language"`
	MinSales    int                    `json:"min_sales"`
	MinPriceUSD float64                `json:"min_price_usd"`
	Total       int                    `json:"total"` // printings ranked (that passed the liquidity rule)
	Gainers     []pricing.TrendingItem `json:"gainers"`
	Losers      []pricing.TrendingItem `json:"losers"`
	Basis       string                 `json:"basis"`
}

// readMovers is the movers resource: the biggest rises (value above 0,
// highest first) and falls (below 0, lowest first) of the ranking.
func (t *toolCall) readMovers(game string) (any, error) {
	m := t.snap.Reader.Manifest()
	if !m.HasGame(game) {
		return nil, apperr.Errorf(apperr.ENOTFOUND, "no game %q in this snapshot: give one of %s", game, strings.Join(m.Games, ", "))
	}
	liq := pricing.MoversLiquidity()
	lb, err := pricing.Trending(t.snap.Reader, game, MoversMetric, MoversWindow, "all", liq)
	if err != nil {
		return nil, err
	}
	var up, down []snapshots.TrendingRow
	for _, row := range lb.Rows {
		switch {
		case row.Value > 0:
			up = append(up, row)
		case row.Value < 0:
			down = append(down, row)
		}
	}
	gainers, err := pricing.Ranked(t.snap.Reader, game, MoversMetric, pricing.Leaderboard{Rows: up}, false, 0, MoversLimit)
	if err != nil {
		return nil, err
	}
	losers, err := pricing.Ranked(t.snap.Reader, game, MoversMetric, pricing.Leaderboard{Rows: down}, true, 0, MoversLimit)
	if err != nil {
		return nil, err
	}
	return moversOut{Game: game, Metric: MoversMetric, Window: MoversWindow, Language: "all", MinSales: liq.MinSales,
		MinPriceUSD: snapshots.USD(liq.MinPriceCents), Total: len(lb.Rows), Gainers: gainers, Losers: losers, Basis: liq.Basis()}, nil
}

// readCollection is the collection resource: list_collection's data (its
// CollectionMaxLimit most valuable holdings), for the callers the chat
// tools are for.
func (t *toolCall) readCollection(string) (any, error) {
	c := t.call.caller
	if !c.ChatTools() {
		return nil, apperr.Errorf(apperr.EFORBIDDEN, "%s is the collection of an account, readable with a chat-user token or a connected app granted the collection scope, "+
			"of a Pro or Elite account: %s (an API key reads its collection with GET /api/v3/me/collection)", CollectionURI, whyNoCollection(c))
	}
	o, err := t.owner()
	if err != nil {
		return nil, err
	}
	v, err := t.srv.opts.Collections.View(t.ctx, t.snap, o, collection.ViewOptions{Sort: "value", Limit: CollectionMaxLimit})
	if err != nil {
		return nil, err
	}
	return *v, nil
}

// whyNoCollection says why caller c may not read the collection resource.
func whyNoCollection(c access.Caller) string {
	switch {
	case c.Account == "":
		return "this credential is an API key"
	case !access.AppsAccess(c.Tier):
		return fmt.Sprintf("this account is on the %s tier, without Apps access", access.TierValue(c.Tier))
	case c.App && !c.Collection:
		return "this connected app was not granted the collection scope (connect it again and allow it)"
	}
	return "this credential may not read it"
}
