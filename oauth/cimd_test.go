package oauth_test

import (
	"context"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardedge/cardedge/oauth"
)

// docServer serves Client ID Metadata Documents over TLS on 127.0.0.1:
// /client.json is a good one (its client_id its own URL); others are
// broken on purpose. Fetches counts the requests.
type docServer struct {
	*httptest.Server
	Fetches atomic.Int64
}

const docRedirect = "https://chatgpt.com/connector_platform_oauth_redirect"

func mustDocServer(t *testing.T) *docServer {
	t.Helper()
	d := &docServer{}
	d.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.Fetches.Add(1)
		self := d.URL + r.URL.Path
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/client.json":
			w.Header().Set("Cache-Control", "max-age=600")
			fmt.Fprintf(w, `{"client_id":%q,"client_name":"ChatGPT","redirect_uris":[%q],"token_endpoint_auth_method":"none","logo_uri":"https://example.com/x.png"}`, self, docRedirect)
		case "/other-id.json":
			fmt.Fprintf(w, `{"client_id":"https://elsewhere.example/client.json","redirect_uris":[%q]}`, docRedirect)
		case "/secret.json":
			fmt.Fprintf(w, `{"client_id":%q,"redirect_uris":[%q],"token_endpoint_auth_method":"client_secret_post","client_secret":"x"}`, self, docRedirect)
		case "/big.json":
			fmt.Fprintf(w, `{"client_id":%q,"redirect_uris":[%q],"client_name":"%s"}`, self, docRedirect, strings.Repeat("a", 6000))
		case "/redirect.json":
			http.Redirect(w, r, "/client.json", http.StatusFound)
		case "/html.json":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html></html>")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(d.Close)
	return d
}

// cimdEnv returns an env that fetches documents from d (a loopback
// address, so AllowPrivate is on, and its test CA trusted).
func cimdEnv(t *testing.T, d *docServer) *env {
	pool := x509.NewCertPool()
	pool.AddCert(d.Certificate())
	return MustEnv(t, func(o *oauth.Options) {
		o.CIMD = oauth.CIMDOptions{AllowPrivate: true, RootCAs: pool, Timeout: 2 * time.Second}
	})
}

func TestCIMD_OK(t *testing.T) {
	d := mustDocServer(t)
	e := cimdEnv(t, d)
	id := d.URL + "/client.json"
	verifier, challenge := pkce("cimd")
	status, loc, body := e.authorize(authParams(id, docRedirect, challenge))
	if status != http.StatusSeeOther {
		t.Fatalf("authorize: %d %s", status, body)
	}
	reqID := strings.TrimPrefix(loc, oauth.DefaultConsentPath+"?request=")
	p, err := e.srv.Pending(context.Background(), reqID)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Document || p.ClientName != "ChatGPT" || p.ClientHost != strings.TrimPrefix(d.URL, "https://") || p.RedirectHost != "chatgpt.com" {
		t.Errorf("pending: %+v", p)
	}
	to, err := e.srv.Approve(context.Background(), reqID, e.acct, []string{oauth.ScopeMarket})
	if err != nil {
		t.Fatal(err)
	}
	code := mustQuery(t, to).Get("code")
	status, tok := e.exchange(id, docRedirect, code, verifier)
	if status != 200 || tok["scope"] != "market:read" {
		t.Fatalf("exchange: %d %v", status, tok)
	}
	status, tok = e.refresh(id, tok["refresh_token"].(string))
	if status != 200 {
		t.Fatalf("refresh: %d %v", status, tok)
	}
	cl, err := e.srv.Verify([]byte(tok["access_token"].(string)), e.srv.Resource())
	if err != nil || cl.Client != id || cl.Has(oauth.ScopeCollection) {
		t.Errorf("verify: %+v %v", cl, err)
	}
	// Fetched once: the authorization request; the token requests used
	// the cache (max-age 600).
	if got := d.Fetches.Load(); got != 1 {
		t.Errorf("fetches: got %d, want 1", got)
	}
	e.clock.Advance(11 * time.Minute)
	e.authorize(authParams(id, docRedirect, challenge))
	if got := d.Fetches.Load(); got != 2 {
		t.Errorf("fetches after max-age: got %d, want 2", got)
	}
}

// Refused documents and client id URLs: the authorization request is
// answered with a page, never a redirect.
func TestCIMD_Err(t *testing.T) {
	d := mustDocServer(t)
	e := cimdEnv(t, d)
	_, challenge := pkce("bad")
	for name, tc := range map[string]struct{ id, redirect, want string }{
		"OtherClientID":   {d.URL + "/other-id.json", docRedirect, "is not its URL"},
		"Secret":          {d.URL + "/secret.json", docRedirect, "client_secret"},
		"TooBig":          {d.URL + "/big.json", docRedirect, "larger than 5120 bytes"},
		"Redirected":      {d.URL + "/redirect.json", docRedirect, "redirects are not followed"},
		"NotJSON":         {d.URL + "/html.json", docRedirect, "not application/json"},
		"NotFound":        {d.URL + "/missing.json", docRedirect, "HTTP status 404"},
		"RedirectNotInIt": {d.URL + "/client.json", "https://evil.example/cb", "not one of the redirect URIs"},
		"HTTP":            {strings.Replace(d.URL, "https", "http", 1) + "/client.json", docRedirect, "must be https"},
		"NoPath":          {d.URL + "/", docRedirect, "must have a path"},
		"DotSegment":      {d.URL + "/a/../client.json", docRedirect, "segments"},
		"Query":           {d.URL + "/client.json?x=1", docRedirect, "query"},
	} {
		t.Run(name, func(t *testing.T) {
			status, loc, body := e.authorize(authParams(tc.id, tc.redirect, challenge))
			if status != 400 || loc != "" || !strings.Contains(body, tc.want) {
				t.Errorf("got %d %q %s", status, loc, body)
			}
		})
	}
}

// Without AllowPrivate, a document on a loopback address is never fetched.
func TestCIMD_ErrPrivateAddress(t *testing.T) {
	d := mustDocServer(t)
	pool := x509.NewCertPool()
	pool.AddCert(d.Certificate())
	e := MustEnv(t, func(o *oauth.Options) { o.CIMD = oauth.CIMDOptions{RootCAs: pool} })
	_, challenge := pkce("ssrf")
	for _, id := range []string{d.URL + "/client.json", strings.Replace(d.URL, "127.0.0.1", "localhost", 1) + "/client.json"} {
		status, loc, body := e.authorize(authParams(id, docRedirect, challenge))
		if status != 400 || loc != "" || !strings.Contains(body, "not a public address") {
			t.Errorf("%s: %d %q %s", id, status, loc, body)
		}
	}
	if got := d.Fetches.Load(); got != 0 {
		t.Errorf("fetches: %d", got)
	}
	// Disabled altogether.
	off := MustEnv(t, func(o *oauth.Options) { o.CIMD.Disabled = true })
	if status, _, body := off.authorize(authParams(d.URL+"/client.json", docRedirect, challenge)); status != 400 || !strings.Contains(body, "not accepted") {
		t.Errorf("disabled: %d %s", status, body)
	}
}

func TestPublicAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"8.8.8.8": true, "2606:4700::1111": true, "1.1.1.1": true,
		"127.0.0.1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false, "169.254.169.254": false,
		"100.64.0.1": false, "0.0.0.0": false, "::1": false, "::": false, "fe80::1": false, "fd00::1": false,
		"::ffff:127.0.0.1": false, "::ffff:10.0.0.1": false, "64:ff9b::a00:1": false, "2002:a00:1::": false,
		"224.0.0.1": false, "255.255.255.255": false, "198.18.0.1": false, "192.0.2.1": false,
	} {
		if got := oauth.PublicAddr(netip.MustParseAddr(addr)); got != want {
			t.Errorf("PublicAddr(%s) = %v, want %v", addr, got, want)
		}
	}
}
