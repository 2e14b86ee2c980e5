package web

import (
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/oauth"
)

// Apps connected through OAuth (package oauth): the consent page an MCP
// host (Claude, ChatGPT, VS Code) sends the browser to, and the Connected
// apps page that lists and revokes what the account allowed.
//
// The consent page is a dashboard page like the others (a session first:
// without one the sign-in page comes, then this page again; its form carries
// the session's CSRF token), with one difference: its form's answer is a
// redirect to the app's redirect URI, which the dashboard's CSP
// (form-action 'self') would block in browsers that check redirects after
// a form, so this page's CSP also allows the app's origin, and only that.

func (h *Handler) registerOAuthRoutes() {
	h.mux.HandleFunc("GET "+Base+"/connect", h.requireSession(h.handleConnect))
	h.mux.HandleFunc("POST "+Base+"/connect", h.requireSession(h.handleConnectAnswer))
	h.mux.HandleFunc("GET "+Base+"/apps", h.requireSession(h.handleApps))
	h.mux.HandleFunc("POST "+Base+"/apps/{id}/revoke", h.requireSession(h.handleAppRevoke))
}

// connectScope is a scope as the consent page lists it.
type connectScope struct {
	oauth.Scope
	Unavailable string // why the account's tier cannot use it ("" if it can)
}

type connectData struct {
	oauth.Pending
	Scopes  []connectScope
	Tier    access.Tier
	Minutes int // left to answer
}

const msgOAuthOff = "Connecting apps is not enabled on this server."

func (h *Handler) handleConnect(w http.ResponseWriter, r *http.Request, si signedIn) {
	if h.opts.OAuth == nil {
		h.renderError(w, r, http.StatusNotFound, msgOAuthOff)
		return
	}
	p, err := h.opts.OAuth.Pending(r.Context(), r.URL.Query().Get("request"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d := connectData{Pending: p, Tier: si.account.Tier, Minutes: max(1, int(math.Ceil(p.Expires.Sub(h.now()).Minutes())))}
	for _, s := range p.Scopes {
		cs := connectScope{Scope: s}
		if s.Name == oauth.ScopeCollection && !access.AppsAccess(si.account.Tier) {
			cs.Unavailable = "Your tier (" + si.account.Tier.String() + ") does not include the collection tools: the app will not see them unless your tier changes to Pro or Elite."
		}
		d.Scopes = append(d.Scopes, cs)
	}
	w.Header().Set("Content-Security-Policy", consentCSP(p.RedirectURI))
	h.render(w, r, http.StatusOK, "connect", si.page("Connect "+p.ClientName+"?", "", d))
}

// consentCSP is the dashboard's CSP with the app's redirect origin added to
// form-action (see above).
func consentCSP(redirectURI string) string {
	src := ""
	if u, err := url.Parse(redirectURI); err == nil {
		switch {
		case u.Scheme == "https" || u.Scheme == "http":
			src = u.Scheme + "://" + u.Host
		case u.Scheme != "":
			src = u.Scheme + ":"
		}
	}
	if src == "" || strings.ContainsAny(src, " ;,'\"") {
		return csp
	}
	return strings.Replace(csp, "form-action 'self'", "form-action 'self' "+src, 1)
}

func (h *Handler) handleConnectAnswer(w http.ResponseWriter, r *http.Request, si signedIn) {
	if h.opts.OAuth == nil {
		h.renderError(w, r, http.StatusNotFound, msgOAuthOff)
		return
	}
	id := r.PostFormValue("request")
	var to string
	var err error
	switch r.PostFormValue("answer") {
	case "allow":
		granted := []string{oauth.ScopeMarket}
		if slices.Contains(r.PostForm["scope"], oauth.ScopeCollection) {
			granted = append(granted, oauth.ScopeCollection)
		}
		to, err = h.opts.OAuth.Approve(r.Context(), id, si.account, granted)
	case "deny":
		to, err = h.opts.OAuth.Deny(r.Context(), id)
	default:
		h.renderError(w, r, http.StatusBadRequest, "Choose Allow or Cancel.")
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	// The app's redirect URI, checked when the request was made (exact
	// match with the client's registration).
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// appRow is a grant as the Connected apps page shows it.
type appRow struct {
	oauth.Grant
	Name         string
	RedirectHost string
	Scopes       []string // titles
	LastUsed     string
}

var appNotices = map[string]string{
	"revoked": "App disconnected. Its calls are refused within a second, and it cannot refresh its access.",
}

func (h *Handler) handleApps(w http.ResponseWriter, r *http.Request, si signedIn) {
	if h.opts.OAuth == nil {
		h.renderError(w, r, http.StatusNotFound, msgOAuthOff)
		return
	}
	grants, err := h.opts.OAuth.Grants(r.Context(), si.account.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	now := h.now()
	rows := make([]appRow, len(grants))
	for i, g := range grants {
		row := appRow{Grant: g, Name: g.DisplayName(), RedirectHost: oauth.RedirectHost(g.RedirectURI)}
		for _, n := range g.Scopes {
			if s, ok := oauth.LookupScope(n); ok {
				row.Scopes = append(row.Scopes, s.Title)
			}
		}
		switch d := now.Sub(g.LastUsed); {
		case d < time.Hour:
			row.LastUsed = "within the hour"
		case d < 24*time.Hour:
			row.LastUsed = "today"
		default:
			row.LastUsed = g.LastUsed.UTC().Format("2006-01-02")
		}
		rows[i] = row
	}
	p := si.page("Connected apps", "apps", rows)
	p.Notice = appNotices[r.URL.Query().Get("done")]
	h.render(w, r, http.StatusOK, "apps", p)
}

func (h *Handler) handleAppRevoke(w http.ResponseWriter, r *http.Request, si signedIn) {
	if h.opts.OAuth == nil {
		h.renderError(w, r, http.StatusNotFound, msgOAuthOff)
		return
	}
	if err := h.opts.OAuth.RevokeGrant(r.Context(), si.account.ID, r.PathValue("id"), clientAddr(r)); err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, Base+"/apps?done=revoked", http.StatusSeeOther)
}
