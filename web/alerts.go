package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/webhook"
)

// The alerts pages (package alert, issue #33): the account's want list and
// alert rules with a form to make one (its field errors said beside the
// fields), a page to change or delete one, the last alerts, and the secret
// URL of the account's Atom feed with a button that rolls it. The same
// rules the account's keys read under /api/v3/me/alerts and its agents
// through MCP. Pages read no market data and are not charged.

func (h *Handler) registerAlertRoutes() {
	h.mux.HandleFunc("GET "+Base+"/alerts", h.requireSession(h.handleAlerts))
	h.mux.HandleFunc("POST "+Base+"/alerts", h.requireSession(h.handleAlertCreate))
	h.mux.HandleFunc("GET "+Base+"/alerts/{id}", h.requireSession(h.handleAlertEdit))
	h.mux.HandleFunc("POST "+Base+"/alerts/{id}", h.requireSession(h.handleAlertReplace))
	h.mux.HandleFunc("POST "+Base+"/alerts/{id}/delete", h.requireSession(h.handleAlertDelete))
	h.mux.HandleFunc("POST "+Base+"/alerts/feed/roll", h.requireSession(h.handleFeedRoll))
}

// recentAlerts is how many events the alerts page shows.
const recentAlerts = 20

// ruleForm is the rule form's values as typed, and what is wrong with
// them, by field.
type ruleForm struct {
	ID                                                   string // "" for a new rule
	Kind, Game, Card, SetID, Printing, Grade, Source     string
	Price, Pct, Days, Direction, Quantity, Note          string
	Want, Paused                                         bool
	Errors                                               map[string]string
	Kinds, Sources, DaysOptions, Directions, GameOptions []option
}

// Err is the error of field ("" when none).
func (f ruleForm) Err(field string) string { return f.Errors[field] }

var kindLabels = []option{
	{Value: alert.AtOrBelow, Label: "The price is at or below a target"},
	{Value: alert.AtOrAbove, Label: "The price is at or above a target"},
	{Value: alert.Move, Label: "The price moves by a percentage"},
	{Value: alert.FirstSale, Label: "A first verified sale"},
	{Value: alert.FirstListing, Label: "A listing appears"},
	{Value: "", Label: "No alert (a want-list entry only)"},
}

var sourceLabels = map[string]string{
	pricing.SourceOwn: "Our estimate (fmv)", pricing.SourcePartner: "The partner feed's daily median", pricing.SourceObserved: "The latest verified sale",
}

func (h *Handler) newRuleForm(games []string) ruleForm {
	f := ruleForm{Kind: alert.AtOrBelow, Grade: "raw:near_mint", Source: pricing.SourceOwn, Days: "7", Direction: "either", Quantity: "1",
		Errors: map[string]string{}, Kinds: kindLabels}
	if len(games) > 0 {
		f.Game = games[0]
	}
	for _, s := range pricing.PriceSources {
		f.Sources = append(f.Sources, option{Value: s, Label: sourceLabels[s]})
	}
	for _, d := range alert.MoveDays {
		f.DaysOptions = append(f.DaysOptions, option{Value: strconv.Itoa(d), Label: strconv.Itoa(d) + map[bool]string{true: " day", false: " days"}[d == 1]})
	}
	for _, d := range alert.Directions {
		f.Directions = append(f.Directions, option{Value: d, Label: map[string]string{"up": "Up", "down": "Down", "either": "Either way"}[d]})
	}
	for _, g := range games {
		f.GameOptions = append(f.GameOptions, option{Value: g, Label: g})
	}
	return f
}

// formOf fills a form with rule r's values.
func (h *Handler) formOf(r alert.Rule, games []string) ruleForm {
	f := h.newRuleForm(games)
	v := r.View()
	f.ID, f.Kind, f.Game, f.Card, f.SetID, f.Printing, f.Grade, f.Source = v.ID, v.Kind, v.Game, v.CardID, v.SetID, v.Printing, v.Grade, v.Source
	f.Want, f.Paused, f.Note = v.Want, v.Paused, v.Note
	if v.PriceUSD != nil {
		f.Price = strconv.FormatFloat(*v.PriceUSD, 'f', -1, 64)
	}
	if v.Pct != nil {
		f.Pct = strconv.FormatFloat(*v.Pct, 'f', -1, 64)
	}
	if v.Days != 0 {
		f.Days = strconv.Itoa(v.Days)
	}
	if v.Direction != "" {
		f.Direction = v.Direction
	}
	if v.Quantity > 0 {
		f.Quantity = strconv.Itoa(v.Quantity)
	}
	return f
}

// readRuleForm reads the posted form into f and the Input it asks for; the
// card field takes a card id or a name (resolved against the live
// snapshot). Fields the kind does not use are left out.
func (h *Handler) readRuleForm(r *http.Request, f *ruleForm) (alert.Input, bool) {
	get := func(k string) string { return strings.TrimSpace(r.PostFormValue(k)) }
	f.Kind, f.Game, f.Card, f.SetID, f.Printing, f.Grade, f.Source = get("kind"), get("game"), get("card"), get("set_id"), get("printing"), get("grade"), get("source")
	f.Price, f.Pct, f.Days, f.Direction, f.Quantity, f.Note = get("price_usd"), get("pct"), get("days"), get("direction"), get("quantity"), get("note")
	f.Want, f.Paused = r.PostFormValue("want") != "", r.PostFormValue("paused") != ""
	in := alert.Input{Game: f.Game, SetID: f.SetID, Printing: f.Printing, Grade: f.Grade, Source: f.Source, Kind: f.Kind,
		Direction: "", Want: f.Want, Note: f.Note, Paused: f.Paused}
	num := func(field, s string) *float64 {
		if s == "" {
			return nil
		}
		v, err := strconv.ParseFloat(strings.TrimPrefix(s, "$"), 64)
		if err != nil {
			f.Errors[field] = "Enter a number, such as 12.50."
			return nil
		}
		return &v
	}
	switch f.Kind {
	case alert.AtOrBelow, alert.AtOrAbove:
		in.PriceUSD = num("price_usd", f.Price)
	case alert.Move:
		in.Pct = num("pct", f.Pct)
		in.Days, _ = strconv.Atoi(f.Days)
		in.Direction = f.Direction
	}
	if f.Want {
		if n, err := strconv.Atoi(f.Quantity); err == nil {
			in.Quantity = n
		} else if f.Quantity != "" {
			f.Errors["quantity"] = "Enter a whole number of copies."
		}
	}
	if f.Card != "" && h.opts.Snapshots != nil {
		v := h.opts.Snapshots.Acquire()
		game := f.Game
		if game == "" && len(v.Reader.Manifest().Games) > 0 {
			game = v.Reader.Manifest().Games[0]
		}
		res, err := resolve.Resolve(r.Context(), v, game, f.Game != "", f.Card)
		v.Release()
		switch {
		case err != nil:
			f.Errors["card"] = sentence(apperr.ErrorMessage(err))
		case res.Status == resolve.Resolved:
			in.CardID, in.Game = res.Card.ID, res.Card.Game
		case len(res.Candidates) > 0:
			var names []string
			for i, c := range res.Candidates {
				if i == 5 {
					break
				}
				names = append(names, c.CardID+" ("+c.Name+", "+c.SetName+" #"+c.Number+")")
			}
			f.Errors["card"] = "More than one card matches: give its id, such as " + strings.Join(names, "; ") + "."
		default:
			f.Errors["card"] = "No card matches “" + f.Card + "”: give its id (en:base1-4) or its name."
		}
	} else if f.Card != "" {
		in.CardID = f.Card
	}
	return in, len(f.Errors) == 0
}

// inputFields maps an Input's field (a FieldError's loc) to the form's.
var inputFields = map[string]string{"card_id": "card"}

// formErrors says err in the form: FieldErrors beside their fields (true),
// else a message for the page.
func formErrors(err error, f *ruleForm) (string, bool) {
	var fe apperr.FieldErrors
	if !errors.As(err, &fe) {
		return "", false
	}
	for _, e := range fe {
		field := ""
		if len(e.Loc) > 1 {
			field, _ = e.Loc[len(e.Loc)-1].(string)
		}
		if m, ok := inputFields[field]; ok {
			field = m
		}
		msg := e.Msg
		if _, after, ok := strings.Cut(msg, ": "); ok && field != "" {
			msg = after
		}
		f.Errors[field] = sentence(msg)
	}
	return "", true
}

type ruleRow struct {
	alert.View
	What, Target, Condition string
}

// ruleTable is what template "ruletable" shows.
type ruleTable struct {
	Rows []ruleRow
	CSRF string
}

type eventRow struct {
	alert.EventView
}

type alertsData struct {
	Rules, Wants []ruleRow
	Events       []eventRow
	FeedURL      string
	Form         ruleForm
	Count, Limit int
	SetLimit     int
	Notices      []webhook.Notice
	Disabled     []webhook.Endpoint
	NoAlerts     bool // the tier has none
}

func newRuleRow(r alert.Rule) ruleRow {
	v := r.View()
	row := ruleRow{View: v, Condition: v.Description}
	switch {
	case v.SetID != "":
		row.What = "every card of set " + v.SetID
	default:
		row.What = v.CardID
	}
	if v.Printing != "" {
		row.What += ", " + v.Printing
	}
	row.Target = snapshots.GradeNameOf(v.Grade) + " · " + v.Source // the grade as people read it: PSA 10
	return row
}

// alertsPage renders the alerts page of si with form f (its errors) and
// status.
func (h *Handler) alertsPage(w http.ResponseWriter, r *http.Request, si signedIn, status int, f *ruleForm, notice, errMsg string) {
	if h.opts.Alerts == nil {
		h.renderError(w, r, http.StatusServiceUnavailable, "Alerts are not available on this server.")
		return
	}
	lim := access.LimitsOf(si.account.Tier)
	d := alertsData{Limit: lim.AlertRules, SetLimit: lim.AlertSetRules, NoAlerts: lim.AlertRules == 0}
	rules, err := h.opts.Alerts.List(r.Context(), si.account.ID, nil)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d.Count = len(rules)
	for _, rule := range rules {
		if rule.Want {
			d.Wants = append(d.Wants, newRuleRow(rule))
		} else {
			d.Rules = append(d.Rules, newRuleRow(rule))
		}
	}
	evs, _, err := h.opts.Alerts.Events(r.Context(), si.account.ID, recentAlerts, "")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	for _, e := range evs {
		d.Events = append(d.Events, eventRow{e.View()})
	}
	token, err := h.opts.Alerts.FeedToken(r.Context(), si.account.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d.FeedURL = h.origin(r) + FeedPath + token + ".atom"
	if h.opts.Webhooks != nil {
		d.Notices, d.Disabled = h.webhookTrouble(r, si)
	}
	if f == nil {
		nf := h.newRuleForm(h.games())
		f = &nf
	}
	d.Form = *f
	p := si.page("Alerts and want list", "alerts", d)
	p.Notice, p.Error = notice, errMsg
	h.render(w, r, status, "alerts", p)
}

// FeedPath is where the Atom feeds are served (by the edge) + the token +
// ".atom".
const FeedPath = "/feeds/alerts/"

// games returns the live snapshot's games.
func (h *Handler) games() []string {
	if h.opts.Snapshots == nil {
		return nil
	}
	v := h.opts.Snapshots.Acquire()
	defer v.Release()
	return v.Reader.Manifest().Games
}

var alertNotices = map[string]string{
	"created":     "Saved. It is checked each time a new snapshot goes live.",
	"replaced":    "Saved. Its crossing starts afresh: it fires at the next snapshot where its condition holds.",
	"deleted":     "Deleted. Its past alerts stay in the list and the feed until they expire.",
	"feed-rolled": "The feed has a new address: the old one no longer works.",
}

func (h *Handler) handleAlerts(w http.ResponseWriter, r *http.Request, si signedIn) {
	h.alertsPage(w, r, si, http.StatusOK, nil, alertNotices[r.URL.Query().Get("done")], "")
}

// saveRule creates (id "") or replaces rule id from the posted form; on a
// field error the form is shown again, 422, with the errors beside the
// fields.
func (h *Handler) saveRule(w http.ResponseWriter, r *http.Request, si signedIn, id string) {
	if h.opts.Alerts == nil {
		h.renderError(w, r, http.StatusServiceUnavailable, "Alerts are not available on this server.")
		return
	}
	f := h.newRuleForm(h.games())
	f.ID = id
	again := func(status int, msg string) {
		if id == "" {
			h.alertsPage(w, r, si, status, &f, "", msg)
			return
		}
		h.render(w, r, status, "alert", h.editPage(si, f, msg))
	}
	in, ok := h.readRuleForm(r, &f)
	if !ok {
		again(http.StatusUnprocessableEntity, "Some fields need a change: see below.")
		return
	}
	v := h.opts.Snapshots.Acquire()
	defer v.Release()
	m := alert.NewReaderMarket(v.Reader, v.AsOf)
	l := access.LimitsOf(si.account.Tier)
	lim := alert.Limits{Rules: l.AlertRules, SetRules: l.AlertSetRules}
	var err error
	if id == "" {
		_, err = h.opts.Alerts.Create(r.Context(), m, si.account.ID, in, lim)
	} else {
		_, err = h.opts.Alerts.Replace(r.Context(), m, si.account.ID, id, in, lim)
	}
	if err != nil {
		if _, fields := formErrors(err, &f); fields {
			again(http.StatusUnprocessableEntity, "Some fields need a change: see below.")
			return
		}
		status, msg := h.formError(err)
		if apperr.ErrorCode(err) == apperr.ENOTFOUND {
			field := "card"
			if in.SetID != "" {
				field = "set_id"
			}
			f.Errors[field] = sentence(apperr.ErrorMessage(err))
			status = http.StatusUnprocessableEntity
		}
		again(status, msg)
		return
	}
	done := "created"
	if id != "" {
		done = "replaced"
	}
	http.Redirect(w, r, Base+"/alerts?done="+done, http.StatusSeeOther)
}

func (h *Handler) handleAlertCreate(w http.ResponseWriter, r *http.Request, si signedIn) {
	h.saveRule(w, r, si, "")
}

func (h *Handler) handleAlertReplace(w http.ResponseWriter, r *http.Request, si signedIn) {
	if _, ok := h.ruleOf(w, r, si); !ok {
		return
	}
	h.saveRule(w, r, si, r.PathValue("id"))
}

// ruleOf reads the path's rule of the account (404 for another's).
func (h *Handler) ruleOf(w http.ResponseWriter, r *http.Request, si signedIn) (alert.Rule, bool) {
	if h.opts.Alerts == nil {
		h.renderError(w, r, http.StatusServiceUnavailable, "Alerts are not available on this server.")
		return alert.Rule{}, false
	}
	rule, err := h.opts.Alerts.Get(r.Context(), si.account.ID, r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return rule, false
	}
	return rule, true
}

func (h *Handler) editPage(si signedIn, f ruleForm, errMsg string) page {
	title := "Change the alert"
	if f.Want {
		title = "Change the want-list entry"
	}
	p := si.page(title, "alerts", alertsData{Form: f})
	p.Error = errMsg
	return p
}

// formField is one input of the rule form (template "rulefield").
type formField struct {
	Name, Label, Type, Value, Help, Error string
}

// fieldOf is the template function that makes a formField of form f.
func fieldOf(f ruleForm, name, label, typ, value, help string) formField {
	return formField{Name: name, Label: label, Type: typ, Value: value, Help: help, Error: f.Errors[name]}
}

func (h *Handler) handleAlertEdit(w http.ResponseWriter, r *http.Request, si signedIn) {
	rule, ok := h.ruleOf(w, r, si)
	if !ok {
		return
	}
	h.render(w, r, http.StatusOK, "alert", h.editPage(si, h.formOf(rule, h.games()), ""))
}

func (h *Handler) handleAlertDelete(w http.ResponseWriter, r *http.Request, si signedIn) {
	if _, ok := h.ruleOf(w, r, si); !ok {
		return
	}
	if err := h.opts.Alerts.Delete(r.Context(), si.account.ID, r.PathValue("id")); err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, Base+"/alerts?done=deleted", http.StatusSeeOther)
}

func (h *Handler) handleFeedRoll(w http.ResponseWriter, r *http.Request, si signedIn) {
	if h.opts.Alerts == nil {
		h.renderError(w, r, http.StatusServiceUnavailable, "Alerts are not available on this server.")
		return
	}
	if _, err := h.opts.Alerts.RollFeed(r.Context(), si.account.ID); err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, Base+"/alerts?done=feed-rolled#feed", http.StatusSeeOther)
}
