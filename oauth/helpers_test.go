package oauth_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/account"
	"github.com/cardedge/cardedge/oauth"
	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	"github.com/cardedge/cardedge/state/statetest"
)

// env is an authorization server over a fresh state store, served by an
// httptest server whose URL is its public URL, with one account.
type env struct {
	t       testing.TB
	clock   *statetest.Clock
	st      state.Store
	accts   *account.Service
	srv     *oauth.Server
	hs      *httptest.Server
	acct    account.Account
	c       *http.Client // follows no redirect
	options oauth.Options
}

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// MustEnv returns an env; tweak changes the server's options before New.
func MustEnv(t testing.TB, tweak func(*oauth.Options)) *env {
	t.Helper()
	e := &env{t: t, clock: statetest.NewClock(t0)}
	e.st = statetest.MustOpenPath(t, t.TempDir()+"/state.bolt", boltOptions(e.clock))
	var err error
	e.accts, err = account.New(account.Options{State: e.st, Now: e.clock.Now, Hash: account.HashParams{Memory: 64, Time: 1, Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.accts.Close() })
	e.acct, err = e.accts.Create(context.Background(), "ada@example.com", "a long and unusual passphrase", access.Pro, account.Client{})
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = http.NotFoundHandler()
	e.hs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(e.hs.Close)
	e.options = oauth.Options{State: e.st, Accounts: e.accts, PublicURL: e.hs.URL, Now: e.clock.Now}
	if tweak != nil {
		tweak(&e.options)
	}
	e.srv = e.mustServer()
	h = e.srv.Handler()
	e.c = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return e
}

// mustServer returns another Server over the env's store and options (a
// replica).
func (e *env) mustServer() *oauth.Server {
	e.t.Helper()
	s, err := oauth.New(context.Background(), e.options)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// register registers a client with metadata m and returns its id and
// secret.
func (e *env) register(m map[string]any) (string, string) {
	e.t.Helper()
	status, body := e.postJSON(oauth.PathRegister, m)
	if status != http.StatusCreated {
		e.t.Fatalf("register: %d %v", status, body)
	}
	secret, _ := body["client_secret"].(string)
	return body["client_id"].(string), secret
}

func (e *env) postJSON(path string, v any) (int, map[string]any) {
	e.t.Helper()
	b, _ := json.Marshal(v)
	resp, err := e.c.Post(e.hs.URL+path, "application/json", strings.NewReader(string(b)))
	if err != nil {
		e.t.Fatal(err)
	}
	return decode(e.t, resp)
}

// postForm posts form to path with an optional Authorization header.
func (e *env) postForm(path string, form url.Values, authorization string) (int, map[string]any) {
	e.t.Helper()
	req, _ := http.NewRequest("POST", e.hs.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := e.c.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return decode(e.t, resp)
}

func decode(t testing.TB, resp *http.Response) (int, map[string]any) {
	t.Helper()
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := map[string]any{}
	if len(b) > 0 && json.Unmarshal(b, &out) != nil {
		out["_raw"] = string(b)
	}
	return resp.StatusCode, out
}

// authorize sends an authorization request and returns the response's
// status, its Location and its body.
func (e *env) authorize(q url.Values) (int, string, string) {
	e.t.Helper()
	resp, err := e.c.Get(e.hs.URL + oauth.PathAuthorize + "?" + q.Encode())
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(b)
}

// pkce returns a verifier and its S256 challenge.
func pkce(seed string) (string, string) {
	v := strings.Repeat(seed, 43/len(seed)+1)[:43] + "-._~abc"
	sum := sha256.Sum256([]byte(v))
	return v, base64.RawURLEncoding.EncodeToString(sum[:])
}

// authParams are a good authorization request's parameters.
func authParams(client, redirect, challenge string) url.Values {
	return url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect}, "state": {"st-123"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "scope": {"market:read collection:write"}}
}

// consent follows an authorization request to the consent page's request
// id and approves it for the env's account, returning the redirect with
// the code.
func (e *env) consent(q url.Values) *url.URL {
	e.t.Helper()
	status, loc, body := e.authorize(q)
	if status != http.StatusSeeOther || !strings.HasPrefix(loc, oauth.DefaultConsentPath+"?request=") {
		e.t.Fatalf("authorize: %d %q %s", status, loc, body)
	}
	id := strings.TrimPrefix(loc, oauth.DefaultConsentPath+"?request=")
	id, _ = url.QueryUnescape(id)
	to, err := e.srv.Approve(context.Background(), id, e.acct, []string{oauth.ScopeMarket, oauth.ScopeCollection})
	if err != nil {
		e.t.Fatal(err)
	}
	u, err := url.Parse(to)
	if err != nil {
		e.t.Fatal(err)
	}
	return u
}

// exchange exchanges code and returns the token response.
func (e *env) exchange(client, redirect, code, verifier string) (int, map[string]any) {
	e.t.Helper()
	return e.postForm(oauth.PathToken, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
		"code_verifier": {verifier}, "client_id": {client}, "resource": {e.srv.Resource()}}, "")
}

func (e *env) refresh(client, refresh string) (int, map[string]any) {
	e.t.Helper()
	return e.postForm(oauth.PathToken, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {client}}, "")
}

// connect runs register, authorize, consent and exchange for a public
// client and returns its id and the token response.
func (e *env) connect() (string, map[string]any) {
	e.t.Helper()
	const redirect = "https://claude.ai/api/mcp/auth_callback"
	id, _ := e.register(map[string]any{"client_name": "Claude", "redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none"})
	verifier, challenge := pkce("v1")
	u := e.consent(authParams(id, redirect, challenge))
	status, tok := e.exchange(id, redirect, u.Query().Get("code"), verifier)
	if status != http.StatusOK {
		e.t.Fatalf("exchange: %d %v", status, tok)
	}
	return id, tok
}

// reason returns the Reason of a Verify error ("" for nil).
func reason(err error) string {
	if err == nil {
		return ""
	}
	if te, ok := err.(*oauth.TokenError); ok {
		return te.Reason
	}
	return "not a TokenError: " + err.Error()
}

func boltOptions(c *statetest.Clock) statebolt.Options { return statebolt.Options{Now: c.Now} }

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func mustQuery(t *testing.T, to string) url.Values {
	t.Helper()
	u, err := url.Parse(to)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}
