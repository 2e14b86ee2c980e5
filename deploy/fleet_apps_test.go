package deploy_test

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Connected apps in the fleet (issue 31): an app connected through
// HAProxy, the fleet's public URL, as an MCP host connects (discovery from
// the 401, dynamic registration, the authorization request, the consent
// page, the code exchange with PKCE), in plain HTTP: the browser and the
// official SDK are e2e's (TestOAuth_Browser).

// app is a connected app's client and tokens.
type app struct {
	client, access, refresh string
	grant                   string // its grant id on the Connected apps page
	tokenURL, resource      string
	servedBy                map[string]bool // the replicas that answered the steps
}

const appRedirect = "http://127.0.0.1:9/callback"

// connectApp connects an app for d's account through HAProxy.
func (d *dash) connectApp(t *testing.T) *app {
	t.Helper()
	f := d.f
	public := "http://" + f.lb
	a := &app{servedBy: map[string]bool{}}

	// The 401 names the resource metadata at the public URL.
	resp := f.mcpPostAt(t, f.lb, "", "", mcpInitialize)
	a.servedBy[resp.Header.Get("X-Served-By")] = true
	m := regexp.MustCompile(`resource_metadata="([^"]+)"`).FindStringSubmatch(resp.Header.Get("WWW-Authenticate"))
	if resp.StatusCode != 401 || m == nil || m[1] != public+"/.well-known/oauth-protected-resource/api/v3/mcp/" {
		t.Fatalf("MCP without a token: %d WWW-Authenticate %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	d.getJSON(t, a, m[1], &prm)
	if prm.Resource != public+"/api/v3/mcp/" || len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] != public {
		t.Fatalf("resource metadata: %+v", prm)
	}
	var asm struct {
		Issuer                string `json:"issuer"`
		AuthorizationEndpoint string `json:"authorization_endpoint"`
		TokenEndpoint         string `json:"token_endpoint"`
		RegistrationEndpoint  string `json:"registration_endpoint"`
	}
	d.getJSON(t, a, public+"/.well-known/oauth-authorization-server", &asm)
	if asm.Issuer != public || asm.TokenEndpoint != public+"/oauth/token" || asm.RegistrationEndpoint != public+"/oauth/register" {
		t.Fatalf("authorization server metadata: %+v", asm)
	}
	a.tokenURL, a.resource = asm.TokenEndpoint, prm.Resource

	// Registration.
	reg := `{"client_name":"fleet app","redirect_uris":["` + appRedirect + `"],"token_endpoint_auth_method":"none"}`
	resp, err := httpc.Post(asm.RegistrationEndpoint, "application/json", strings.NewReader(reg))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		ClientID string `json:"client_id"`
	}
	json.NewDecoder(resp.Body).Decode(&c)
	resp.Body.Close()
	a.servedBy[resp.Header.Get("X-Served-By")] = true
	if resp.StatusCode != 201 || c.ClientID == "" {
		t.Fatalf("registration: %d %+v", resp.StatusCode, c)
	}
	a.client = c.ClientID

	// The authorization request, then the consent page of the signed-in
	// account: Allow.
	verifier := randomString(t)
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {a.client}, "redirect_uri": {appRedirect}, "state": {"fleet-state"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		"scope": {"market:read collection:write"}, "resource": {a.resource}}
	p := d.get(t, strings.TrimPrefix(asm.AuthorizationEndpoint, public)+"?"+q.Encode())
	a.servedBy[p.header.Get("X-Served-By")] = true
	consent := p.header.Get("Location")
	if p.status != http.StatusSeeOther || !strings.HasPrefix(consent, "/dashboard/connect?request=") {
		t.Fatalf("authorization request: %d %q %.300s", p.status, consent, p.body)
	}
	p = d.get(t, consent)
	a.servedBy[p.header.Get("X-Served-By")] = true
	csrf := csrfRe.FindStringSubmatch(p.body)
	if p.status != 200 || csrf == nil || !strings.Contains(p.body, "fleet app") {
		t.Fatalf("consent page: %d %.300s", p.status, p.body)
	}
	reqID, _ := url.QueryUnescape(strings.TrimPrefix(consent, "/dashboard/connect?request="))
	p = d.post(t, "/dashboard/connect", url.Values{"csrf": {csrf[1]}, "request": {reqID}, "answer": {"allow"}, "scope": {"collection:write"}})
	a.servedBy[p.header.Get("X-Served-By")] = true
	back, err := url.Parse(p.header.Get("Location"))
	if p.status != http.StatusSeeOther || err != nil || !strings.HasPrefix(back.String(), appRedirect+"?") ||
		back.Query().Get("state") != "fleet-state" || back.Query().Get("iss") != public || back.Query().Get("code") == "" {
		t.Fatalf("allow: %d %q", p.status, p.header.Get("Location"))
	}

	// The code exchange.
	a.token(t, f.lb, url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")}, "redirect_uri": {appRedirect},
		"code_verifier": {verifier}}, 200)
	apps := d.get(t, "/dashboard/apps")
	g := regexp.MustCompile(`/dashboard/apps/(og_[a-z2-7]+)/revoke`).FindStringSubmatch(apps.body)
	if g == nil || !strings.Contains(apps.body, "fleet app") {
		t.Fatalf("the Connected apps page does not list the app: %d %.300s", apps.status, apps.body)
	}
	a.grant = g[1]
	return a
}

// token posts form (with the client id and the resource) to the token
// endpoint at addr and wants status; on a 200 the tokens are a's.
func (a *app) token(t *testing.T, addr string, form url.Values, status int) map[string]any {
	t.Helper()
	form.Set("client_id", a.client)
	form.Set("resource", a.resource)
	resp, err := httpc.Post("http://"+addr+"/oauth/token", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	json.NewDecoder(resp.Body).Decode(&body)
	if by := resp.Header.Get("X-Served-By"); by != "" {
		a.servedBy[by] = true
	}
	if resp.StatusCode != status {
		t.Fatalf("token endpoint at %s (%s): %d %v, want %d", addr, form.Get("grant_type"), resp.StatusCode, body, status)
	}
	if status == 200 {
		access, _ := body["access_token"].(string)
		refresh, _ := body["refresh_token"].(string)
		if access == "" || !strings.HasPrefix(refresh, "ceor_") || refresh == a.refresh {
			t.Fatalf("tokens: %v", body)
		}
		a.access, a.refresh = access, refresh
	}
	return body
}

func (d *dash) getJSON(t *testing.T, a *app, u string, v any) {
	t.Helper()
	resp, err := httpc.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	a.servedBy[resp.Header.Get("X-Served-By")] = true
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || json.Unmarshal(b, v) != nil {
		t.Fatalf("GET %s: %d %.300s", u, resp.StatusCode, b)
	}
}

// revokeApp revokes grant gid on the Connected apps page of replica addr.
func (d *dash) revokeApp(t *testing.T, addr, gid string) {
	t.Helper()
	p := d.getAt(t, addr, "/dashboard/apps")
	m := csrfRe.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no CSRF token on %s's Connected apps page (%d)", addr, p.status)
	}
	if p = d.postAt(t, addr, "/dashboard/apps/"+gid+"/revoke", url.Values{"csrf": {m[1]}}); p.status != http.StatusSeeOther {
		t.Fatalf("revoke %s on %s: %d %.300s", gid, addr, p.status, p.body)
	}
}

const mcpInitialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fleet-app","version":"1.0.0"}}}`

// everyReplicaMCP polls every replica directly until an MCP initialize
// with token answers want (a 401 must say the token is invalid), and
// returns the longest wait.
func (f *fleet) everyReplicaMCP(t *testing.T, token string, want int, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	var worst time.Duration
	for _, r := range f.replicas {
		for {
			resp := f.mcpPostAt(t, r.addr, token, "", mcpInitialize)
			if resp.StatusCode == want {
				if www := resp.Header.Get("WWW-Authenticate"); want == 401 && !strings.Contains(www, `error="invalid_token"`) {
					t.Fatalf("%s: 401 with WWW-Authenticate %q", r.name, www)
				}
				worst = max(worst, time.Since(start))
				break
			}
			if time.Since(start) > within {
				t.Fatalf("%s answers MCP with %d, want %d within %s", r.name, resp.StatusCode, want, within)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return worst
}

func randomString(t *testing.T) string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}
