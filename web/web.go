package web

import (
	"context"
	"crypto/subtle"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/account"
	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/oauth"
	"github.com/cardedge/cardedge/webhook"
)

// Usage is what the pages read of the keys' use: *access.Service.
type Usage interface {
	Activity(ctx context.Context, keys []access.Key, days int) ([]access.Activity, error)
}

// Options configure a Handler. Every zero value has a documented default.
type Options struct {
	// Accounts is the account service (required).
	Accounts *account.Service
	// Usage reads the keys' activity (required).
	Usage Usage
	// PublicURL is the URL people reach the server at ("https://api.example.com");
	// when it is https, cookies are Secure. Empty means each request's own
	// Host, over https when the request came over TLS.
	PublicURL string
	// Signup opens sign-up to anyone; when false, accounts are made by the
	// operator (cardedge accounts create) and the sign-up page says so.
	Signup bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives internal errors; nil means discard.
	Logger *slog.Logger
	// RatePerSec and Burst limit the dashboard's requests per client
	// address (pages and assets alike); zero means 5 per second, bursts of
	// 40.
	RatePerSec float64
	Burst      int

	// Snapshots is the live snapshot the REST routes serve: the cards,
	// sets, movers and collection pages read it. nil: those pages say
	// market data is not available.
	Snapshots Snapshots
	// Collections keeps the accounts' collections (the edge's service, so
	// that pages, keys and chat share them); nil: the collection pages say
	// collections are not available.
	Collections *collection.Service
	// Charge charges each market page to the account's daily quota; nil
	// charges nothing.
	Charge Charger
	// ChatTokens mints the web chat's chat-user tokens (package chattoken);
	// nil leaves the chat page without a chat (it says so).
	ChatTokens ChatTokens
	// OAuth is the authorization server whose consent and Connected apps
	// pages the dashboard serves (connect.go); nil: apps cannot connect.
	OAuth *oauth.Server
	// Alerts and Webhooks keep the accounts' alert rules and webhook
	// endpoints (alerts.go, webhooks.go); nil: those pages say they are
	// not available.
	Alerts   *alert.Service
	Webhooks *webhook.Service
	// AccountData are the data an account owns beyond package account's
	// own (collection, alerts, webhooks, connected apps): what "Export my
	// data" reads and "Delete account" deletes (accountdata.go).
	AccountData []account.Part
}

// Handler serves the dashboard under /dashboard.
type Handler struct {
	opts    Options
	acc     *account.Service
	usage   Usage
	now     func() time.Time
	log     *slog.Logger
	mux     *http.ServeMux
	pages   *pages
	limiter *limiter
	public  *url.URL // nil: each request's own origin
}

// Base is the path the dashboard is served under.
const Base = "/dashboard"

// New returns the dashboard's handler.
func New(o Options) (*Handler, error) {
	if o.Accounts == nil || o.Usage == nil {
		return nil, errors.New("web: Options.Accounts and Options.Usage are required")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.RatePerSec <= 0 {
		o.RatePerSec = 5
	}
	if o.Burst <= 0 {
		o.Burst = 40
	}
	h := &Handler{opts: o, acc: o.Accounts, usage: o.Usage, now: o.Now, log: o.Logger, mux: http.NewServeMux(),
		limiter: newLimiter(o.RatePerSec, float64(o.Burst))}
	if o.PublicURL != "" {
		u, err := url.Parse(o.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, errors.New("web: PublicURL must be an http or https URL such as https://api.example.com")
		}
		h.public = u
	}
	var err error
	if h.pages, err = parsePages(); err != nil {
		return nil, err
	}
	h.registerAuthRoutes()
	h.registerKeyRoutes()
	h.registerUsageRoutes()
	h.registerAccountRoutes()
	h.registerCardRoutes()
	h.registerMarketRoutes()
	h.registerCollectionRoutes()
	h.registerAlertRoutes()
	h.registerWebhookRoutes()
	h.registerAccountDataRoutes()
	h.registerChatRoutes()
	h.registerOAuthRoutes()
	h.registerAssetRoutes()
	h.mux.HandleFunc("GET "+Base, h.handleHome)
	h.mux.HandleFunc("GET "+Base+"/{$}", h.handleHome)
	h.mux.HandleFunc(Base+"/", h.handleNotFound)
	return h, nil
}

// ServeHTTP answers one dashboard request: security headers, the rate limit
// of its client address, the cross-site check of state-changing requests,
// then its page.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", csp)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("X-Frame-Options", "DENY")
	hdr.Set("Referrer-Policy", "same-origin")
	hdr.Set("Cross-Origin-Opener-Policy", "same-origin")
	if !strings.HasPrefix(r.URL.Path, Base+"/static/") {
		hdr.Set("Cache-Control", "no-store")
	}
	if wait := h.limiter.take(clientAddr(r), h.now()); wait > 0 {
		hdr.Set("Retry-After", strconv.Itoa(wait))
		h.renderError(w, r, http.StatusTooManyRequests, "Too many requests from your address. Wait "+strconv.Itoa(wait)+" seconds, then try again.")
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if msg := h.crossSite(r); msg != "" {
			h.renderError(w, r, http.StatusForbidden, msg)
			return
		}
		limit := int64(64 << 10)
		if r.URL.Path == Base+"/collection/upload" {
			limit = uploadLimit // a file
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
	}
	h.mux.ServeHTTP(w, r)
}

// csp is the Content-Security-Policy of every response: nothing but this
// origin's own files, no inline script or style, no framing.
const csp = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"

// origin returns the origin the dashboard is served at for r.
func (h *Handler) origin(r *http.Request) string {
	if h.public != nil {
		return h.public.Scheme + "://" + h.public.Host
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// secure reports whether cookies must be Secure.
func (h *Handler) secure(r *http.Request) bool {
	return r.TLS != nil || (h.public != nil && h.public.Scheme == "https")
}

// crossSite returns why a state-changing request seems to come from another
// site (the message of a 403), or "": its Origin must be the dashboard's own
// and its Sec-Fetch-Site, when the browser sends one, same-origin. Requests
// with neither (old browsers, scripts) rely on the CSRF token alone.
func (h *Handler) crossSite(r *http.Request) string {
	const msg = "This form was sent from another site, so it was refused. Open the dashboard yourself and try again."
	if o := r.Header.Get("Origin"); o != "" && !strings.EqualFold(o, h.origin(r)) {
		return msg
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
		return ""
	}
	return msg
}

// clientAddr returns the client's IP address (the connection's: the
// dashboard trusts no forwarding header).
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func (h *Handler) client(r *http.Request) account.Client { return account.Client{Addr: clientAddr(r)} }

// Cookies: the session, and the CSRF token of forms shown before sign-in.
// Over https they are __Host- cookies (Secure, Path=/, no Domain: no
// subdomain can set them); over http they are scoped to /dashboard.
func (h *Handler) cookieName(r *http.Request, name string) string {
	if h.secure(r) {
		return "__Host-" + name
	}
	return name
}

func (h *Handler) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int, sameSite http.SameSite) {
	c := &http.Cookie{Name: h.cookieName(r, name), Value: value, Path: Base, HttpOnly: true, SameSite: sameSite, MaxAge: maxAge}
	if h.secure(r) {
		c.Secure, c.Path = true, "/"
	}
	http.SetCookie(w, c)
}

func (h *Handler) cookie(r *http.Request, name string) string {
	c, err := r.Cookie(h.cookieName(r, name))
	if err != nil {
		return ""
	}
	return c.Value
}

const (
	sessionCookie = "cardedge_session"
	formCookie    = "cardedge_form"
)

// session returns the signed-in session of r, or ok false.
func (h *Handler) session(r *http.Request) (id string, s account.Session, a account.Account, ok bool) {
	id = h.cookie(r, sessionCookie)
	if id == "" {
		return "", account.Session{}, account.Account{}, false
	}
	s, a, err := h.acc.Session(r.Context(), id)
	if err != nil {
		if apperr.ErrorCode(err) != apperr.EUNAUTHORIZED {
			h.log.Error("web: reading a session", "err", err)
		}
		return "", account.Session{}, account.Account{}, false
	}
	return id, s, a, true
}

// signedIn is a request of a signed-in account.
type signedIn struct {
	id      string // session id (the cookie's value)
	session account.Session
	account account.Account
}

// requireSession wraps a page that needs a session: without one, GETs go to
// the sign-in page (and back after it), other methods too, with 303. A POST
// must carry the session's CSRF token (403 otherwise).
func (h *Handler) requireSession(fn func(http.ResponseWriter, *http.Request, signedIn)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, s, a, ok := h.session(r)
		if !ok {
			next := ""
			if r.Method == http.MethodGet {
				next = "?next=" + url.QueryEscape(r.URL.RequestURI())
			}
			http.Redirect(w, r, Base+"/signin"+next, http.StatusSeeOther)
			return
		}
		if r.Method == http.MethodPost && !equalToken(r.PostFormValue("csrf"), s.CSRF) {
			h.renderError(w, r, http.StatusForbidden, "This form has expired or was not sent by the dashboard. Reload the page and try again.")
			return
		}
		fn(w, r, signedIn{id: id, session: s, account: a})
	}
}

func equalToken(got, want string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// safeNext returns next when it is a dashboard path of this site, else the
// keys page.
func safeNext(next string) string {
	if strings.HasPrefix(next, Base+"/") && !strings.HasPrefix(next, "//") && !strings.ContainsAny(next, "\\\r\n") &&
		!strings.HasPrefix(next, Base+"/signin") && !strings.HasPrefix(next, Base+"/signup") {
		return next
	}
	return Base + "/keys"
}

func (h *Handler) handleHome(w http.ResponseWriter, r *http.Request) {
	if _, _, _, ok := h.session(r); ok {
		http.Redirect(w, r, Base+"/keys", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, Base+"/signin", http.StatusSeeOther)
}

func (h *Handler) handleNotFound(w http.ResponseWriter, r *http.Request) {
	h.renderError(w, r, http.StatusNotFound, "There is no page at this address.")
}

// fail answers err of an operation: its message for the errors a person can
// act on, a generic page for internal ones (logged).
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := apperr.ErrorCode(err)
	status := map[string]int{apperr.ENOTFOUND: 404, apperr.EINVALID: 422, apperr.EUNAUTHORIZED: 401,
		apperr.EFORBIDDEN: 403, apperr.EQUOTA: 429, apperr.EUNAVAILABLE: 503}[code]
	if status == 0 {
		h.log.Error("web: request failed", "path", r.URL.Path, "err", err)
		h.renderError(w, r, http.StatusInternalServerError, "Something went wrong on our side. Try again in a moment.")
		return
	}
	h.renderError(w, r, status, sentence(apperr.ErrorMessage(err)))
}

// sentence capitalizes a domain message and ends it with a period.
func sentence(msg string) string {
	if msg == "" {
		return msg
	}
	msg = strings.ToUpper(msg[:1]) + msg[1:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}
