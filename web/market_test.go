package web_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/web/webtest"
)

// The market pages and the collection at the HTTP level with a Free
// account: every page answers, the account's history window applies, and
// bad input (an unknown card or set, a bad grade, printing, range, metric or
// search, a malformed, empty or huge upload, a forged choice) is a plain
// error page or the page with a form error, never a 500. e2e's market
// browser test drives the same pages in Chromium.

func TestDashboard_MarketPages(t *testing.T) {
	srv := mustDashboard(t)
	c := srv.client(t)
	// Signed out, a market page asks to sign in and the lookup is a 401.
	if p := c.Get("/dashboard/cards/en:base1-4"); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Header.Get("Location"), "/dashboard/signin?next=") {
		t.Fatalf("signed out: %d %v", p.Status, p.Header)
	}
	if p := c.Get("/dashboard/lookup?q=chari"); p.Status != http.StatusUnauthorized || !strings.Contains(p.Body, "sign in") {
		t.Fatalf("lookup signed out: %d %s", p.Status, p.Body)
	}
	c.SignUp(webtest.UniqueEmail(t))
	// A Free account's history window (3 days) clamps the card page's range.
	p := c.Get("/dashboard/cards/en:base1-4?range=365")
	if !strings.Contains(p.Body, "Your history window: 3 days (2026-11-18 to 2026-11-20)") || !strings.Contains(p.Body, "2026-11-18 to 2026-11-20: a point per change") {
		t.Errorf("the Free window on the card page: %d %s", p.Status, webtest.PageError(p))
	}

	// The rest with a Pro account: its rate limit (20 pages a second, bursts
	// of 40) lets a test go faster than a Free account's (5, bursts of 10).
	c, _ = srv.signedIn(t, access.Pro)
	for _, tc := range []struct{ path, want string }{
		{"/dashboard/cards", "Search cards"},
		{"/dashboard/cards?q=chari", "Charizard"},
		// The page's own example (issue 34), and a value that matches nothing.
		{"/dashboard/cards?q=set%3Abase+rarity%3Aholo", "16 cards for “set:base rarity:holo”"},
		{"/dashboard/cards?q=set%3Abase+rarity%3Aholx", `rarity:holx matches none of the cards the rest of the query selects. Try <a href="/dashboard/cards?q=set%3Abase&#43;rarity%3A%22rare&#43;holo%22">rarity:&#34;rare holo&#34;</a>`},
		{"/dashboard/cards/en:base1-4", "Grade ladder"},
		{"/dashboard/cards/en:base1-4?printing=1st+edition&grade=slab:10&range=all", "holo/shadowless/1st-edition"},
		{"/dashboard/sets/en:base1", "Breakdown by rarity"},
		{"/dashboard/movers?metric=slab_sales_count&window=90d&language=en&direction=asc", "Slabs: sales, 90 days"},
		{"/dashboard/collection", "Your collection is empty."},
	} {
		p := c.MarketGet(tc.path)
		if p.Status != 200 || !strings.Contains(p.Body, tc.want) {
			t.Errorf("GET %s: %d, want 200 with %q: %s", tc.path, p.Status, tc.want, webtest.PageError(p))
		}
		if p.Header.Get("Content-Security-Policy") != webtest.CSP || p.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s: CSP %q, Cache-Control %q", tc.path, p.Header.Get("Content-Security-Policy"), p.Header.Get("Cache-Control"))
		}
	}

	// The lookup answers the typeahead with the index's suggestions.
	p = c.MarketGet("/dashboard/lookup?q=chari")
	var look struct {
		Items []struct{ ID, Label, Href string }
	}
	if err := json.Unmarshal([]byte(p.Body), &look); err != nil || p.Status != 200 || len(look.Items) == 0 ||
		look.Items[0].ID != "en:base1-4" || look.Items[0].Href != "/dashboard/cards/en:base1-4" {
		t.Fatalf("lookup: %d %s", p.Status, p.Body)
	}

	// Bad input: a plain error page (404) or the page with a form error
	// (422), never a 500.
	c.MoveOn()
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
		p := c.MarketGet(tc.path)
		if p.Status != tc.status || !strings.Contains(webtest.PageError(p), tc.want) {
			t.Errorf("GET %s: %d %q, want %d %q", tc.path, p.Status, webtest.PageError(p), tc.status, tc.want)
		}
	}

	// Uploads that cannot be read: the collection page says why (422, 413),
	// or, past the form's size limit, a plain page (413).
	c.MoveOn()
	csrf := c.CSRF("/dashboard/collection")
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
		p := c.Paced(func() webtest.Page { return c.Upload(csrf, tc.file, tc.ctype, tc.body) })
		if p.Status != tc.status || !strings.Contains(webtest.PageError(p), tc.want) {
			t.Errorf("upload %s: %d %q, want %d %q", tc.name, p.Status, webtest.PageError(p), tc.status, tc.want)
		}
		if tc.status == 422 && !strings.Contains(p.Body, "Add cards from a file") {
			t.Errorf("upload %s: not the collection page", tc.name)
		}
	}
	if p := c.Upload("", "a.csv", "text/csv", []byte("card_id\nen:base1-4\n")); p.Status != http.StatusForbidden {
		t.Errorf("upload without the CSRF token: %d", p.Status)
	}

	// A confirm with a choice that is not a candidate: the preview again,
	// with what was wrong; nothing is added.
	c.MoveOn()
	p = c.Paced(func() webtest.Page {
		return c.Upload(csrf, "a.csv", "text/csv", []byte("name,quantity\nCharizard ex,1\n"))
	})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("upload: %d %s", p.Status, webtest.PageError(p))
	}
	preview := p.Header.Get("Location")
	p = c.MarketGet(preview)
	if p.Status != 200 || !strings.Contains(p.Body, `value="en:sv3pt5-6"`) {
		t.Fatalf("preview %s: %d %s", preview, p.Status, webtest.PageError(p))
	}
	p = c.Paced(func() webtest.Page {
		return c.Post(preview+"/confirm", url.Values{"csrf": {csrf}, "choice-1": {"en:base1-4"}})
	})
	if p.Status != 422 || !strings.Contains(webtest.PageError(p), "en:base1-4") || !strings.Contains(p.Body, "Ambiguous rows: pick the card") {
		t.Errorf("confirm with a forged choice: %d %q", p.Status, webtest.PageError(p))
	}
	if p := c.MarketGet("/dashboard/collection"); !strings.Contains(p.Body, "Your collection is empty.") {
		t.Error("a refused confirm added to the collection")
	}
	// The right choice: the collection has the card.
	if p := c.Paced(func() webtest.Page {
		return c.Post(preview+"/confirm", url.Values{"csrf": {csrf}, "choice-1": {"en:sv3pt5-6"}})
	}); p.Status != http.StatusSeeOther {
		t.Fatalf("confirm: %d %q", p.Status, webtest.PageError(p))
	}
	if p := c.MarketGet("/dashboard/collection?done=imported"); !strings.Contains(p.Body, "Import confirmed") || !strings.Contains(p.Body, "en:sv3pt5-6") {
		t.Errorf("the collection after the confirm: %s", webtest.PageError(p))
	}
	// Confirmed twice (a second click, a resent form): nothing doubles.
	if p := c.Paced(func() webtest.Page {
		return c.Post(preview+"/confirm", url.Values{"csrf": {csrf}, "choice-1": {"en:sv3pt5-6"}})
	}); p.Status != http.StatusSeeOther {
		t.Errorf("a second confirm: %d %q", p.Status, webtest.PageError(p))
	}
	if p := c.MarketGet("/dashboard/collection/export.csv"); p.Status != 200 || strings.Count(p.Body, "en:sv3pt5-6") != 1 || !strings.HasPrefix(p.Header.Get("Content-Type"), "text/csv") {
		t.Errorf("export: %d %s", p.Status, p.Body)
	}

	// Remove: a holding that is not there is a 404; the one that is goes.
	remove := func(id string) webtest.Page {
		return c.Paced(func() webtest.Page {
			return c.Post("/dashboard/collection/remove", url.Values{"csrf": {csrf}, "game": {"pokemon"}, "card_id": {id}, "grade": {"raw:near_mint"}})
		})
	}
	if p := remove("en:base1-4"); p.Status != 404 {
		t.Errorf("remove a card not held: %d %q", p.Status, webtest.PageError(p))
	}
	if p := remove("en:sv3pt5-6"); p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/dashboard/collection?done=removed" {
		t.Fatalf("remove: %d %q", p.Status, webtest.PageError(p))
	}
	if p := c.MarketGet("/dashboard/collection?done=removed"); !strings.Contains(p.Body, "Removed from your collection.") || !strings.Contains(p.Body, "Your collection is empty.") {
		t.Errorf("after the remove: %s", webtest.PageError(p))
	}
}

// TestDashboard_MarketQuota: market pages spend the account's own daily
// quota (the one its chat spends): once a Free account's 100 units are gone,
// a market page is a 429 that says when the quota comes back, while the
// search box's suggestions (not charged) and the account's other pages go on.
func TestDashboard_MarketQuota(t *testing.T) {
	srv := mustDashboard(t)
	c := srv.client(t)
	c.SignUp(webtest.UniqueEmail(t))
	csrf := c.CSRF("/dashboard/collection") // 1 unit
	rows := func(n int) []byte {
		return append([]byte("card_id,quantity\n"), bytes.Repeat([]byte("en:base1-4,1\n"), n)...)
	}
	// Previews cost one unit per started 100 rows: 49 and 50.
	for _, n := range []int{4900, 5000} {
		if p := c.Upload(csrf, "cards.csv", "text/csv", rows(n)); p.Status != http.StatusSeeOther {
			t.Fatalf("upload of %d rows: %d %q", n, p.Status, webtest.PageError(p))
		}
	}
	p := c.Get("/dashboard/cards/en:base1-4")
	if p.Status != http.StatusTooManyRequests || !strings.Contains(webtest.PageError(p), "daily quota of 100 calls (free tier; market pages, the chat and the collection count against it) is spent") ||
		p.Header.Get("Retry-After") == "" {
		t.Fatalf("a market page past the quota: %d %q %v", p.Status, webtest.PageError(p), p.Header)
	}
	if p := c.Get("/dashboard/lookup?q=chari"); p.Status != 200 {
		t.Errorf("the suggestions past the quota: %d", p.Status)
	}
	if p := c.Get("/dashboard/keys"); p.Status != 200 {
		t.Errorf("the keys page past the quota: %d", p.Status)
	}
}

// TestDashboard_ChatToken: a signed-in page obtains a chat-user token as
// the chat page's script does (POST /dashboard/chat/token): the answer says
// the tier, Apps access (Pro and Elite), where the token works and when it
// expires (15 minutes), and the access layer accepts the token as the
// account's; the endpoint needs the session and its CSRF token.
func TestDashboard_ChatToken(t *testing.T) {
	srv := mustDashboard(t)
	pro, proID := srv.signedIn(t, access.Pro)
	tok, j := pro.ChatToken()
	if j["tier"] != "pro" || j["apps_access"] != true || j["chat_url"] != "/api/v3/agent/chat" || j["mcp_url"] != "/api/v3/mcp/" {
		t.Errorf("token answer %v", j)
	}
	if exp, err := time.Parse(time.RFC3339, j["expires_at"].(string)); err != nil || time.Until(exp) > 15*time.Minute || time.Until(exp) < 14*time.Minute {
		t.Errorf("expires_at %v (%v): want 15 minutes from now", j["expires_at"], err)
	}
	if c, err := srv.Access.AuthenticateChat([]byte("Bearer "+tok), "192.0.2.1"); err != nil || c.Account != proID || c.Tier != access.Pro {
		t.Errorf("the token's caller: %+v %v", c, err)
	}
	free, _ := srv.signedIn(t, access.Free)
	if _, j := free.ChatToken(); j["apps_access"] != false || j["tier"] != "free" {
		t.Errorf("free token answer %v", j)
	}

	if p := pro.Post("/dashboard/chat/token", url.Values{"csrf": {"nope"}}); p.Status != http.StatusForbidden {
		t.Errorf("token without the CSRF token: %d", p.Status)
	}
	if p := srv.client(t).Post("/dashboard/chat/token", url.Values{}); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Header.Get("Location"), "/dashboard/signin") {
		t.Errorf("token without a session: %d %s", p.Status, p.Header.Get("Location"))
	}
}

// TestDashboard_CardRanges (issue 34): the card page offers the ranges of
// price history the account's tier can see, opens on the longest of them,
// and says which tiers see more; a range beyond the window shows the
// window and says so.
func TestDashboard_CardRanges(t *testing.T) {
	srv := mustDashboard(t)
	for _, tc := range []struct {
		tier    access.Tier
		path    string
		options []string // the History selector's, in order; the selected one marked *
		says    []string
	}{
		{access.Free, "/dashboard/cards/en:base1-4", []string{"3 days*"},
			[]string{"2026-11-18 to 2026-11-20: a point per change", "Longer history comes with Pro (7 days) and Elite (all history); the operator of this server sets your tier."}},
		{access.Free, "/dashboard/cards/en:base1-4?range=365", []string{"3 days*"},
			[]string{"1 year is beyond your history window: showing 3 days.", "2026-11-18 to 2026-11-20: a point per change"}},
		{access.Pro, "/dashboard/cards/en:base1-4", []string{"7 days*"},
			[]string{"2026-11-14 to 2026-11-20: a point per change", "Longer history comes with Elite (all history)"}},
		{access.Elite, "/dashboard/cards/en:base1-4", []string{"7 days", "30 days", "90 days", "1 year", "All history*"},
			[]string{"to 2026-11-20: a point per change", "Your history window: unlimited.</p>"}},
		{access.Elite, "/dashboard/cards/en:base1-4?range=90", []string{"7 days", "30 days", "90 days*", "1 year", "All history"},
			[]string{"2026-08-23 to 2026-11-20: a point per change"}},
		{access.Elite, "/dashboard/cards/en:base1-4?range=7", []string{"7 days*", "30 days", "90 days", "1 year", "All history"},
			[]string{"2026-11-14 to 2026-11-20: a point per change"}},
	} {
		t.Run(tc.tier.String()+tc.path[len("/dashboard/cards/en:base1-4"):], func(t *testing.T) {
			c, _ := srv.signedIn(t, tc.tier)
			p := c.MarketGet(tc.path)
			if p.Status != 200 {
				t.Fatalf("GET %s: %d %s", tc.path, p.Status, webtest.PageError(p))
			}
			sel := p.Body[strings.Index(p.Body, `<select id="card-range"`):]
			sel = sel[:strings.Index(sel, "</select>")]
			var got []string
			for _, o := range strings.Split(sel, "<option")[1:] {
				attrs, label, _ := strings.Cut(o, ">")
				label, _, _ = strings.Cut(label, "<")
				label = strings.TrimSpace(label)
				if strings.Contains(attrs, "selected") {
					label += "*"
				}
				got = append(got, label)
			}
			if strings.Join(got, "|") != strings.Join(tc.options, "|") {
				t.Errorf("the History selector offers %q, want %q", got, tc.options)
			}
			for _, s := range tc.says {
				if !strings.Contains(p.Body, s) {
					t.Errorf("the page does not say %q", s)
				}
			}
		})
	}
}
