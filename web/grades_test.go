package web_test

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/web/webtest"
)

// gradeCodeRE finds a grade code (raw:near_mint, slab:10, bgs:9.5).
var gradeCodeRE = regexp.MustCompile(`\b(raw|slab|bgs|cgc):[a-z0-9_.]+`)

// visibleText is a page's text as a reader sees it: no tags (and so no
// attribute values: links and form values may carry codes), no scripts or
// styles.
func visibleText(body string) string {
	body = regexp.MustCompile(`(?s)<(script|style)\b.*?</(script|style)>`).ReplaceAllString(body, " ")
	return regexp.MustCompile(`(?s)<[^>]*>`).ReplaceAllString(body, " ")
}

// TestDashboard_GradeNames: the pages name grades as people read them (PSA
// 10, Raw, near mint), never by code in visible text, and read the usual
// spellings in their grade parameter; the card page says the one rule of
// confidence and flags.
func TestDashboard_GradeNames(t *testing.T) {
	srv := mustDashboard(t)
	c, _ := srv.signedIn(t, access.Pro)
	csrf := c.CSRF("/dashboard/collection")
	p := c.Paced(func() webtest.Page {
		return c.Upload(csrf, "a.csv", "text/csv", []byte("card_id,grade,quantity\nen:base1-4,PSA 10,1\nen:base1-2,bgs9.5,1\nen:base1-4,,2\n"))
	})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("upload: %d %s", p.Status, webtest.PageError(p))
	}
	preview := p.Header.Get("Location")
	pages := []struct{ path, want string }{
		{preview, "PSA 10"},
		{"/dashboard/cards/en:base1-4?grade=psa10", "Price history: PSA 10"},
		{"/dashboard/cards/en:base1-4?grade=PSA+10", "Price history: PSA 10"},
		{"/dashboard/cards/en:base1-4?grade=nm", "Price history: Raw, near mint"},
		{"/dashboard/cards/en:base1-4?grade=bgs+9.5", "Price history: BGS 9.5"},
		{"/dashboard/cards/en:base1-4", "a thin value is never high confidence"},
		{"/dashboard/movers", "Confidence and flags read the same counts"},
	}
	for _, tc := range pages {
		p := c.MarketGet(tc.path)
		text := visibleText(p.Body)
		if p.Status != 200 || !strings.Contains(text, tc.want) {
			t.Errorf("GET %s: %d, want 200 saying %q: %s", tc.path, p.Status, tc.want, webtest.PageError(p))
		}
		if m := gradeCodeRE.FindString(text); m != "" {
			i := strings.Index(text, m)
			t.Errorf("GET %s shows the grade code %q: ...%s...", tc.path, m, text[max(0, i-80):min(len(text), i+80)])
		}
	}
	if p := c.Paced(func() webtest.Page { return c.Post(preview+"/confirm", map[string][]string{"csrf": {csrf}}) }); p.Status != http.StatusSeeOther {
		t.Fatalf("confirm: %d %s", p.Status, webtest.PageError(p))
	}
	p = c.MarketGet("/dashboard/collection")
	text := visibleText(p.Body)
	for _, want := range []string{"PSA 10", "BGS 9.5", "Raw, near mint"} {
		if !strings.Contains(text, want) {
			t.Errorf("the collection does not say %q", want)
		}
	}
	if m := gradeCodeRE.FindString(text); m != "" {
		t.Errorf("the collection shows the grade code %q", m)
	}
	if !strings.Contains(p.Body, `name="grade" value="slab:10"`) {
		t.Error("the collection's remove form does not carry the grade's code")
	}
}

// TestDashboard_MoversDefault: the movers page ranks as REST's trending
// route and the chat do by default (pricing.MoversMetric and
// MoversLiquidity: composite, $10 and up), shows the floor as its Price
// filter, and takes another.
func TestDashboard_MoversDefault(t *testing.T) {
	srv := mustDashboard(t)
	c, _ := srv.signedIn(t, access.Pro)
	p := c.MarketGet("/dashboard/movers")
	floor := strconv.FormatInt(pricing.MoversLiquidity().MinPriceCents/100, 10)
	if p.Status != 200 || !strings.Contains(p.Body, `<option value="`+pricing.MoversMetric+`" selected>`) ||
		!strings.Contains(p.Body, `<option value="`+floor+`" selected>$`+floor+` and up (default)</option>`) {
		t.Fatalf("the movers page's defaults: %d %s", p.Status, webtest.PageError(p))
	}
	for _, path := range []string{"/dashboard/movers?min_price_usd=0", "/dashboard/movers?min_price_usd=100"} {
		if p := c.MarketGet(path); p.Status != 200 {
			t.Errorf("GET %s: %d %s", path, p.Status, webtest.PageError(p))
		}
	}
	if p := c.MarketGet("/dashboard/movers?min_price_usd=7"); p.Status != 422 || !strings.Contains(webtest.PageError(p), "“7”") {
		t.Errorf("a floor not offered: %d %q", p.Status, webtest.PageError(p))
	}
}
