package mcp

import (
	"context"
	"errors"
	"strings"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	mcpproto "github.com/mark3labs/mcp-go/mcp"
)

// The alert and history tools (chat tools, issue #33): an agent watches
// the market for the account: list_alerts, create_alert, delete_alert,
// add_to_want_list and recent_alerts act on the account's want list and
// alert rules (package alert, Options.Alerts), collection_history and
// set_completion read its collection's recorded value and set completion
// (package collection). They are gated like the collection tools
// (access.Caller.ChatTools: a chat-user token, or a connected app with the
// collection scope, of a Pro or Elite account). Each call costs 1 unit.

// Alerts keeps the accounts' want lists and alert rules: package alert's
// Service.
type Alerts interface {
	Create(ctx context.Context, m alert.Market, account string, in alert.Input, lim alert.Limits) (alert.Rule, error)
	Delete(ctx context.Context, account, id string) error
	Get(ctx context.Context, account, id string) (alert.Rule, error)
	List(ctx context.Context, account string, want *bool) ([]alert.Rule, error)
	Events(ctx context.Context, account string, limit int, after string) ([]alert.Event, string, error)
}

var _ Alerts = (*alert.Service)(nil)

// Bounds of recent_alerts.
const (
	RecentAlertsDefault = 10
	RecentAlertsMax     = 100
)

// alertToolDefs declares the alert tools (none without Options.Alerts) and
// the history tools (none without Options.Collections).
func (s *Server) alertToolDefs() []toolDef {
	game := s.gameOption()
	var defs []toolDef
	if s.opts.Alerts != nil {
		card := mcpproto.WithString("card", mcpproto.MaxLength(256),
			mcpproto.Description("The card: a card id (\"en:base1-4\"), a numeric partner product id or a name that resolves to one card (an ambiguous name is refused with its candidates). Give card or set_id."))
		printing := mcpproto.WithString("printing", mcpproto.MaxLength(80), mcpproto.Description("The printing: one of the card's variants as the catalog spells it (\"1st edition\"). Default: the card's base printing."))
		grade := mcpproto.WithString("grade", mcpproto.MaxLength(32), mcpproto.DefaultString("raw:near_mint"), mcpproto.Description(descGrade+" Default Raw, near mint."))
		source := mcpproto.WithString("source", mcpproto.Enum(pricing.PriceSources...), mcpproto.DefaultString("own"),
			mcpproto.Description("The price the condition reads: own (the headline fmv estimate), partner (the partner feed's daily median) or observed (the latest verified sale). Default own."))
		defs = append(defs,
			def(mcpproto.NewTool("list_alerts",
				mcpproto.WithDescription("The account's alert rules and want-list entries (oldest first), each with its condition in words, and the tier's limits. "+
					"Chat-user tokens with Apps access only. Cost: 1 unit."),
				mcpproto.WithString("which", mcpproto.Enum("all", "alerts", "want_list"), mcpproto.DefaultString("all"), mcpproto.Description("alerts, want_list or all (default).")),
				hints("List alerts and the want list", true),
			), s.toolListAlerts, alertListOut{}),
			def(mcpproto.NewTool("create_alert",
				mcpproto.WithDescription("Make a price alert on a card (or every card of a set) in a printing and grade: at_or_below / at_or_above a target price, a move of pct % over 1, 7 or 30 days, "+
					"or a first_sale / first_listing. It fires once per crossing when a new snapshot goes live (to the account's webhooks, feed and dashboard). "+
					"Chat-user tokens with Apps access only. Cost: 1 unit."),
				card,
				mcpproto.WithString("set_id", mcpproto.MaxLength(80), mcpproto.Description("A whole set instead of one card (Pro and Elite, a few per account).")),
				printing, grade, source,
				mcpproto.WithString("kind", mcpproto.Required(), mcpproto.Enum(alert.Kinds...), mcpproto.Description("The condition: at_or_below, at_or_above (price_usd), move (pct, days, direction), first_sale, first_listing.")),
				mcpproto.WithNumber("price_usd", mcpproto.Min(0.01), mcpproto.Max(alert.MaxPriceUSD), mcpproto.Description("The target price in USD (at_or_below, at_or_above).")),
				mcpproto.WithNumber("pct", mcpproto.Min(0.01), mcpproto.Max(alert.MaxPct), mcpproto.Description("A move's size in percent (move).")),
				mcpproto.WithInteger("days", mcpproto.Min(1), mcpproto.Max(30), mcpproto.Description("A move's span: 1, 7 or 30 days (move).")),
				mcpproto.WithString("direction", mcpproto.Enum(alert.Directions...), mcpproto.Description("A move's direction: up, down or either (default).")),
				mcpproto.WithString("note", mcpproto.MaxLength(alert.MaxNoteLen), mcpproto.Description("A note for the account.")),
				game,
				changeHints("Create an alert", false),
			), s.toolCreateAlert, alert.View{}),
			def(mcpproto.NewTool("add_to_want_list",
				mcpproto.WithDescription("Add a card, printing and grade to the account's want list, with how many copies are wanted and an optional target price: "+
					"with price_usd the entry alerts when the price is at or below it. Chat-user tokens with Apps access only. Cost: 1 unit."),
				card, printing, grade, source,
				mcpproto.WithInteger("quantity", mcpproto.Min(1), mcpproto.Max(alert.MaxQuantity), mcpproto.DefaultNumber(1), mcpproto.Description("Copies wanted (default 1).")),
				mcpproto.WithNumber("price_usd", mcpproto.Min(0.01), mcpproto.Max(alert.MaxPriceUSD), mcpproto.Description("Alert when the price is at or below this many USD (optional).")),
				mcpproto.WithString("note", mcpproto.MaxLength(alert.MaxNoteLen), mcpproto.Description("A note for the account.")),
				game,
				changeHints("Add to the want list", false),
			), s.toolAddToWantList, alert.View{}),
			def(mcpproto.NewTool("delete_alert",
				mcpproto.WithDescription("Delete one of the account's alert rules or want-list entries by id (list_alerts gives the ids). Its past alerts stay in the feed. "+
					"Chat-user tokens with Apps access only. Cost: 1 unit."),
				mcpproto.WithString("rule_id", mcpproto.Required(), mcpproto.MinLength(1), mcpproto.MaxLength(64), mcpproto.Description("The rule's id (r_...).")),
				annotate("Delete an alert", false, true, true),
			), s.toolDeleteAlert, alertDeleted{}),
			def(mcpproto.NewTool("recent_alerts",
				mcpproto.WithDescription("The account's alerts that fired, newest first (kept 90 days): the card, printing and grade, the condition, what the snapshot showed and a one-sentence summary. "+
					"Chat-user tokens with Apps access only. Cost: 1 unit."),
				mcpproto.WithInteger("limit", mcpproto.Min(1), mcpproto.Max(RecentAlertsMax), mcpproto.DefaultNumber(RecentAlertsDefault), mcpproto.Description("Most alerts returned, 1 to 100 (default 10).")),
				hints("Recent alerts", true),
			), s.toolRecentAlerts, recentAlertsOut{}),
		)
	}
	if s.opts.Collections != nil {
		defs = append(defs,
			def(mcpproto.NewTool("collection_history",
				mcpproto.WithDescription("The account's collection's value as recorded at each snapshot (one point a day, oldest first): per source, with the holdings valued and not, "+
					"and the value split by the confidence of the prices behind it. Within the tier's history window. Chat-user tokens with Apps access only. Cost: 1 unit."),
				mcpproto.WithString("since", mcpproto.MaxLength(10), mcpproto.Description("First day, YYYY-MM-DD (default: the start of the tier's history window).")),
				hints("Collection value history", true),
			), s.toolCollectionHistory, historyOut{}),
			def(mcpproto.NewTool("set_completion",
				mcpproto.WithDescription("Set completion of the account's collection: for each set it holds a card of, the printings held (any grade) against the set's printings, "+
					"the percentage, and the cost of the missing ones at today's fmv in a grade (those without a price counted apart). Most complete first. "+
					"Chat-user tokens with Apps access only. Cost: 1 unit."),
				mcpproto.WithString("game", mcpproto.MaxLength(32), mcpproto.Description("Only this game's sets. Default: every game.")),
				mcpproto.WithString("grade", mcpproto.MaxLength(32), mcpproto.DefaultString("raw:near_mint"), mcpproto.Description("The grade the missing printings are priced in. Default raw:near_mint.")),
				hints("Set completion", true),
			), s.toolSetCompletion, completionOut{}),
		)
	}
	return defs
}

// alertListOut is list_alerts' data.
type alertListOut struct {
	Rules []alert.View `json:"rules"`
	// Limit is the most rules and want-list entries the tier allows,
	// SetLimit how many of them may watch a whole set.
	Limit    int `json:"limit"`
	SetLimit int `json:"set_limit"`
}

// alertDeleted is delete_alert's data.
type alertDeleted struct {
	RuleID  string `json:"rule_id"`
	Deleted bool   `json:"deleted"`
}

// recentAlertsOut is recent_alerts' data.
type recentAlertsOut struct {
	Alerts []alert.EventView `json:"alerts"`
}

// historyOut is collection_history's data.
type historyOut struct {
	Points []collection.HistoryPoint `json:"points"`
	From   string                    `json:"from"` // the first day read ("" when unlimited and not given)
}

// completionOut is set_completion's data.
type completionOut struct {
	Sets []collection.SetCompletion `json:"sets"`
}

func alertLimits(t access.Tier) alert.Limits {
	l := access.LimitsOf(t)
	return alert.Limits{Rules: l.AlertRules, SetRules: l.AlertSetRules}
}

// account is the account of the call's caller (the alert tools are for
// chat-user tokens and connected apps, which always name one).
func (t *toolCall) account() (string, error) {
	if a := t.call.caller.Account; a != "" {
		return a, nil
	}
	return "", apperr.Errorf(apperr.EFORBIDDEN, "the alert tools need a chat-user token or a connected app")
}

type listAlertsArgs struct {
	Which string `json:"which"`
}

func (s *Server) toolListAlerts(t *toolCall) (any, error) {
	var a listAlertsArgs
	if err := t.bind(&a); err != nil {
		return nil, err
	}
	acct, err := t.account()
	if err != nil {
		return nil, err
	}
	var want *bool
	switch a.Which {
	case "alerts":
		want = new(bool)
	case "want_list":
		w := true
		want = &w
	}
	if err := t.charge(1); err != nil {
		return nil, err
	}
	rules, err := s.opts.Alerts.List(t.ctx, acct, want)
	if err != nil {
		return nil, err
	}
	lim := alertLimits(t.call.caller.Tier)
	out := alertListOut{Rules: make([]alert.View, 0, len(rules)), Limit: lim.Rules, SetLimit: lim.SetRules}
	for _, r := range rules {
		out.Rules = append(out.Rules, r.View())
	}
	return out, nil
}

type ruleArgs struct {
	Card      string   `json:"card"`
	SetID     string   `json:"set_id"`
	Printing  string   `json:"printing"`
	Grade     string   `json:"grade"`
	Source    string   `json:"source"`
	Kind      string   `json:"kind"`
	PriceUSD  *float64 `json:"price_usd"`
	Pct       *float64 `json:"pct"`
	Days      int      `json:"days"`
	Direction string   `json:"direction"`
	Quantity  int      `json:"quantity"`
	Note      string   `json:"note"`
	Game      string   `json:"game"`
}

// ruleInput turns a tool's arguments into a rule's Input: the card
// resolved (a reference, not only an id), or the set.
func (t *toolCall) ruleInput(a ruleArgs, want bool) (alert.Input, error) {
	game, explicit, err := t.game(a.Game)
	if err != nil {
		return alert.Input{}, err
	}
	in := alert.Input{Game: game, SetID: a.SetID, Printing: a.Printing, Grade: a.Grade, Source: a.Source, Kind: a.Kind,
		PriceUSD: a.PriceUSD, Pct: a.Pct, Days: a.Days, Direction: a.Direction, Want: want, Quantity: a.Quantity, Note: a.Note}
	switch {
	case a.Card != "" && a.SetID != "":
		return in, apperr.Errorf(apperr.EINVALID, "give card or set_id, not both")
	case a.Card != "":
		c, err := t.resolveOne(game, explicit, a.Card)
		if err != nil {
			return in, err
		}
		in.Game, in.CardID = c.Game, c.ID
	case a.SetID == "":
		return in, apperr.Errorf(apperr.EINVALID, "give card (a card id, partner product id or name) or set_id")
	}
	return in, nil
}

// fieldMessage says FieldErrors in one sentence (a tool error's message).
func fieldMessage(err error) error {
	var fe apperr.FieldErrors
	if !errors.As(err, &fe) {
		return err
	}
	msgs := make([]string, 0, len(fe))
	for _, f := range fe {
		msgs = append(msgs, f.Msg)
	}
	return apperr.Errorf(apperr.EINVALID, "%s", strings.Join(msgs, "; "))
}

func (s *Server) createRule(t *toolCall, want bool) (any, error) {
	var a ruleArgs
	if err := t.bind(&a); err != nil {
		return nil, err
	}
	acct, err := t.account()
	if err != nil {
		return nil, err
	}
	in, err := t.ruleInput(a, want)
	if err != nil {
		return nil, err
	}
	if want && a.PriceUSD != nil {
		in.Kind = alert.AtOrBelow
	}
	if _, err := alert.Check(in, nil); err != nil {
		return nil, fieldMessage(err)
	}
	if err := t.charge(1); err != nil {
		return nil, err
	}
	r, err := s.opts.Alerts.Create(t.ctx, alert.NewReaderMarket(t.snap.Reader, t.snap.AsOf), acct, in, alertLimits(t.call.caller.Tier))
	if err != nil {
		return nil, fieldMessage(err)
	}
	return r.View(), nil
}

func (s *Server) toolCreateAlert(t *toolCall) (any, error)   { return s.createRule(t, false) }
func (s *Server) toolAddToWantList(t *toolCall) (any, error) { return s.createRule(t, true) }

type deleteAlertArgs struct {
	RuleID string `json:"rule_id"`
}

func (s *Server) toolDeleteAlert(t *toolCall) (any, error) {
	var a deleteAlertArgs
	if err := t.bind(&a); err != nil {
		return nil, err
	}
	acct, err := t.account()
	if err != nil {
		return nil, err
	}
	if err := t.charge(1); err != nil {
		return nil, err
	}
	if err := s.opts.Alerts.Delete(t.ctx, acct, a.RuleID); err != nil {
		return nil, err
	}
	return alertDeleted{RuleID: a.RuleID, Deleted: true}, nil
}

type recentAlertsArgs struct {
	Limit int `json:"limit"`
}

func (s *Server) toolRecentAlerts(t *toolCall) (any, error) {
	var a recentAlertsArgs
	if err := t.bind(&a); err != nil {
		return nil, err
	}
	acct, err := t.account()
	if err != nil {
		return nil, err
	}
	if a.Limit == 0 {
		a.Limit = RecentAlertsDefault
	}
	if err := t.charge(1); err != nil {
		return nil, err
	}
	evs, _, err := s.opts.Alerts.Events(t.ctx, acct, a.Limit, "")
	if err != nil {
		return nil, err
	}
	out := recentAlertsOut{Alerts: make([]alert.EventView, 0, len(evs))}
	for _, e := range evs {
		out.Alerts = append(out.Alerts, e.View())
	}
	return out, nil
}

type historyArgs struct {
	Since string `json:"since"`
}

func (s *Server) toolCollectionHistory(t *toolCall) (any, error) {
	var a historyArgs
	if err := t.bind(&a); err != nil {
		return nil, err
	}
	o, err := t.owner()
	if err != nil {
		return nil, err
	}
	since, set, err := parseDay("since", a.Since)
	if err != nil {
		return nil, err
	}
	tier := t.call.caller.Tier
	from := access.ClampSince(t.snap.AsOf, tier, since, set)
	if _, limited := access.WindowStart(t.snap.AsOf, tier); !limited && !set {
		from = snapshots.NoDay
	}
	if err := t.charge(1); err != nil {
		return nil, err
	}
	pts, err := s.opts.Collections.History(t.ctx, o, from)
	if err != nil {
		return nil, err
	}
	out := historyOut{Points: pts}
	if from != snapshots.NoDay {
		out.From = from.String()
	}
	return out, nil
}

type completionArgs struct {
	Game  string `json:"game"`
	Grade string `json:"grade"`
}

func (s *Server) toolSetCompletion(t *toolCall) (any, error) {
	var a completionArgs
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
	g, err := snapshots.ReadGradeOr(a.Grade, snapshots.RawNearMint)
	if err != nil {
		return nil, apperr.Errorf(apperr.EINVALID, "grade %q: %v", a.Grade, err)
	}
	if err := t.charge(1); err != nil {
		return nil, err
	}
	sets, err := s.opts.Collections.Completion(t.ctx, t.snap, o, a.Game, g)
	if err != nil {
		return nil, err
	}
	return completionOut{Sets: sets}, nil
}
