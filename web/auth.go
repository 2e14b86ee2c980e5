package web

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"

	"github.com/cardedge/cardedge/account"
	"github.com/cardedge/cardedge/apperr"
)

// Sign-up, sign-in and sign-out. Their forms are shown before there is a
// session, so their CSRF token is a random value in a cookie (SameSite=Strict)
// that the form repeats; the Origin check of ServeHTTP applies too.

func (h *Handler) registerAuthRoutes() {
	h.mux.HandleFunc("GET "+Base+"/signup", h.handleSignUpForm)
	h.mux.HandleFunc("POST "+Base+"/signup", h.handleSignUp)
	h.mux.HandleFunc("GET "+Base+"/signin", h.handleSignInForm)
	h.mux.HandleFunc("POST "+Base+"/signin", h.handleSignIn)
	h.mux.HandleFunc("POST "+Base+"/signout", h.requireSession(h.handleSignOut))
}

// authForm is the data of the sign-in and sign-up pages.
type authForm struct {
	Email  string
	Next   string
	Signup bool // sign-up is open
}

// formToken returns the anonymous forms' CSRF token of r, setting a new
// cookie when it has none.
func (h *Handler) formToken(w http.ResponseWriter, r *http.Request) string {
	if t := h.cookie(r, formCookie); len(t) == 43 {
		return t
	}
	var b [32]byte
	rand.Read(b[:])
	t := base64.RawURLEncoding.EncodeToString(b[:])
	h.setCookie(w, r, formCookie, t, 0, http.SameSiteStrictMode)
	return t
}

// checkFormToken reports whether a POST before sign-in carries the token of
// its cookie.
func (h *Handler) checkFormToken(r *http.Request) bool {
	return equalToken(r.PostFormValue("csrf"), h.cookie(r, formCookie))
}

const msgFormExpired = "This form has expired or was not sent by the dashboard. Reload the page and try again."

func (h *Handler) authPage(w http.ResponseWriter, r *http.Request, status int, name, title string, f authForm, errMsg string) {
	f.Signup = h.opts.Signup
	h.render(w, r, status, name, page{Title: title, Data: f, CSRF: h.formToken(w, r), Error: errMsg})
}

func (h *Handler) handleSignUpForm(w http.ResponseWriter, r *http.Request) {
	h.authPage(w, r, http.StatusOK, "signup", "Sign up", authForm{}, "")
}

func (h *Handler) handleSignUp(w http.ResponseWriter, r *http.Request) {
	f := authForm{Email: r.PostFormValue("email")}
	if !h.checkFormToken(r) {
		h.authPage(w, r, http.StatusForbidden, "signup", "Sign up", f, msgFormExpired)
		return
	}
	if !h.opts.Signup {
		h.authPage(w, r, http.StatusForbidden, "signup", "Sign up", f, "Sign-up is closed on this server: its operator creates the accounts.")
		return
	}
	id, _, err := h.acc.SignUp(r.Context(), f.Email, r.PostFormValue("password"), h.client(r))
	if err != nil {
		status, msg := h.formError(err)
		h.authPage(w, r, status, "signup", "Sign up", f, msg)
		return
	}
	h.startSession(w, r, id)
	http.Redirect(w, r, Base+"/keys?done=welcome", http.StatusSeeOther)
}

// handleSignInForm shows the sign-in form, also to a browser that is signed
// in already (it says as whom: a sign-in switches accounts), so that nobody
// is kept in an account whose session someone else planted.
func (h *Handler) handleSignInForm(w http.ResponseWriter, r *http.Request) {
	notice := ""
	switch r.URL.Query().Get("done") {
	case "signed-out":
		notice = "You are signed out."
	case "deleted":
		notice = "Your account and everything it owned are deleted."
	}
	if _, _, a, ok := h.session(r); ok {
		notice = "You are signed in as " + a.Email + ". Signing in again switches to the account you sign in to."
	}
	f := authForm{Next: r.URL.Query().Get("next")}
	f.Signup = h.opts.Signup
	h.render(w, r, http.StatusOK, "signin", page{Title: "Sign in", Data: f, CSRF: h.formToken(w, r), Notice: notice})
}

func (h *Handler) handleSignIn(w http.ResponseWriter, r *http.Request) {
	f := authForm{Email: r.PostFormValue("email"), Next: r.PostFormValue("next")}
	if !h.checkFormToken(r) {
		h.authPage(w, r, http.StatusForbidden, "signin", "Sign in", f, msgFormExpired)
		return
	}
	id, _, err := h.acc.SignIn(r.Context(), f.Email, r.PostFormValue("password"), h.client(r))
	if err != nil {
		var te *account.ThrottleError
		if errors.As(err, &te) {
			w.Header().Set("Retry-After", strconv.Itoa(te.RetryAfter))
		}
		status, msg := h.formError(err)
		h.authPage(w, r, status, "signin", "Sign in", f, msg)
		return
	}
	// A session the browser had before is ended: the new id replaces it.
	if old := h.cookie(r, sessionCookie); old != "" {
		h.acc.SignOut(r.Context(), old, h.client(r))
	}
	h.startSession(w, r, id)
	http.Redirect(w, r, safeNext(f.Next), http.StatusSeeOther)
}

func (h *Handler) handleSignOut(w http.ResponseWriter, r *http.Request, si signedIn) {
	if err := h.acc.SignOut(r.Context(), si.id, h.client(r)); err != nil {
		h.fail(w, r, err)
		return
	}
	h.setCookie(w, r, sessionCookie, "", -1, http.SameSiteLaxMode)
	http.Redirect(w, r, Base+"/signin?done=signed-out", http.StatusSeeOther)
}

// startSession sets the session cookie: HttpOnly, SameSite=Lax, Secure over
// https; it lives as long as the browser (the server ends it when idle).
func (h *Handler) startSession(w http.ResponseWriter, r *http.Request, id string) {
	h.setCookie(w, r, sessionCookie, id, 0, http.SameSiteLaxMode)
}

// formError returns the status and message of a form's failed operation.
func (h *Handler) formError(err error) (int, string) {
	code := apperr.ErrorCode(err)
	switch code {
	case apperr.EUNAVAILABLE:
		h.log.Warn("web: the state store is unavailable", "err", err)
		return http.StatusServiceUnavailable, "We cannot save changes right now: nothing was saved. Try again in a few seconds."
	case apperr.EINTERNAL:
		h.log.Error("web: form failed", "err", err)
		return http.StatusInternalServerError, "Something went wrong on our side. Try again in a moment."
	}
	return apperr.HTTPStatus(code), sentence(apperr.ErrorMessage(err))
}
