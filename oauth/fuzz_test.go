package oauth_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cardedge/cardedge/oauth"
)

// Fuzz targets of every parser of untrusted input: registration requests,
// metadata documents, authorization requests, token request forms and
// bearer tokens. Properties: no panic; a refusal is an *oauth.Error (or a
// *TokenError); what is accepted keeps the rules (redirect URIs absolute,
// without fragments; names printable).

func isOAuthError(err error) bool {
	var e *oauth.Error
	return errors.As(err, &e) && e.Code != "" && e.Description != ""
}

func checkClient(t *testing.T, c oauth.Client) {
	if len(c.RedirectURIs) == 0 || len(c.RedirectURIs) > 10 {
		t.Fatalf("redirect URIs: %q", c.RedirectURIs)
	}
	for _, u := range c.RedirectURIs {
		p, err := url.Parse(u)
		if err != nil || !p.IsAbs() || strings.Contains(u, "#") {
			t.Fatalf("accepted redirect URI %q", u)
		}
		if s := strings.ToLower(p.Scheme); s == "javascript" || s == "data" || (s == "http" && !strings.Contains(u, "127.0.0.1") && !strings.Contains(u, "localhost") && !strings.Contains(u, "[::1]")) {
			t.Fatalf("accepted redirect URI %q", u)
		}
	}
	if !utf8.ValidString(c.Name) || utf8.RuneCountInString(c.Name) > 100 || strings.ContainsAny(c.Name, "\x00\n\r\t\u202e") {
		t.Fatalf("accepted name %q", c.Name)
	}
}

func FuzzParseClientMetadata(f *testing.F) {
	for _, s := range []string{
		`{"redirect_uris":["https://claude.ai/api/mcp/auth_callback"],"client_name":"Claude","token_endpoint_auth_method":"none"}`,
		`{"redirect_uris":["http://127.0.0.1:33418/","https://vscode.dev/redirect"],"grant_types":["authorization_code","refresh_token"],"response_types":["code"]}`,
		`{"redirect_uris":["cursor://anysphere.cursor-retrieval/oauth/callback"],"scope":"market:read"}`,
		`{"redirect_uris":["javascript:alert(1)"]}`, `{"redirect_uris":"x"}`, `[]`, `{}`, `{"a":1}{}`, `nul`, "{\"client_name\":\"\xff\"}",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, document bool) {
		c, err := oauth.ParseClientMetadataForTest(body, document)
		if err != nil {
			if !isOAuthError(err) {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		checkClient(t, c)
		if document && c.AuthMethod != oauth.AuthNone {
			t.Fatalf("document client with %q", c.AuthMethod)
		}
	})
}

func FuzzParseMetadataDocument(f *testing.F) {
	const id = "https://app.example.com/oauth/client.json"
	f.Add([]byte(`{"client_id":"` + id + `","redirect_uris":["https://app.example.com/cb"],"client_name":"App"}`))
	f.Add([]byte(`{"client_id":"https://other.example/x","redirect_uris":["https://app.example.com/cb"]}`))
	f.Add([]byte(`{"client_id":"` + id + `","redirect_uris":["https://app.example.com/cb"],"client_secret":"s"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := oauth.ParseMetadataDocument(body, id)
		if err != nil {
			if !isOAuthError(err) {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		checkClient(t, c)
		if c.ID != id || !c.Document {
			t.Fatalf("client %+v", c)
		}
	})
}

func FuzzClientIDURL(f *testing.F) {
	for _, s := range []string{"https://app.example.com/client.json", "https://app.example.com/", "https://u@h/x", "https://h/a/../b", "https://h/%2e%2e/b", "http://h/x", "https://h/x#f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		err := oauth.CheckClientIDURLForTest(id)
		if err != nil {
			if !isOAuthError(err) {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		u, perr := url.Parse(id)
		if perr != nil || u.Scheme != "https" || u.Fragment != "" || u.User != nil || u.RawQuery != "" || u.Path == "" || u.Path == "/" {
			t.Fatalf("accepted %q", id)
		}
	})
}

func FuzzParseAuthorize(f *testing.F) {
	f.Add("response_type=code&client_id=oc_x&redirect_uri=https%3A%2F%2Fa.example%2Fcb&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&state=s")
	f.Add("client_id=a&client_id=b")
	f.Add("client_id=a&redirect_uri=x&resource=1&resource=2&scope=%00")
	f.Fuzz(func(t *testing.T, query string) {
		q, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		client, redirect, direct, later := oauth.ParseAuthorizeForTest(q)
		if direct != nil {
			if !isOAuthError(direct) || later != nil {
				t.Fatalf("direct %v later %v", direct, later)
			}
			return
		}
		if client == "" || redirect == "" || len(q["client_id"]) != 1 || len(q["redirect_uri"]) != 1 {
			t.Fatalf("accepted client %q redirect %q from %v", client, redirect, q)
		}
		if later != nil && !isOAuthError(later) {
			t.Fatalf("later %T %v", later, later)
		}
		if later == nil && (q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43 || q.Get("response_type") != "code") {
			t.Fatalf("accepted %v", q)
		}
	})
}

func FuzzParseTokenRequest(f *testing.F) {
	f.Add("grant_type=authorization_code&code=c&redirect_uri=https%3A%2F%2Fa%2Fcb&code_verifier=v&client_id=oc_x", "")
	f.Add("grant_type=refresh_token&refresh_token=r", "Basic b2NfeDpzZWNyZXQ=")
	f.Add("grant_type=refresh_token&client_id=a&client_id=b", "Bearer x")
	f.Add("client_id=oc_x", "Basic %%%")
	f.Fuzz(func(t *testing.T, body, authorization string) {
		form, err := url.ParseQuery(body)
		if err != nil {
			return
		}
		tr, err := oauth.ParseTokenRequest(form, authorization)
		if err != nil {
			if !isOAuthError(err) {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		if tr.GrantType != form.Get("grant_type") {
			t.Fatalf("grant type %q from %v", tr.GrantType, form)
		}
		for name, vv := range form {
			if len(vv) > 1 && name != "resource" {
				t.Fatalf("accepted repeated %s", name)
			}
		}
	})
}

func FuzzVerify(f *testing.F) {
	e := MustEnv(f, nil)
	f.Add("eyJhbGciOiJIUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJzdWIiOiJhIn0.c2ln")
	f.Add("eyJhbGciOiJub25lIiwidHlwIjoiYXQrand0In0.eyJzdWIiOiJhX3gifQ.")
	f.Add("ce_live_x")
	f.Fuzz(func(t *testing.T, tok string) {
		cl, err := e.srv.Verify([]byte(tok), e.srv.Resource())
		if err == nil {
			t.Fatalf("accepted %q: %+v", tok, cl)
		}
		var te *oauth.TokenError
		if !errors.As(err, &te) {
			t.Fatalf("error %T %v", err, err)
		}
		_ = oauth.IsAccessToken([]byte(tok))
	})
}
