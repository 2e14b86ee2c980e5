package webtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Password is the password the clients sign up with.
const Password = "a long and unusual passphrase"

// CSP is the Content-Security-Policy of every dashboard response.
const CSP = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"

// Network makes the transport of a client: each call gives a client address
// of its own.
type Network func() http.RoundTripper

var addrs atomic.Int32

// InProcess serves h in-process: each transport is a client address of its
// own (192.0.2.x, 198.51.100.x, ...), its requests are handed to h as a
// server would, with no listener.
func InProcess(h http.Handler) Network {
	return func() http.RoundTripper {
		n := addrs.Add(1)
		return handlerTransport{h: h, addr: fmt.Sprintf("10.%d.%d.%d:40000", n>>16&255, n>>8&255, n&255)}
	}
}

// Loopback dials the server over TCP; each transport dials from a loopback
// address of its own (127.0.200.10 and on), without keep-alives.
func Loopback() Network {
	return func() http.RoundTripper {
		n := addrs.Add(1)
		local := fmt.Sprintf("127.0.%d.%d", 200+n/240%50, 10+n%240)
		d := &net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
		return &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}
	}
}

type handlerTransport struct {
	h    http.Handler
	addr string
}

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.RemoteAddr, r.RequestURI, r.Host = t.addr, req.URL.RequestURI(), req.URL.Host
	if r.Body == nil {
		r.Body = http.NoBody
	}
	w := httptest.NewRecorder()
	t.h.ServeHTTP(w, r)
	resp := w.Result()
	resp.Request = req
	return resp, nil
}

// Client is a browser-like client of the dashboard at Base.
type Client struct {
	TB     testing.TB
	Base   string // the server's URL, without /dashboard
	HTTP   *http.Client
	Origin string // sent on POSTs ("" for none)
	net    Network
}

// New returns a client of the dashboard at base whose transport (client
// address) comes from network; its Origin is base.
func New(tb testing.TB, base string, network Network) *Client {
	jar, _ := cookiejar.New(nil)
	return &Client{TB: tb, Base: base, Origin: base, net: network, HTTP: &http.Client{Jar: jar, Transport: network(), Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// MoveOn makes the client's next requests come from a fresh client address
// (the dashboard's per-address rate limit is 40 requests in a burst),
// keeping its cookies.
func (c *Client) MoveOn() { c.HTTP.Transport = c.net() }

// Page is one answer.
type Page struct {
	Status int
	Header http.Header
	Body   string
}

// Do sends req.
func (c *Client) Do(req *http.Request) Page {
	c.TB.Helper()
	resp, err := c.HTTP.Do(req)
	if err != nil {
		c.TB.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return Page{Status: resp.StatusCode, Header: resp.Header, Body: string(b)}
}

// Get gets path (from /dashboard on).
func (c *Client) Get(path string) Page {
	c.TB.Helper()
	req, _ := http.NewRequest("GET", c.Base+path, nil)
	return c.Do(req)
}

// Post sends form; headers are name, value pairs.
func (c *Client) Post(path string, form url.Values, headers ...string) Page {
	c.TB.Helper()
	req, _ := http.NewRequest("POST", c.Base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if c.Origin != "" {
		req.Header.Set("Origin", c.Origin)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return c.Do(req)
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// CSRF returns the CSRF token of the form on the page at path.
func (c *Client) CSRF(path string) string {
	c.TB.Helper()
	p := c.Get(path)
	m := csrfRe.FindStringSubmatch(p.Body)
	if m == nil {
		c.TB.Fatalf("no CSRF token on %s (%d): %.300s", path, p.Status, p.Body)
	}
	return m[1]
}

// SignUp creates an account of email with Password and leaves the client
// signed in.
func (c *Client) SignUp(email string) {
	c.TB.Helper()
	p := c.Post("/dashboard/signup", url.Values{"csrf": {c.CSRF("/dashboard/signup")}, "email": {email}, "password": {Password}})
	if p.Status != http.StatusSeeOther {
		c.TB.Fatalf("sign-up: %d %.500s", p.Status, p.Body)
	}
}

// SignIn sends the sign-in form.
func (c *Client) SignIn(email, password string) Page {
	c.TB.Helper()
	return c.Post("/dashboard/signin", url.Values{"csrf": {c.CSRF("/dashboard/signin")}, "email": {email}, "password": {password}})
}

// SignOut sends the sign-out form.
func (c *Client) SignOut() Page {
	c.TB.Helper()
	return c.Post("/dashboard/signout", url.Values{"csrf": {c.CSRF("/dashboard/keys")}})
}

var secretRe = regexp.MustCompile(`<code id="secret-text">(ce_[a-z]_[A-Za-z0-9_-]{43})</code>`)
var keyIDRe = regexp.MustCompile(`/dashboard/keys/(k_[a-z2-7]{8})/revoke`)

// CreateKey creates a key named name (90 days) and returns its secret and
// id, read off the keys page that shows it once.
func (c *Client) CreateKey(name string) (secret, id string) {
	c.TB.Helper()
	p := c.Post("/dashboard/keys", url.Values{"csrf": {c.CSRF("/dashboard/keys")}, "name": {name}, "expires": {"90"}})
	if p.Status != http.StatusSeeOther {
		c.TB.Fatalf("create key: %d %.500s", p.Status, p.Body)
	}
	p = c.Get("/dashboard/keys")
	m := secretRe.FindStringSubmatch(p.Body)
	ids := keyIDRe.FindStringSubmatch(p.Body)
	if m == nil || ids == nil {
		c.TB.Fatalf("no new secret on the keys page: %.2000s", p.Body)
	}
	return m[1], ids[1]
}

// Upload posts a file to the collection's upload form (no file when name
// is "", no token when csrf is "").
func (c *Client) Upload(csrf, name, ctype string, body []byte) Page {
	c.TB.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if csrf != "" {
		mw.WriteField("csrf", csrf)
	}
	if name != "" {
		h := make(map[string][]string)
		h["Content-Disposition"] = []string{`form-data; name="file"; filename="` + name + `"`}
		h["Content-Type"] = []string{ctype}
		part, _ := mw.CreatePart(h)
		part.Write(body)
	}
	mw.Close()
	req, _ := http.NewRequest("POST", c.Base+"/dashboard/collection/upload", &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", c.Origin)
	return c.Do(req)
}

// Paced sends a request with send, waiting out the account's rate limit as
// a person would (a 429 that says so: wait Retry-After, send again; five
// times at most).
func (c *Client) Paced(send func() Page) Page {
	c.TB.Helper()
	for i := 0; ; i++ {
		p := send()
		if p.Status != http.StatusTooManyRequests || !strings.Contains(p.Body, "rate limit") || i == 5 {
			return p
		}
		wait, _ := strconv.Atoi(p.Header.Get("Retry-After"))
		time.Sleep(time.Duration(max(1, wait)) * time.Second)
	}
}

// MarketGet is Get, paced.
func (c *Client) MarketGet(path string) Page {
	c.TB.Helper()
	return c.Paced(func() Page { return c.Get(path) })
}

// ChatToken obtains a chat-user token as the chat page's script does and
// returns it with the whole answer; it fails on an answer that is not a
// JSON token with Cache-Control no-store.
func (c *Client) ChatToken() (string, map[string]any) {
	c.TB.Helper()
	p := c.Post("/dashboard/chat/token", url.Values{"csrf": {c.CSRF("/dashboard/chat")}})
	if p.Status != 200 || !strings.HasPrefix(p.Header.Get("Content-Type"), "application/json") {
		c.TB.Fatalf("chat token: %d %s %.300s", p.Status, p.Header.Get("Content-Type"), p.Body)
	}
	if cc := p.Header.Get("Cache-Control"); cc != "no-store" {
		c.TB.Errorf("chat token Cache-Control %q", cc)
	}
	var j map[string]any
	if err := json.Unmarshal([]byte(p.Body), &j); err != nil {
		c.TB.Fatal(err)
	}
	tok, _ := j["token"].(string)
	if strings.Count(tok, ".") != 2 {
		c.TB.Fatalf("token %q", tok)
	}
	return tok, j
}

// SessionCookie is the client's session id ("" when it has none).
func (c *Client) SessionCookie() string {
	u, _ := url.Parse(c.Base + "/dashboard/")
	for _, ck := range c.HTTP.Jar.Cookies(u) {
		if ck.Name == "cardedge_session" {
			return ck.Value
		}
	}
	return ""
}

// PlantSession puts a session cookie of value in the client's jar, as an
// attacker who controls the browser would.
func (c *Client) PlantSession(value string) {
	u, _ := url.Parse(c.Base + "/dashboard/")
	c.HTTP.Jar.SetCookies(u, []*http.Cookie{{Name: "cardedge_session", Value: value, Path: "/dashboard"}})
}

var errorRe = regexp.MustCompile(`<p class="error" role="alert">([^<]*)</p>`)

// PageError is the error a page says, unescaped ("" when none).
func PageError(p Page) string {
	m := errorRe.FindStringSubmatch(p.Body)
	if m == nil {
		return ""
	}
	return strings.NewReplacer("&#34;", `"`, "&#39;", "'", "&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(m[1])
}

var emails atomic.Int64

// UniqueEmail is an email address of tb's name no other call returns.
func UniqueEmail(tb testing.TB) string {
	return strings.ToLower(strings.NewReplacer("/", ".", "_", "-", " ", "-").Replace(tb.Name())) + fmt.Sprintf(".%d.%d@example.com", time.Now().UnixNano(), emails.Add(1))
}

var refusedRowRe = regexp.MustCompile(`<tr><td>(\d{3})</td><td>[^<]*</td><td>(\d+)</td></tr>`)

// Refused reads the usage page's table of refused calls: the count of each
// status ("403": 1).
func Refused(p Page) map[string]int {
	out := map[string]int{}
	for _, m := range refusedRowRe.FindAllStringSubmatch(p.Body, -1) {
		n, _ := strconv.Atoi(m[2])
		out[m[1]] += n
	}
	return out
}
