package web

import (
	"net/http"
	"strconv"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/account"
)

func (h *Handler) registerAccountRoutes() {
	h.mux.HandleFunc("GET "+Base+"/account", h.requireSession(h.handleAccount))
	h.mux.HandleFunc("POST "+Base+"/account/password", h.requireSession(h.handlePassword))
	h.mux.HandleFunc("POST "+Base+"/account/signout-everywhere", h.requireSession(h.handleSignOutEverywhere))
}

type auditRow struct {
	account.Event
	Label string
}

type accountData struct {
	Tier     string
	Quota    string
	Rate     string
	History  string
	Sessions int
	Events   []auditRow
}

// eventLabels say each audit event in words.
var eventLabels = map[string]string{
	account.EventCreated:             "Account created",
	account.EventSignedIn:            "Signed in",
	account.EventSignInFailed:        "Failed sign-in (wrong password)",
	account.EventSignedOut:           "Signed out",
	account.EventSignedOutEverywhere: "Signed out everywhere",
	account.EventPasswordChanged:     "Password changed",
	account.EventPasswordReset:       "Password reset by the operator",
	account.EventTierChanged:         "Tier changed by the operator",
	account.EventDisabled:            "Account disabled by the operator",
	account.EventEnabled:             "Account enabled by the operator",
	account.EventKeyCreated:          "Key created",
	account.EventKeyRolled:           "Key rolled",
	account.EventKeyRevoked:          "Key revoked",
	account.EventAppConnected:        "App connected",
	account.EventAppRefreshed:        "App refreshed its access",
	account.EventAppRevoked:          "App disconnected",
	account.EventAppReuse:            "App disconnected: a token of it was used twice",
}

func (h *Handler) accountPage(w http.ResponseWriter, r *http.Request, si signedIn, status int, notice, errMsg string) {
	events, err := h.acc.Audit(r.Context(), si.account.ID, 50)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	n, err := h.acc.SessionCount(r.Context(), si.account.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	lim := access.LimitsOf(si.account.Tier)
	d := accountData{Tier: si.account.Tier.String(), Quota: formatInt(int64(lim.DailyQuota)),
		Rate: strconv.FormatFloat(lim.RatePerSec, 'f', -1, 64), Sessions: n, History: "unlimited"}
	if lim.HistoryDays > 0 {
		d.History = formatInt(int64(lim.HistoryDays)) + " days"
	}
	for _, e := range events {
		label := eventLabels[e.What]
		if label == "" {
			label = e.What
		}
		d.Events = append(d.Events, auditRow{Event: e, Label: label})
	}
	p := si.page("Account", "account", d)
	p.Notice, p.Error = notice, errMsg
	h.render(w, r, status, "account", p)
}

func (h *Handler) handleAccount(w http.ResponseWriter, r *http.Request, si signedIn) {
	h.accountPage(w, r, si, http.StatusOK, notices[r.URL.Query().Get("done")], "")
}

// handlePassword changes the password; the account's other sessions end.
func (h *Handler) handlePassword(w http.ResponseWriter, r *http.Request, si signedIn) {
	err := h.acc.ChangePassword(r.Context(), si.id, r.PostFormValue("current"), r.PostFormValue("password"), h.client(r))
	if err != nil {
		status, msg := h.formError(err)
		h.accountPage(w, r, si, status, "", msg)
		return
	}
	http.Redirect(w, r, Base+"/account?done=password", http.StatusSeeOther)
}

func (h *Handler) handleSignOutEverywhere(w http.ResponseWriter, r *http.Request, si signedIn) {
	if err := h.acc.SignOutEverywhere(r.Context(), si.id, h.client(r)); err != nil {
		h.fail(w, r, err)
		return
	}
	h.setCookie(w, r, sessionCookie, "", -1, http.SameSiteLaxMode)
	http.Redirect(w, r, Base+"/signin?done=signed-out", http.StatusSeeOther)
}
