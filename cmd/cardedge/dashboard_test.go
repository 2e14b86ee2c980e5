package main_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/account"
	"github.com/cardedge/cardedge/apperr"
	statebolt "github.com/cardedge/cardedge/state/bolt"
)

// The dashboard's security at the HTTP level, against the real program (env):
// every item of issue #20's security list but the script check, which runs in
// Chromium (dashboard_browser_test.go).

const dashCSP = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"

// dash is a browser-like client of the dashboard: a cookie jar, no automatic
// redirects, an Origin header like a browser's on POST, and a source address
// of its own (127.0.0.x) so that per-address limits of one test do not touch
// another's.
type dash struct {
	t      testing.TB
	base   string
	client *http.Client
	origin string // sent on POSTs ("" for none)
}

var dashAddrs atomic.Int32

// newDash returns a client dialing from a fresh loopback address.
func newDash(t testing.TB) *dash {
	return newDashFrom(t, fmt.Sprintf("127.0.0.%d", 10+dashAddrs.Add(1)))
}

func newDashFrom(t testing.TB, local string) *dash {
	jar, _ := cookiejar.New(nil)
	d := &net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	tr := &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}
	return &dash{t: t, base: env.base, origin: env.base, client: &http.Client{Jar: jar, Transport: tr, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type dashPage struct {
	status int
	header http.Header
	body   string
}

func (d *dash) do(req *http.Request) dashPage {
	d.t.Helper()
	resp, err := d.client.Do(req)
	if err != nil {
		d.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return dashPage{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

func (d *dash) get(path string) dashPage {
	d.t.Helper()
	req, _ := http.NewRequest("GET", d.base+path, nil)
	return d.do(req)
}

// post sends form; headers are name, value pairs.
func (d *dash) post(path string, form url.Values, headers ...string) dashPage {
	d.t.Helper()
	req, _ := http.NewRequest("POST", d.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if d.origin != "" {
		req.Header.Set("Origin", d.origin)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return d.do(req)
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf returns the CSRF token of the form on the page at path.
func (d *dash) csrf(path string) string {
	d.t.Helper()
	p := d.get(path)
	m := csrfRe.FindStringSubmatch(p.body)
	if m == nil {
		d.t.Fatalf("no CSRF token on %s (%d): %.300s", path, p.status, p.body)
	}
	return m[1]
}

const dashPassword = "a long and unusual passphrase"

// signUp creates an account of email and leaves the client signed in.
func (d *dash) signUp(email string) {
	d.t.Helper()
	p := d.post("/dashboard/signup", url.Values{"csrf": {d.csrf("/dashboard/signup")}, "email": {email}, "password": {dashPassword}})
	if p.status != http.StatusSeeOther {
		d.t.Fatalf("sign-up: %d %.500s", p.status, p.body)
	}
}

func (d *dash) signIn(email, password string) dashPage {
	d.t.Helper()
	return d.post("/dashboard/signin", url.Values{"csrf": {d.csrf("/dashboard/signin")}, "email": {email}, "password": {password}})
}

var secretRe = regexp.MustCompile(`<code id="secret-text">(ce_[a-z]_[A-Za-z0-9_-]{43})</code>`)
var keyIDRe = regexp.MustCompile(`/dashboard/keys/(k_[a-z2-7]{8})/revoke`)

// createKey creates a key named name and returns its secret and id.
func (d *dash) createKey(name string) (secret, id string) {
	d.t.Helper()
	p := d.post("/dashboard/keys", url.Values{"csrf": {d.csrf("/dashboard/keys")}, "name": {name}, "expires": {"90"}})
	if p.status != http.StatusSeeOther {
		d.t.Fatalf("create key: %d %.500s", p.status, p.body)
	}
	p = d.get("/dashboard/keys")
	m := secretRe.FindStringSubmatch(p.body)
	ids := keyIDRe.FindStringSubmatch(p.body)
	if m == nil || ids == nil {
		d.t.Fatalf("no new secret on the keys page: %.2000s", p.body)
	}
	return m[1], ids[1]
}

func uniqueEmail(t testing.TB) string {
	return strings.ToLower(strings.NewReplacer("/", ".", "_", "-").Replace(t.Name())) + fmt.Sprintf(".%d@example.com", time.Now().UnixNano())
}

// apiGet calls the REST API with a key.
func apiGet(t testing.TB, path, key string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", env.base+path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// waitStatus polls path with key until it answers want (keys change within a
// second).
func waitStatus(t testing.TB, path, key string, want int) *http.Response {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp := apiGet(t, path, key)
		if resp.StatusCode == want {
			return resp
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestDashboard_CSRF(t *testing.T) {
	d := newDash(t)
	d.signUp(uniqueEmail(t))
	token := d.csrf("/dashboard/keys")
	keysBefore := d.get("/dashboard/keys").body
	if !strings.Contains(keysBefore, "You have no keys yet") {
		t.Fatalf("a new account has keys: %.1000s", keysBefore)
	}
	tests := []struct {
		name    string
		form    url.Values
		headers []string
		origin  string
	}{
		{"ErrNoToken", url.Values{"name": {"x"}, "expires": {"30"}}, nil, d.base},
		{"ErrWrongToken", url.Values{"csrf": {token[:40] + "AAA"}, "name": {"x"}, "expires": {"30"}}, nil, d.base},
		{"ErrOtherOrigin", url.Values{"csrf": {token}, "name": {"x"}, "expires": {"30"}}, nil, "https://evil.example"},
		{"ErrNullOrigin", url.Values{"csrf": {token}, "name": {"x"}, "expires": {"30"}}, nil, "null"},
		{"ErrCrossSite", url.Values{"csrf": {token}, "name": {"x"}, "expires": {"30"}}, []string{"Sec-Fetch-Site", "cross-site"}, ""},
		{"ErrSameSite", url.Values{"csrf": {token}, "name": {"x"}, "expires": {"30"}}, []string{"Sec-Fetch-Site", "same-site"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d.origin = tt.origin
			defer func() { d.origin = d.base }()
			for _, path := range []string{"/dashboard/keys", "/dashboard/signout", "/dashboard/account/signout-everywhere"} {
				p := d.post(path, tt.form, tt.headers...)
				if p.status != http.StatusForbidden {
					t.Fatalf("POST %s: %d, want 403", path, p.status)
				}
			}
			if got := d.get("/dashboard/keys"); got.status != 200 || !strings.Contains(got.body, "You have no keys yet") {
				t.Fatalf("the refused forms changed something: %d %.500s", got.status, got.body)
			}
		})
	}
	t.Run("ErrSignInWithoutFormCookie", func(t *testing.T) {
		fresh := newDash(t)
		p := fresh.post("/dashboard/signin", url.Values{"csrf": {token}, "email": {"a@example.com"}, "password": {dashPassword}})
		if p.status != http.StatusForbidden {
			t.Fatalf("sign-in without the form's cookie: %d", p.status)
		}
	})
	t.Run("OK", func(t *testing.T) {
		if _, id := d.createKey("fine"); id == "" {
			t.Fatal("no key")
		}
	})
}

func TestDashboard_Cookies(t *testing.T) {
	d := newDash(t)
	email := uniqueEmail(t)
	d.signUp(email)
	d.post("/dashboard/signout", url.Values{"csrf": {d.csrf("/dashboard/keys")}})
	p := d.signIn(email, dashPassword)
	if p.status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", p.status)
	}
	var session string
	for _, c := range p.header.Values("Set-Cookie") {
		if strings.HasPrefix(c, "cardedge_session=") {
			session = c
		}
	}
	for _, want := range []string{"HttpOnly", "SameSite=Lax", "Path=/dashboard"} {
		if !strings.Contains(session, want) {
			t.Errorf("session cookie %q lacks %s", session, want)
		}
	}
	if strings.Contains(session, "Secure") || strings.Contains(session, "Max-Age") || strings.Contains(session, "Expires") {
		t.Errorf("session cookie %q: Secure over http, or persistent", session)
	}
	// Over https (--public-url, TLS) the cookie is a Secure __Host- cookie:
	// package web's TestHandler_SecureCookies.
}

func TestDashboard_CSP(t *testing.T) {
	d := newDash(t)
	d.signUp(uniqueEmail(t))
	_, id := d.createKey("csp")
	for _, path := range []string{"/dashboard/signup", "/dashboard/signin", "/dashboard/keys", "/dashboard/keys/" + id + "/roll",
		"/dashboard/keys/" + id + "/revoke", "/dashboard/usage", "/dashboard/usage?days=90&key=" + id, "/dashboard/account",
		"/dashboard/nowhere", "/dashboard/static/app.css", "/dashboard"} {
		p := d.get(path)
		if got := p.header.Get("Content-Security-Policy"); got != dashCSP {
			t.Errorf("%s (%d): CSP %q", path, p.status, got)
		}
		if strings.Contains(p.body, "<script>") || strings.Contains(p.body, "style=") || strings.Contains(p.body, " on") && regexp.MustCompile(`\son[a-z]+=`).MatchString(p.body) {
			t.Errorf("%s has inline script or style", path)
		}
	}
	p := d.post("/dashboard/keys", url.Values{}) // a 403 page too
	if got := p.header.Get("Content-Security-Policy"); p.status != 403 || got != dashCSP {
		t.Errorf("403 page: %d, CSP %q", p.status, got)
	}
}

func TestDashboard_KeyNameIsText(t *testing.T) {
	d := newDash(t)
	d.signUp(uniqueEmail(t))
	const evil = `<img src=x onerror=alert(1)>`
	_, id := d.createKey(evil)
	for _, path := range []string{"/dashboard/keys", "/dashboard/keys/" + id + "/roll", "/dashboard/keys/" + id + "/revoke", "/dashboard/usage", "/dashboard/account"} {
		p := d.get(path)
		if strings.Contains(p.body, "<img") {
			t.Errorf("%s renders the name as markup", path)
		}
		if path != "/dashboard/account" && !strings.Contains(p.body, "&lt;img src=x onerror=alert(1)&gt;") {
			t.Errorf("%s does not show the name as text", path)
		}
	}
}

func TestDashboard_OtherAccountsKey(t *testing.T) {
	a, b := newDash(t), newDash(t)
	a.signUp(uniqueEmail(t) + ".a")
	b.signUp(uniqueEmail(t) + ".b")
	secret, id := a.createKey("a's key")
	bToken := b.csrf("/dashboard/keys")
	for _, tt := range []struct {
		method, path string
	}{
		{"GET", "/dashboard/keys/" + id + "/roll"},
		{"GET", "/dashboard/keys/" + id + "/revoke"},
		{"GET", "/dashboard/usage?key=" + id},
		{"POST", "/dashboard/keys/" + id + "/roll"},
		{"POST", "/dashboard/keys/" + id + "/revoke"},
	} {
		var p dashPage
		if tt.method == "GET" {
			p = b.get(tt.path)
		} else {
			p = b.post(tt.path, url.Values{"csrf": {bToken}, "grace": {"0"}})
		}
		if p.status != http.StatusNotFound {
			t.Errorf("B %s %s: %d, want 404", tt.method, tt.path, p.status)
		}
		if strings.Contains(p.body, "a&#39;s key") || strings.Contains(p.body, "a's key") {
			t.Errorf("B %s %s shows A's key", tt.method, tt.path)
		}
	}
	if strings.Contains(b.get("/dashboard/keys").body, id) {
		t.Error("B's keys page lists A's key")
	}
	waitStatus(t, "/api/v3/cards?limit=1", secret, 200)
	time.Sleep(1100 * time.Millisecond) // a sync: a revocation would have reached the key table
	if resp := apiGet(t, "/api/v3/cards?limit=1", secret); resp.StatusCode != 200 {
		t.Fatalf("A's key after B's attempts: %d", resp.StatusCode)
	}
}

// Twenty wrong passwords in a row from one address are throttled, while the
// owner signs in from another.
func TestDashboard_SignInThrottle(t *testing.T) {
	owner := newDash(t)
	email := uniqueEmail(t)
	owner.signUp(email)
	owner.post("/dashboard/signout", url.Values{"csrf": {owner.csrf("/dashboard/keys")}})

	attacker := newDash(t)
	statuses := map[int]int{}
	retryAfter := ""
	for i := range 20 {
		p := attacker.signIn(email, fmt.Sprintf("wrong guess %d", i))
		statuses[p.status]++
		if p.status == http.StatusTooManyRequests {
			retryAfter = p.header.Get("Retry-After")
		}
	}
	if statuses[http.StatusTooManyRequests] == 0 || statuses[http.StatusSeeOther] != 0 {
		t.Fatalf("20 wrong passwords: statuses %v, want some 429s", statuses)
	}
	if retryAfter == "" {
		t.Fatal("a throttled sign-in without Retry-After")
	}
	if p := attacker.signIn(email, dashPassword); p.status != http.StatusTooManyRequests {
		t.Fatalf("the right password from the throttled address: %d", p.status)
	}
	if p := owner.signIn(email, dashPassword); p.status != http.StatusSeeOther {
		t.Fatalf("the owner from another address: %d %.300s", p.status, p.body)
	}
	// An unknown email gets the same answer as a wrong password.
	other := newDash(t)
	wrong := other.signIn(email, "not the password")
	unknown := other.signIn("nobody."+email, "not the password")
	if wrong.status != http.StatusUnauthorized || unknown.status != wrong.status ||
		!strings.Contains(wrong.body, "The email or the password is not right") || !strings.Contains(unknown.body, "The email or the password is not right") {
		t.Fatalf("wrong password: %d; unknown email: %d", wrong.status, unknown.status)
	}
}

func TestDashboard_PasswordStoredAsPHC(t *testing.T) {
	d := newDash(t)
	email := uniqueEmail(t)
	d.signUp(email)
	st, err := statebolt.Open(env.state, statebolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := account.New(account.Options{State: st})
	if err != nil {
		t.Fatal(err)
	}
	a, err := svc.Lookup(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`).MatchString(a.Password) {
		t.Fatalf("stored password %q is not an argon2id PHC string", a.Password)
	}
	if strings.Contains(a.Password, dashPassword) {
		t.Fatal("the password is stored in clear")
	}
}

func TestDashboard_SessionFixation(t *testing.T) {
	email := uniqueEmail(t)
	newDash(t).signUp(email)
	u, _ := url.Parse(env.base + "/dashboard/")

	t.Run("PlantedID", func(t *testing.T) {
		victim := newDash(t)
		planted := strings.Repeat("A", 43) // an id the attacker chose
		victim.client.Jar.SetCookies(u, []*http.Cookie{{Name: "cardedge_session", Value: planted, Path: "/dashboard"}})
		if p := victim.signIn(email, dashPassword); p.status != http.StatusSeeOther {
			t.Fatalf("sign-in: %d", p.status)
		}
		if got := sessionCookie(victim, u); got == planted || got == "" {
			t.Fatalf("the session cookie after sign-in is %q", got)
		}
		attacker := newDash(t)
		attacker.client.Jar.SetCookies(u, []*http.Cookie{{Name: "cardedge_session", Value: planted, Path: "/dashboard"}})
		if p := attacker.get("/dashboard/keys"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/dashboard/signin") {
			t.Fatalf("the planted id opens the dashboard: %d", p.status)
		}
	})
	t.Run("AttackersOwnSession", func(t *testing.T) {
		// The attacker signs in to their own account and plants that session
		// id in the victim's browser; the victim signs in: a new id, and the
		// attacker's id is ended.
		attacker := newDash(t)
		attacker.signUp(uniqueEmail(t))
		planted := sessionCookie(attacker, u)
		victim := newDash(t)
		victim.client.Jar.SetCookies(u, []*http.Cookie{{Name: "cardedge_session", Value: planted, Path: "/dashboard"}})
		if p := victim.signIn(email, dashPassword); p.status != http.StatusSeeOther {
			t.Fatalf("sign-in: %d", p.status)
		}
		if got := sessionCookie(victim, u); got == planted {
			t.Fatal("sign-in kept the planted session id")
		}
		if p := attacker.get("/dashboard/keys"); p.status != http.StatusSeeOther {
			t.Fatalf("the planted session still works: %d", p.status)
		}
	})
}

func sessionCookie(d *dash, u *url.URL) string {
	for _, c := range d.client.Jar.Cookies(u) {
		if c.Name == "cardedge_session" {
			return c.Value
		}
	}
	return ""
}

// Dashboard requests are limited per client address, not charged to a key.
func TestDashboard_RateLimit(t *testing.T) {
	d := newDash(t)
	limited := 0
	for range 80 {
		p := d.get("/dashboard/static/app.css")
		if p.status == http.StatusTooManyRequests {
			limited++
			if p.header.Get("Retry-After") == "" {
				t.Fatal("429 without Retry-After")
			}
		}
	}
	if limited == 0 {
		t.Fatal("80 requests at once were not limited")
	}
	if p := newDash(t).get("/dashboard/signin"); p.status != 200 {
		t.Fatalf("another address: %d", p.status)
	}
}

// The usage page counts a key's calls and its refusals by reason; a
// dashboard page is not charged to the key.
func TestDashboard_UsageCountsRefusals(t *testing.T) {
	d := newDash(t)
	d.signUp(uniqueEmail(t))
	secret, id := d.createKey("counted")
	waitStatus(t, "/api/v3/cards?limit=1", secret, 200)
	if resp := apiGet(t, "/api/v3/cards?limit=abc", secret); resp.StatusCode != 422 {
		t.Fatalf("bad limit: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("POST", env.base+"/api/v3/cards/batch", strings.NewReader(`{"ids":["x"]}`))
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("free batch: %d", resp.StatusCode)
	}
	p := d.get("/dashboard/usage?key=" + id)
	for _, want := range []string{
		"<strong>1</strong> call and <strong>2</strong> refused",
		"<tr><td>403</td>", "<tr><td>422</td>",
		"99 of 100 left (1 used)",
	} {
		if !strings.Contains(p.body, want) {
			t.Errorf("the usage page lacks %q", want)
		}
	}
	for _, r := range []string{"403", "422"} {
		if !regexp.MustCompile(`<tr><td>` + r + `</td><td>[^<]*</td><td>1</td></tr>`).MatchString(p.body) {
			t.Errorf("the usage page does not count one %s", r)
		}
	}
}

// An expired key is a 401 key_expired on REST and on MCP.
func TestKeyExpired(t *testing.T) {
	st := stateAt(t, env.state)
	secret, _, err := access.Keys{State: st}.Create(context.Background(), access.KeySpec{Tier: access.Free, Name: "short-lived", Expires: time.Now().Add(1500 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, "/api/v3/cards?limit=1", secret, 200)
	resp := waitStatus(t, "/api/v3/cards?limit=1", secret, 401)
	_ = resp
	req, _ := http.NewRequest("GET", env.base+"/api/v3/cards?limit=1", nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	r := send(t, req)
	if r.status != 401 || r.msg["error"].(map[string]any)["code"] != apperr.EKEYEXPIRED {
		t.Fatalf("REST: %d %s", r.status, r.body)
	}
	m := rpcRaw(t, env.base, secret, "", initializeMsg(1))
	if m.status != 401 || !strings.Contains(string(m.body), `"code":"key_expired"`) {
		t.Fatalf("MCP: %d %s", m.status, m.body)
	}
}
