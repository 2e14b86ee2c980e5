package edge

import (
	"context"
	"strings"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/apperr"
)

// Want lists and alert rules (package alert, issue #33), under
// /api/v3/me/: the caller's (its account's; a key without an account keeps
// its own, as with collections). Rules and want-list entries are one kind
// of record apart by want: /api/v3/me/alerts lists, makes and changes the
// rules, /api/v3/me/want-list the entries; a rule's id under the other path
// is a 404. Bodies are a rule's Input (alert.ParseInput: known fields only,
// at most 4 KiB); every wrong field is named in one 422. The tier's limits
// are access.Limits' AlertRules and AlertSetRules. Recent events are
// /api/v3/me/alert-events; the Atom feed's secret URL /api/v3/me/feed
// (feed.go).

// Alerts keeps want lists and alert rules and serves their events and
// feed: package alert's Service.
type Alerts interface {
	Create(ctx context.Context, m alert.Market, account string, in alert.Input, lim alert.Limits) (alert.Rule, error)
	Replace(ctx context.Context, m alert.Market, account, id string, in alert.Input, lim alert.Limits) (alert.Rule, error)
	Delete(ctx context.Context, account, id string) error
	Get(ctx context.Context, account, id string) (alert.Rule, error)
	List(ctx context.Context, account string, want *bool) ([]alert.Rule, error)
	Events(ctx context.Context, account string, limit int, after string) ([]alert.Event, string, error)
	FeedToken(ctx context.Context, account string) (string, error)
	RollFeed(ctx context.Context, account string) (string, error)
	Feed(ctx context.Context, token string, info alert.FeedInfo) ([]byte, error)
}

var _ Alerts = (*alert.Service)(nil)

// eventsMaxLimit bounds a page of events.
const eventsMaxLimit = 500

func (s *Server) registerAlertRoutes() {
	for _, kind := range []struct {
		path, name, what, schema string
		want                     bool
	}{
		{"/api/v3/me/alerts", "alerts", "alert rule", "AlertRule", false},
		{"/api/v3/me/want-list", "want_list", "want-list entry", "WantListEntry", true},
	} {
		want := kind.want
		item := kind.path + "/{rule_id}"
		s.router.add(&route{method: "GET", pattern: kind.path, name: kind.name + "_list", contract: "alert-rules.v1",
			summary: "The caller's " + kind.what + "s (its account's), oldest first, with the tier's limits", schema: kind.schema + "s",
			handle: func(r *request) (any, error) { return s.handleRulesList(r, want) }})
		s.router.add(&route{method: "POST", pattern: kind.path, name: kind.name + "_create", contract: "alert-rule.v1",
			summary: "Make a " + kind.what + ": a card (or every card of a set), printing, grade, source and condition; every wrong field is named in one 422", schema: kind.schema,
			handle: func(r *request) (any, error) { return s.handleRuleCreate(r, want) }})
		s.router.add(&route{method: "GET", pattern: item, name: kind.name + "_get", contract: "alert-rule.v1",
			summary: "One " + kind.what + " of the caller", schema: kind.schema,
			handle: func(r *request) (any, error) { return s.handleRuleGet(r, want) }})
		s.router.add(&route{method: "PUT", pattern: item, name: kind.name + "_replace", contract: "alert-rule.v1",
			summary: "Replace a " + kind.what + " (the body as for its creation); its crossing state starts afresh", schema: kind.schema,
			handle: func(r *request) (any, error) { return s.handleRuleReplace(r, want) }})
		s.router.add(&route{method: "DELETE", pattern: item, name: kind.name + "_delete", contract: "alert-rule-deleted.v1",
			summary: "Delete a " + kind.what + " (its past events stay in the feed until they expire)", schema: "AlertRuleDeleted",
			handle: func(r *request) (any, error) { return s.handleRuleDelete(r, want) }})
	}
	s.router.add(&route{method: "GET", pattern: "/api/v3/me/alert-events", name: "alert_events", contract: "alert-events.v1",
		summary: "The caller's alerts that fired, newest first (kept 90 days)", schema: "AlertEvents",
		params: []paramSpec{
			pInt("limit", 1, eventsMaxLimit, "50", "Events per page."),
			pStr("after", 200, "The next_cursor of the previous page."),
		},
		handle: s.handleAlertEvents})
}

// alertAccount is whose alerts and webhooks a keyed call acts on: the
// key's account's, else the key's own.
func (s *Server) alertAccount(r *request) string {
	if r.caller.Account != "" {
		return r.caller.Account
	}
	if k, ok := s.access.Key(r.caller.KeyID); ok && k.Account != "" {
		return k.Account
	}
	return r.caller.KeyID
}

func alertLimits(l access.Limits) alert.Limits {
	return alert.Limits{Rules: l.AlertRules, SetRules: l.AlertSetRules}
}

// alerts returns the alerts service, or ENOTFOUND when the server has none.
func (s *Server) alerts() (Alerts, error) {
	if s.opts.Alerts == nil {
		return nil, apperr.Errorf(apperr.ENOTFOUND, "alerts are not enabled on this server")
	}
	return s.opts.Alerts, nil
}

// ruleInput reads a rule's body for a rule (want false) or a want-list
// entry (want true).
func ruleInput(body []byte, want bool) (alert.Input, error) {
	in, err := alert.ParseInput(body)
	if err != nil {
		return in, err
	}
	if in.Want && !want {
		return in, apperr.FieldErrors{{Loc: []any{"body", "want"}, Msg: "want: a want-list entry goes to /api/v3/me/want-list", Type: "value_error", Input: true}}
	}
	in.Want = want
	return in, nil
}

func (s *Server) handleRulesList(r *request, want bool) (any, error) {
	a, err := s.alerts()
	if err != nil {
		return nil, err
	}
	rules, err := a.List(r.ctx, s.alertAccount(r), &want)
	if err != nil {
		return nil, err
	}
	return alert.NewRuleList(rules, alertLimits(r.limits)), nil
}

func (s *Server) handleRuleCreate(r *request, want bool) (any, error) {
	a, err := s.alerts()
	if err != nil {
		return nil, err
	}
	in, err := ruleInput(r.body, want)
	if err != nil {
		return nil, err
	}
	v := r.view()
	rule, err := a.Create(r.ctx, alert.NewReaderMarket(v.Reader, v.AsOf), s.alertAccount(r), in, alertLimits(r.limits))
	if err != nil {
		return nil, err
	}
	return rule.View(), nil
}

// ownRule reads the path's rule of the caller: a 404 when it is of the
// other kind (a want-list entry under /alerts).
func (s *Server) ownRule(r *request, a Alerts, want bool) (alert.Rule, error) {
	id := r.vars.list()[0]
	rule, err := a.Get(r.ctx, s.alertAccount(r), id)
	if err != nil {
		return rule, err
	}
	if rule.Want != want {
		return rule, apperr.Errorf(apperr.ENOTFOUND, "no %s %s", map[bool]string{true: "want-list entry", false: "alert rule"}[want], id)
	}
	return rule, nil
}

func (s *Server) handleRuleGet(r *request, want bool) (any, error) {
	a, err := s.alerts()
	if err != nil {
		return nil, err
	}
	rule, err := s.ownRule(r, a, want)
	if err != nil {
		return nil, err
	}
	return rule.View(), nil
}

func (s *Server) handleRuleReplace(r *request, want bool) (any, error) {
	a, err := s.alerts()
	if err != nil {
		return nil, err
	}
	in, err := ruleInput(r.body, want)
	if err != nil {
		return nil, err
	}
	if _, err := s.ownRule(r, a, want); err != nil {
		return nil, err
	}
	v := r.view()
	rule, err := a.Replace(r.ctx, alert.NewReaderMarket(v.Reader, v.AsOf), s.alertAccount(r), r.vars.list()[0], in, alertLimits(r.limits))
	if err != nil {
		return nil, err
	}
	return rule.View(), nil
}

func (s *Server) handleRuleDelete(r *request, want bool) (any, error) {
	a, err := s.alerts()
	if err != nil {
		return nil, err
	}
	rule, err := s.ownRule(r, a, want)
	if err != nil {
		return nil, err
	}
	if err := a.Delete(r.ctx, s.alertAccount(r), rule.ID); err != nil {
		return nil, err
	}
	return alert.RuleDeleted{ID: rule.ID, Deleted: true}, nil
}

func (s *Server) handleAlertEvents(r *request) (any, error) {
	a, err := s.alerts()
	if err != nil {
		return nil, err
	}
	limit := r.p.int("limit")
	after := r.p.str("after")
	if after != "" && (strings.Contains(after, "..") || strings.HasPrefix(after, "/")) {
		return nil, validationErrors{queryError("after", "after: the next_cursor of a previous page", "value_error", after, nil)}
	}
	evs, next, err := a.Events(r.ctx, s.alertAccount(r), limit, after)
	if err != nil {
		return nil, err
	}
	return alert.NewEventPage(evs, next), nil
}
