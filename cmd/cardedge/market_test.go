package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The market pages and the collection at the HTTP level, against the real
// program (env) with a Free account: every page answers, the account's
// history window applies, and bad input (an unknown card or set, a bad
// grade, printing, range, metric or search, a malformed, empty or huge
// upload, a forged choice) is a plain error page or the page with a form
// error, never a 500. The browser test (market_browser_test.go) drives the
// same pages in Chromium.

// upload posts a file to the collection's upload form.
func (d *dash) upload(csrf, name, ctype string, body []byte) dashPage {
	d.t.Helper()
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
	req, _ := http.NewRequest("POST", d.base+"/dashboard/collection/upload", &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", d.origin)
	return d.do(req)
}

// moveOn makes d's next requests come from a fresh loopback address (the
// dashboard's per-address rate limit is 40 requests in a burst), keeping
// its cookies.
func (d *dash) moveOn() {
	local := fmt.Sprintf("127.0.0.%d", 10+dashAddrs.Add(1))
	dl := &net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	d.client.Transport = &http.Transport{DialContext: dl.DialContext, DisableKeepAlives: true}
}

// paced sends a request with send, waiting out the account's rate limit
// as a person would (a 429 that says so: wait Retry-After, send again).
func (d *dash) paced(send func() dashPage) dashPage {
	d.t.Helper()
	for i := 0; ; i++ {
		p := send()
		if p.status != http.StatusTooManyRequests || !strings.Contains(p.body, "rate limit") || i == 5 {
			return p
		}
		wait, _ := strconv.Atoi(p.header.Get("Retry-After"))
		time.Sleep(time.Duration(max(1, wait)) * time.Second)
	}
}

// marketGet is get, paced.
func (d *dash) marketGet(path string) dashPage {
	d.t.Helper()
	return d.paced(func() dashPage { return d.get(path) })
}

var errorRe = regexp.MustCompile(`<p class="error" role="alert">([^<]*)</p>`)

// pageError is the error a page says, unescaped.
func pageError(p dashPage) string {
	m := errorRe.FindStringSubmatch(p.body)
	if m == nil {
		return ""
	}
	return strings.NewReplacer("&#34;", `"`, "&#39;", "'", "&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(m[1])
}

func TestDashboard_MarketPages(t *testing.T) {
	d := newDash(t)
	// Signed out, a market page asks to sign in and the lookup is a 401.
	if p := d.get("/dashboard/cards/en:base1-4"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/dashboard/signin?next=") {
		t.Fatalf("signed out: %d %v", p.status, p.header)
	}
	if p := d.get("/dashboard/lookup?q=chari"); p.status != http.StatusUnauthorized || !strings.Contains(p.body, "sign in") {
		t.Fatalf("lookup signed out: %d %s", p.status, p.body)
	}
	d.signUp(uniqueEmail(t))
	// A Free account's history window (3 days) clamps the card page's range.
	p := d.get("/dashboard/cards/en:base1-4?range=365")
	if !strings.Contains(p.body, "Your history window: 3 days (2026-11-18 to 2026-11-20)") || !strings.Contains(p.body, "2026-11-18 to 2026-11-20: a point per change") {
		t.Errorf("the Free window on the card page: %d %s", p.status, pageError(p))
	}

	// The rest with a Pro account: its rate limit (20 pages a second, bursts
	// of 40) lets a test go faster than a Free account's (5, bursts of 10).
	d, _ = chatSession(t, "pro")
	for _, tc := range []struct{ path, want string }{
		{"/dashboard/cards", "Search cards"},
		{"/dashboard/cards?q=chari", "Charizard"},
		{"/dashboard/cards/en:base1-4", "Grade ladder"},
		{"/dashboard/cards/en:base1-4?printing=1st+edition&grade=slab:10&range=all", "holo/shadowless/1st-edition"},
		{"/dashboard/sets/en:base1", "Breakdown by rarity"},
		{"/dashboard/movers?metric=slab_sales_count&window=90d&language=en&direction=asc", "Slabs: sales, 90 days"},
		{"/dashboard/collection", "Your collection is empty."},
	} {
		p := d.marketGet(tc.path)
		if p.status != 200 || !strings.Contains(p.body, tc.want) {
			t.Errorf("GET %s: %d, want 200 with %q: %s", tc.path, p.status, tc.want, pageError(p))
		}
		if p.header.Get("Content-Security-Policy") != dashCSP || p.header.Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s: CSP %q, Cache-Control %q", tc.path, p.header.Get("Content-Security-Policy"), p.header.Get("Cache-Control"))
		}
	}

	// The lookup answers the typeahead with the index's suggestions.
	p = d.marketGet("/dashboard/lookup?q=chari")
	var look struct {
		Items []struct{ ID, Label, Href string }
	}
	if err := json.Unmarshal([]byte(p.body), &look); err != nil || p.status != 200 || len(look.Items) == 0 ||
		look.Items[0].ID != "en:base1-4" || look.Items[0].Href != "/dashboard/cards/en:base1-4" {
		t.Fatalf("lookup: %d %s", p.status, p.body)
	}

	// Bad input: a plain error page (404) or the page with a form error
	// (422), never a 500.
	d.moveOn()
	for _, tc := range []struct {
		path   string
		status int
		want   string
	}{
		{"/dashboard/cards/en:nope-1", 404, `Card "en:nope-1" not found`},
		{"/dashboard/cards/%ff", 404, "not found"},
		{"/dashboard/cards/en:base1-4?grade=psa:11", 422, "“psa:11” is not a grade"},
		{"/dashboard/cards/en:base1-4?printing=gold", 422, "There is no printing “gold” of this card: showing holo/unlimited."},
		{"/dashboard/cards/en:base1-4?range=abc", 422, "“abc” is not a history range"},
		{"/dashboard/cards/en:base1-4?grade=x&range=y", 422, "is not a history range"},
		{"/dashboard/cards?game=nope", 404, "There is no game “nope”"},
		{"/dashboard/cards?q=%22unterminated", 422, "The search could not be read"},
		{"/dashboard/cards?q=chari&offset=-3", 200, ""},
		{"/dashboard/cards?q=chari&offset=99999999999999999999999", 200, ""},
		{"/dashboard/sets/nope", 404, `Set "nope" not found`},
		{"/dashboard/sets/en:base1?days=7", 422, "“7” is not a period in days"},
		{"/dashboard/movers?metric=price", 422, "“price” is not a metric"},
		{"/dashboard/movers?window=2y&direction=up", 422, "“up” is not a direction"},
		{"/dashboard/collection?sort=zz&offset=-5", 422, "“zz” is not a sort"},
		{"/dashboard/collection/imports/imp_nope", 404, "No preview imp_nope"},
		{"/dashboard/nothing-here", 404, "There is no page at this address."},
	} {
		p := d.marketGet(tc.path)
		if p.status != tc.status || !strings.Contains(pageError(p), tc.want) {
			t.Errorf("GET %s: %d %q, want %d %q", tc.path, p.status, pageError(p), tc.status, tc.want)
		}
	}

	// Uploads that cannot be read: the collection page says why (422, 413),
	// or, past the form's size limit, a plain page (413).
	d.moveOn()
	csrf := d.csrf("/dashboard/collection")
	for _, tc := range []struct {
		name, file, ctype string
		body              []byte
		status            int
		want              string
	}{
		{"no file", "", "", nil, 422, "Choose a CSV or JSON file to upload."},
		{"malformed CSV", "a.csv", "text/csv", []byte("name,set\n\"Charizard,Base\n"), 422, "The file could not be read: Row 1 (line 2)"},
		{"bad JSON", "a.json", "application/json", []byte(`[{"name": ]`), 422, "JSON syntax error"},
		{"binary", "a.png", "image/png", []byte("\x89PNG\r\n\x1a\n\x00\x00\xff\xfe"), 422, "UTF-8"},
		{"empty", "a.csv", "text/csv", nil, 422, "The upload is empty"},
		{"no card column", "a.csv", "text/csv", []byte("foo,bar\n1,2\n"), 422, "names no card column"},
		{"just over 1 MiB", "big.csv", "text/csv", bytes.Repeat([]byte("en:base1-4,1\n"), (1<<20)/12+100), 413, "larger"},
		{"huge", "huge.csv", "text/csv", bytes.Repeat([]byte("x"), 3<<20), 413, "larger than 1 MiB"},
	} {
		p := d.paced(func() dashPage { return d.upload(csrf, tc.file, tc.ctype, tc.body) })
		if p.status != tc.status || !strings.Contains(pageError(p), tc.want) {
			t.Errorf("upload %s: %d %q, want %d %q", tc.name, p.status, pageError(p), tc.status, tc.want)
		}
		if tc.status == 422 && !strings.Contains(p.body, "Add cards from a file") {
			t.Errorf("upload %s: not the collection page", tc.name)
		}
	}
	if p := d.upload("", "a.csv", "text/csv", []byte("card_id\nen:base1-4\n")); p.status != http.StatusForbidden {
		t.Errorf("upload without the CSRF token: %d", p.status)
	}

	// A confirm with a choice that is not a candidate: the preview again,
	// with what was wrong; nothing is added.
	d.moveOn()
	p = d.paced(func() dashPage { return d.upload(csrf, "a.csv", "text/csv", []byte("name,quantity\nCharizard ex,1\n")) })
	if p.status != http.StatusSeeOther {
		t.Fatalf("upload: %d %s", p.status, pageError(p))
	}
	preview := p.header.Get("Location")
	p = d.marketGet(preview)
	if p.status != 200 || !strings.Contains(p.body, `value="en:sv3pt5-6"`) {
		t.Fatalf("preview %s: %d %s", preview, p.status, pageError(p))
	}
	p = d.paced(func() dashPage {
		return d.post(preview+"/confirm", url.Values{"csrf": {csrf}, "choice-1": {"en:base1-4"}})
	})
	if p.status != 422 || !strings.Contains(pageError(p), "en:base1-4") || !strings.Contains(p.body, "Ambiguous rows: pick the card") {
		t.Errorf("confirm with a forged choice: %d %q", p.status, pageError(p))
	}
	if p := d.marketGet("/dashboard/collection"); !strings.Contains(p.body, "Your collection is empty.") {
		t.Error("a refused confirm added to the collection")
	}
	// The right choice: the collection has the card.
	if p := d.paced(func() dashPage {
		return d.post(preview+"/confirm", url.Values{"csrf": {csrf}, "choice-1": {"en:sv3pt5-6"}})
	}); p.status != http.StatusSeeOther {
		t.Fatalf("confirm: %d %q", p.status, pageError(p))
	}
	if p := d.marketGet("/dashboard/collection?done=imported"); !strings.Contains(p.body, "Import confirmed") || !strings.Contains(p.body, "en:sv3pt5-6") {
		t.Errorf("the collection after the confirm: %s", pageError(p))
	}
	// Confirmed twice (a second click, a resent form): nothing doubles.
	if p := d.paced(func() dashPage {
		return d.post(preview+"/confirm", url.Values{"csrf": {csrf}, "choice-1": {"en:sv3pt5-6"}})
	}); p.status != http.StatusSeeOther {
		t.Errorf("a second confirm: %d %q", p.status, pageError(p))
	}
	if p := d.marketGet("/dashboard/collection/export.csv"); p.status != 200 || strings.Count(p.body, "en:sv3pt5-6") != 1 || !strings.HasPrefix(p.header.Get("Content-Type"), "text/csv") {
		t.Errorf("export: %d %s", p.status, p.body)
	}

	// Remove: a holding that is not there is a 404; the one that is goes.
	remove := func(id string) dashPage {
		return d.paced(func() dashPage {
			return d.post("/dashboard/collection/remove", url.Values{"csrf": {csrf}, "game": {"pokemon"}, "card_id": {id}, "grade": {"raw:near_mint"}})
		})
	}
	if p := remove("en:base1-4"); p.status != 404 {
		t.Errorf("remove a card not held: %d %q", p.status, pageError(p))
	}
	if p := remove("en:sv3pt5-6"); p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/collection?done=removed" {
		t.Fatalf("remove: %d %q", p.status, pageError(p))
	}
	if p := d.marketGet("/dashboard/collection?done=removed"); !strings.Contains(p.body, "Removed from your collection.") || !strings.Contains(p.body, "Your collection is empty.") {
		t.Errorf("after the remove: %s", pageError(p))
	}
}

// TestDashboard_MarketQuota: market pages spend the account's own daily
// quota (the one its chat spends): once a Free account's 100 units are gone,
// a market page is a 429 that says when the quota comes back, while the
// search box's suggestions (not charged) and the account's other pages go on.
func TestDashboard_MarketQuota(t *testing.T) {
	d := newDash(t)
	d.signUp(uniqueEmail(t))
	csrf := d.csrf("/dashboard/collection") // 1 unit
	rows := func(n int) []byte {
		return append([]byte("card_id,quantity\n"), bytes.Repeat([]byte("en:base1-4,1\n"), n)...)
	}
	// Previews cost one unit per started 100 rows: 49 and 50.
	for _, n := range []int{4900, 5000} {
		if p := d.upload(csrf, "cards.csv", "text/csv", rows(n)); p.status != http.StatusSeeOther {
			t.Fatalf("upload of %d rows: %d %q", n, p.status, pageError(p))
		}
	}
	p := d.get("/dashboard/cards/en:base1-4")
	if p.status != http.StatusTooManyRequests || !strings.Contains(pageError(p), "daily quota of 100 calls (free tier; market pages, the chat and the collection count against it) is spent") ||
		p.header.Get("Retry-After") == "" {
		t.Fatalf("a market page past the quota: %d %q %v", p.status, pageError(p), p.header)
	}
	if p := d.get("/dashboard/lookup?q=chari"); p.status != 200 {
		t.Errorf("the suggestions past the quota: %d", p.status)
	}
	if p := d.get("/dashboard/keys"); p.status != 200 {
		t.Errorf("the keys page past the quota: %d", p.status)
	}
}
