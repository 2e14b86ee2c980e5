package web

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/webhook"
)

// The webhooks pages (package webhook, issue #33): the account's endpoints
// (add one, its signing secret shown once; send a test event; roll the
// secret, shown once, the old one signing beside it for 24 hours; enable,
// disable, delete), each endpoint's delivery log, and a banner for the
// endpoints disabled after failing for days (the alerts page shows it
// too). The same endpoints the account's keys manage under
// /api/v3/me/webhooks.

func (h *Handler) registerWebhookRoutes() {
	h.mux.HandleFunc("GET "+Base+"/webhooks", h.requireSession(h.handleWebhooks))
	h.mux.HandleFunc("POST "+Base+"/webhooks", h.requireSession(h.handleWebhookCreate))
	h.mux.HandleFunc("GET "+Base+"/webhooks/{id}", h.requireSession(h.handleWebhookLog))
	h.mux.HandleFunc("POST "+Base+"/webhooks/{id}/test", h.requireSession(h.handleWebhookTest))
	h.mux.HandleFunc("POST "+Base+"/webhooks/{id}/roll", h.requireSession(h.handleWebhookRoll))
	h.mux.HandleFunc("POST "+Base+"/webhooks/{id}/enable", h.requireSession(h.handleWebhookEnable(true)))
	h.mux.HandleFunc("POST "+Base+"/webhooks/{id}/disable", h.requireSession(h.handleWebhookEnable(false)))
	h.mux.HandleFunc("POST "+Base+"/webhooks/{id}/delete", h.requireSession(h.handleWebhookDelete))
}

// logPageSize is how many attempts an endpoint's page shows.
const logPageSize = 100

// secretFlash is what the page after a creation or a roll shows once: the
// endpoint's signing secret.
type secretFlash struct {
	WebhookID     string `json:"webhook_id"`
	URL           string `json:"url"`
	WebhookSecret string `json:"webhook_secret"`
	Rolled        bool   `json:"rolled,omitempty"`
}

type endpointRow struct {
	webhook.Endpoint
	Status, StatusClass string
	Types               string
}

type webhooksData struct {
	Endpoints   []endpointRow
	New         *secretFlash
	Limit       int
	Notices     []webhook.Notice
	Disabled    []webhook.Endpoint
	URL         string // the form's values
	Description string
	URLError    string
	DescError   string
}

func newEndpointRow(e webhook.Endpoint, now time.Time) endpointRow {
	row := endpointRow{Endpoint: e, Types: "every event"}
	if len(e.Types) > 0 {
		row.Types = strings.Join(e.Types, ", ")
	}
	switch {
	case e.Disabled != nil:
		row.Status, row.StatusClass = "Disabled: "+e.Disabled.Reason, "off"
	case e.FailingSince != nil:
		row.Status, row.StatusClass = "Failing since "+e.FailingSince.UTC().Format("2006-01-02 15:04 UTC"), "warn"
	default:
		row.Status, row.StatusClass = "Enabled", "ok"
	}
	return row
}

// webhookTrouble returns the account's notices and its disabled endpoints
// (the banner).
func (h *Handler) webhookTrouble(r *http.Request, si signedIn) ([]webhook.Notice, []webhook.Endpoint) {
	es, err := h.opts.Webhooks.List(r.Context(), si.account.ID)
	if err != nil {
		h.log.Error("web: reading webhook endpoints", "err", err)
		return nil, nil
	}
	var disabled []webhook.Endpoint
	for _, e := range es {
		if e.Disabled != nil {
			disabled = append(disabled, e)
		}
	}
	if len(disabled) == 0 {
		return nil, nil
	}
	ns, err := h.opts.Webhooks.Notices(r.Context(), si.account.ID)
	if err != nil {
		h.log.Error("web: reading webhook notices", "err", err)
	}
	return ns, disabled
}

func (h *Handler) webhooksPage(w http.ResponseWriter, r *http.Request, si signedIn, status int, d webhooksData, notice, errMsg string) {
	if h.opts.Webhooks == nil {
		h.renderError(w, r, http.StatusServiceUnavailable, "Webhooks are not available on this server.")
		return
	}
	es, err := h.opts.Webhooks.List(r.Context(), si.account.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	now := h.now()
	for _, e := range es {
		d.Endpoints = append(d.Endpoints, newEndpointRow(e, now))
	}
	d.Limit = access.LimitsOf(si.account.Tier).WebhookEndpoints
	d.Notices, d.Disabled = h.webhookTrouble(r, si)
	p := si.page("Webhooks", "webhooks", d)
	p.Notice, p.Error = notice, errMsg
	h.render(w, r, status, "webhooks", p)
}

var webhookNotices = map[string]string{
	"test":     "Test event queued: it is delivered after what is already queued. Its attempt shows in the endpoint's log.",
	"enabled":  "Enabled: queued messages are delivered again.",
	"disabled": "Disabled: nothing is delivered to it; messages stay queued 7 days.",
	"deleted":  "Endpoint deleted, with its queue and log.",
}

func (h *Handler) handleWebhooks(w http.ResponseWriter, r *http.Request, si signedIn) {
	var d webhooksData
	if msg, err := h.acc.TakeFlash(r.Context(), si.id); err == nil && msg != nil {
		var f secretFlash
		if json.Unmarshal(msg, &f) == nil && f.WebhookSecret != "" {
			d.New = &f
		}
	}
	h.webhooksPage(w, r, si, http.StatusOK, d, webhookNotices[r.URL.Query().Get("done")], "")
}

func (h *Handler) handleWebhookCreate(w http.ResponseWriter, r *http.Request, si signedIn) {
	if h.opts.Webhooks == nil {
		h.renderError(w, r, http.StatusServiceUnavailable, "Webhooks are not available on this server.")
		return
	}
	in := webhook.EndpointInput{URL: strings.TrimSpace(r.PostFormValue("url")), Description: r.PostFormValue("description")}
	e, secret, err := h.opts.Webhooks.Create(r.Context(), si.account.ID, in, webhook.Limits{Endpoints: access.LimitsOf(si.account.Tier).WebhookEndpoints})
	if err != nil {
		d := webhooksData{URL: in.URL, Description: in.Description}
		var f ruleForm
		f.Errors = map[string]string{}
		if _, fields := formErrors(err, &f); fields {
			d.URLError, d.DescError = f.Errors["url"], f.Errors["description"]
			h.webhooksPage(w, r, si, http.StatusUnprocessableEntity, d, "", "The endpoint was not added: see below.")
			return
		}
		status, msg := h.formError(err)
		h.webhooksPage(w, r, si, status, d, "", msg)
		return
	}
	h.showSecretOnce(w, r, si, secretFlash{WebhookID: e.ID, URL: e.URL, WebhookSecret: secret})
}

// showSecretOnce keeps a signing secret in the session's flash and
// redirects to the webhooks page, which shows it once (as the keys page
// shows a new key).
func (h *Handler) showSecretOnce(w http.ResponseWriter, r *http.Request, si signedIn, f secretFlash) {
	b, _ := json.Marshal(f)
	if err := h.acc.SetFlash(r.Context(), si.id, b); err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, Base+"/webhooks#new-secret", http.StatusSeeOther)
}

// endpointOf reads the path's endpoint of the account (404 for another's).
func (h *Handler) endpointOf(w http.ResponseWriter, r *http.Request, si signedIn) (webhook.Endpoint, bool) {
	if h.opts.Webhooks == nil {
		h.renderError(w, r, http.StatusServiceUnavailable, "Webhooks are not available on this server.")
		return webhook.Endpoint{}, false
	}
	e, err := h.opts.Webhooks.Get(r.Context(), si.account.ID, r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return e, false
	}
	return e, true
}

type attemptRow struct {
	webhook.Attempt
	OutcomeClass string
	Latency      string
}

type webhookLogData struct {
	Endpoint endpointRow
	Attempts []attemptRow
}

func (h *Handler) handleWebhookLog(w http.ResponseWriter, r *http.Request, si signedIn) {
	e, ok := h.endpointOf(w, r, si)
	if !ok {
		return
	}
	log, _, err := h.opts.Webhooks.Log(r.Context(), si.account.ID, e.ID, logPageSize, "")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d := webhookLogData{Endpoint: newEndpointRow(e, h.now())}
	for _, a := range log {
		row := attemptRow{Attempt: a, OutcomeClass: map[string]string{webhook.Delivered: "ok", webhook.Retrying: "warn", webhook.GaveUp: "off"}[a.Outcome]}
		row.Latency = formatMS(a.LatencyMS)
		d.Attempts = append(d.Attempts, row)
	}
	h.render(w, r, http.StatusOK, "webhook", si.page("Webhook endpoint", "webhooks", d))
}

// formatMS writes a latency: "—" for none, one decimal under 10 ms.
func formatMS(ms float64) string {
	switch {
	case ms <= 0:
		return "—"
	case ms < 10:
		return strconv.FormatFloat(ms, 'f', 1, 64) + " ms"
	}
	return strconv.FormatFloat(ms, 'f', 0, 64) + " ms"
}

func (h *Handler) handleWebhookTest(w http.ResponseWriter, r *http.Request, si signedIn) {
	if _, ok := h.endpointOf(w, r, si); !ok {
		return
	}
	if _, err := h.opts.Webhooks.SendTest(r.Context(), si.account.ID, r.PathValue("id")); err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, Base+"/webhooks?done=test", http.StatusSeeOther)
}

func (h *Handler) handleWebhookRoll(w http.ResponseWriter, r *http.Request, si signedIn) {
	e, ok := h.endpointOf(w, r, si)
	if !ok {
		return
	}
	secret, err := h.opts.Webhooks.RollSecret(r.Context(), si.account.ID, e.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.showSecretOnce(w, r, si, secretFlash{WebhookID: e.ID, URL: e.URL, WebhookSecret: secret, Rolled: true})
}

func (h *Handler) handleWebhookEnable(enabled bool) func(http.ResponseWriter, *http.Request, signedIn) {
	return func(w http.ResponseWriter, r *http.Request, si signedIn) {
		if _, ok := h.endpointOf(w, r, si); !ok {
			return
		}
		if _, err := h.opts.Webhooks.SetEnabled(r.Context(), si.account.ID, r.PathValue("id"), enabled); err != nil {
			h.fail(w, r, err)
			return
		}
		done := "disabled"
		if enabled {
			done = "enabled"
		}
		http.Redirect(w, r, Base+"/webhooks?done="+done, http.StatusSeeOther)
	}
}

func (h *Handler) handleWebhookDelete(w http.ResponseWriter, r *http.Request, si signedIn) {
	if _, ok := h.endpointOf(w, r, si); !ok {
		return
	}
	if err := h.opts.Webhooks.Delete(r.Context(), si.account.ID, r.PathValue("id")); err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, Base+"/webhooks?done=deleted", http.StatusSeeOther)
}
