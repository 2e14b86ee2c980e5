package oauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cardedge/cardedge/account"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
)

// The token endpoint (RFC 6749 sections 4.1.3 and 6): authorization codes
// are exchanged once, within CodeTTL, with the PKCE verifier, by the client
// they were issued to, at the redirect URI they were issued for; refresh
// tokens are rotated at every use, and a refresh token used a second time
// (a stolen copy, or the app's own after a thief's) ends its grant: neither
// holder can refresh again and the grant's access tokens are refused
// within a second on every replica (RFC 9700 section 4.14.2).

// TokenRequest is a parsed token endpoint request.
type TokenRequest struct {
	GrantType    string
	Code         string
	RedirectURI  string
	CodeVerifier string
	RefreshToken string
	Scope        string
	Resources    []string
	Client       ClientCredentials
}

// TokenResponse is the JSON answer of a successful token request.
type TokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token,omitempty"`
	Scope        string `json:"scope"`
}

// ParseTokenRequest reads a token (or revocation) request's form and its
// Authorization header: every parameter at most once (but resource), no
// client credentials both in Basic and in the form. Errors are
// invalid_request or invalid_client.
func ParseTokenRequest(form url.Values, authorization string) (TokenRequest, error) {
	var t TokenRequest
	for name, vv := range form {
		if len(vv) > 1 && name != "resource" {
			return t, invalidRequest("parameter %s is repeated", trunc(name, 40))
		}
		for _, v := range vv {
			if len(v) > maxParamLen {
				return t, invalidRequest("parameter %s is longer than %d bytes", trunc(name, 40), maxParamLen)
			}
		}
	}
	t.GrantType = form.Get("grant_type")
	t.Code = form.Get("code")
	t.RedirectURI = form.Get("redirect_uri")
	t.CodeVerifier = form.Get("code_verifier")
	t.RefreshToken = form.Get("refresh_token")
	t.Scope = form.Get("scope")
	t.Resources = form["resource"]
	t.Client.ID, t.Client.Secret = form.Get("client_id"), form.Get("client_secret")
	if authorization != "" {
		scheme, rest, _ := strings.Cut(authorization, " ")
		if !strings.EqualFold(scheme, "basic") {
			return t, invalidClient("the Authorization header must be Basic client credentials")
		}
		if t.Client.Secret != "" {
			return t, invalidRequest("client credentials were sent twice (Authorization header and form)")
		}
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(rest))
		if err != nil {
			return t, invalidClient("the Basic credentials are not base64")
		}
		id, secret, ok := strings.Cut(string(raw), ":")
		if !ok {
			return t, invalidClient("the Basic credentials are not client_id:client_secret")
		}
		// RFC 6749 section 2.3.1: both are form-urlencoded first.
		if id, err = url.QueryUnescape(id); err != nil {
			return t, invalidClient("the Basic client id is not form-urlencoded")
		}
		if secret, err = url.QueryUnescape(secret); err != nil {
			return t, invalidClient("the Basic client secret is not form-urlencoded")
		}
		if t.Client.ID != "" && t.Client.ID != id {
			return t, invalidClient("client_id differs from the Basic credentials' client")
		}
		t.Client = ClientCredentials{ID: id, Secret: secret, Basic: true}
	}
	if t.Client.ID == "" {
		return t, invalidClient("client_id is required (public clients send it in the form)")
	}
	return t, nil
}

// Token answers a token request from addr.
func (s *Server) Token(ctx context.Context, t TokenRequest, addr string) (TokenResponse, error) {
	c, err := s.lookupClient(ctx, t.Client.ID)
	if err != nil {
		return TokenResponse{}, err
	}
	if err := authenticate(c, t.Client); err != nil {
		return TokenResponse{}, err
	}
	for _, r := range t.Resources {
		if !s.sameResource(r) {
			return TokenResponse{}, oauthErr(CodeInvalidTarget, 400, "resource %q is not served here: the only resource is %s", trunc(r, 200), s.resource)
		}
	}
	switch t.GrantType {
	case GrantAuthorizationCode:
		return s.exchange(ctx, c, t, addr)
	case GrantRefreshToken:
		if !containsStr(c.GrantTypes, GrantRefreshToken) {
			return TokenResponse{}, oauthErr(CodeUnauthorizedClient, 400, "this client did not register the refresh_token grant type")
		}
		return s.refresh(ctx, c, t, addr)
	case "":
		return TokenResponse{}, invalidRequest("grant_type is required")
	}
	return TokenResponse{}, oauthErr(CodeUnsupportedGrantType, 400, "grant_type %q is not supported: use authorization_code or refresh_token", trunc(t.GrantType, 40))
}

// Grant is what an account let an app do: made when the app exchanged its
// code, kept while the app refreshes its tokens (RefreshIdle), ended by a
// revocation or a reused token.
type Grant struct {
	ID          string    `json:"id"` // "og_" + 16 base32 characters
	Account     string    `json:"account"`
	ClientID    string    `json:"client_id"`
	ClientName  string    `json:"client_name,omitempty"`
	Document    bool      `json:"document,omitempty"`
	RedirectURI string    `json:"redirect_uri"`
	Scopes      []string  `json:"scopes"`
	Resource    string    `json:"resource"`
	Created     time.Time `json:"created"`
	// LastUsed is when the app last got tokens (its exchange or last
	// refresh): it refreshes about hourly while it calls.
	LastUsed time.Time `json:"last_used"`
	// Refresh is the hash of the one refresh token that may be used next.
	Refresh string `json:"refresh"`
}

// DisplayName returns the app's name, else its redirect host.
func (g Grant) DisplayName() string {
	if g.ClientName != "" {
		return g.ClientName
	}
	return RedirectHost(g.RedirectURI)
}

// refreshRecord is a refresh token's record.
type refreshRecord struct {
	Account string `json:"account"`
	Grant   string `json:"grant"`
}

// revokedRecord is an ended grant, kept for AccessTTL.
type revokedRecord struct {
	Account string    `json:"account"`
	Time    time.Time `json:"time"`
	Why     string    `json:"why"`
}

var (
	grants    = state.NewTable[Grant](state.OAuthGrants)
	refreshes = state.NewTable[refreshRecord](state.OAuthRefresh)
	revokeds  = state.NewTable[revokedRecord](state.OAuthRevoked)
)

func grantKey(account, id string) string { return account + "/" + id }

// verifyPKCE reports whether verifier matches an S256 challenge (RFC 7636
// section 4.6): a verifier is 43 to 128 unreserved characters.
func verifyPKCE(verifier, challenge string) bool {
	if len(verifier) < 43 || len(verifier) > 128 {
		return false
	}
	for i := 0; i < len(verifier); i++ {
		if !unreserved(verifier[i]) {
			return false
		}
	}
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}

// exchange answers grant_type=authorization_code.
func (s *Server) exchange(ctx context.Context, c Client, t TokenRequest, addr string) (TokenResponse, error) {
	if t.Code == "" || t.CodeVerifier == "" || t.RedirectURI == "" {
		return TokenResponse{}, invalidRequest("code, code_verifier and redirect_uri are required")
	}
	gid, err := newID("og_")
	if err != nil {
		return TokenResponse{}, err
	}
	refresh, err := newSecret("ceor_")
	if err != nil {
		return TokenResponse{}, err
	}
	var (
		g      Grant
		a      account.Account
		reused bool
		refuse error
	)
	now := s.now().UTC()
	err = s.st.Update(ctx, func(tx state.Tx) error {
		g, a, reused, refuse = Grant{}, account.Account{}, false, nil
		rec, err := codes.Get(tx, hashSecret(t.Code))
		if errors.Is(err, state.ErrNotFound) {
			refuse = invalidGrant("the authorization code is unknown or expired")
			return nil
		}
		if err != nil {
			return err
		}
		switch {
		case rec.Request.ClientID != c.ID:
			refuse = invalidGrant("the authorization code was issued to another client")
		case rec.Used:
			// A code used twice: end what its first use made (RFC 6749
			// section 4.1.2).
			reused, refuse = true, invalidGrant("the authorization code was used already; the tokens it gave are revoked")
			if rec.Grant != "" {
				return s.endGrant(tx, rec.Account, rec.Grant, account.EventAppReuse, "authorization code used twice", addr)
			}
		case !now.Before(rec.Expires):
			refuse = invalidGrant("the authorization code expired (codes work %s)", s.opts.CodeTTL)
		case rec.Request.RedirectURI != t.RedirectURI:
			refuse = invalidGrant("redirect_uri is not the one of the authorization request")
		case !verifyPKCE(t.CodeVerifier, rec.Request.Challenge):
			refuse = invalidGrant("the code_verifier does not match the code_challenge (PKCE S256)")
		}
		if refuse != nil {
			return nil
		}
		if a, err = account.GetIn(tx, rec.Account); err != nil {
			if apperr.ErrorCode(err) == apperr.ENOTFOUND {
				refuse = invalidGrant("the account that approved this code is gone")
				return nil
			}
			return err
		}
		if a.Disabled {
			refuse = invalidGrant("the account that approved this code is disabled")
			return nil
		}
		g = Grant{ID: gid, Account: a.ID, ClientID: c.ID, ClientName: rec.Request.ClientName, Document: rec.Request.Document,
			RedirectURI: rec.Request.RedirectURI, Scopes: rec.Scopes, Resource: rec.Request.Resource,
			Created: now, LastUsed: now, Refresh: hashSecret(refresh)}
		rec.Used, rec.Grant = true, gid
		if err := codes.Put(tx, hashSecret(t.Code), rec, codeRecordTTL); err != nil {
			return err
		}
		return s.keepGrant(tx, g, account.EventAppConnected, addr, now)
	})
	return s.answer(err, reused, refuse, g, a, refresh)
}

// refresh answers grant_type=refresh_token.
func (s *Server) refresh(ctx context.Context, c Client, t TokenRequest, addr string) (TokenResponse, error) {
	if t.RefreshToken == "" {
		return TokenResponse{}, invalidRequest("refresh_token is required")
	}
	next, err := newSecret("ceor_")
	if err != nil {
		return TokenResponse{}, err
	}
	var narrow []string
	if t.Scope != "" {
		if narrow, err = parseScope(t.Scope); err != nil {
			return TokenResponse{}, err
		}
	}
	h := hashSecret(t.RefreshToken)
	var (
		g      Grant
		a      account.Account
		reused bool
		refuse error
	)
	now := s.now().UTC()
	err = s.st.Update(ctx, func(tx state.Tx) error {
		g, a, reused, refuse = Grant{}, account.Account{}, false, nil
		rec, err := refreshes.Get(tx, h)
		if errors.Is(err, state.ErrNotFound) {
			refuse = invalidGrant("the refresh token is unknown or expired: connect the app again")
			return nil
		}
		if err != nil {
			return err
		}
		if g, err = grants.Get(tx, grantKey(rec.Account, rec.Grant)); errors.Is(err, state.ErrNotFound) {
			refuse = invalidGrant("the app's access was revoked: connect it again")
			return nil
		} else if err != nil {
			return err
		}
		switch {
		case g.ClientID != c.ID:
			refuse = invalidGrant("the refresh token was issued to another client")
			return nil
		case g.Refresh != h:
			reused, refuse = true, invalidGrant("the refresh token was used already; the app's access is revoked: connect it again")
			return s.endGrant(tx, g.Account, g.ID, account.EventAppReuse, "refresh token used twice", addr)
		case narrow != nil && !subset(narrow, g.Scopes):
			refuse = oauthErr(CodeInvalidScope, 400, "the scope asked for is more than the app was granted (%s)", strings.Join(g.Scopes, " "))
			return nil
		}
		if a, err = account.GetIn(tx, g.Account); err != nil {
			if apperr.ErrorCode(err) == apperr.ENOTFOUND {
				refuse = invalidGrant("the account is gone")
				return nil
			}
			return err
		}
		if a.Disabled {
			refuse = invalidGrant("the account is disabled")
			return nil
		}
		g.Refresh, g.LastUsed = hashSecret(next), now
		return s.keepGrant(tx, g, account.EventAppRefreshed, addr, now)
	})
	if narrow != nil {
		g.Scopes = narrow // this access token only; the grant keeps its scopes
	}
	return s.answer(err, reused, refuse, g, a, next)
}

// keepGrant writes grant g and the record of its refresh token, renews its
// client and writes the audit event what, inside tx.
func (s *Server) keepGrant(tx state.Tx, g Grant, what, addr string, now time.Time) error {
	if err := grants.Put(tx, grantKey(g.Account, g.ID), g, s.opts.RefreshIdle); err != nil {
		return err
	}
	if err := refreshes.Insert(tx, g.Refresh, refreshRecord{Account: g.Account, Grant: g.ID}, s.opts.RefreshIdle); err != nil {
		return err
	}
	if err := s.renewClient(tx, g.ClientID, now); err != nil {
		return err
	}
	return s.acc.AuditIn(tx, g.Account, account.Event{What: what, Addr: addr, Detail: grantDetail(g)})
}

// answer is the outcome of an exchange or a refresh whose transaction
// returned err and decided reused and refuse: the store's error, the
// refusal (after a reuse, this process reloads the ended grants at its
// next Verify), or the tokens of grant g with refresh token refresh.
func (s *Server) answer(err error, reused bool, refuse error, g Grant, a account.Account, refresh string) (TokenResponse, error) {
	if err != nil {
		return TokenResponse{}, err
	}
	if reused {
		s.forgetLater()
	}
	if refuse != nil {
		return TokenResponse{}, refuse
	}
	return s.tokens(g, a, refresh)
}

// tokens returns the token response of grant g of account a with refresh
// token refresh.
func (s *Server) tokens(g Grant, a account.Account, refresh string) (TokenResponse, error) {
	at, err := s.mint(g, a.Tier)
	if err != nil {
		return TokenResponse{}, err
	}
	return TokenResponse{AccessToken: at, TokenType: "Bearer", ExpiresIn: int(s.opts.AccessTTL / time.Second),
		RefreshToken: refresh, Scope: strings.Join(g.Scopes, " ")}, nil
}

// grantDetail is an audit event's detail: the app and the grant.
func grantDetail(g Grant) string {
	return g.DisplayName() + " (" + RedirectHost(g.RedirectURI) + "), " + g.ID + ", " + strings.Join(g.Scopes, " ")
}

// endGrant ends grant id of account inside tx: the grant goes, a tombstone
// tells every replica to refuse its access tokens (MetaOAuthRev moves), and
// the account's audit log says what ended it. Ending a grant that is gone
// already writes nothing.
func (s *Server) endGrant(tx state.Tx, accountID, id, what, why, addr string) error {
	g, err := grants.Get(tx, grantKey(accountID, id))
	if errors.Is(err, state.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := grants.Delete(tx, grantKey(accountID, id)); err != nil {
		return err
	}
	if err := revokeds.Put(tx, id, revokedRecord{Account: accountID, Time: s.now().UTC(), Why: why}, s.opts.AccessTTL+time.Minute); err != nil {
		return err
	}
	if err := tx.Add(state.Meta, state.MetaOAuthRev, 1, 0); err != nil {
		return err
	}
	return s.acc.AuditIn(tx, accountID, account.Event{What: what, Addr: addr, Detail: grantDetail(g) + ": " + why})
}

// Revoke answers a revocation request (RFC 7009) from addr: the token (a
// refresh or an access token of the authenticated client) ends its grant.
// An unknown, expired or foreign token is not an error (section 2.2).
func (s *Server) Revoke(ctx context.Context, t TokenRequest, token, addr string) error {
	c, err := s.lookupClient(ctx, t.Client.ID)
	if err != nil {
		return err
	}
	if err := authenticate(c, t.Client); err != nil {
		return err
	}
	if token == "" {
		return invalidRequest("token is required")
	}
	var accountID, gid string
	if cl, err := s.parseAccess(token, false); err == nil {
		if cl.Client != c.ID {
			return nil
		}
		accountID, gid = cl.Account, cl.Grant
	} else if strings.HasPrefix(token, "ceor_") {
		err := s.st.View(ctx, func(tx state.Tx) error {
			rec, err := refreshes.Get(tx, hashSecret(token))
			if err == nil {
				accountID, gid = rec.Account, rec.Grant
			}
			return err
		})
		if errors.Is(err, state.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
	} else {
		return nil
	}
	return s.revoke(ctx, accountID, gid, c.ID, "revoked by the app", addr)
}

// revoke ends grant gid of accountID when it belongs to client ("" for
// any) and makes this process refuse its tokens at once.
func (s *Server) revoke(ctx context.Context, accountID, gid, client, why, addr string) error {
	found := false
	err := s.st.Update(ctx, func(tx state.Tx) error {
		found = false
		g, err := grants.Get(tx, grantKey(accountID, gid))
		if errors.Is(err, state.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if client != "" && g.ClientID != client {
			return nil
		}
		found = true
		return s.endGrant(tx, accountID, gid, account.EventAppRevoked, why, addr)
	})
	if err != nil {
		return err
	}
	if found {
		s.revMu.Lock()
		s.revoked[gid] = s.now()
		s.revMu.Unlock()
	}
	return nil
}

// Grants returns account id's grants (its connected apps), newest first.
func (s *Server) Grants(ctx context.Context, accountID string) ([]Grant, error) {
	var out []Grant
	err := s.st.View(ctx, func(tx state.Tx) error {
		out = out[:0]
		return grants.Scan(tx, state.ScanOptions{Prefix: accountID + "/"}, func(_ string, g Grant) error {
			g.Refresh = ""
			out = append(out, g)
			return nil
		})
	})
	sortGrants(out)
	return out, err
}

// RevokeGrant ends grant gid of account accountID (the dashboard's
// Revoke): the app cannot refresh, and its access tokens are refused within
// a second on every replica. ENOTFOUND: no such grant of this account.
func (s *Server) RevokeGrant(ctx context.Context, accountID, gid, addr string) error {
	if accountID == "" || !strings.HasPrefix(gid, "og_") || len(gid) > 64 {
		return apperr.Errorf(apperr.ENOTFOUND, "no connected app %q", trunc(gid, 64))
	}
	found := false
	err := s.st.View(ctx, func(tx state.Tx) error {
		_, err := grants.Get(tx, grantKey(accountID, gid))
		found = err == nil
		if errors.Is(err, state.ErrNotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	if !found {
		return apperr.Errorf(apperr.ENOTFOUND, "no connected app %q", trunc(gid, 64))
	}
	return s.revoke(ctx, accountID, gid, "", "revoked in the dashboard", addr)
}

// forgetLater makes the next Verify reload the ended grants (a reuse just
// ended one).
func (s *Server) forgetLater() {
	s.revMu.Lock()
	s.revChecked = time.Time{}
	s.revMu.Unlock()
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// httpStatusOf returns the status of a token endpoint error.
func httpStatusOf(e *Error) int {
	if e.Status != 0 {
		return e.Status
	}
	return http.StatusBadRequest
}
