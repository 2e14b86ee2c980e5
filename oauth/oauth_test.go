package oauth_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/account"
	"github.com/cardedge/cardedge/oauth"
)

// The happy path: register, authorize, consent, exchange, verify, refresh,
// revoke; and the audit log of it.
func TestFlow_OK(t *testing.T) {
	e := MustEnv(t, nil)
	const redirect = "https://claude.ai/api/mcp/auth_callback"
	id, secret := e.register(map[string]any{"client_name": "Claude", "redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none"})
	if !strings.HasPrefix(id, "oc_") || secret != "" {
		t.Fatalf("client %q secret %q", id, secret)
	}
	verifier, challenge := pkce("ok")
	status, loc, _ := e.authorize(authParams(id, redirect, challenge))
	if status != http.StatusSeeOther {
		t.Fatalf("authorize: %d", status)
	}
	reqID, _ := url.QueryUnescape(strings.TrimPrefix(loc, oauth.DefaultConsentPath+"?request="))
	p, err := e.srv.Pending(context.Background(), reqID)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.ClientName+" "+p.RedirectHost, "Claude claude.ai"; got != want {
		t.Errorf("pending: got %q, want %q", got, want)
	}
	if len(p.Scopes) != 2 {
		t.Errorf("pending scopes: %+v", p.Scopes)
	}
	to, err := e.srv.Approve(context.Background(), reqID, e.acct, []string{oauth.ScopeMarket, oauth.ScopeCollection})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(to)
	if got, want := u.Scheme+"://"+u.Host+u.Path, redirect; got != want {
		t.Errorf("redirect: got %q, want %q", got, want)
	}
	if u.Query().Get("state") != "st-123" || u.Query().Get("iss") != e.srv.Issuer() || u.Query().Get("code") == "" {
		t.Errorf("redirect query: %v", u.Query())
	}
	if _, err := e.srv.Pending(context.Background(), reqID); err == nil {
		t.Errorf("the request is still pending after its answer")
	}

	status, tok := e.exchange(id, redirect, u.Query().Get("code"), verifier)
	if status != http.StatusOK {
		t.Fatalf("exchange: %d %v", status, tok)
	}
	if tok["token_type"] != "Bearer" || tok["expires_in"] != float64(3600) || tok["scope"] != "market:read collection:write" {
		t.Errorf("token response: %v", tok)
	}
	access := tok["access_token"].(string)
	if !oauth.IsAccessToken([]byte(access)) {
		t.Errorf("IsAccessToken(%q) = false", access)
	}
	cl, err := e.srv.Verify([]byte(access), e.srv.Resource())
	if err != nil {
		t.Fatal(err)
	}
	if cl.Account != e.acct.ID || cl.Tier != e.acct.Tier || cl.Client != id || !cl.Has(oauth.ScopeCollection) {
		t.Errorf("claims: %+v", cl)
	}
	// The resource without its trailing slash is the same resource.
	if _, err := e.srv.Verify([]byte(access), strings.TrimSuffix(e.srv.Resource(), "/")); err != nil {
		t.Errorf("verify without the slash: %v", err)
	}

	e.clock.Advance(30 * time.Minute)
	status, tok2 := e.refresh(id, tok["refresh_token"].(string))
	if status != http.StatusOK {
		t.Fatalf("refresh: %d %v", status, tok2)
	}
	if tok2["refresh_token"] == tok["refresh_token"] || tok2["access_token"] == access {
		t.Errorf("refresh did not rotate: %v", tok2)
	}
	grants, err := e.srv.Grants(context.Background(), e.acct.ID)
	if err != nil || len(grants) != 1 {
		t.Fatalf("grants: %v %v", grants, err)
	}
	g := grants[0]
	if g.DisplayName() != "Claude" || !g.LastUsed.Equal(t0.Add(30*time.Minute)) || !g.Created.Equal(t0) {
		t.Errorf("grant: %+v", g)
	}

	// The app revokes its refresh token: the grant ends, its tokens too.
	status, body := e.postForm(oauth.PathRevoke, url.Values{"token": {tok2["refresh_token"].(string)}, "client_id": {id}}, "")
	if status != http.StatusOK {
		t.Fatalf("revoke: %d %v", status, body)
	}
	if _, err := e.srv.Verify([]byte(tok2["access_token"].(string)), e.srv.Resource()); reason(err) != oauth.ReasonRevoked {
		t.Errorf("verify after revoke: %v", err)
	}
	if status, body := e.refresh(id, tok2["refresh_token"].(string)); status != http.StatusBadRequest || body["error"] != "invalid_grant" {
		t.Errorf("refresh after revoke: %d %v", status, body)
	}
	if grants, _ := e.srv.Grants(context.Background(), e.acct.ID); len(grants) != 0 {
		t.Errorf("grants after revoke: %v", grants)
	}
	// Revoking again, or a token never issued, is not an error (RFC 7009).
	if status, _ := e.postForm(oauth.PathRevoke, url.Values{"token": {"nonsense"}, "client_id": {id}}, ""); status != http.StatusOK {
		t.Errorf("revoke nonsense: %d", status)
	}

	events, err := e.accts.Audit(context.Background(), e.acct.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	var whats []string
	for _, ev := range events {
		whats = append(whats, ev.What)
	}
	if got, want := strings.Join(whats[:3], " "), "app_revoked app_refreshed app_connected"; got != want {
		t.Errorf("audit: got %q, want %q", got, want)
	}
}

// Refusals of the authorization endpoint: each is either a page with no
// redirect (the client or redirect URI cannot be trusted) or a redirect
// with an error to the client's own redirect URI.
func TestAuthorize_Err(t *testing.T) {
	e := MustEnv(t, nil)
	const redirect = "https://claude.ai/api/mcp/auth_callback"
	id, _ := e.register(map[string]any{"client_name": "Claude", "redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none"})
	_, challenge := pkce("err")
	good := func() url.Values { return authParams(id, redirect, challenge) }
	with := func(f func(q url.Values)) url.Values { q := good(); f(q); return q }

	// No redirect at all: the browser stays on our page.
	for name, q := range map[string]url.Values{
		"RedirectOneCharOff": with(func(q url.Values) { q.Set("redirect_uri", "https://claude.ai/api/mcp/auth_callbacK") }),
		"RedirectExtraSlash": with(func(q url.Values) { q.Set("redirect_uri", redirect+"/") }),
		"RedirectQueryAdded": with(func(q url.Values) { q.Set("redirect_uri", redirect+"?x=1") }),
		"OpenRedirect":       with(func(q url.Values) { q.Set("redirect_uri", "https://evil.example/steal") }),
		"OpenRedirectUnknown": with(func(q url.Values) {
			q.Set("client_id", "oc_unknownclient000")
			q.Set("redirect_uri", "https://evil.example/")
		}),
		"NoRedirect":    with(func(q url.Values) { q.Del("redirect_uri") }),
		"NoClient":      with(func(q url.Values) { q.Del("client_id") }),
		"RedirectTwice": with(func(q url.Values) { q.Add("redirect_uri", "https://evil.example/") }),
	} {
		t.Run(name, func(t *testing.T) {
			status, loc, body := e.authorize(q)
			if status != http.StatusBadRequest || loc != "" || !strings.Contains(body, "Nothing was shared") {
				t.Errorf("got %d Location %q", status, loc)
			}
		})
	}

	// An error sent back to the client's redirect URI.
	for name, tc := range map[string]struct {
		q    url.Values
		code string
	}{
		"NoPKCE":             {with(func(q url.Values) { q.Del("code_challenge"); q.Del("code_challenge_method") }), "invalid_request"},
		"PlainPKCE":          {with(func(q url.Values) { q.Set("code_challenge_method", "plain") }), "invalid_request"},
		"PKCEWithoutMethod":  {with(func(q url.Values) { q.Del("code_challenge_method") }), "invalid_request"},
		"ChallengeMalformed": {with(func(q url.Values) { q.Set("code_challenge", "short") }), "invalid_request"},
		"Implicit":           {with(func(q url.Values) { q.Set("response_type", "token") }), "unsupported_response_type"},
		"NoResponseType":     {with(func(q url.Values) { q.Del("response_type") }), "invalid_request"},
		"UnknownScope":       {with(func(q url.Values) { q.Set("scope", "admin") }), "invalid_scope"},
		"OtherResource":      {with(func(q url.Values) { q.Set("resource", "https://other.example/api/v3/mcp/") }), "invalid_target"},
		"RepeatedState":      {with(func(q url.Values) { q.Add("state", "two") }), "invalid_request"},
	} {
		t.Run(name, func(t *testing.T) {
			status, loc, _ := e.authorize(tc.q)
			u, err := url.Parse(loc)
			if status != http.StatusSeeOther || err != nil || !strings.HasPrefix(loc, redirect+"?") {
				t.Fatalf("got %d Location %q", status, loc)
			}
			if got := u.Query().Get("error"); got != tc.code {
				t.Errorf("error: got %q, want %q (%s)", got, tc.code, u.Query().Get("error_description"))
			}
			if u.Query().Get("iss") != e.srv.Issuer() || u.Query().Get("code") != "" {
				t.Errorf("query: %v", u.Query())
			}
		})
	}
}

// Refusals of the token endpoint.
func TestToken_Err(t *testing.T) {
	const redirect = "https://claude.ai/api/mcp/auth_callback"
	setup := func(t *testing.T) (*env, string, string, string) {
		e := MustEnv(t, nil)
		id, _ := e.register(map[string]any{"client_name": "Claude", "redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none"})
		verifier, challenge := pkce("tk")
		u := e.consent(authParams(id, redirect, challenge))
		return e, id, u.Query().Get("code"), verifier
	}
	t.Run("WrongVerifier", func(t *testing.T) {
		e, id, code, _ := setup(t)
		other, _ := pkce("zz")
		if status, body := e.exchange(id, redirect, code, other); status != 400 || body["error"] != "invalid_grant" {
			t.Errorf("%d %v", status, body)
		}
	})
	t.Run("NoVerifier", func(t *testing.T) {
		e, id, code, _ := setup(t)
		if status, body := e.exchange(id, redirect, code, ""); status != 400 || body["error"] != "invalid_request" {
			t.Errorf("%d %v", status, body)
		}
	})
	t.Run("RedirectOneCharOff", func(t *testing.T) {
		e, id, code, verifier := setup(t)
		if status, body := e.exchange(id, redirect+"x", code, verifier); status != 400 || body["error"] != "invalid_grant" {
			t.Errorf("%d %v", status, body)
		}
	})
	t.Run("OtherResource", func(t *testing.T) {
		e, id, code, verifier := setup(t)
		status, body := e.postForm(oauth.PathToken, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
			"code_verifier": {verifier}, "client_id": {id}, "resource": {"https://other.example/mcp"}}, "")
		if status != 400 || body["error"] != "invalid_target" {
			t.Errorf("%d %v", status, body)
		}
	})
	t.Run("OtherClient", func(t *testing.T) {
		e, _, code, verifier := setup(t)
		other, _ := e.register(map[string]any{"redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none"})
		if status, body := e.exchange(other, redirect, code, verifier); status != 400 || body["error"] != "invalid_grant" {
			t.Errorf("%d %v", status, body)
		}
	})
	t.Run("CodeExpired", func(t *testing.T) {
		e, id, code, verifier := setup(t)
		e.clock.Advance(oauth.DefaultCodeTTL + time.Second)
		if status, body := e.exchange(id, redirect, code, verifier); status != 400 || body["error"] != "invalid_grant" {
			t.Errorf("%d %v", status, body)
		}
	})
	t.Run("CodeReused", func(t *testing.T) {
		e, id, code, verifier := setup(t)
		status, tok := e.exchange(id, redirect, code, verifier)
		if status != 200 {
			t.Fatalf("%d %v", status, tok)
		}
		if status, body := e.exchange(id, redirect, code, verifier); status != 400 || body["error"] != "invalid_grant" {
			t.Errorf("second use: %d %v", status, body)
		}
		// The grant the first use made has ended.
		if _, err := e.srv.Verify([]byte(tok["access_token"].(string)), e.srv.Resource()); reason(err) != oauth.ReasonRevoked {
			t.Errorf("verify: %v", err)
		}
		if status, body := e.refresh(id, tok["refresh_token"].(string)); status != 400 || body["error"] != "invalid_grant" {
			t.Errorf("refresh: %d %v", status, body)
		}
	})
	t.Run("RefreshReused", func(t *testing.T) {
		e, id, code, verifier := setup(t)
		_, tok := e.exchange(id, redirect, code, verifier)
		first := tok["refresh_token"].(string)
		status, tok2 := e.refresh(id, first)
		if status != 200 {
			t.Fatalf("%d %v", status, tok2)
		}
		// The old token again: refused, and the grant ends, so the new
		// token (the app's, or a thief's) fails too.
		if status, body := e.refresh(id, first); status != 400 || body["error"] != "invalid_grant" {
			t.Errorf("reuse: %d %v", status, body)
		}
		if status, body := e.refresh(id, tok2["refresh_token"].(string)); status != 400 || body["error"] != "invalid_grant" {
			t.Errorf("after reuse: %d %v", status, body)
		}
		if _, err := e.srv.Verify([]byte(tok2["access_token"].(string)), e.srv.Resource()); reason(err) != oauth.ReasonRevoked {
			t.Errorf("verify: %v", err)
		}
		events, _ := e.accts.Audit(context.Background(), e.acct.ID, 1)
		if len(events) != 1 || events[0].What != account.EventAppReuse {
			t.Errorf("audit: %+v", events)
		}
	})
	t.Run("RefreshOtherClient", func(t *testing.T) {
		e, id, code, verifier := setup(t)
		_, tok := e.exchange(id, redirect, code, verifier)
		other, _ := e.register(map[string]any{"redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none"})
		if status, body := e.refresh(other, tok["refresh_token"].(string)); status != 400 || body["error"] != "invalid_grant" {
			t.Errorf("%d %v", status, body)
		}
	})
	t.Run("UnsupportedGrant", func(t *testing.T) {
		e, id, _, _ := setup(t)
		status, body := e.postForm(oauth.PathToken, url.Values{"grant_type": {"password"}, "client_id": {id}}, "")
		if status != 400 || body["error"] != "unsupported_grant_type" {
			t.Errorf("%d %v", status, body)
		}
	})
	t.Run("UnknownClient", func(t *testing.T) {
		e, _, code, verifier := setup(t)
		if status, body := e.exchange("oc_nobody", redirect, code, verifier); status != 401 || body["error"] != "invalid_client" {
			t.Errorf("%d %v", status, body)
		}
	})
}

// Verify's refusals: another resource, expired, forged, another issuer.
func TestServer_Verify(t *testing.T) {
	e := MustEnv(t, nil)
	_, tok := e.connect()
	access := []byte(tok["access_token"].(string))
	if _, err := e.srv.Verify(access, "https://other.example/api/v3/mcp/"); reason(err) != oauth.ReasonAudience {
		t.Errorf("another resource: %v", err)
	}
	if _, err := e.srv.Verify(access, e.srv.Issuer()+"/api/v3/"); reason(err) != oauth.ReasonAudience {
		t.Errorf("another path: %v", err)
	}
	forged := append([]byte(nil), access...)
	forged[len(forged)-2] ^= 1
	if _, err := e.srv.Verify(forged, e.srv.Resource()); reason(err) != oauth.ReasonInvalid {
		t.Errorf("forged: %v", err)
	}
	if _, err := e.srv.Verify([]byte("ce_live_not_a_jwt"), e.srv.Resource()); reason(err) != oauth.ReasonInvalid {
		t.Errorf("not a JWT: %v", err)
	}
	// Another deployment (another store, so other keys) does not accept it.
	other := MustEnv(t, nil)
	if _, err := other.srv.Verify(access, e.srv.Resource()); reason(err) != oauth.ReasonInvalid {
		t.Errorf("another server: %v", err)
	}
	e.clock.Advance(time.Hour + 10*time.Second)
	_, err := e.srv.Verify(access, e.srv.Resource())
	if reason(err) != oauth.ReasonExpired {
		t.Errorf("expired: %v", err)
	}
	if got := e.srv.Challenge(err); !strings.Contains(got, `error="invalid_token"`) || !strings.Contains(got, `resource_metadata="`+e.srv.ResourceMetadataURL()+`"`) {
		t.Errorf("challenge: %s", got)
	}
	if got, want := e.srv.Challenge(nil), `Bearer resource_metadata="`+e.hs.URL+`/.well-known/oauth-protected-resource/api/v3/mcp/", scope="market:read collection:write"`; got != want {
		t.Errorf("challenge: got %s, want %s", got, want)
	}
}

// A grant revoked in the dashboard of one replica is refused by another
// within a second (its clock's).
func TestServer_RevokeGrant_Replicas(t *testing.T) {
	e := MustEnv(t, nil)
	_, tok := e.connect()
	access := []byte(tok["access_token"].(string))
	replica := e.mustServer()
	if _, err := replica.Verify(access, e.srv.Resource()); err != nil {
		t.Fatal(err)
	}
	grants, _ := e.srv.Grants(context.Background(), e.acct.ID)
	if err := e.srv.RevokeGrant(context.Background(), "a_someoneelse", grants[0].ID, ""); err == nil {
		t.Errorf("another account revoked the grant")
	}
	if err := e.srv.RevokeGrant(context.Background(), e.acct.ID, grants[0].ID, "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.srv.Verify(access, e.srv.Resource()); reason(err) != oauth.ReasonRevoked {
		t.Errorf("this replica: %v", err)
	}
	e.clock.Advance(time.Second)
	if _, err := replica.Verify(access, e.srv.Resource()); reason(err) != oauth.ReasonRevoked {
		t.Errorf("the other replica after 1 s: %v", err)
	}
	if err := e.srv.RevokeGrant(context.Background(), e.acct.ID, grants[0].ID, ""); err == nil {
		t.Errorf("revoking twice: no error")
	}
}

// Confidential clients authenticate with their secret.
func TestToken_ClientSecret(t *testing.T) {
	e := MustEnv(t, nil)
	const redirect = "http://127.0.0.1:33418/"
	for _, method := range []string{oauth.AuthClientSecretPost, oauth.AuthClientSecretBasic} {
		t.Run(method, func(t *testing.T) {
			id, secret := e.register(map[string]any{"client_name": "VS Code", "redirect_uris": []string{redirect}, "token_endpoint_auth_method": method})
			if !strings.HasPrefix(secret, "ceos_") {
				t.Fatalf("secret %q", secret)
			}
			verifier, challenge := pkce("cs")
			code := e.consent(authParams(id, redirect, challenge)).Query().Get("code")
			form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect}, "code_verifier": {verifier}, "client_id": {id}}
			if status, body := e.postForm(oauth.PathToken, form, ""); status != 401 || body["error"] != "invalid_client" {
				t.Errorf("no secret: %d %v", status, body)
			}
			wrong, right := "", ""
			if method == oauth.AuthClientSecretPost {
				form.Set("client_secret", secret+"x")
				status, body := e.postForm(oauth.PathToken, form, "")
				wrong = strings.Join([]string{http.StatusText(status), body["error"].(string)}, " ")
				form.Set("client_secret", secret)
				status, body = e.postForm(oauth.PathToken, form, "")
				right = http.StatusText(status) + " " + body["token_type"].(string)
			} else {
				basic := func(s string) string {
					return "Basic " + b64(url.QueryEscape(id)+":"+url.QueryEscape(s))
				}
				status, body := e.postForm(oauth.PathToken, form, basic(secret+"x"))
				wrong = http.StatusText(status) + " " + body["error"].(string)
				status, body = e.postForm(oauth.PathToken, form, basic(secret))
				right = http.StatusText(status) + " " + body["token_type"].(string)
			}
			if wrong != "Unauthorized invalid_client" || right != "OK Bearer" {
				t.Errorf("wrong secret: %s; right secret: %s", wrong, right)
			}
		})
	}
}

// Registration: checked metadata, a limit per address and hour, and
// pruning of unused clients.
func TestRegister(t *testing.T) {
	e := MustEnv(t, func(o *oauth.Options) { o.RegisterPerHour = 3 })
	for name, m := range map[string]map[string]any{
		"NoRedirect":      {"client_name": "x"},
		"HTTPNotLoopback": {"redirect_uris": []string{"http://example.com/cb"}},
		"JavaScript":      {"redirect_uris": []string{"javascript:alert(1)"}},
		"Fragment":        {"redirect_uris": []string{"https://example.com/cb#x"}},
		"Relative":        {"redirect_uris": []string{"/cb"}},
		"UserInfo":        {"redirect_uris": []string{"https://user:pw@example.com/cb"}},
		"Implicit":        {"redirect_uris": []string{"https://example.com/cb"}, "response_types": []string{"token"}},
		"Password":        {"redirect_uris": []string{"https://example.com/cb"}, "grant_types": []string{"password"}},
		"ControlInName":   {"redirect_uris": []string{"https://example.com/cb"}, "client_name": "Claude\u202eevil"},
		"PrivateKeyJWT":   {"redirect_uris": []string{"https://example.com/cb"}, "token_endpoint_auth_method": "private_key_jwt"},
		"ClientIDSent":    {"redirect_uris": []string{"https://example.com/cb"}, "client_id": "mine"},
	} {
		t.Run("Err"+name, func(t *testing.T) {
			status, body := e.postJSON(oauth.PathRegister, m)
			if status != 400 || (body["error"] != "invalid_client_metadata" && body["error"] != "invalid_redirect_uri") {
				t.Errorf("%d %v", status, body)
			}
		})
	}
	t.Run("ErrNotJSON", func(t *testing.T) {
		resp, err := http.Post(e.hs.URL+oauth.PathRegister, "application/json", strings.NewReader("{nope"))
		if err != nil {
			t.Fatal(err)
		}
		if status, body := decode(t, resp); status != 400 || body["error"] != "invalid_client_metadata" {
			t.Errorf("%d %v", status, body)
		}
	})
	t.Run("DefaultsAndLimit", func(t *testing.T) {
		m := map[string]any{"client_name": "  Many   spaces ", "redirect_uris": []string{"cursor://anysphere.cursor-retrieval/oauth/callback", "http://[::1]:8080/cb"}}
		status, body := e.postJSON(oauth.PathRegister, m)
		if status != 201 || body["client_name"] != "Many spaces" || body["token_endpoint_auth_method"] != "client_secret_basic" || body["client_secret"] == nil {
			t.Fatalf("%d %v", status, body)
		}
		e.register(map[string]any{"redirect_uris": []string{"https://example.com/cb"}, "token_endpoint_auth_method": "none"})
		e.register(map[string]any{"redirect_uris": []string{"https://example.com/cb"}, "token_endpoint_auth_method": "none"})
		resp, err := e.c.Post(e.hs.URL+oauth.PathRegister, "application/json", strings.NewReader(`{"redirect_uris":["https://example.com/cb"]}`))
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
			t.Errorf("fourth registration: %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
		}
		resp.Body.Close()
		e.clock.Advance(time.Hour)
		e.register(map[string]any{"redirect_uris": []string{"https://example.com/cb"}, "token_endpoint_auth_method": "none"})
	})
	t.Run("PrunedWhenUnused", func(t *testing.T) {
		e := MustEnv(t, nil)
		const redirect = "https://example.com/cb"
		unused, _ := e.register(map[string]any{"redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none"})
		used, _ := e.connect()
		e.clock.Advance(oauth.DefaultUnusedClientTTL + time.Minute)
		_, challenge := pkce("pr")
		if status, loc, _ := e.authorize(authParams(unused, redirect, challenge)); status != 400 || loc != "" {
			t.Errorf("unused client after a day: %d %q", status, loc)
		}
		if status, _, body := e.authorize(authParams(used, "https://claude.ai/api/mcp/auth_callback", challenge)); status != http.StatusSeeOther {
			t.Errorf("used client after a day: %d %s", status, body)
		}
	})
}

// The metadata documents name the endpoints and what they support.
func TestHandler_Metadata(t *testing.T) {
	e := MustEnv(t, nil)
	status, as := decode(t, mustGet(t, e.hs.URL+oauth.PathASMetadata))
	if status != 200 || as["issuer"] != e.hs.URL || as["token_endpoint"] != e.hs.URL+"/oauth/token" ||
		as["registration_endpoint"] != e.hs.URL+"/oauth/register" || as["client_id_metadata_document_supported"] != true {
		t.Errorf("AS metadata: %d %v", status, as)
	}
	if got := as["code_challenge_methods_supported"].([]any); len(got) != 1 || got[0] != "S256" {
		t.Errorf("code challenge methods: %v", got)
	}
	for _, p := range []string{oauth.PathPRMetadata, oauth.PathPRMetadata + "/api/v3/mcp/", oauth.PathPRMetadata + "/api/v3/mcp"} {
		status, pr := decode(t, mustGet(t, e.hs.URL+p))
		if status != 200 || pr["resource"] != e.hs.URL+"/api/v3/mcp/" || pr["authorization_servers"].([]any)[0] != e.hs.URL {
			t.Errorf("%s: %d %v", p, status, pr)
		}
	}
	if got := e.srv.ResourceMetadataURL(); got != e.hs.URL+"/.well-known/oauth-protected-resource/api/v3/mcp/" {
		t.Errorf("ResourceMetadataURL: %s", got)
	}
	// CORS for browser-based clients.
	req, _ := http.NewRequest("OPTIONS", e.hs.URL+oauth.PathToken, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
}

func TestNew_ErrPublicURL(t *testing.T) {
	e := MustEnv(t, nil)
	for _, u := range []string{"", "http://api.example.com", "https://api.example.com/base", "ftp://x", "https://u@api.example.com"} {
		o := e.options
		o.PublicURL = u
		if _, err := oauth.New(context.Background(), o); err == nil {
			t.Errorf("PublicURL %q: no error", u)
		}
	}
}

// Rotating the signing key keeps the old tokens verifying during the grace.
func TestRotate(t *testing.T) {
	e := MustEnv(t, nil)
	_, tok := e.connect()
	if _, err := oauth.Rotate(context.Background(), e.st, e.clock.Now(), 2*time.Hour); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Minute) // the keys are reloaded
	if _, err := e.srv.Verify([]byte(tok["access_token"].(string)), e.srv.Resource()); err != nil {
		t.Errorf("old token after rotation: %v", err)
	}
	_, tok2 := e.connect()
	if _, err := e.mustServer().Verify([]byte(tok2["access_token"].(string)), e.srv.Resource()); err != nil {
		t.Errorf("new token: %v", err)
	}
	if slices.Equal(strings.Split(tok["access_token"].(string), ".")[:1], strings.Split(tok2["access_token"].(string), ".")[:1]) {
		t.Errorf("the header (kid) did not change")
	}
}

func mustGet(t *testing.T, u string) *http.Response {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
