package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/web"
	"github.com/cardedge/cardedge/web/webtest"
)

// The dashboard's security at the HTTP level (issue #20's security list but
// the script check, which runs in Chromium: e2e's dashboard browser test):
// CSRF, cookies, CSP, escaping, other accounts' keys, sign-in throttling,
// password storage, session fixation, the per-address rate limit, usage.

func TestDashboard_CSRF(t *testing.T) {
	srv := mustWired(t, web.Options{Signup: true})
	c := srv.client(t)
	c.SignUp(webtest.UniqueEmail(t))
	token := c.CSRF("/dashboard/keys")
	keysBefore := c.Get("/dashboard/keys").Body
	if !strings.Contains(keysBefore, "You have no keys yet") {
		t.Fatalf("a new account has keys: %.1000s", keysBefore)
	}
	tests := []struct {
		name    string
		form    url.Values
		headers []string
		origin  string
	}{
		{"ErrNoToken", url.Values{"name": {"x"}, "expires": {"30"}}, nil, c.Base},
		{"ErrWrongToken", url.Values{"csrf": {token[:40] + "AAA"}, "name": {"x"}, "expires": {"30"}}, nil, c.Base},
		{"ErrOtherOrigin", url.Values{"csrf": {token}, "name": {"x"}, "expires": {"30"}}, nil, "https://evil.example"},
		{"ErrNullOrigin", url.Values{"csrf": {token}, "name": {"x"}, "expires": {"30"}}, nil, "null"},
		{"ErrCrossSite", url.Values{"csrf": {token}, "name": {"x"}, "expires": {"30"}}, []string{"Sec-Fetch-Site", "cross-site"}, ""},
		{"ErrSameSite", url.Values{"csrf": {token}, "name": {"x"}, "expires": {"30"}}, []string{"Sec-Fetch-Site", "same-site"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.Origin = tt.origin
			defer func() { c.Origin = c.Base }()
			for _, path := range []string{"/dashboard/keys", "/dashboard/signout", "/dashboard/account/signout-everywhere"} {
				p := c.Post(path, tt.form, tt.headers...)
				if p.Status != http.StatusForbidden {
					t.Fatalf("POST %s: %d, want 403", path, p.Status)
				}
			}
			if got := c.Get("/dashboard/keys"); got.Status != 200 || !strings.Contains(got.Body, "You have no keys yet") {
				t.Fatalf("the refused forms changed something: %d %.500s", got.Status, got.Body)
			}
		})
	}
	t.Run("ErrSignInWithoutFormCookie", func(t *testing.T) {
		fresh := srv.client(t)
		p := fresh.Post("/dashboard/signin", url.Values{"csrf": {token}, "email": {"a@example.com"}, "password": {webtest.Password}})
		if p.Status != http.StatusForbidden {
			t.Fatalf("sign-in without the form's cookie: %d", p.Status)
		}
	})
	t.Run("OK", func(t *testing.T) {
		if _, id := c.CreateKey("fine"); id == "" {
			t.Fatal("no key")
		}
	})
}

func TestDashboard_Cookies(t *testing.T) {
	srv := mustWired(t, web.Options{Signup: true})
	c := srv.client(t)
	email := webtest.UniqueEmail(t)
	c.SignUp(email)
	c.Post("/dashboard/signout", url.Values{"csrf": {c.CSRF("/dashboard/keys")}})
	p := c.SignIn(email, webtest.Password)
	if p.Status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", p.Status)
	}
	var session string
	for _, c := range p.Header.Values("Set-Cookie") {
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
	srv := mustWired(t, web.Options{Signup: true})
	c := srv.client(t)
	c.SignUp(webtest.UniqueEmail(t))
	_, id := c.CreateKey("csp")
	for _, path := range []string{"/dashboard/signup", "/dashboard/signin", "/dashboard/keys", "/dashboard/keys/" + id + "/roll",
		"/dashboard/keys/" + id + "/revoke", "/dashboard/usage", "/dashboard/usage?days=90&key=" + id, "/dashboard/account",
		"/dashboard/nowhere", "/dashboard/static/app.css", "/dashboard"} {
		p := c.Get(path)
		if got := p.Header.Get("Content-Security-Policy"); got != webtest.CSP {
			t.Errorf("%s (%d): CSP %q", path, p.Status, got)
		}
		if strings.Contains(p.Body, "<script>") || strings.Contains(p.Body, "style=") || strings.Contains(p.Body, " on") && regexp.MustCompile(`\son[a-z]+=`).MatchString(p.Body) {
			t.Errorf("%s has inline script or style", path)
		}
	}
	p := c.Post("/dashboard/keys", url.Values{}) // a 403 page too
	if got := p.Header.Get("Content-Security-Policy"); p.Status != 403 || got != webtest.CSP {
		t.Errorf("403 page: %d, CSP %q", p.Status, got)
	}
}

func TestDashboard_KeyNameIsText(t *testing.T) {
	srv := mustWired(t, web.Options{Signup: true})
	c := srv.client(t)
	c.SignUp(webtest.UniqueEmail(t))
	const evil = `<img src=x onerror=alert(1)>`
	_, id := c.CreateKey(evil)
	for _, path := range []string{"/dashboard/keys", "/dashboard/keys/" + id + "/roll", "/dashboard/keys/" + id + "/revoke", "/dashboard/usage", "/dashboard/account"} {
		p := c.Get(path)
		if strings.Contains(p.Body, "<img") {
			t.Errorf("%s renders the name as markup", path)
		}
		if path != "/dashboard/account" && !strings.Contains(p.Body, "&lt;img src=x onerror=alert(1)&gt;") {
			t.Errorf("%s does not show the name as text", path)
		}
	}
}

func TestDashboard_OtherAccountsKey(t *testing.T) {
	srv := mustWired(t, web.Options{Signup: true})
	a, b := srv.client(t), srv.client(t)
	a.SignUp(webtest.UniqueEmail(t) + ".a")
	b.SignUp(webtest.UniqueEmail(t) + ".b")
	secret, id := a.CreateKey("a's key")
	bToken := b.CSRF("/dashboard/keys")
	for _, tt := range []struct {
		method, path string
	}{
		{"GET", "/dashboard/keys/" + id + "/roll"},
		{"GET", "/dashboard/keys/" + id + "/revoke"},
		{"GET", "/dashboard/usage?key=" + id},
		{"POST", "/dashboard/keys/" + id + "/roll"},
		{"POST", "/dashboard/keys/" + id + "/revoke"},
	} {
		var p webtest.Page
		if tt.method == "GET" {
			p = b.Get(tt.path)
		} else {
			p = b.Post(tt.path, url.Values{"csrf": {bToken}, "grace": {"0"}})
		}
		if p.Status != http.StatusNotFound {
			t.Errorf("B %s %s: %d, want 404", tt.method, tt.path, p.Status)
		}
		if strings.Contains(p.Body, "a&#39;s key") || strings.Contains(p.Body, "a's key") {
			t.Errorf("B %s %s shows A's key", tt.method, tt.path)
		}
	}
	if strings.Contains(b.Get("/dashboard/keys").Body, id) {
		t.Error("B's keys page lists A's key")
	}
	// A sync: a revocation would have reached the key table.
	if _, err := srv.caller(t, secret); err != nil {
		t.Fatalf("A's key after B's attempts: %v", err)
	}
}

// Twenty wrong passwords in a row from one address are throttled, while the
// owner signs in from another.
func TestDashboard_SignInThrottle(t *testing.T) {
	srv := mustWired(t, web.Options{Signup: true})
	owner := srv.client(t)
	email := webtest.UniqueEmail(t)
	owner.SignUp(email)
	owner.Post("/dashboard/signout", url.Values{"csrf": {owner.CSRF("/dashboard/keys")}})

	attacker := srv.client(t)
	statuses := map[int]int{}
	retryAfter := ""
	for i := range 20 {
		p := attacker.SignIn(email, fmt.Sprintf("wrong guess %d", i))
		statuses[p.Status]++
		if p.Status == http.StatusTooManyRequests {
			retryAfter = p.Header.Get("Retry-After")
		}
	}
	if statuses[http.StatusTooManyRequests] == 0 || statuses[http.StatusSeeOther] != 0 {
		t.Fatalf("20 wrong passwords: statuses %v, want some 429s", statuses)
	}
	if retryAfter == "" {
		t.Fatal("a throttled sign-in without Retry-After")
	}
	if p := attacker.SignIn(email, webtest.Password); p.Status != http.StatusTooManyRequests {
		t.Fatalf("the right password from the throttled address: %d", p.Status)
	}
	if p := owner.SignIn(email, webtest.Password); p.Status != http.StatusSeeOther {
		t.Fatalf("the owner from another address: %d %.300s", p.Status, p.Body)
	}
	// An unknown email gets the same answer as a wrong password.
	other := srv.client(t)
	wrong := other.SignIn(email, "not the password")
	unknown := other.SignIn("nobody."+email, "not the password")
	if wrong.Status != http.StatusUnauthorized || unknown.Status != wrong.Status ||
		!strings.Contains(wrong.Body, "The email or the password is not right") || !strings.Contains(unknown.Body, "The email or the password is not right") {
		t.Fatalf("wrong password: %d; unknown email: %d", wrong.Status, unknown.Status)
	}
}

func TestDashboard_PasswordStoredAsPHC(t *testing.T) {
	srv := mustWired(t, web.Options{Signup: true})
	c := srv.client(t)
	email := webtest.UniqueEmail(t)
	c.SignUp(email)
	a, err := srv.Accounts.Lookup(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`).MatchString(a.Password) {
		t.Fatalf("stored password %q is not an argon2id PHC string", a.Password)
	}
	if strings.Contains(a.Password, webtest.Password) {
		t.Fatal("the password is stored in clear")
	}
}

func TestDashboard_SessionFixation(t *testing.T) {
	srv := mustWired(t, web.Options{Signup: true})
	email := webtest.UniqueEmail(t)
	srv.client(t).SignUp(email)

	t.Run("PlantedID", func(t *testing.T) {
		victim := srv.client(t)
		planted := strings.Repeat("A", 43) // an id the attacker chose
		victim.PlantSession(planted)
		if p := victim.SignIn(email, webtest.Password); p.Status != http.StatusSeeOther {
			t.Fatalf("sign-in: %d", p.Status)
		}
		if got := victim.SessionCookie(); got == planted || got == "" {
			t.Fatalf("the session cookie after sign-in is %q", got)
		}
		attacker := srv.client(t)
		attacker.PlantSession(planted)
		if p := attacker.Get("/dashboard/keys"); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Header.Get("Location"), "/dashboard/signin") {
			t.Fatalf("the planted id opens the dashboard: %d", p.Status)
		}
	})
	t.Run("AttackersOwnSession", func(t *testing.T) {
		// The attacker signs in to their own account and plants that session
		// id in the victim's browser; the victim signs in: a new id, and the
		// attacker's id is ended.
		attacker := srv.client(t)
		attacker.SignUp(webtest.UniqueEmail(t))
		planted := attacker.SessionCookie()
		victim := srv.client(t)
		victim.PlantSession(planted)
		if p := victim.SignIn(email, webtest.Password); p.Status != http.StatusSeeOther {
			t.Fatalf("sign-in: %d", p.Status)
		}
		if got := victim.SessionCookie(); got == planted {
			t.Fatal("sign-in kept the planted session id")
		}
		if p := attacker.Get("/dashboard/keys"); p.Status != http.StatusSeeOther {
			t.Fatalf("the planted session still works: %d", p.Status)
		}
	})
}

// Dashboard requests are limited per client address, not charged to a key.
func TestDashboard_RateLimit(t *testing.T) {
	srv := mustWired(t, web.Options{Signup: true})
	c := srv.client(t)
	limited := 0
	for range 80 {
		p := c.Get("/dashboard/static/app.css")
		if p.Status == http.StatusTooManyRequests {
			limited++
			if p.Header.Get("Retry-After") == "" {
				t.Fatal("429 without Retry-After")
			}
		}
	}
	if limited == 0 {
		t.Fatal("80 requests at once were not limited")
	}
	if p := srv.client(t).Get("/dashboard/signin"); p.Status != 200 {
		t.Fatalf("another address: %d", p.Status)
	}
}

// The usage page counts a key's calls and its refusals by reason; a
// dashboard page is not charged to the key. (That the edge counts a REST
// call's 403 and 422 there: e2e's TestDashboard_UsageCountsRESTRefusals.)
func TestDashboard_UsageCountsRefusals(t *testing.T) {
	srv := mustWired(t, web.Options{Signup: true})
	c := srv.client(t)
	c.SignUp(webtest.UniqueEmail(t))
	secret, id := c.CreateKey("counted")
	// What the edge does with the key's calls: one is charged, a 422 and
	// a 403 are counted as refused (and not charged).
	caller, err := srv.caller(t, secret)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Access.Charge(caller, 1); err != nil {
		t.Fatal(err)
	}
	srv.Access.CountRefused(caller, 422)
	srv.Access.CountRefused(caller, 403)
	p := c.Get("/dashboard/usage?key=" + id)
	for _, want := range []string{"<strong>1</strong> call and <strong>2</strong> refused", "99 of 100 left (1 used)"} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the usage page lacks %q", want)
		}
	}
	if got := webtest.Refused(p); got["403"] != 1 || got["422"] != 1 || got["401"]+got["429"] != 0 {
		t.Errorf("the usage page counts refusals %v, want one 403 and one 422", got)
	}
}
