package web_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/account"
	"github.com/cardedge/cardedge/oauth"
	"github.com/cardedge/cardedge/state/statetest"
	"github.com/cardedge/cardedge/web"
)

// appsEnv is a dashboard with an authorization server, an account signed
// in (its session cookie) and a registered public client.
type appsEnv struct {
	t       *testing.T
	srv     *httptest.Server
	oauth   *oauth.Server
	accts   *account.Service
	acct    account.Account
	session *http.Cookie
	client  string
	c       *http.Client
}

const appsRedirect = "https://claude.ai/api/mcp/auth_callback"

func mustAppsEnv(t *testing.T, tier access.Tier) *appsEnv {
	t.Helper()
	ctx := context.Background()
	st := statetest.MustOpen(t)
	accts, err := account.New(account.Options{State: st, Hash: account.HashParams{Memory: 64, Time: 1, Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { accts.Close() })
	acc, err := access.Open(access.Options{State: st, SyncInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { acc.Close() })
	os, err := oauth.New(ctx, oauth.Options{State: st, Accounts: accts, PublicURL: "http://127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	h, err := web.New(web.Options{Accounts: accts, Usage: acc, OAuth: os})
	if err != nil {
		t.Fatal(err)
	}
	e := &appsEnv{t: t, oauth: os, accts: accts, c: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	e.srv = httptest.NewServer(h)
	t.Cleanup(e.srv.Close)
	if _, err := accts.Create(ctx, "ada@example.com", "a long and unusual passphrase", tier, account.Client{}); err != nil {
		t.Fatal(err)
	}
	sid, a, err := accts.SignIn(ctx, "ada@example.com", "a long and unusual passphrase", account.Client{Addr: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	e.acct, e.session = a, &http.Cookie{Name: "cardedge_session", Value: sid}
	c, _, err := os.Register(ctx, []byte(`{"client_name":"Claude","redirect_uris":["`+appsRedirect+`"],"token_endpoint_auth_method":"none"}`), "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	e.client = c.ID
	return e
}

// verifier is the PKCE verifier of the env's authorization requests.
const verifier = "a-verifier-of-forty-three-or-more-characters-0123"

// authorize makes an authorization request and returns the consent page's
// path ("/dashboard/connect?request=...").
func (e *appsEnv) authorize(scope string) string {
	e.t.Helper()
	sum := sha256.Sum256([]byte(verifier))
	to, err := e.oauth.Authorize(context.Background(), url.Values{"response_type": {"code"}, "client_id": {e.client},
		"redirect_uri": {appsRedirect}, "state": {"xyz"}, "code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])},
		"code_challenge_method": {"S256"}, "scope": {scope}})
	if err != nil {
		e.t.Fatal(err)
	}
	return to
}

func (e *appsEnv) do(method, path string, form url.Values, withSession bool) (*http.Response, string) {
	e.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, e.srv.URL+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if withSession {
		req.AddCookie(e.session)
	}
	resp, err := e.c.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

var scopeCheckbox = regexp.MustCompile(`<input type="checkbox" id="scope-collection:write" [^>]*aria-labelledby="scope-collection:write-title"`)

var revokeButton = regexp.MustCompile(`<button [^>]*aria-label="Revoke Claude">Revoke</button>`)

var formCSRF = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (e *appsEnv) csrf(page string) string {
	e.t.Helper()
	m := formCSRF.FindStringSubmatch(page)
	if m == nil {
		e.t.Fatalf("no CSRF token in %s", page)
	}
	return m[1]
}

func TestConnect_OK(t *testing.T) {
	e := mustAppsEnv(t, access.Pro)
	consent := e.authorize("market:read collection:write")

	// Without a session: the sign-in page first, and back here after it.
	resp, _ := e.do("GET", consent, nil, false)
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != "/dashboard/signin?next="+url.QueryEscape(consent) {
		t.Fatalf("no session: %d %q", resp.StatusCode, loc)
	}
	if got := web.SafeNext(consent); got != consent {
		t.Errorf("the sign-in page would not come back: SafeNext(%q) = %q", consent, got)
	}

	resp, page := e.do("GET", consent, nil, true)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("consent page: %d %s", resp.StatusCode, page)
	}
	for _, want := range []string{"Connect Claude?", "claude.ai", "Read market data", "Read and change your collection", "ada@example.com", "cardedge cannot check it"} {
		if !strings.Contains(page, want) {
			t.Errorf("consent page lacks %q", want)
		}
	}
	// Each scope's checkbox is named by its title alone (the description
	// inside its label describes it: aria-describedby), so that a person
	// finds "Read and change your collection" by its name.
	if !scopeCheckbox.MatchString(page) || !strings.Contains(page, `<strong id="scope-collection:write-title">Read and change your collection</strong>`) {
		t.Errorf("the collection checkbox is not named by its title: %s", page)
	}
	if got := resp.Header.Get("Content-Security-Policy"); !strings.Contains(got, "form-action 'self' https://claude.ai;") {
		t.Errorf("CSP: %s", got)
	}
	reqID := strings.TrimPrefix(consent, "/dashboard/connect?request=")
	reqID, _ = url.QueryUnescape(reqID)
	form := url.Values{"request": {reqID}, "answer": {"allow"}, "scope": {"market:read", "collection:write"}}

	// Without the CSRF token: refused, and the request is still pending.
	resp, _ = e.do("POST", "/dashboard/connect", form, true)
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("no CSRF: %d", resp.StatusCode)
	}
	form.Set("csrf", "not-the-token")
	if resp, _ = e.do("POST", "/dashboard/connect", form, true); resp.StatusCode != http.StatusForbidden {
		t.Errorf("wrong CSRF: %d", resp.StatusCode)
	}
	if _, err := e.oauth.Pending(context.Background(), reqID); err != nil {
		t.Errorf("the refused answer consumed the request: %v", err)
	}

	form.Set("csrf", e.csrf(page))
	resp, _ = e.do("POST", "/dashboard/connect", form, true)
	to, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || to == nil || to.Scheme+"://"+to.Host+to.Path != appsRedirect || to.Query().Get("state") != "xyz" {
		t.Fatalf("allow: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	tok, err := e.oauth.Token(context.Background(), oauth.TokenRequest{GrantType: "authorization_code", Code: to.Query().Get("code"),
		RedirectURI: appsRedirect, CodeVerifier: verifier, Client: clientOf(e.client)}, "127.0.0.1")
	if err != nil || tok.Scope != "market:read collection:write" {
		t.Fatalf("exchange: %+v %v", tok, err)
	}

	// Connected apps lists it; Revoke (with the CSRF token) ends it.
	resp, apps := e.do("GET", "/dashboard/apps", nil, true)
	if resp.StatusCode != 200 || !strings.Contains(apps, "Claude") || !strings.Contains(apps, "claude.ai") || !strings.Contains(apps, "Read and change your collection") {
		t.Fatalf("apps page: %d %s", resp.StatusCode, apps)
	}
	// The button's accessible name holds its visible label (WCAG 2.5.3),
	// as the keys page's "Revoke <name>": a person who says or reads
	// "Revoke" finds it.
	if !revokeButton.MatchString(apps) {
		t.Errorf("the Revoke button is not named \"Revoke Claude\": %s", apps)
	}
	grants, _ := e.oauth.Grants(context.Background(), e.acct.ID)
	revoke := "/dashboard/apps/" + grants[0].ID + "/revoke"
	if resp, _ = e.do("POST", revoke, url.Values{}, true); resp.StatusCode != http.StatusForbidden {
		t.Errorf("revoke without CSRF: %d", resp.StatusCode)
	}
	resp, _ = e.do("POST", revoke, url.Values{"csrf": {e.csrf(apps)}}, true)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/dashboard/apps?done=revoked" {
		t.Fatalf("revoke: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if _, err := e.oauth.Verify([]byte(tok.AccessToken), e.oauth.Resource()); err == nil {
		t.Errorf("the token works after Revoke")
	}
	if _, apps = e.do("GET", "/dashboard/apps?done=revoked", nil, true); !strings.Contains(apps, "No apps are connected") || !strings.Contains(apps, "App disconnected") {
		t.Errorf("apps page after revoke: %s", apps)
	}
	// The audit log says it in words.
	_, acct := e.do("GET", "/dashboard/account", nil, true)
	for _, want := range []string{"App connected", "App disconnected", "Claude (claude.ai)"} {
		if !strings.Contains(acct, want) {
			t.Errorf("the account page's audit log lacks %q", want)
		}
	}
	if strings.Contains(acct, "app_") {
		t.Errorf("the audit log shows an event's code: %s", acct)
	}
}

func TestConnect_Deny(t *testing.T) {
	e := mustAppsEnv(t, access.Free)
	consent := e.authorize("")
	_, page := e.do("GET", consent, nil, true)
	if strings.Contains(page, "Read and change your collection") {
		t.Errorf("a scope not asked for is shown")
	}
	reqID, _ := url.QueryUnescape(strings.TrimPrefix(consent, "/dashboard/connect?request="))
	resp, _ := e.do("POST", "/dashboard/connect", url.Values{"request": {reqID}, "answer": {"deny"}, "csrf": {e.csrf(page)}}, true)
	to, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || to.Query().Get("error") != "access_denied" || to.Query().Get("state") != "xyz" {
		t.Errorf("deny: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// Answered: the page is gone.
	if resp, _ := e.do("GET", consent, nil, true); resp.StatusCode != http.StatusNotFound {
		t.Errorf("answered request: %d", resp.StatusCode)
	}
}

// A Free account is told that the collection tools need another tier.
func TestConnect_FreeTier(t *testing.T) {
	e := mustAppsEnv(t, access.Free)
	_, page := e.do("GET", e.authorize("market:read collection:write"), nil, true)
	if !strings.Contains(page, "does not include the collection tools") {
		t.Errorf("no tier note: %s", page)
	}
}

func clientOf(id string) oauth.ClientCredentials { return oauth.ClientCredentials{ID: id} }
