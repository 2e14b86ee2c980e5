package oauth

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/account"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
)

// The authorization endpoint (RFC 6749 section 4.1, OAuth 2.1): only the
// code flow, PKCE with S256 required, redirect URIs matched exactly.
// Authorize checks a request and keeps it (state.OAuthRequests) for the
// consent page; the page, once the account is signed in, shows it (Pending)
// and answers it (Approve or Deny), which sends the browser back to the app
// with a code or an error.

// authRequest is a checked authorization request waiting for its answer.
type authRequest struct {
	ClientID    string    `json:"client_id"`
	ClientName  string    `json:"client_name,omitempty"`
	Document    bool      `json:"document,omitempty"`
	RedirectURI string    `json:"redirect_uri"`
	State       string    `json:"state,omitempty"`
	Challenge   string    `json:"challenge"`
	Scopes      []string  `json:"scopes"`
	Resource    string    `json:"resource"`
	Created     time.Time `json:"created"`
}

var requests = state.NewTable[authRequest](state.OAuthRequests)

// authParams are the parameters of an authorization request.
type authParams struct {
	ResponseType, ClientID, RedirectURI, State, Challenge, Method, Scope string
	Resources                                                            []string
}

// Limits of authorization request parameters.
const (
	maxStateLen = 1024
	maxParamLen = 2048
)

// parseAuthorize reads the parameters of an authorization request. direct
// is an error about the client or its redirect URI: nothing may be sent to
// the redirect URI then. later is the first other problem, answered
// through the redirect URI once it is known to be the client's.
func parseAuthorize(q url.Values) (p authParams, direct, later *Error) {
	one := func(name string) (string, bool) {
		v := q[name]
		if len(v) > 1 {
			return "", false
		}
		if len(v) == 1 {
			return v[0], true
		}
		return "", true
	}
	var ok bool
	if p.ClientID, ok = one("client_id"); !ok {
		return p, invalidRequest("client_id is repeated"), nil
	}
	if p.ClientID == "" {
		return p, invalidRequest("client_id is required"), nil
	}
	if p.RedirectURI, ok = one("redirect_uri"); !ok {
		return p, invalidRequest("redirect_uri is repeated"), nil
	}
	if p.RedirectURI == "" {
		return p, invalidRequest("redirect_uri is required"), nil
	}
	for name, vv := range q {
		if name == "resource" {
			continue // may repeat (RFC 8707)
		}
		if len(vv) > 1 && later == nil {
			later = invalidRequest("parameter %s is repeated", trunc(name, 40))
		}
		for _, v := range vv {
			if len(v) > maxParamLen && later == nil {
				later = invalidRequest("parameter %s is longer than %d bytes", trunc(name, 40), maxParamLen)
			}
		}
	}
	p.ResponseType, _ = one("response_type")
	p.State, _ = one("state")
	p.Challenge, _ = one("code_challenge")
	p.Method, _ = one("code_challenge_method")
	p.Scope, _ = one("scope")
	p.Resources = q["resource"]
	if len(p.State) > maxStateLen && later == nil {
		later = invalidRequest("state is longer than %d bytes", maxStateLen)
	}
	if later == nil {
		later = p.check()
	}
	return p, nil, later
}

// check checks what parseAuthorize leaves for after the redirect URI.
func (p authParams) check() *Error {
	switch {
	case p.ResponseType == "":
		return invalidRequest("response_type is required: use response_type=code")
	case p.ResponseType != ResponseTypeCode:
		return oauthErr(CodeUnsupportedResponseType, 400, "response_type %q is not supported: only code (no implicit flow)", trunc(p.ResponseType, 40))
	case p.Challenge == "":
		return invalidRequest("code_challenge is required: this server requires PKCE (RFC 7636) with code_challenge_method=S256")
	case p.Method != "S256":
		return invalidRequest("code_challenge_method must be S256 (plain and a missing method are refused)")
	case !validChallenge(p.Challenge):
		return invalidRequest("code_challenge must be the base64url SHA-256 of the code verifier: 43 characters of A-Z, a-z, 0-9, - and _")
	}
	return nil
}

// validChallenge reports whether c has the shape of an S256 challenge:
// base64url without padding of 32 bytes.
func validChallenge(c string) bool {
	if len(c) != 43 {
		return false
	}
	for i := 0; i < len(c); i++ {
		if !unreserved(c[i]) || c[i] == '.' || c[i] == '~' {
			return false
		}
	}
	return true
}

// unreserved reports whether b is an RFC 3986 unreserved character.
func unreserved(b byte) bool {
	return b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-' || b == '.' || b == '_' || b == '~'
}

// AuthorizeError is a refused authorization request that cannot go back to
// the app: its client or redirect URI is unknown or does not match, so the
// browser is not redirected anywhere (no open redirect). The endpoint shows
// it as a page.
type AuthorizeError struct{ Err *Error }

func (e *AuthorizeError) Error() string { return e.Err.Error() }
func (e *AuthorizeError) Unwrap() error { return e.Err }

// Authorize checks the parameters of an authorization request. It returns
// where to send the browser: the consent page with the kept request, or the
// app's redirect URI with an error (RFC 6749 section 4.1.2.1) when the
// request is refused after its redirect URI was found to be the client's.
// A refusal before that is an *AuthorizeError.
func (s *Server) Authorize(ctx context.Context, q url.Values) (string, error) {
	p, direct, later := parseAuthorize(q)
	if direct != nil {
		return "", &AuthorizeError{direct}
	}
	c, err := s.lookupClient(ctx, p.ClientID)
	if err != nil {
		var oe *Error
		if errors.As(err, &oe) {
			return "", &AuthorizeError{oe}
		}
		return "", err
	}
	if !slices.Contains(c.RedirectURIs, p.RedirectURI) {
		return "", &AuthorizeError{oauthErr(CodeInvalidRequest, 400,
			"redirect_uri %q is not one of the redirect URIs of client %q (they must match exactly)", trunc(p.RedirectURI, 200), trunc(c.ID, 100))}
	}
	back := func(e *Error) (string, error) { return s.errorRedirect(p.RedirectURI, p.State, e), nil }
	if later != nil {
		return back(later)
	}
	scopes, err := parseScope(p.Scope)
	if err != nil {
		return back(err.(*Error))
	}
	resource := s.resource
	for _, r := range p.Resources {
		if !s.sameResource(r) {
			return back(oauthErr(CodeInvalidTarget, 400, "resource %q is not served here: the only resource is %s", trunc(r, 200), s.resource))
		}
	}
	id, err := newSecret("")
	if err != nil {
		return "", err
	}
	req := authRequest{ClientID: c.ID, ClientName: c.Name, Document: c.Document, RedirectURI: p.RedirectURI, State: p.State,
		Challenge: p.Challenge, Scopes: scopes, Resource: resource, Created: s.now().UTC()}
	if err := s.st.Update(ctx, func(tx state.Tx) error { return requests.Insert(tx, id, req, s.opts.RequestTTL) }); err != nil {
		return "", err
	}
	return s.opts.ConsentPath + "?request=" + url.QueryEscape(id), nil
}

// errorRedirect returns redirectURI with an error response's parameters.
func (s *Server) errorRedirect(redirectURI, st string, e *Error) string {
	v := url.Values{"error": {e.Code}, "error_description": {e.Description}, "iss": {s.issuer}}
	if st != "" {
		v.Set("state", st)
	}
	return addQuery(redirectURI, v)
}

// addQuery returns uri with v added to its query (an existing query is
// kept, RFC 6749 section 3.1.2).
func addQuery(uri string, v url.Values) string {
	u, err := url.Parse(uri)
	if err != nil {
		return uri
	}
	q := u.Query()
	for k, vv := range v {
		q[k] = vv
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// Pending is an authorization request as the consent page shows it.
type Pending struct {
	ID           string
	ClientID     string
	ClientName   string // as the app names itself: not verified
	Document     bool   // the client id is the URL of its metadata document (ClientHost is verified)
	ClientHost   string // a document client's host: who publishes it
	RedirectURI  string
	RedirectHost string // where the browser goes after the answer
	Scopes       []Scope
	Expires      time.Time
}

// errRequestGone is the answer to a request id that expired, was answered
// or never was.
var errRequestGone = apperr.Errorf(apperr.ENOTFOUND, "this connection request has expired or was answered already: go back to the app and connect again")

// Pending returns the kept authorization request id. ENOTFOUND: expired,
// answered, or never made.
func (s *Server) Pending(ctx context.Context, id string) (Pending, error) {
	if id == "" || len(id) > 64 {
		return Pending{}, errRequestGone
	}
	var r authRequest
	err := s.st.View(ctx, func(tx state.Tx) (err error) {
		r, err = requests.Get(tx, id)
		return err
	})
	if errors.Is(err, state.ErrNotFound) {
		return Pending{}, errRequestGone
	}
	if err != nil {
		return Pending{}, err
	}
	p := Pending{ID: id, ClientID: r.ClientID, ClientName: r.ClientName, Document: r.Document, RedirectURI: r.RedirectURI,
		RedirectHost: RedirectHost(r.RedirectURI), Expires: r.Created.Add(s.opts.RequestTTL)}
	if p.ClientName == "" {
		p.ClientName = p.RedirectHost
	}
	if r.Document {
		if u, err := url.Parse(r.ClientID); err == nil {
			p.ClientHost = u.Host
		}
	}
	for _, n := range r.Scopes {
		if sc, ok := LookupScope(n); ok {
			p.Scopes = append(p.Scopes, sc)
		}
	}
	return p, nil
}

// codeRecord is an issued authorization code.
type codeRecord struct {
	Request authRequest `json:"request"`
	Account string      `json:"account"`
	Scopes  []string    `json:"scopes"` // granted
	Expires time.Time   `json:"expires"`
	Used    bool        `json:"used,omitempty"`
	Grant   string      `json:"grant,omitempty"` // the grant its exchange made
}

var codes = state.NewTable[codeRecord](state.OAuthCodes)

// Approve answers request id for account a, who allowed the scopes granted
// (those of the request it lists; ScopeMarket is always included): it
// issues a code, single-use and valid for CodeTTL, and returns the app's
// redirect URI with the code, the state and the issuer. ENOTFOUND: the
// request is gone; EFORBIDDEN: a's account is disabled.
func (s *Server) Approve(ctx context.Context, id string, a account.Account, granted []string) (string, error) {
	if a.Disabled || a.Tier == access.Playground {
		return "", apperr.Errorf(apperr.EFORBIDDEN, "this account cannot connect apps")
	}
	if id == "" || len(id) > 64 {
		return "", errRequestGone
	}
	code, err := newSecret("ceoc_")
	if err != nil {
		return "", err
	}
	var r authRequest
	err = s.st.Update(ctx, func(tx state.Tx) (err error) {
		if r, err = requests.Get(tx, id); err != nil {
			return err
		}
		if err := requests.Delete(tx, id); err != nil {
			return err
		}
		var scopes []string
		for _, g := range granted {
			if slices.Contains(r.Scopes, g) {
				scopes = append(scopes, g)
			}
		}
		rec := codeRecord{Request: r, Account: a.ID, Scopes: normalizeScopes(append(scopes, ScopeMarket)),
			Expires: s.now().UTC().Add(s.opts.CodeTTL)}
		return codes.Insert(tx, hashSecret(code), rec, codeRecordTTL)
	})
	if errors.Is(err, state.ErrNotFound) {
		return "", errRequestGone
	}
	if err != nil {
		return "", err
	}
	v := url.Values{"code": {code}, "iss": {s.issuer}}
	if r.State != "" {
		v.Set("state", r.State)
	}
	return addQuery(r.RedirectURI, v), nil
}

// Deny answers request id with a refusal: it returns the app's redirect
// URI with error access_denied. ENOTFOUND: the request is gone.
func (s *Server) Deny(ctx context.Context, id string) (string, error) {
	if id == "" || len(id) > 64 {
		return "", errRequestGone
	}
	var r authRequest
	err := s.st.Update(ctx, func(tx state.Tx) (err error) {
		if r, err = requests.Get(tx, id); err != nil {
			return err
		}
		return requests.Delete(tx, id)
	})
	if errors.Is(err, state.ErrNotFound) {
		return "", errRequestGone
	}
	if err != nil {
		return "", err
	}
	return s.errorRedirect(r.RedirectURI, r.State, oauthErr(CodeAccessDenied, 400, "the account holder did not allow the connection")), nil
}
