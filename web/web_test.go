package web_test

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/web"
)

var csrfRe = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// signUp runs the sign-up form against srv with client c (whose requests
// carry origin) and returns the response to the POST.
func signUp(t *testing.T, c *http.Client, base, origin string) *http.Response {
	t.Helper()
	resp, err := c.Get(base + "/dashboard/signup")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfRe.FindSubmatch(body)
	if m == nil {
		t.Fatalf("no CSRF token: %s", body)
	}
	var formCookie *http.Cookie
	for _, ck := range resp.Cookies() {
		if strings.HasSuffix(ck.Name, "cardedge_form") {
			formCookie = ck
		}
	}
	if formCookie == nil {
		t.Fatalf("no form cookie: %v", resp.Header.Values("Set-Cookie"))
	}
	form := url.Values{"csrf": {string(m[1])}, "email": {"ada@example.com"}, "password": {"a long and unusual passphrase"}}
	req, _ := http.NewRequest("POST", base+"/dashboard/signup", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", origin)
	req.AddCookie(formCookie) // sent by hand: a Secure cookie over plain http is not in the jar
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-up: %d", resp.StatusCode)
	}
	return resp
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// Over https (the public URL or TLS), cookies are Secure __Host- cookies.
func TestHandler_SecureCookies(t *testing.T) {
	t.Run("PublicURL", func(t *testing.T) {
		h := MustHandler(t, web.Options{PublicURL: "https://cards.example.com", Signup: true})
		srv := httptest.NewServer(h)
		defer srv.Close()
		resp := signUp(t, &http.Client{CheckRedirect: noRedirect}, srv.URL, "https://cards.example.com")
		checkSecureSession(t, resp)
	})
	t.Run("TLS", func(t *testing.T) {
		h := MustHandler(t, web.Options{Signup: true})
		srv := httptest.NewTLSServer(h)
		defer srv.Close()
		c := srv.Client()
		c.CheckRedirect = noRedirect
		c.Transport.(*http.Transport).TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
		resp := signUp(t, c, srv.URL, srv.URL)
		checkSecureSession(t, resp)
	})
	t.Run("ErrPublicURLOrigin", func(t *testing.T) {
		// With a public URL, the request's own Host is not an accepted origin.
		h := MustHandler(t, web.Options{PublicURL: "https://cards.example.com", Signup: true})
		req := httptest.NewRequest("POST", "http://127.0.0.1/dashboard/signup", strings.NewReader("csrf=x"))
		req.Header.Set("Origin", "http://127.0.0.1")
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusForbidden {
			t.Fatalf("%d", w.Code)
		}
	})
}

func checkSecureSession(t *testing.T, resp *http.Response) {
	t.Helper()
	var got string
	for _, c := range resp.Header.Values("Set-Cookie") {
		if strings.HasPrefix(c, "__Host-cardedge_session=") {
			got = c
		}
	}
	for _, want := range []string{"Secure", "HttpOnly", "SameSite=Lax", "Path=/"} {
		if !strings.Contains(got, want) {
			t.Errorf("session cookie %q lacks %s (all: %v)", got, want, resp.Header.Values("Set-Cookie"))
		}
	}
	if strings.Contains(got, "Domain=") {
		t.Errorf("a __Host- cookie with a Domain: %q", got)
	}
}

// Sign-up closed: the page says so and the form is refused.
func TestHandler_SignupClosed(t *testing.T) {
	h := MustHandler(t, web.Options{})
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/dashboard/signup")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "Sign-up is closed on this server") || strings.Contains(string(body), `action="/dashboard/signup"`) {
		t.Fatalf("closed sign-up page: %s", body)
	}
}

func TestHandler_Unknown(t *testing.T) {
	h := MustHandler(t, web.Options{})
	for _, path := range []string{"/dashboard/nope", "/dashboard/static/nope.css", "/dashboard/keys/k_aaaaaaaa/roll/x"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		if w.Code != http.StatusNotFound || !strings.Contains(w.Body.String(), "There is no page at this address") {
			t.Errorf("%s: %d", path, w.Code)
		}
	}
	// Signed-out pages send people to sign in, and back afterwards.
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/dashboard/usage?days=90", nil))
	if got := w.Header().Get("Location"); w.Code != http.StatusSeeOther || got != "/dashboard/signin?next=%2Fdashboard%2Fusage%3Fdays%3D90" {
		t.Fatalf("%d %q", w.Code, got)
	}
}

func TestHandler_Assets(t *testing.T) {
	h := MustHandler(t, web.Options{})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/dashboard/signin", nil))
	m := regexp.MustCompile(`href="(/dashboard/static/app.css\?v=[0-9a-f]{12})"`).FindStringSubmatch(w.Body.String())
	if m == nil {
		t.Fatalf("no stylesheet link: %s", w.Body.String())
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", m[1], nil))
	if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/css") || !strings.Contains(w.Header().Get("Cache-Control"), "immutable") {
		t.Fatalf("%d %v", w.Code, w.Header())
	}
	if strings.Contains(w.Body.String(), "@import") || strings.Contains(w.Body.String(), "http") {
		t.Fatal("the stylesheet fetches from elsewhere")
	}
}

func TestNewBarChart(t *testing.T) {
	labels := []string{"2026-11-01", "2026-11-02", "2026-11-03"}
	c := web.NewBarChartForTest("c", "Calls", "call", labels, []web.Series{
		{Name: "calls", Class: "bar-calls", Values: []int64{0, 7, 3}},
		{Name: "refused", Class: "bar-refused", Values: []int64{0, 1, 0}},
	})
	if got, want := len(c.Bars), 4; got != want { // 2 + 1 bars, and a tap target for the empty day
		t.Fatalf("%d bars, want %d", got, want)
	}
	if c.Grid[len(c.Grid)-1].Label != "10" || c.Grid[1].Label != "5" {
		t.Fatalf("ticks %+v", c.Grid)
	}
	if c.Desc != "11 calls over 3 days, 2026-11-01 to 2026-11-03; the busiest day had 8." {
		t.Fatalf("desc %q", c.Desc)
	}
	for _, b := range c.Bars {
		if !strings.HasSuffix(b.X, "%") || !strings.HasSuffix(b.W, "%") {
			t.Fatalf("bar %+v: not in percent", b)
		}
	}
	if c.Bars[1].Label != "2026-11-02: 7 calls, 1 refused" {
		t.Fatalf("label %q", c.Bars[1].Label)
	}
	empty := web.NewBarChartForTest("e", "Calls", "call", labels, []web.Series{{Name: "calls", Values: []int64{0, 0, 0}}})
	if !empty.Empty || empty.Grid[1].Label != "1" {
		t.Fatalf("empty chart %+v", empty)
	}
}

func TestLimiter(t *testing.T) {
	h := MustHandler(t, web.Options{RatePerSec: 1, Burst: 3})
	codes := ""
	for range 5 {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "/dashboard/signin", nil)
		r.RemoteAddr = "198.51.100.9:1234"
		h.ServeHTTP(w, r)
		codes += http.StatusText(w.Code)[:2]
	}
	if codes != "OKOKOKToTo" {
		t.Fatalf("statuses %s", codes)
	}
}

// After sign-in, only a dashboard path of this site is followed.
func TestSafeNext(t *testing.T) {
	for next, want := range map[string]string{
		"/dashboard/usage?days=90": "/dashboard/usage?days=90",
		"":                         "/dashboard/keys",
		"//evil.example/x":         "/dashboard/keys",
		"https://evil.example/":    "/dashboard/keys",
		"/dashboard/../../evil":    "/dashboard/../../evil", // a path of this site: harmless
		"/dashboard/\\evil":        "/dashboard/keys",
		"/dashboard/signin":        "/dashboard/keys",
		"/api/v3/cards":            "/dashboard/keys",
	} {
		if got := web.SafeNext(next); got != want {
			t.Errorf("SafeNext(%q) = %q, want %q", next, got, want)
		}
	}
}
