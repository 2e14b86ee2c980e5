package mcp

import (
	"context"
	"net/url"
	"slices"
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
	mcpproto "github.com/mark3labs/mcp-go/mcp"
)

// The chat tools: what the web chat (and an app built on a chat-user token)
// shows a person. They are listed and callable only with a chat-user token
// of an account with Apps access (Pro, Elite: access.AppsAccess); an API key,
// or a Free account's token, sees the ten public tools only (chatToolFilter).

// Bounds of the chat tools.
const (
	ShowCardsMaxIDs       = 25
	ShowCardsDefaultLimit = 5
	ShowCardsMaxLimit     = 10
)

// CardPagePath is where a card's page is (the dashboard's card pages), + the
// card id: the url the chat tools give each card.
const CardPagePath = "/dashboard/cards/"

// chatTools are the names of the chat tools.
var chatTools = map[string]bool{
	"show_cards": true, "price_card": true,
	"list_collection": true, "add_to_collection": true, "remove_from_collection": true,
	// tool_alerts.go
	"list_alerts": true, "create_alert": true, "delete_alert": true, "add_to_want_list": true, "recent_alerts": true,
	"collection_history": true, "set_completion": true,
}

// appsCaller reports whether the call's caller may use the chat tools.
func appsCaller(ctx context.Context) bool {
	c := callFrom(ctx)
	return c != nil && c.caller.ChatTools()
}

// chatToolFilter is the server's tool filter (tools/list and tools/call):
// the chat tools only for appsCaller.
func chatToolFilter(ctx context.Context, tools []mcpproto.Tool) []mcpproto.Tool {
	if appsCaller(ctx) {
		return tools
	}
	out := make([]mcpproto.Tool, 0, len(tools))
	for _, t := range tools {
		if !chatTools[t.Name] {
			out = append(out, t)
		}
	}
	return out
}

// chatToolDefs declares show_cards and price_card, and the collection tools
// (tool_collection.go).
func (s *Server) chatToolDefs() []toolDef {
	game := s.gameOption()
	return append([]toolDef{
		def(mcpproto.NewTool("show_cards",
			mcpproto.WithDescription("Cards as a UI shows them: name, set, number, language, rarity, the page url, the raw near-mint price of the base printing "+
				"with its confidence and flags, every printing with its own raw near-mint price, 30-day sales and listings. "+
				"Give ids (card ids, partner product ids or names; up to 25) or q (a search, best matches first). "+
				"Chat-user tokens with Apps access only. Cost: 1 unit per unique card shown (at least 1)."),
			idsOption("ids", false, "Cards to show, 1 to 25: card ids (\"en:base1-4\"), numeric partner product ids or card names. Ambiguous or unknown references are reported. Give ids or q, not both."),
			mcpproto.WithString("q", mcpproto.MaxLength(256), mcpproto.Description("A search (card name, set, number; the search syntax of search's q): the best matches are shown. Give q or ids, not both.")),
			mcpproto.WithInteger("limit", mcpproto.Min(1), mcpproto.Max(ShowCardsMaxLimit), mcpproto.DefaultNumber(ShowCardsDefaultLimit), mcpproto.Description("With q: most cards shown, 1 to 10 (default 5).")),
			game,
			hints("Show cards", true),
		), s.toolShowCards, showCardsOut{}),
		def(mcpproto.NewTool("price_card",
			mcpproto.WithDescription("Price one card in one grade and printing: the estimate (fmv, tvwap, median; null at confidence none, with a note), its sample size, last sale, "+
				"confidence (none, low, medium, high) and flags (thin, solo, outlier_excluded, stale), and the quote rule's price (Midprice, else Last verified sale, else Ask) with its basis. "+
				"Chat-user tokens with Apps access only. Cost: 1 unit."),
			mcpproto.WithString("card", mcpproto.Required(), mcpproto.MinLength(1), mcpproto.MaxLength(256), mcpproto.Description("The card: a card id (\"en:base1-4\"), a numeric partner product id or a name that resolves to one card.")),
			mcpproto.WithString("grade", mcpproto.MaxLength(32), mcpproto.DefaultString("raw:near_mint"), mcpproto.Description(descGrade+" Default Raw, near mint.")),
			mcpproto.WithString("printing", mcpproto.MaxLength(64), mcpproto.Description("The printing: one of the card's variants (\"holo/shadowless\") or parts of one (\"1st-edition\", \"reverse\"). Default: the card's base printing.")),
			game,
			hints("Price a card", true),
		), s.toolPriceCard, priceCardOut{}),
	}, append(s.collectionToolDefs(), s.alertToolDefs()...)...)
}

// cardURL is the page of card id.
func cardURL(id string) string {
	return CardPagePath + strings.ReplaceAll(url.PathEscape(id), "%3A", ":")
}

// printingPrice is one printing's raw near-mint price.
type printingPrice struct {
	Printing string   `json:"printing"` // the variant ("" for a card without variants)
	Base     bool     `json:"base"`
	PriceUSD *float64 `json:"price_usd"`
	// Source is where price_usd comes from (a source's file: tcgplayer,
	// cardmarket, pricecharting; observed sales; synthetic).
	Source     string   `json:"source" enum:"tcgplayer,cardmarket,pricecharting,observed,synthetic"`
	Synthetic  bool     `json:"synthetic"`
	Confidence string   `json:"confidence"`
	Sales30d   int      `json:"sales_30d"`
	Listings   int      `json:"listings"`
	LowAskUSD  *float64 `json:"low_ask_usd"`
}

// shownCard is one card of show_cards.
type shownCard struct {
	CardID     string   `json:"card_id"`
	Game       string   `json:"game"`
	Name       string   `json:"name"`
	SetID      string   `json:"set_id"`
	SetName    string   `json:"set_name"`
	Number     string   `json:"number"`
	Language   string   `json:"language"`
	Rarity     string   `json:"rarity,omitempty"`
	URL        string   `json:"url"`
	Grade      string   `json:"grade"`
	GradeName  string   `json:"grade_name"`
	Printing   string   `json:"printing"`
	PriceUSD   *float64 `json:"price_usd"`
	PriceDate  *string  `json:"price_date"`
	Source     string   `json:"source" enum:"tcgplayer,cardmarket,pricecharting,observed,synthetic"`
	Synthetic  bool     `json:"synthetic"`
	Confidence string   `json:"confidence"`
	Flags      []string `json:"flags"`
	// PriceReason says why price_usd is null, with the last sale
	// (pricing.ExplainNoValue); absent when there is a price.
	PriceReason *pricing.NoValue `json:"price_reason,omitempty"`
	Sales30d    int              `json:"sales_30d"`
	Listings    int              `json:"listings"`
	Printings   []printingPrice  `json:"printings"`
	// MarketIDs are the card's printings at the marketplaces.
	MarketIDs []snapshots.MarketLink `json:"market_ids"`
}

// showCard describes card c.
func (t *toolCall) showCard(c *snapshots.Card) (shownCard, error) {
	r := t.snap.Reader
	cand := resolve.NewCandidate(r, c)
	out := shownCard{CardID: c.ID, Game: c.Game, Name: c.Name, SetID: c.SetID, SetName: cand.SetName, Number: c.Number, Language: c.Language,
		Rarity: c.Rarity, URL: cardURL(c.ID), Grade: snapshots.RawNearMint.String(), GradeName: snapshots.RawNearMint.Name(), Sales30d: c.Sales30d, Listings: c.Listings,
		Confidence: estimate.ConfidenceNone.String(), Flags: []string{}, Printings: []printingPrice{}, MarketIDs: cand.MarketIDs}
	ps, err := r.Printings(c.Game, c.ID)
	if err != nil && apperr.ErrorCode(err) != apperr.ENOTFOUND {
		return out, err
	}
	prov, err := pricing.ReadProvenance(r, c)
	if err != nil {
		return out, err
	}
	base := snapshots.BasePrinting(c)
	o := prov.SeriesOrigin(base, snapshots.RawNearMint)
	out.Source, out.Synthetic = o.Source, o.Synthetic
	for _, pm := range pricing.NewMarketView(ps, base, c.PriceDay).WithProvenance(prov).Printings { // the card routes' by_finish
		p, e := pm.Printing, pm.Estimate
		pp := printingPrice{Printing: p.Name, Base: int(p.Finish) == base, PriceUSD: snapshots.USDOrNil(pm.Cents), Source: pm.Origin.Source, Synthetic: pm.Origin.Synthetic,
			Confidence: e.Confidence.String(), Sales30d: p.Sales30d, Listings: p.Listings, LowAskUSD: snapshots.USDOrNil(p.LowAskCents)}
		out.Printings = append(out.Printings, pp)
		if pp.Base {
			out.Printing, out.PriceUSD, out.Confidence, out.Flags = p.Name, pp.PriceUSD, pp.Confidence, pricing.FlagNames(e.Flags)
			if out.PriceUSD != nil && c.PriceDay != 0 {
				d := c.PriceDay.String()
				out.PriceDate = &d
			}
			if out.PriceUSD == nil {
				sales, err := r.Sales(c.Game, c.ID)
				if err != nil && apperr.ErrorCode(err) != apperr.ENOTFOUND {
					return out, err
				}
				out.PriceReason = pricing.ExplainNoValue(c, sales, base, e, t.snap.AsOf)
			}
		}
	}
	return out, nil
}

type showCardsArgs struct {
	IDs   []string `json:"ids"`
	Q     *string  `json:"q"`
	Limit int      `json:"limit"`
	Game  string   `json:"game"`
}

// showCardsOut is show_cards' data.
type showCardsOut struct {
	Game       string       `json:"game"`
	Q          *string      `json:"q"`     // the search (null with ids)
	Total      *int         `json:"total"` // cards matching q (null with ids)
	Cards      []shownCard  `json:"cards"`
	Unresolved []unresolved `json:"unresolved"` // references of ids that did not resolve
	Basis      string       `json:"basis"`
}

func (s *Server) toolShowCards(t *toolCall) (any, error) {
	var a showCardsArgs
	if err := t.bind(&a); err != nil {
		return nil, err
	}
	game, explicit, err := t.game(a.Game)
	if err != nil {
		return nil, err
	}
	var cards []*snapshots.Card
	out := showCardsOut{Game: game, Unresolved: []unresolved{},
		Basis: "price_usd: the raw:near_mint fmv of each printing as of the snapshot (null at confidence none: no accepted verified sale in the sample window), " +
			"from the source each says (a marketplace's file, observed sales or synthetic); see /api/v3/methodology"}
	switch {
	case a.Q != nil && a.IDs != nil:
		return nil, apperr.Errorf(apperr.EINVALID, "give ids (cards to show) or q (a search), not both")
	case a.IDs != nil:
		if len(a.IDs) > ShowCardsMaxIDs {
			return nil, apperr.Errorf(apperr.EINVALID, "too many ids: %d, at most %d per call", len(a.IDs), ShowCardsMaxIDs)
		}
		rs, cs, err := t.resolveIDs("ids", game, explicit, a.IDs)
		if err != nil {
			return nil, err
		}
		cards = cs
		out.Unresolved = unresolvedOf(rs)
	case a.Q != nil && strings.TrimSpace(*a.Q) != "":
		limit := a.Limit
		if limit == 0 {
			limit = ShowCardsDefaultLimit
		}
		q := strings.TrimSpace(*a.Q)
		res, err := resolve.Search(t.ctx, t.snap, resolve.SearchRequest{Game: game, Q: q, Limit: limit})
		if err != nil {
			return nil, err
		}
		for _, it := range res.Items {
			if c, err := t.snap.Reader.Card(it.Game, it.CardID); err == nil {
				cards = append(cards, c)
			}
		}
		out.Q, out.Total = &q, &res.Total
	default:
		return nil, apperr.Errorf(apperr.EINVALID, "give ids (cards to show) or q (a search)")
	}
	if err := t.charge(len(cards)); err != nil {
		return nil, err
	}
	out.Cards = make([]shownCard, 0, len(cards))
	for _, c := range cards {
		sc, err := t.showCard(c)
		if err != nil {
			return nil, err
		}
		out.Cards = append(out.Cards, sc)
	}
	return out, nil
}

// printingIndex picks the printing of c that finish names (an index into
// c.Variants): "" is the base printing, else the whole variant (any case),
// else of the variants with every part asked the one with the fewest other
// parts, the base printing first on a tie. EINVALID names the card's
// variants.
func printingIndex(c *snapshots.Card, finish string) (int, error) {
	finish = strings.TrimSpace(finish)
	base := snapshots.BasePrinting(c)
	if finish == "" {
		return base, nil
	}
	if len(c.Variants) == 0 {
		return 0, apperr.Errorf(apperr.EINVALID, "printing %q: card %s has one printing (no known variants); leave printing out", finish, c.ID)
	}
	for i, v := range c.Variants {
		if strings.EqualFold(v, finish) {
			return i, nil
		}
	}
	f, err := pricing.MatchFinish(c, finish)
	if err != nil {
		return 0, apperr.Errorf(apperr.EINVALID, "printing %q is not a printing of card %s; its printings are %s", finish, c.ID, strings.Join(c.Variants, ", "))
	}
	best, bestParts := -1, 0
	for i, v := range c.Variants {
		if !slices.Contains(f.Variants, v) {
			continue
		}
		n := strings.Count(v, "/")
		if best < 0 || n < bestParts || (n == bestParts && i == base) {
			best, bestParts = i, n
		}
	}
	if best < 0 {
		return 0, apperr.Errorf(apperr.EINVALID, "printing %q is not a printing of card %s; its printings are %s", finish, c.ID, strings.Join(c.Variants, ", "))
	}
	return best, nil
}

type priceCardArgs struct {
	Card     string `json:"card"`
	Grade    string `json:"grade"`
	Printing string `json:"printing"`
	Game     string `json:"game"`
}

// quoteRuleOut is the quote rule's price of one grade and printing.
type quoteRuleOut struct {
	Label      *string  `json:"label"` // Midprice, Last or Ask; null when nothing prices it
	PriceUSD   *float64 `json:"price_usd"`
	PriceDate  *string  `json:"price_date"`
	PriceBasis string   `json:"price_basis"`
}

// priceCardOut is price_card's data.
type priceCardOut struct {
	CardID       string              `json:"card_id"`
	Game         string              `json:"game"`
	Name         string              `json:"name"`
	SetID        string              `json:"set_id"`
	SetName      string              `json:"set_name"`
	Number       string              `json:"number"`
	Language     string              `json:"language"`
	URL          string              `json:"url"`
	Grade        string              `json:"grade"`
	GradeName    string              `json:"grade_name"`
	Printing     string              `json:"printing"` // the variant priced ("" for a card without variants)
	BasePrinting bool                `json:"base_printing"`
	PriceUSD     *float64            `json:"price_usd"` // the estimate's fmv (null at confidence none)
	Confidence   string              `json:"confidence"`
	Flags        []string            `json:"flags"`
	Estimate     pricing.EstimateRow `json:"estimate"`
	// PriceReason says why price_usd is null, with the last sale
	// (pricing.ExplainNoValue); absent when there is a price.
	PriceReason *pricing.NoValue `json:"price_reason,omitempty"`
	Quote       quoteRuleOut     `json:"quote"`
	Printings   []printingPrice  `json:"printings"`
}

func (s *Server) toolPriceCard(t *toolCall) (any, error) {
	var a priceCardArgs
	if err := t.bind(&a); err != nil {
		return nil, err
	}
	game, explicit, err := t.game(a.Game)
	if err != nil {
		return nil, err
	}
	g, err := snapshots.ReadGradeOr(a.Grade, snapshots.RawNearMint)
	if err != nil {
		return nil, apperr.Errorf(apperr.EINVALID, "grade %q: %s", a.Grade, apperr.ErrorMessage(err))
	}
	c, err := t.resolveOne(game, explicit, a.Card)
	if err != nil {
		return nil, err
	}
	finish, err := printingIndex(c, a.Printing)
	if err != nil {
		return nil, err
	}
	if err := t.charge(1); err != nil {
		return nil, err
	}
	sc, err := t.showCard(c)
	if err != nil {
		return nil, err
	}
	out := priceCardOut{CardID: c.ID, Game: c.Game, Name: c.Name, SetID: c.SetID, SetName: sc.SetName, Number: c.Number,
		Language: c.Language, URL: sc.URL, Grade: g.String(), GradeName: g.Name(), Printings: sc.Printings, BasePrinting: finish == snapshots.BasePrinting(c)}
	if finish < len(c.Variants) {
		out.Printing = c.Variants[finish]
	}
	ps, err := t.snap.Reader.Printings(c.Game, c.ID)
	if err != nil && apperr.ErrorCode(err) != apperr.ENOTFOUND {
		return nil, err
	}
	e := snapshots.Estimate{Grade: g}
	for i := range ps {
		if int(ps[i].Finish) == finish {
			e, _ = pricing.EstimateOf(&ps[i], g)
		}
	}
	est := pricing.NewEstimateRow(e)
	out.PriceUSD, out.Confidence, out.Flags, out.Estimate = est.FMVUSD, est.Confidence, est.Flags, est
	if out.PriceUSD == nil {
		sales, err := t.snap.Reader.Sales(c.Game, c.ID)
		if err != nil && apperr.ErrorCode(err) != apperr.ENOTFOUND {
			return nil, err
		}
		out.PriceReason = pricing.ExplainNoValue(c, sales, finish, e, t.snap.AsOf)
	}
	q, err := pricing.QuoteCard(t.snap, c, []snapshots.Grade{g}, out.Printing)
	if err != nil {
		return nil, err
	}
	out.Quote = quoteRuleOut{PriceBasis: "no price: no usable midprice, verified sale or current ask for " + g.Name()}
	if p := q.Price; p != nil {
		label, usd, day := p.Label, snapshots.USD(p.Cents), p.Day.String()
		out.Quote = quoteRuleOut{Label: &label, PriceUSD: &usd, PriceDate: &day, PriceBasis: p.Basis}
	}
	return out, nil
}
