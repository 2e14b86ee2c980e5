package mcp

import (
	"context"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"unicode"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/resolve"
	mcpproto "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Prompts: conversation starters a host offers its user (prompts/list,
// prompts/get; a slash command in Claude and VS Code). Each returns a user
// message that tells the model which tools to call, in which order, and what
// to report. prompts/list and prompts/get are free, but for a prompt that
// reads data into its messages (chargedPrompts): it costs 1 unit, charged
// like a tools/call by the HTTP layer.

// Names of the prompts.
const (
	PromptValueCollection  = "value_my_collection"
	PromptComparePrintings = "compare_printings"
	PromptWhatMoved        = "what_moved_this_week"
)

// chargedPrompts are the prompts whose prompts/get reads data (the movers
// resource, embedded in the messages) and costs 1 unit.
var chargedPrompts = map[string]bool{PromptWhatMoved: true}

// chatPrompts are the prompts only callers with the chat tools get
// (promptFilter): they call those tools.
var chatPrompts = map[string]bool{PromptValueCollection: true}

// promptDef is one prompt and its handler.
type promptDef struct {
	prompt mcpproto.Prompt
	fn     func(p *promptCall) ([]mcpproto.PromptMessage, error)
}

// promptCall is one prompts/get being served.
type promptCall struct {
	*toolCall
	args map[string]string
}

// prompts declares the prompts (value_my_collection with
// Options.Collections only).
func (s *Server) prompts() []promptDef {
	defs := []promptDef{
		{mcpproto.NewPrompt(PromptComparePrintings, mcpproto.WithPromptTitle("Compare the printings of a card"),
			mcpproto.WithPromptDescription("Compare a card's printings (1st edition, shadowless, holo, reverse holo...): each one's price raw and graded, "+
				"its verified sales and its cheapest ask, and which printing carries a premium. Uses search, quote, get_listings and get_sales."),
			mcpproto.WithArgument("card", mcpproto.ArgumentTitle("Card"), mcpproto.RequiredArgument(),
				mcpproto.ArgumentDescription("The card: a card id (en:base1-4), a numeric partner product id or a name with its set or number (charizard base set)."))),
			comparePrintings},
		{mcpproto.NewPrompt(PromptWhatMoved, mcpproto.WithPromptTitle("What moved this week"),
			mcpproto.WithPromptDescription("The cards whose fair market value rose or fell most over the last 7 days (the movers resource, attached), "+
				"checked against their verified sales with get_sales and get_prices. Costs 1 unit of the daily quota."),
			mcpproto.WithArgument("game", mcpproto.ArgumentTitle("Game"),
				mcpproto.ArgumentDescription("The game, e.g. pokemon or onepiece; default the snapshot's first game."))),
			whatMoved},
	}
	if s.opts.Collections != nil {
		defs = append(defs, promptDef{mcpproto.NewPrompt(PromptValueCollection, mcpproto.WithPromptTitle("Value my collection"),
			mcpproto.WithPromptDescription("Value the account's collection: total value, what was paid and the gain, the 30-day change, the most valuable "+
				"holdings and how sure each estimate is. Uses list_collection and price_card (chat-user tokens and connected apps with the collection scope, "+
				"Pro and Elite).")),
			valueCollection})
	}
	return defs
}

// addPrompts registers the prompts with mcp-go.
func (s *Server) addPrompts() {
	for _, d := range s.prompts() {
		s.mcp.AddPrompt(d.prompt, s.promptHandler(d))
	}
}

// promptFilter is the server's prompt filter (prompts/list and
// prompts/get): the chat prompts only for callers with the chat tools.
func promptFilter(ctx context.Context, prompts []mcpproto.Prompt) []mcpproto.Prompt {
	if appsCaller(ctx) {
		return prompts
	}
	out := make([]mcpproto.Prompt, 0, len(prompts))
	for _, p := range prompts {
		if !chatPrompts[p.Name] {
			out = append(out, p)
		}
	}
	return out
}

// promptHandler adapts a prompt to mcp-go: arguments checked (unknown ones
// refused, required ones present), a snapshot reference held, the caller's
// call at hand. A refusal is a JSON-RPC error -32602 (invalid params) whose
// message says what to change (call.fault).
func (s *Server) promptHandler(d promptDef) server.PromptHandlerFunc {
	name := d.prompt.Name
	return func(ctx context.Context, req mcpproto.GetPromptRequest) (_ *mcpproto.GetPromptResult, err error) {
		c, err := callOf(ctx)
		if err != nil {
			return nil, err
		}
		if err := checkPromptArgs(d.prompt, req.Params.Arguments); err != nil {
			return nil, c.refusePrompt(name, err)
		}
		snap := s.opts.Snapshots.Acquire()
		defer snap.Release()
		p := &promptCall{toolCall: &toolCall{ctx: ctx, srv: s, name: "prompt " + name, call: c, snap: snap, cost: c.charged}, args: req.Params.Arguments}
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("mcp prompt panicked", "prompt", name, "panic", r, "stack", string(debug.Stack()))
				err = apperr.Errorf(apperr.EINTERNAL, "internal error")
			}
		}()
		msgs, err := d.fn(p)
		if err != nil {
			if apperr.ErrorCode(err) == apperr.EINTERNAL {
				s.log.Error("mcp prompt failed", "prompt", name, "key", c.caller.KeyID, "err", err)
				return nil, apperr.Errorf(apperr.EINTERNAL, "internal error")
			}
			return nil, c.refusePrompt(name, err)
		}
		return mcpproto.NewGetPromptResult(d.prompt.Description, msgs), nil
	}
}

// refusePrompt is err as the answer to a prompts/get of name: a JSON-RPC
// error -32602 (invalid params) with the error's message, its code and the
// prompt in the data. A quota refusal stays mcp-go's internal error.
func (c *call) refusePrompt(name string, err error) error {
	if apperr.ErrorCode(err) != apperr.EQUOTA {
		c.fault = &rpcFault{code: mcpproto.INVALID_PARAMS, message: apperr.ErrorMessage(err), data: map[string]any{"prompt": name, "code": apperr.ErrorCode(err)}}
	}
	return err
}

// checkPromptArgs refuses arguments the prompt does not have, required ones
// missing or blank, and values longer than resolve.MaxRefLen or with control
// characters.
func checkPromptArgs(p mcpproto.Prompt, args map[string]string) error {
	known := map[string]bool{}
	for _, a := range p.Arguments {
		known[a.Name] = true
		if a.Required && strings.TrimSpace(args[a.Name]) == "" {
			return apperr.Errorf(apperr.EINVALID, "prompt %s needs the argument %s", p.Name, a.Name)
		}
	}
	for k, v := range args {
		if !known[k] {
			names := make([]string, len(p.Arguments))
			for i, a := range p.Arguments {
				names[i] = a.Name
			}
			if len(names) == 0 {
				return apperr.Errorf(apperr.EINVALID, "prompt %s takes no arguments (got %s)", p.Name, k)
			}
			return apperr.Errorf(apperr.EINVALID, "prompt %s has no argument %s; its arguments are %s", p.Name, k, strings.Join(names, ", "))
		}
		if len(v) > resolve.MaxRefLen {
			return apperr.Errorf(apperr.EINVALID, "argument %s is longer than %d bytes", k, resolve.MaxRefLen)
		}
		if strings.ContainsFunc(v, unicode.IsControl) {
			return apperr.Errorf(apperr.EINVALID, "argument %s has control characters", k)
		}
	}
	return nil
}

func userText(text string) mcpproto.PromptMessage {
	return mcpproto.NewPromptMessage(mcpproto.RoleUser, mcpproto.NewTextContent(text))
}

// valueCollection is value_my_collection.
func valueCollection(p *promptCall) ([]mcpproto.PromptMessage, error) {
	return []mcpproto.PromptMessage{userText(`Value my trading-card collection on cardedge.
1. Call list_collection with sort "value" and limit 200 to read my holdings valued as of the snapshot's as_of; while holdings remain beyond offset + limit (total says how many), call it again with the next offset.
2. Report the total value (summary.value_usd), what I paid (summary.paid_usd) and the gain (summary.gain_usd: only copies with a price paid count), the 30-day change (summary.change_30d_usd and change_30d_pct), and how many holdings have no value (summary.unvalued_holdings).
3. List the ten most valuable holdings: card, printing, grade, quantity, value, and the estimate's confidence and flags.
4. For each of those with confidence low or none, or a flag (thin, solo, stale, outlier_excluded), call price_card with its card, printing and grade and say what the estimate rests on (sample size, last sale).
Say the as_of date. These values are estimates from verified sales, not offers to buy.`)}, nil
}

// comparePrintings is compare_printings: the steps with the public tools,
// and show_cards first for a caller who has it.
func comparePrintings(p *promptCall) ([]mcpproto.PromptMessage, error) {
	card := strconv.Quote(strings.TrimSpace(p.args["card"]))
	var b strings.Builder
	fmt.Fprintf(&b, "Compare the printings of the trading card %s on cardedge.\n", card)
	if p.call.caller.ChatTools() {
		fmt.Fprintf(&b, "0. Call show_cards with ids [%s]: it shows every printing of the card with its raw near-mint price, confidence, 30-day sales and listings. "+
			"Then call price_card for each printing (printing set to its name) for its estimate in detail.\n", card)
	}
	fmt.Fprintf(&b, `1. Call search with q %s to resolve it to one card_id; the card's variants are its printings. If it is ambiguous, show me the candidates and ask which one I mean.
2. For each printing, call quote with ids [card_id], finish set to the printing and grade "raw:near_mint", then again with grade "slab:10" (PSA 10); read price_basis before treating a price as a market price.
3. Call get_listings with ids [card_id] and mode "book" for the current asks of each printing, and get_sales with ids [card_id], mode "daily" and finish set to each printing for its recent verified sales.
4. Make a table: printing, raw near-mint price and its basis, PSA 10 price, verified sales in the last 30 days, cheapest ask. Then say which printing carries a premium over the base printing and whether enough sales back it. Prices are never blended across printings.`, card)
	return []mcpproto.PromptMessage{userText(b.String())}, nil
}

// whatMoved is what_moved_this_week: the movers resource embedded, and the
// tools that check it.
func whatMoved(p *promptCall) ([]mcpproto.PromptMessage, error) {
	game, _, err := p.game(p.args["game"])
	if err != nil {
		return nil, err
	}
	data, err := p.readMovers(game)
	if err != nil {
		return nil, err
	}
	if err := p.charge(1); err != nil {
		return nil, err
	}
	text, err := envelopeJSON("mcp.resource.movers.v1", p.snap, p.cost, data)
	if err != nil {
		return nil, err
	}
	asOf := p.snap.AsOf
	uri := MoversURIPrefix + game
	return []mcpproto.PromptMessage{
		userText(fmt.Sprintf(`What moved in the %s card market in the week to %s? The attached %s lists the printings whose fair market value (fmv) rose or fell most over those 7 days, among those with enough verified sales: value is the price change in percent, price_usd the fmv now, sample_size the verified sales behind it.
1. Summarize the biggest moves up and down: card, set, printing, change and price now.
2. For the three biggest each way, call get_sales with ids [card_id], finish set to the printing, mode "daily" and since %s to check that the move rests on several verified sales and not on one; and get_prices with the same ids, finish and since, interval "day", for the path of the price.
3. Say which moves rest on a small sample or carry flags (thin, solo, stale, outlier_excluded). Give the as_of date.`, game, asOf, uri, asOf-6)),
		mcpproto.NewPromptMessage(mcpproto.RoleUser, mcpproto.NewEmbeddedResource(mcpproto.TextResourceContents{URI: uri, MIMEType: resourceMIME, Text: string(text)})),
	}, nil
}
